import Foundation

/// A value bound to, or read from, an SQLite statement: the five storage classes, and a UUID to
/// bind as its lower-case text.
enum SQLiteData: Sendable, Equatable {
    case integer(Int64)
    case float(Double)
    case text(String)
    case blob([UInt8])
    case null
    /// Bound as text, spelt into a stack buffer at the bind: most statements bind an app's id,
    /// and a `.text` of it would be a heap string a bind. Never read back: a column is `.text`.
    case uuidText(UUID)

    /// A UUID bound as its lower-case text (`uuidText`).
    static func uuid(_ value: UUID) -> SQLiteData { .uuidText(value) }

    var isNull: Bool { self == .null }

    var string: String? {
        switch self {
        case .text(let value): value
        case .uuidText(let id): id.lowercased
        default: nil
        }
    }

    /// 0 and 1, as SQLite stores booleans.
    var bool: Bool? {
        guard case .integer(let value) = self, value == 0 || value == 1 else { return nil }
        return value == 1
    }
}

/// One result row: values in column order, looked up by column name.
struct SQLiteRow: Sendable {
    let names: SQLiteColumnNames
    let values: [SQLiteData]

    func column(_ name: String) -> SQLiteData? {
        names.position(of: name).map { values[$0] }
    }
}

/// The column names of a prepared statement, shared by every row it returns.
///
/// A name is found by comparing it with each column's in turn: the store's rows have at most a
/// dozen columns with short (inline) names, which compare in a couple of word comparisons each,
/// where a dictionary hashed the whole name with a freshly seeded hasher on every look-up (a
/// sign-in's rows made a dozen of them on the writer).
final class SQLiteColumnNames: Sendable {
    private let names: [String]

    init(_ names: [String]) {
        self.names = names
    }

    /// The first column of that name (SQLite numbers columns from the left, and a row read by
    /// name answers with the leftmost, as the dictionary this replaced did).
    func position(of name: String) -> Int? {
        names.firstIndex(of: name)
    }
}
