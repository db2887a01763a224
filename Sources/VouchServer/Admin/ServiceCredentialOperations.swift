import Foundation
import VouchStore

/// Service credentials (PROTOCOL §8.16) as the admin API and the dashboard both make and revoke
/// them, so that the two check the name and store the credential the same way.
extension AdminOperations {
    /// A new credential for the app `appID` (which the caller has found), stored as its SHA-256
    /// only: the text returned here is the one time it exists outside the service it is given to.
    func createServiceCredential(appID: UUID, name: String) async throws -> (record: ServiceCredentialRecord, credential: String) {
        let credential = ServiceCredentialText.make()
        let record = ServiceCredentialRecord(
            id: UUID(), appID: appID, name: try AdminValidation.name(name),
            credentialHash: ServiceCredentialText.hash(credential), createdAt: clock())
        try await store.createServiceCredential(record)
        AuditNote.object("service_credential", record.id.lowercased)
        return (record, credential)
    }

    /// Revokes it (a second revocation keeps the first's time); 404 for an unknown id and for
    /// another app's, so that an app's path cannot reach another app's credentials.
    func revokeServiceCredential(id: UUID, appID: UUID) async throws -> ServiceCredentialRecord {
        do {
            return try await store.revokeServiceCredential(id: id, appID: appID, now: clock())
        } catch StoreError.notFound {
            throw APIError.notFound("Service credential")
        }
    }
}
