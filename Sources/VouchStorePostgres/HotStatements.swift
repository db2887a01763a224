import Foundation
import NIOCore
import PostgresNIO
import VouchStore

// The statements of every sign-in and every authenticated request, prepared once per connection
// (PostgresNIO names them and prepares each on a connection's first use): each execution is then
// a Bind and an Execute, with no parsing and, once the server settles on a generic plan, no
// planning, where an ordinary query is planned anew every time (docs/PERFORMANCE.md, "PostgreSQL").
//
// Each states its parameters' types, so that a NULL bound on a connection's first use cannot
// leave a parameter's type to be guessed.

/// `Store.signInFacts`: the claim questions as flags, and the app, the key and the
/// registration secret as left-joined rows whose columns carry their table's prefix
/// (`PrefixedRecordRow`). An unasked question binds NULL (false for the app), which matches no row.
struct SignInFactsStatement: PostgresPreparedStatement {
    static let name = "vouch_sign_in_facts_v1"
    static let sql = """
        SELECT
          EXISTS (SELECT 1 FROM providers WHERE id = $1) AS provider_known,
          EXISTS (SELECT 1 FROM provider_apps WHERE provider_id = $1 AND app_id = $2) AS provider_bound,
          EXISTS (SELECT 1 FROM used_server_nonces WHERE hash = $3) AS nonce_used,
          EXISTS (SELECT 1 FROM registration_nonces WHERE app_id = $2 AND nonce = $4 AND expires_at >= $5) AS nonce_seen,
          COALESCE((SELECT suspended FROM users WHERE app_id = $2 AND user_id = $6), false) AS suspended,
          \(PrefixedRecordRow.columns(AppRecord.postgresColumns, of: "a", as: "app")),
          \(PrefixedRecordRow.columns(KeyRecord.postgresColumns, of: "k", as: "key")),
          \(PrefixedRecordRow.columns(RegistrationSecretRecord.postgresColumns, of: "r", as: "secret"))
        FROM (VALUES (1)) AS one
        LEFT JOIN apps a ON $7 AND a.id = $2
        LEFT JOIN provider_keys k ON k.id = $8
        LEFT JOIN registration_secrets r ON r.application_key = $9
        """
    static let bindingDataTypes: [PostgresDataType] = [.uuid, .uuid, .bytea, .text, .int8, .text, .bool, .uuid, .uuid]
    typealias Row = PostgresRow

    let query: SignInFactsQuery

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 9)
        bindings.append(query.providerID)
        bindings.append(query.appID)
        bindings.append(query.serverNonce?.hash.bytea)
        bindings.append(query.registrationNonce)
        bindings.append(query.now)
        bindings.append(query.userID)
        bindings.append(query.includesApp)
        bindings.append(query.keyID)
        bindings.append(query.applicationKey)
        return bindings
    }
}

/// `Store.createSession`: the whole transaction, `vouch_create_session_v3` (migration 8: v2 of
/// migration 4, then the `session.created` event when anyone subscribes to it). The
/// columns are named rather than `*`: a prepared statement whose result's shape changed under it
/// (a column added to `users` by a later migration, while this instance runs) fails with "cached
/// plan must not change result type".
struct CreateSessionStatement: PostgresPreparedStatement {
    static let name = "vouch_create_session_v3"
    static let sql = """
        SELECT app_id, user_id, display_name, first_name, last_name, avatar_url, suspended,
               cutoff_generation, cutoff_at, cutoff_reason
        FROM vouch_create_session_v3($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                                     $17, $18, $19, $20, $21)
        """
    static let bindingDataTypes: [PostgresDataType] = [
        .bytea, .int8, .uuid, .text, .int8, .uuid, .text, .text, .text, .text, .text, .bytea, .int8, .int8, .uuid, .int8,
        .uuid, .uuid, .text, .text, .text,
    ]
    typealias Row = PostgresRow

    let session: NewSession

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 21)
        switch session.nonce {
        case .serverNonce(let use):
            bindings.append(use.hash.bytea)
            bindings.append(use.expiresAt)
            bindings.append(UUID?.none)
            bindings.append(String?.none)
            bindings.append(Int64?.none)
        case .registrationNonce(let appID, let nonce, let expiresAt):
            bindings.append(ByteBuffer?.none)
            bindings.append(Int64?.none)
            bindings.append(appID)
            bindings.append(nonce)
            bindings.append(expiresAt)
        }
        let profile = session.profile
        bindings.append(session.appID)
        bindings.append(session.userID)
        bindings.append(profile.displayName)
        bindings.append(profile.firstName)
        bindings.append(profile.lastName)
        bindings.append(profile.avatarURL)
        bindings.append(session.tokenHash.bytea)
        bindings.append(session.createdAt)
        bindings.append(session.expiresAt)
        bindings.append(session.keyID)
        bindings.append(KeyRecord.lastVerifiedResolutionSeconds)
        bindings.append(session.sessionID)
        bindings.append(session.providerID)
        bindings.append(session.device?.name)
        bindings.append(session.device?.platform)
        bindings.append(session.device?.appVersion)
        return bindings
    }
}

/// `Store.sessionLookup`: every authenticated request's read, one statement.
struct SessionLookupStatement: PostgresPreparedStatement {
    static let name = "vouch_session_lookup_v2"
    static let sql = SessionLookupSQL.selection + "\nWHERE s.token_hash = $1"
    static let bindingDataTypes: [PostgresDataType] = [.bytea]
    typealias Row = PostgresRow

    let tokenHash: [UInt8]

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(tokenHash.bytea)
        return bindings
    }
}

extension PostgresPreparedStatement where Row == PostgresRow {
    /// The rows as they come: `PostgresRecordRow` and the shared decoders read them.
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgresRunner {
    /// Runs a prepared statement (prepared on this connection's first use of it) and returns all
    /// its rows.
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement) async throws -> [PostgresRow]
    where Statement.Row == PostgresRow {
        var rows: [PostgresRow] = []
        for try await row in try await connection.execute(statement, logger: logger) { rows.append(row) }
        return rows
    }
}
