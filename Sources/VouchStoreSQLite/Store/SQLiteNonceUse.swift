import Foundation

/// Whether a nonce has been used, asked the same way wherever it is asked: by the validation
/// tool's and a sign-in's reads, by the admin look-ups, and inside a sign-in's transaction before
/// it refuses a suspended user without writing.
enum SQLiteNonceUse {
    /// A server nonce's use is recorded under its expiry and its hash (`used_server_nonces`).
    static func serverNonceUsed(hash: [UInt8], expiresAt: Int64, _ db: SQLiteRunner) throws -> Bool {
        try !db.rows(
            "SELECT 1 FROM used_server_nonces WHERE expires_at = ? AND hash = ?",
            [.int64(expiresAt), .bytes(hash)]
        ).isEmpty
    }

    /// A registration nonce still counts as seen during its `expires_at` second.
    static func registrationNonceSeen(appID: UUID, nonce: String, now: Int64, _ db: SQLiteRunner) throws -> Bool {
        try !db.rows(
            "SELECT 1 FROM registration_nonces WHERE app_id = ? AND nonce = ? AND expires_at >= ?",
            [.uuid(appID), .text(nonce), .int64(now)]
        ).isEmpty
    }
}
