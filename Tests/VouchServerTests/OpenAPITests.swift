import _CryptoExtras
import Foundation
import Hummingbird
import Logging
import Testing
import VouchDevelopmentIdentityProvider
@testable import VouchServer
import VouchStoreSQLite
import VouchTokens

/// The OpenAPI document is written by hand; these tests keep it honest about which routes exist
/// (schemathesis, scripts/schemathesis.sh, keeps it honest about what they answer).
@Suite("OpenAPI document")
struct OpenAPITests {
    static let documentURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/VouchServer/OpenAPI/openapi.json")

    static let quietLogger: Logger = {
        var logger = Logger(label: "vouch-test")
        logger.logLevel = .warning
        return logger
    }()

    static func repositoryDocument() throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(contentsOf: documentURL)) as? [String: Any])
    }

    @Test("GET /openapi.json serves the repository's file byte for byte, cacheable, as JSON")
    func servesTheRepositoryFile() async throws {
        let file = try Data(contentsOf: Self.documentURL)
        try await LiveServer.run { server in
            let answer = try await server.request(.GET, "/openapi.json")
            #expect(answer.status == 200)
            #expect(answer.body == file, "the served document differs from \(Self.documentURL.path)")
            #expect(answer.header("Content-Type") == "application/json; charset=utf-8")
            #expect(answer.header("Cache-Control") == "public, max-age=3600")
            let tag = try #require(answer.header("ETag"))
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count == 34)
            #expect(answer.json["openapi"] as? String == "3.1.0")

            for validator in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
                let revalidated = try await server.request(.GET, "/openapi.json", headers: ["If-None-Match": validator])
                #expect(revalidated.status == 304, "\(validator)")
                #expect(revalidated.body.isEmpty)
                #expect(revalidated.header("ETag") == tag)
            }
            let stale = try await server.request(.GET, "/openapi.json", headers: ["If-None-Match": "\"0123\""])
            #expect(stale.status == 200)
            #expect(stale.body == file)
        }
    }

    @Test("every route vouch serve registers is in the document, and the document lists no other")
    func serverRoutesMatchTheDocument() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vouch-openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await SQLiteStore.open(
            path: directory.appendingPathComponent("vouch.sqlite").path,
            logger: Self.quietLogger)
        do {
            let router = try await VouchServer.makeRouter(
                configuration: ServerConfiguration(host: "127.0.0.1", port: 0, adminToken: LiveServer.adminToken),
                store: store, clocks: .system, metrics: ServerMetrics(), rejections: SignInRejectionLog(metrics: ServerMetrics()),
                logger: Self.quietLogger
            ).router
            let documented = try Self.documentedOperations(servedByIdentityProvider: false)
            Self.expectSame(registered: Self.operations(of: router), documented: documented, server: "vouch serve")
        } catch {
            try? await store.close()
            throw error
        }
        try await store.close()
    }

    @Test("every route vouch identity-provider registers is in the document, and the document lists no other")
    func identityProviderRoutesMatchTheDocument() throws {
        let minter = try LayerTokenMinter(privateKey: _RSA.Signing.PrivateKey(keySize: .bits2048), providerID: UUID(), keyID: UUID())
        let router = DevelopmentIdentityProvider.makeRouter(configuration: .init(layerMinter: minter, sinchMinter: nil))
        let documented = try Self.documentedOperations(servedByIdentityProvider: true)
        Self.expectSame(registered: Self.operations(of: router), documented: documented, server: "vouch identity-provider")
    }

    @Test("every $ref in the document points at a component that exists")
    func referencesResolve() throws {
        let document = try Self.repositoryDocument()
        let components = try #require(document["components"] as? [String: [String: Any]])
        var references: [String] = []
        Self.collectReferences(document, into: &references)
        #expect(!references.isEmpty)
        for reference in references {
            let parts = reference.split(separator: "/").map(String.init)
            #expect(
                parts.count == 4 && parts[0] == "#" && parts[1] == "components"
                    && components[parts[2]]?[parts[3]] != nil, "unresolved \(reference)")
        }
    }

    // MARK: Helpers

    /// `"GET /admin/apps/{app}"` for each route (Hummingbird prints captures as OpenAPI does).
    static func operations(of router: Router<VouchRequestContext>) -> Set<String> {
        Set(router.routes.map { "\($0.method.rawValue) \($0.path.description)" })
    }

    /// The document's operations; those of the identity provider are the paths with their own
    /// `servers` (it listens apart from `vouch serve`).
    static func documentedOperations(servedByIdentityProvider: Bool) throws -> Set<String> {
        let paths = try #require(try repositoryDocument()["paths"] as? [String: [String: Any]])
        let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
        var operations: Set<String> = []
        for (path, item) in paths where (item["servers"] != nil) == servedByIdentityProvider {
            for method in methods where item[method] != nil { operations.insert("\(method.uppercased()) \(path)") }
        }
        return operations
    }

    static func expectSame(registered: Set<String>, documented: Set<String>, server: String) {
        #expect(!registered.isEmpty)
        let undocumented = registered.subtracting(documented).sorted()
        let phantom = documented.subtracting(registered).sorted()
        #expect(undocumented.isEmpty, "\(server) registers routes the OpenAPI document lacks: \(undocumented)")
        #expect(phantom.isEmpty, "the OpenAPI document lists routes \(server) does not have: \(phantom)")
    }

    static func collectReferences(_ value: Any, into references: inout [String]) {
        if let object = value as? [String: Any] {
            if let reference = object["$ref"] as? String { references.append(reference) }
            for child in object.values { collectReferences(child, into: &references) }
        } else if let array = value as? [Any] {
            for child in array { collectReferences(child, into: &references) }
        }
    }
}
