import Testing
@testable import VouchStoreSQLite

@Suite("Prepared-statement cache keys")
struct StatementKeyTests {
    @Test("statements alike at both ends and in length are still different statements")
    func alikeAtTheEnds() throws {
        let first = "SELECT value_a FROM t WHERE x = ?", second = "SELECT value_b FROM t WHERE x = ?"
        #expect(first.utf8.count == second.utf8.count)
        #expect(StatementKey(first) != StatementKey(second))
        #expect(StatementKey(first).hashValue == StatementKey(second).hashValue, "the same length and ends: one bucket")
        #expect(Set([StatementKey(first), StatementKey(second), StatementKey(first)]).count == 2)
        #expect(StatementKey("") == StatementKey("") && StatementKey("x") != StatementKey("y"))
        #expect(StatementKey("short") != StatementKey("shorT"))
    }

    @Test("a connection runs statements that differ only in the middle as what they are")
    func connectionKeepsThemApart() throws {
        let handle = try SQLiteConnectionHandle(path: ":memory:")
        defer { handle.close() }
        for _ in 0..<2 {
            let first = try handle.rows("SELECT 1 AS v, 'a' AS w", []).first?.column("v")
            let second = try handle.rows("SELECT 2 AS v, 'a' AS w", []).first?.column("v")
            #expect(first == .integer(1) && second == .integer(2))
        }
    }
}
