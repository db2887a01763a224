import Foundation
import Testing
@testable import VouchStoreSQLite

/// Text is bound from the string's own UTF-8 (no NUL-terminated copy), so what SQLite stores must
/// still be exactly the string: its length, an empty text that is not NULL, bytes past a NUL.
@Suite("Bound text")
struct TextBindingTests {
    @Test("text is stored exactly as bound", arguments: [
        "", "a", "user-0-42", String(repeating: "long text that is stored on the heap ", count: 40),
        "Zoë 🦊 名前", "before\u{0}after", String("a substring of a longer string".dropFirst(2).prefix(9)),
    ])
    func exactly(text: String) throws {
        let handle = try SQLiteConnectionHandle(path: ":memory:")
        defer { handle.close() }
        let row = try #require(try handle.rows("SELECT ? AS value, typeof(?) AS kind, length(CAST(? AS BLOB)) AS bytes",
                                               [.text(text), .text(text), .text(text)]).first)
        #expect(row.column("kind") == .text("text"), "bound as text, never as NULL")
        #expect(row.column("bytes") == .integer(Int64(text.utf8.count)))
        #expect(row.column("value") == .text(text))
    }
}
