import Foundation

/// The per-user directories for the app's local data (cached conversations and messages).
///
/// Each session names its container by a random directory name, not the user id (user ids may be
/// long or hold any character). Only the signed-in user's container may exist: opening a session
/// removes every other one, so no data of a previous user survives a switch, even one that was
/// interrupted half-way.
struct DataContainers: Sendable {
    let root: URL

    func url(for name: String) -> URL { root.appendingPathComponent(name, isDirectory: true) }

    /// Creates `name` (0700) and removes every other container.
    func prepare(_ name: String) throws(CredentialStoreError) {
        try PrivateDirectory.ensure(root)
        try removeAll(except: name)
        try PrivateDirectory.ensure(url(for: name))
    }

    func removeAll(except keep: String? = nil) throws(CredentialStoreError) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        for name in names where name != keep {
            do {
                try FileManager.default.removeItem(at: url(for: name))
            } catch {
                throw .unavailable("cannot remove the data container \(url(for: name).path)")
            }
        }
    }
}
