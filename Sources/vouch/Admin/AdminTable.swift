import Foundation

/// A table as the admin commands print it: a header, then one line per row, each column padded to
/// its widest cell and two spaces apart, with no trailing spaces.
enum AdminTable {
    static func lines(header: [String], rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { cells in
            zip(cells, widths).map { cell, width in cell + String(repeating: " ", count: width - cell.count) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
    }
}
