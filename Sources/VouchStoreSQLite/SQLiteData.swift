/// A value bound to, or read from, an SQLite statement: the five storage classes.
enum SQLiteData: Sendable, Equatable {
    case integer(Int64)
    case float(Double)
    case text(String)
    case blob([UInt8])
    case null

    var isNull: Bool { self == .null }

    var string: String? {
        if case .text(let value) = self { return value }
        return nil
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
        names.index[name].map { values[$0] }
    }
}

/// The column names of a prepared statement, shared by every row it returns.
final class SQLiteColumnNames: Sendable {
    let index: [String: Int]
    init(_ names: [String]) {
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
        self.index = index
    }
}
