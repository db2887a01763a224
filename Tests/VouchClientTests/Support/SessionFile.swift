import Foundation
import VouchTestSupport

/// The client's persisted session file, read the way an attacker or a test would: directly.
struct SessionFile {
    let url: URL

    init(_ directory: URL) { url = directory.appendingPathComponent("session.json") }

    var exists: Bool { FileManager.default.fileExists(atPath: url.path) }

    func sessionToken() throws -> String {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]
        guard let token = json?["session_token"] as? String else { throw TestFailure("no session in \(url.path)") }
        return token
    }

    func permissions(_ path: String? = nil) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path ?? url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

extension TestBed {
    /// A nonce from the server, bound to the app, without a client.
    static func rawNonce(_ bed: TestBed) async throws -> String {
        try await bed.admin.call("POST", "nonces", ["app_id": bed.appID]).string("nonce")
    }
}
