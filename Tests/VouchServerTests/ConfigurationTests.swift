import Foundation
import Logging
import Testing
import VouchServer
import VouchStore
import VouchStorePostgres
import VouchStoreSQLite
import VouchTestSupport

/// Each component checks its own configuration where the fields are defined, and a value out of
/// range is refused, never clamped.
@Suite("Configuration")
struct ConfigurationTests {
    @Test("the server's configuration refuses each field just outside its range, and accepts its ends")
    func serverConfiguration() throws {
        func refused(_ change: (inout ServerConfiguration) -> Void) -> String? {
            var configuration = ServerConfiguration(adminToken: "t")
            change(&configuration)
            do throws(ConfigurationError) {
                try configuration.validate()
                return nil
            } catch {
                return error.field
            }
        }
        #expect(refused { _ in } == nil)
        #expect(refused { $0.port = 65_536 } == "port")
        #expect(refused { $0.port = 65_535 } == nil)
        #expect(refused { $0.rateLimit = -1 } == "rateLimit")
        #expect(refused { $0.leewaySeconds = 3601 } == "leewaySeconds")
        #expect(refused { $0.adminToken = "" } == "adminToken")
        #expect(refused { $0.purgeIntervalSeconds = 0 } == "purgeIntervalSeconds")
        #expect(refused { $0.auditRetentionDays = 0 } == "auditRetentionDays")
        #expect(refused { $0.auditRetentionDays = 3650 } == nil)
        #expect(refused { $0.auditFlushIntervalSeconds = 3601 } == "auditFlushIntervalSeconds")
        #expect(refused { $0.connectionLimits.idleTimeoutSeconds = 0 } == "connectionLimits.idleTimeoutSeconds")
        #expect(refused { $0.trustedProxies = ["10.0.0.05"] } == "trustedProxies")
    }

    @Test("the server refuses to start with a configuration out of range instead of clamping it")
    func applicationRefusesInvalidConfiguration() async throws {
        try await withTemporaryDirectory { directory in
            let store = try await SQLiteStore.open(path: directory.appendingPathComponent("vouch.sqlite").path)
            var configuration = ServerConfiguration(port: 0, adminToken: "t")
            configuration.auditRetentionDays = 100_000
            await #expect(throws: ConfigurationError(field: "auditRetentionDays", accepted: "1…3650 days")) {
                _ = try await VouchServer.makeApplication(
                    configuration: configuration, store: store,
                    logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
            }
            try await store.close()
        }
    }

    @Test("the SQLite and PostgreSQL stores check their own knobs")
    func storeConfigurations() async throws {
        #expect(throws: ConfigurationError(field: "sessionCacheCapacity", accepted: "0…1000000")) {
            try SQLiteStore.Configuration(sessionCacheCapacity: -1).validate()
        }
        #expect(throws: ConfigurationError(field: "groupGathering.enough", accepted: "1…10000")) {
            try SQLiteStore.Configuration(groupGathering: GroupGathering(maximumWait: .zero, enough: 0)).validate()
        }
        #expect(throws: ConfigurationError.self) {
            try SQLiteStore.Configuration(groupGathering: GroupGathering(maximumWait: .milliseconds(11), enough: 4)).validate()
        }
        try SQLiteStore.Configuration().validate()
        await #expect(throws: ConfigurationError.self) {
            _ = try await SQLiteStore.open(path: ":memory:", configuration: .init(sessionCacheCapacity: 2_000_000))
        }
        #expect(throws: ConfigurationError(field: "poolSize", accepted: "1…1000")) { try PostgresStoreOptions(poolSize: 0).validate() }
        #expect(throws: ConfigurationError(field: "timeout", accepted: "1…300 seconds")) {
            try PostgresStoreOptions(timeout: .milliseconds(500)).validate()
        }
        try PostgresStoreOptions().validate()
    }
}
