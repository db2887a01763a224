import Foundation
import VouchProtocol

/// Everything that can go wrong in the client, as a value an app can switch on.
///
/// A struct rather than an enum, so that a kind added in a later version breaks no app: switch on
/// `kind` with a `default:`, and read the details the kind documents (`tokenRejection`,
/// `challenge`, `message`…). Each `description` says what a developer should do about it, because
/// these errors end up in bug reports more often than in code.
public struct VouchClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong. Compare with the static members (`error.kind == .notAuthenticated`, or
    /// `case .notAuthenticated:` in a `switch` with a `default:`).
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        fileprivate enum Base: String, Sendable {
            case alreadyAuthenticated, notAuthenticated, invalidIdentityToken, challengeUnanswered
            case tokenProviderFailed, tokenProviderTimedOut, superseded, network, serverUnavailable
            case rateLimited, invalidAppID, credentialStoreUnavailable, server, invalidResponse, sessionNotAllowed
            case cancelled, providerNotConfigured, signedOutFromAnotherDevice
        }

        fileprivate let base: Base

        public var description: String { base.rawValue }

        /// `authenticate` or `start` while another user is signed in: LayerKit's rule is that the
        /// app deauthenticates first (or uses `connect(userID:)`, which does both). `userID`.
        public static let alreadyAuthenticated = Kind(base: .alreadyAuthenticated)
        /// The call needs a signed-in user and there is none.
        public static let notAuthenticated = Kind(base: .notAuthenticated)
        /// `POST /sessions` refused the token (422): `tokenRejection` carries the server's reason,
        /// message and clock.
        public static let invalidIdentityToken = Kind(base: .invalidIdentityToken)
        /// The server challenged the session and the client could not answer: no identity-token
        /// provider is configured, the reason cannot be fixed by signing in again (suspension), or
        /// every bounded attempt failed. `challenge` carries its nonce; `underlying` says why the
        /// last attempt failed.
        public static let challengeUnanswered = Kind(base: .challengeUnanswered)
        /// The user signed this device out from another of their devices: the client is signed
        /// out, the user's data container is gone, and the client did not sign in again, nor
        /// should the app by itself (show the sign-in screen). `userID`, when the request was the
        /// one that found out (others that were in flight at once have none).
        public static let signedOutFromAnotherDevice = Kind(base: .signedOutFromAnotherDevice)
        /// The app's identity-token or registration-credentials provider threw: `providerError`
        /// is what it threw, `message` the same in words.
        public static let tokenProviderFailed = Kind(base: .tokenProviderFailed)
        /// `connect(userID:)` without `Configuration.identityTokenProvider`, or `start(userID:)`
        /// without `registrationCredentialsProvider`: a mistake in the app's configuration, not a
        /// failure of its backend. `message` names what is missing.
        public static let providerNotConfigured = Kind(base: .providerNotConfigured)
        /// The task awaiting the call was cancelled: the call returned at once. A sign-in nobody
        /// waits for any more stops too (it asks the app's backend no further).
        public static let cancelled = Kind(base: .cancelled)
        /// The app's provider did not answer within the configured timeout. `timeoutSeconds`.
        public static let tokenProviderTimedOut = Kind(base: .tokenProviderTimedOut)
        /// A sign-in overtaken by `deauthenticate()` or a user switch: its result was discarded so
        /// that it cannot resurrect the previous user's session.
        public static let superseded = Kind(base: .superseded)
        /// The request did not reach the server or its answer did not come back: `urlErrorCode`
        /// (`.notConnectedToInternet`, `.timedOut`…) when URLSession gave one, and `message`.
        public static let network = Kind(base: .network)
        /// The server answered 5xx (503 while its store is unreachable). `status`.
        public static let serverUnavailable = Kind(base: .serverUnavailable)
        /// 429: wait `retryAfterSeconds` before the next sign-in attempt.
        public static let rateLimited = Kind(base: .rateLimited)
        /// The server does not know the app the client was created for (`invalid_app_id`). `message`.
        public static let invalidAppID = Kind(base: .invalidAppID)
        /// The persisted session could not be read for a reason that may pass (locked keychain,
        /// unreadable or foreign-owned file). The client is *not* treated as signed out: retry
        /// later. `message`.
        public static let credentialStoreUnavailable = Kind(base: .credentialStoreUnavailable)
        /// Any other error answer of the server: `status`, and `serverErrorID` and `message` when
        /// its body had the protocol's shape.
        public static let server = Kind(base: .server)
        /// An answer that does not follow the protocol. `message`.
        public static let invalidResponse = Kind(base: .invalidResponse)
        /// `data(for:)` was asked to send the session where it may not go: an origin that is neither
        /// the Vouch server's nor one of `Configuration.sessionOrigins`, or plain HTTP to a host
        /// other than this device. `message` names the origin.
        public static let sessionNotAllowed = Kind(base: .sessionNotAllowed)
    }

    public let kind: Kind
    /// `.alreadyAuthenticated`: the user who is signed in; `.signedOutFromAnotherDevice`: the user
    /// who was signed out.
    public private(set) var userID: String?
    /// `.invalidIdentityToken`: what the server disliked about the token.
    public private(set) var tokenRejection: IdentityTokenRejection?
    /// `.challengeUnanswered`: the challenge, with its fresh nonce.
    public private(set) var challenge: ChallengeDetails?
    /// The cause in words, for the kinds that document it.
    public private(set) var message: String?
    /// `.serverUnavailable`, `.server`: the HTTP status.
    public private(set) var status: Int?
    /// `.server`: the protocol's error id (`data.id`), when the body had one.
    public private(set) var serverErrorID: String?
    /// `.rateLimited`: the server's `Retry-After`, when it sent one.
    public private(set) var retryAfterSeconds: Int?
    /// `.tokenProviderTimedOut`: the timeout that passed.
    public private(set) var timeoutSeconds: Double?
    /// `.network`: URLSession's code for the failure, when it gave one.
    public private(set) var urlErrorCode: URLError.Code?
    /// `.tokenProviderFailed`: the error the app's provider threw, as it threw it, so that the
    /// app can tell its own failures apart (not compared by `==`: errors need not be equatable).
    public var providerError: (any Error)? { provider.error }
    private var provider = ProviderFailure(error: nil)
    /// `.challengeUnanswered`: why the last attempt to answer the challenge failed (the
    /// provider's failure, the server's refusal of its token, the network), when one was made.
    public var underlying: VouchClientError? { cause?.error }
    private var cause: Cause?

    /// Holds the underlying error by reference: a struct cannot contain itself.
    private final class Cause: Sendable, Equatable {
        let error: VouchClientError
        init(_ error: VouchClientError) { self.error = error }
        static func == (lhs: Cause, rhs: Cause) -> Bool { lhs.error == rhs.error }
    }

    /// Holds what the provider threw, outside the error's equality (`message` describes it).
    private struct ProviderFailure: Sendable, Equatable {
        let error: (any Error)?
        static func == (lhs: Self, rhs: Self) -> Bool { true }
    }

    private init(_ kind: Kind) { self.kind = kind }

    public static func alreadyAuthenticated(userID: String) -> Self {
        var error = Self(.alreadyAuthenticated)
        error.userID = userID
        return error
    }

    public static let notAuthenticated = Self(.notAuthenticated)

    public static func signedOutFromAnotherDevice(userID: String?) -> Self {
        var error = Self(.signedOutFromAnotherDevice)
        error.userID = userID
        return error
    }

    public static func invalidIdentityToken(_ rejection: IdentityTokenRejection) -> Self {
        var error = Self(.invalidIdentityToken)
        error.tokenRejection = rejection
        return error
    }

    public static func challengeUnanswered(_ challenge: ChallengeDetails, underlying: VouchClientError? = nil) -> Self {
        var error = Self(.challengeUnanswered)
        error.challenge = challenge
        error.cause = underlying.map(Cause.init)
        return error
    }

    public static func tokenProviderFailed(message: String) -> Self { Self(.tokenProviderFailed, message: message) }

    /// The provider threw `error`: kept as `providerError`, described in `message`.
    public static func tokenProviderFailed(_ error: any Error) -> Self {
        var failure = Self(.tokenProviderFailed, message: String(describing: error))
        failure.provider = ProviderFailure(error: error)
        return failure
    }

    public static func providerNotConfigured(message: String) -> Self { Self(.providerNotConfigured, message: message) }

    public static let cancelled = Self(.cancelled)

    public static func tokenProviderTimedOut(seconds: Double) -> Self {
        var error = Self(.tokenProviderTimedOut)
        error.timeoutSeconds = seconds
        return error
    }

    public static let superseded = Self(.superseded)

    public static func network(message: String, code: URLError.Code? = nil) -> Self {
        var error = Self(.network, message: message)
        error.urlErrorCode = code
        return error
    }

    public static func serverUnavailable(status: Int) -> Self {
        var error = Self(.serverUnavailable)
        error.status = status
        return error
    }

    public static func rateLimited(retryAfterSeconds: Int?) -> Self {
        var error = Self(.rateLimited)
        error.retryAfterSeconds = retryAfterSeconds
        return error
    }

    public static func invalidAppID(message: String) -> Self { Self(.invalidAppID, message: message) }

    public static func credentialStoreUnavailable(message: String) -> Self { Self(.credentialStoreUnavailable, message: message) }

    public static func server(status: Int, id: String?, message: String?) -> Self {
        var error = Self(.server)
        error.status = status
        error.serverErrorID = id
        error.message = message
        return error
    }

    public static func invalidResponse(message: String) -> Self { Self(.invalidResponse, message: message) }

    public static func sessionNotAllowed(origin: String) -> Self { Self(.sessionNotAllowed, message: origin) }

    private init(_ kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// Lets `catch VouchClientError.x` and `case VouchClientError.x:` match any error equal to `x`.
    public static func ~= (pattern: Self, error: any Error) -> Bool { (error as? Self) == pattern }

    public var description: String {
        switch kind.base {
        case .alreadyAuthenticated:
            "User \"\(userID ?? "")\" is already authenticated: call deauthenticate() and wait for it, or use connect(userID:), before authenticating another user."
        case .notAuthenticated:
            "No user is authenticated: authenticate(identityToken:), connect(userID:) or start(userID:) first."
        case .signedOutFromAnotherDevice:
            "\(userID.map { "User \"\($0)\"" } ?? "The user") signed this device out from another device; their local data is wiped. "
                + "Show the sign-in screen and let the user sign in again: do not sign in by yourself."
        case .invalidIdentityToken:
            "The server refused the identity token (\(tokenRejection?.reason ?? "")): \(tokenRejection?.message ?? "") Fix the token your backend mints."
                + (tokenRejection?.clockSkewSeconds.map {
                    " The server's clock differs from this device's by about \($0) s; check the clock of the machine that minted the token."
                } ?? "")
        case .challengeUnanswered:
            "The server asked for a new sign-in (\(challenge?.reason.rawValue ?? "")) and the client could not answer it"
                + (underlying.map { ": \($0.description)" }
                    ?? ": configure an identity-token provider or authenticate again with the challenge's nonce.")
        case .tokenProviderFailed:
            "The app's token provider threw: \(message ?? ""). Check the app's backend."
        case .tokenProviderTimedOut:
            "The app's token provider did not answer within \(timeoutSeconds ?? 0) s. Check the app's backend, or raise providerTimeout."
        case .superseded:
            "The sign-in was discarded because deauthenticate() or a user switch happened while it was in flight."
        case .network:
            "The Vouch server could not be reached (\(message ?? "")). Retry when the device is online."
        case .serverUnavailable:
            "The Vouch server is unavailable (HTTP \(status ?? 503)). Retry later."
        case .rateLimited:
            "Too many sign-in requests: retry after \(retryAfterSeconds.map { "\($0) s" } ?? "a while")."
        case .invalidAppID:
            "The server does not know this app id (\(message ?? "")). Check the appID passed to VouchClient."
        case .credentialStoreUnavailable:
            "The stored session could not be read (\(message ?? "")). The user is not signed out; retry once the store is readable."
        case .server:
            "The server answered HTTP \(status ?? 0)\(serverErrorID.map { " \($0)" } ?? "")\(message.map { ": \($0)" } ?? "")."
        case .invalidResponse:
            "The server's answer does not follow the Vouch protocol: \(message ?? "")."
        case .providerNotConfigured:
            "The client has no provider for this call: \(message ?? ""). Set it in VouchClient.Configuration."
        case .cancelled:
            "The task awaiting the call was cancelled."
        case .sessionNotAllowed:
            "The session is sent only to the Vouch server and to Configuration.sessionOrigins, over HTTPS (or to this device): "
                + "not to \(message ?? "this origin"). Add the origin if it is your own service."
        }
    }
}

/// A 422 from `POST /sessions`: what the server disliked about a token, and when.
public struct IdentityTokenRejection: Sendable, Equatable {
    /// The protocol's reason (`eit_…`), as sent.
    public var reason: String
    /// The reason when this version of the SDK knows it.
    public var knownReason: RejectionReason? { RejectionReason(rawValue: reason) }
    public var message: String
    /// The server's clock when it refused the token.
    public var serverTime: Date?
    /// `serverTime` minus this device's clock at the answer, in whole seconds; present for
    /// `eit_expired` and `eit_not_before`, where a wrong clock is the usual cause.
    public var clockSkewSeconds: Int64?

    public init(reason: String, message: String, serverTime: Date?, clockSkewSeconds: Int64?) {
        self.reason = reason
        self.message = message
        self.serverTime = serverTime
        self.clockSkewSeconds = clockSkewSeconds
    }
}

/// The authentication challenge as the server sent it (why an answer failed is the error's
/// `underlying`).
public struct ChallengeDetails: Sendable, Equatable {
    /// A fresh nonce bound to this app: hand it to the backend to sign in again.
    public var nonce: String
    public var reason: ChallengeReason
    /// The operator's words, when a cutoff ended the session and they gave a reason
    /// (`data.detail`): for a support screen or a log, not for deciding what to do.
    public var detail: String?

    public init(nonce: String, reason: ChallengeReason, detail: String? = nil) {
        self.nonce = nonce
        self.reason = reason
        self.detail = detail
    }
}
