import Foundation
import Testing
@testable import VouchStoreSQLite

/// Text is bound from the string's own UTF-8 (no NUL-terminated copy), so what SQLite stores must
/// still be exactly the string: its length, an empty text that is not NULL, bytes past a NUL.
@Suite("Bound text")
struct TextBindingTests {
    @Test(
        "text is stored exactly as bound",
        arguments: [
            "", "a", "user-0-42", String(repeating: "long text that is stored on the heap ", count: 40),
            "Zoë 🦊 名前", "before\u{0}after", String("a substring of a longer string".dropFirst(2).prefix(9)),
        ])
    func exactly(text: String) throws {
        let handle = try SQLiteConnectionHandle(path: ":memory:")
        defer { handle.close() }
        let row = try #require(
            try handle.rows(
                "SELECT ? AS value, typeof(?) AS kind, length(CAST(? AS BLOB)) AS bytes",
                [.text(text), .text(text), .text(text)]
            ).first)
        #expect(row.column("kind") == .text("text"), "bound as text, never as NULL")
        #expect(row.column("bytes") == .integer(Int64(text.utf8.count)))
        #expect(row.column("value") == .text(text))
    }

    /// A UUID is spelt into a stack buffer at the bind: stored, it must be the very text
    /// `lowercased` gives (what rows written before this bind held, and what look-ups compare).
    @Test(
        "a UUID is bound as its lower-case text",
        arguments: [
            UUID(uuid: (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)),
            UUID(uuid: (0xF0, 0xE1, 0xD2, 0xC3, 0xB4, 0xA5, 0x96, 0x87, 0x78, 0x69, 0x5A, 0x4B, 0x3C, 0x2D, 0x1E, 0xFF)),
            UUID(),
        ])
    func uuid(id: UUID) throws {
        let handle = try SQLiteConnectionHandle(path: ":memory:")
        defer { handle.close() }
        let row = try #require(
            try handle.rows(
                "SELECT ? AS value, typeof(?) AS kind, ? = ? AS same",
                [.uuid(id), .uuid(id), .uuid(id), .text(id.uuidString.lowercased())]
            ).first)
        #expect(row.column("kind") == .text("text"))
        #expect(row.column("value") == .text(id.uuidString.lowercased()))
        #expect(row.column("same") == .integer(1))
        #expect(id.withLowercasedUTF8 { String(decoding: $0, as: UTF8.self) } == id.lowercased)
    }

    /// Columns are found by comparing names in turn; a name used twice answers with the leftmost
    /// column, as SQLite's own look-up by name does.
    @Test("a column is found by its name, the leftmost of equal names, and a missing name is nil")
    func columnsByName() throws {
        let handle = try SQLiteConnectionHandle(path: ":memory:")
        defer { handle.close() }
        let row = try #require(try handle.rows("SELECT 1 AS a, 2 AS b, 3 AS a, 'x' AS display_name", []).first)
        #expect(row.column("a") == .integer(1))
        #expect(row.column("b") == .integer(2))
        #expect(row.column("display_name") == .text("x"))
        #expect(row.column("A") == nil, "names compare exactly")
        #expect(row.column("c") == nil)
    }
}
