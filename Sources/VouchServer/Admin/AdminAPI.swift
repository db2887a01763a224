import Hummingbird
import VouchStore

/// The admin API of PROTOCOL §4: one route collection per resource, all added under `/admin`
/// on `AdminArea`'s group, whose middleware has authenticated the admin bearer token before any
/// handler here runs. A new resource is a new collection in `collections`.
struct AdminAPI {
    static let sessionTTLRange: ClosedRange<Int64> = 30...31_536_000
    static let defaultSessionTTL: Int64 = 2_592_000
    static let revocationGraceRange: ClosedRange<Int64> = 0...2_592_000

    let store: any Store
    let authenticator: Authenticator
    let rejections: SignInRejectionLog
    let clock: @Sendable () -> Int64
    let outbound: OutboundPolicy
    let pseudonyms: UserPseudonyms
    let keySets: ProviderKeySets

    var collections: [RouteCollection<AdminContext>] {
        [
            AdminAppRoutes(store: store, clock: clock).routes,
            AdminProviderRoutes(
                store: store, clock: clock, policy: outbound, keySets: keySets, sourceKeyUses: authenticator.sourceKeyUses
            ).routes,
            AdminKeyRoutes(store: store, clock: clock).routes,
            AdminRegistrationSecretRoutes(store: store, clock: clock).routes,
            AdminServiceCredentialRoutes(store: store, clock: clock).routes,
            AdminWebhookRoutes(store: store, clock: clock, policy: outbound).routes,
            AdminUserRoutes(
                store: store, clock: clock, data: UserDataOperations(store: store, pseudonyms: pseudonyms, clock: clock)
            ).routes,
            AdminSessionRoutes(store: store, clock: clock).routes,
            AdminCutoffRoutes(operations: CutoffOperations(store: store, clock: clock)).routes,
            AdminTokenValidationRoutes(store: store, authenticator: authenticator).routes,
            AuditRoutes(store: store, rejections: rejections).routes,
        ]
    }
}
