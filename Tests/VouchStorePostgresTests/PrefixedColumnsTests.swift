import Foundation
import Synchronization
import Testing
import VouchProtocol
import VouchStore
@testable import VouchStorePostgres

/// The sign-in's read selects each record's columns by name (`postgresColumns`); the records are
/// decoded by the decoders both backends share. The lists must name exactly what the decoders
/// read, or every sign-in's read fails as a corrupt row.
@Suite("PrefixedRecordRow's column lists")
struct PrefixedColumnsTests {
    @Test("each list names exactly the columns its record's decoder reads")
    func listsMatchDecoders() throws {
        #expect(try ColumnRecorder.columns(read: AppRecord.self) == Set(AppRecord.postgresColumns))
        #expect(try ColumnRecorder.columns(read: KeyRecord.self) == Set(KeyRecord.postgresColumns))
        #expect(try ColumnRecorder.columns(read: RegistrationSecretRecord.self) == Set(RegistrationSecretRecord.postgresColumns))
    }

    @Test("the select list names each column under its prefix")
    func selectList() {
        #expect(PrefixedRecordRow.columns(["id", "name"], of: "a", as: "app") == #"a.id AS "app.id", a.name AS "app.name""#)
    }
}

/// A row that answers any column with a plausible value and remembers which were asked for.
private final class ColumnRecorder: RecordRow {
    private let asked = Mutex<Set<String>>([])

    static func columns<Record: RowDecodable>(read type: Record.Type) throws -> Set<String> {
        let recorder = ColumnRecorder()
        _ = try Record(row: recorder)
        return recorder.asked.withLock { $0 }
    }

    private func ask(_ name: String) { asked.withLock { _ = $0.insert(name) } }

    func uuid(_ name: String) throws -> UUID {
        ask(name)
        return UUID()
    }
    func optionalUUID(_ name: String) throws -> UUID? {
        ask(name)
        return nil
    }
    func int64(_ name: String) throws -> Int64 {
        ask(name)
        return 1
    }
    func optionalInt64(_ name: String) throws -> Int64? {
        ask(name)
        return nil
    }
    // "active" passes for a key's status, and is as good as any text elsewhere.
    func text(_ name: String) throws -> String {
        ask(name)
        return KeyStatus.active.rawValue
    }
    func optionalText(_ name: String) throws -> String? {
        ask(name)
        return nil
    }
    func bytes(_ name: String) throws -> [UInt8] {
        ask(name)
        return [1]
    }
    func bool(_ name: String) throws -> Bool {
        ask(name)
        return false
    }
}
