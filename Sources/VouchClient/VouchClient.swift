import Foundation
import Synchronization
import VouchProtocol
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client side of Vouch for one app: LayerKit's authentication flow (nonce → the app's
/// backend → identity token → session), the Sinch SDK's `start` with registration credentials,
/// and the authentication challenge, answered by itself when given a token provider.
///
/// All state lives in this actor. Every change of the signed-in session starts a new
/// *generation*; work started for an older generation (a refresh, a sign-in) is discarded when it
/// finishes, so `deauthenticate()` and user switches always win over late answers.
public actor VouchClient {
    /// Asks the app's backend for an identity token for `userID` over `nonce` (LayerKit), or a
    /// federated provider for a fresh ID token for the signed-in user, ignoring `nonce` (PROTOCOL
    /// §8.18): the server tells the two apart, and either answers a challenge.
    public typealias IdentityTokenProvider = @Sendable (_ userID: String, _ nonce: String) async throws -> String
    /// Asks the app's backend for a registration token for `userID` (Sinch's
    /// `client:requiresRegistrationCredentials:`; return = `registerWithJWT:`, throw = `registerDidFail:`).
    public typealias RegistrationCredentialsProvider = @Sendable (_ userID: String) async throws -> String

    public struct Configuration: Sendable {
        /// Where the session file (Linux) and the users' data containers live, each app and
        /// server in a directory of its own inside it (`<app uuid>@<server>`), so that clients
        /// for different apps or servers may share it. Default: the platform's
        /// application-support directory, `Vouch`.
        public var storageDirectory: URL?
        /// Where the session is persisted. Default: the Keychain on Apple platforms, a private
        /// file in `storageDirectory` elsewhere, either under the app's and server's own name.
        /// A store given here is this client's alone: a session it finds for another app or
        /// server is left untouched (and not used) until a sign-in replaces it.
        public var credentialStore: (any CredentialStore)?
        /// With it, the client answers authentication challenges by itself and `connect(userID:)` works.
        public var identityTokenProvider: IdentityTokenProvider?
        /// With it, `start(userID:)` works and challenges of its sessions are answered by itself.
        public var registrationCredentialsProvider: RegistrationCredentialsProvider?
        /// A provider call that takes longer fails with `tokenProviderTimedOut`.
        public var providerTimeoutSeconds: Double
        /// Each HTTP request's limit.
        public var requestTimeoutSeconds: Double
        public var retryPolicy: RetryPolicy
        /// The app's own services that `data(for:)` may send the session to, besides the Vouch
        /// server (`https://chat.example.com`): a session token sent to anyone else is a leak.
        /// Compared by origin (scheme, host, port); plain HTTP only to this device (loopback).
        public var sessionOrigins: [URL]
        /// What every sign-in tells the server about this device, for the user's list of their
        /// devices (`devices()`). Default: ``VouchProtocol/DeviceDescription/thisDevice(name:)`` without a name;
        /// set `device?.name` to the name the user gave the device, replace it, or set nil to
        /// send nothing. Fields the server would refuse (control characters, over 128 bytes) are
        /// mended before they are sent, so a description never fails a sign-in.
        public var device: DeviceDescription?
        /// Whether the client keeps the live channel (PROTOCOL §8.15) open while a user is signed
        /// in, so that it hears the moment the server ends the session (an operator's revocation,
        /// a cutoff, a sign-out from another device) and signs in again before the app's next
        /// request is refused. Off, the client learns of an ending from a 401 as before. On by
        /// default; where the transport cannot open WebSockets the client stays on HTTP.
        public var liveChannel: Bool
        /// How the live channel's WebSocket is opened. Default (nil): `URLSessionWebSocketTask`,
        /// which Linux's FoundationNetworking lacks where libcurl has no WebSockets: there, use
        /// `WebSocketLiveChannelTransport` from this package's `VouchClientWebSocket` library.
        public var liveChannelTransport: (any LiveChannelTransport)?

        /// - Parameters:
        ///   - storageDirectory: where the session file and the users' data containers live.
        ///   - credentialStore: where the session is persisted instead of the default.
        ///   - identityTokenProvider: asks the app's backend for identity tokens.
        ///   - registrationCredentialsProvider: asks the app's backend for registration tokens.
        ///   - providerTimeoutSeconds: the limit of one provider call.
        ///   - requestTimeoutSeconds: the limit of one HTTP request.
        ///   - retryPolicy: how often and how patiently a challenge or sign-in is retried.
        ///   - sessionOrigins: the app's own services `data(for:)` may send the session to.
        ///   - device: what every sign-in tells the server about this device.
        ///   - liveChannel: whether to keep the live channel open while signed in.
        ///   - liveChannelTransport: the live channel's WebSocket transport; nil for URLSession's.
        public init(
            storageDirectory: URL? = nil, credentialStore: (any CredentialStore)? = nil,
            identityTokenProvider: IdentityTokenProvider? = nil,
            registrationCredentialsProvider: RegistrationCredentialsProvider? = nil,
            providerTimeoutSeconds: Double = 30, requestTimeoutSeconds: Double = 30,
            retryPolicy: RetryPolicy = RetryPolicy(), sessionOrigins: [URL] = [],
            device: DeviceDescription? = .thisDevice(), liveChannel: Bool = true,
            liveChannelTransport: (any LiveChannelTransport)? = nil
        ) {
            self.storageDirectory = storageDirectory
            self.credentialStore = credentialStore
            self.identityTokenProvider = identityTokenProvider
            self.registrationCredentialsProvider = registrationCredentialsProvider
            self.providerTimeoutSeconds = providerTimeoutSeconds
            self.requestTimeoutSeconds = requestTimeoutSeconds
            self.retryPolicy = retryPolicy
            self.sessionOrigins = sessionOrigins
            self.device = device
            self.liveChannel = liveChannel
            self.liveChannelTransport = liveChannelTransport
        }
    }

    /// The one sign-in in flight (an answer to a challenge, or `connect`/`start`): every request
    /// challenged with the session of `origin`, and every sign-in call for `userID`, waits for
    /// this one task instead of starting its own (single flight).
    struct Refresh {
        let id: UUID
        let origin: UInt64
        let userID: String
        /// The user whose challenged session this flight replaces; nil for a first sign-in.
        let reauthenticating: Identity?
        let task: Task<Void, Never>
        let outcome: FlightOutcome
    }

    public nonisolated let serverURL: URL
    /// The canonical app id (`layer:///apps/<uuid>`) every nonce and session is bound to.
    public nonisolated let appID: String
    nonisolated let configuration: Configuration
    /// `configuration.device` as the server accepts it, sent with every sign-in.
    nonisolated let device: DeviceDescription?
    nonisolated let transport: HTTPTransport
    nonisolated let store: any CredentialStore
    nonisolated let containers: DataContainers
    nonisolated let hub = Broadcast<VouchClientEvent>(replaying: nil, buffered: 1024)
    /// The state, `unknown` until the store has been read.
    nonisolated let stateHub = Broadcast<VouchClientState>(replaying: .unknown, buffered: 64)

    var loaded: Bool
    var session: StoredSession?
    /// The store's bytes as this client last read or wrote them: it changes the store only while
    /// they are still there, so a second client over the same storage cannot bring back a
    /// session the first signed out (nor sign out the user the first signed in).
    var storedBytes: Data?
    var generation: UInt64 = 0
    var refresh: Refresh?
    /// After a challenge for a session that may come back (expired, unknown), the user's
    /// container is kept for them; any other user's sign-in removes it.
    var retainedContainer: (userID: String, name: String)?
    let delegateBox = DelegateBox()
    var delegateTask: Task<Void, Never>?
    /// The live channel while it runs (PROTOCOL §8.15): its socket, the session it follows.
    var live: LiveRun?
    /// Set for good once the transport or the server showed it has no live channel.
    var liveUnavailable = false
    /// Access tokens by audience (`""` for the app's id), each with its lifetime when minted;
    /// one is used only while its session is the current one.
    var accessTokens: [String: (token: AccessToken, lifetime: TimeInterval)] = [:]

    /// A client for one app (LayerKit's `clientWithAppID:`).
    ///
    /// - Parameters:
    ///   - serverURL: the Vouch server, e.g. `https://vouch.example.com`.
    ///   - appID: `layer:///apps/<uuid>` or the bare UUID.
    ///   - configuration: the token providers, storage, timeouts and retries.
    public init(serverURL: URL, appID: String, configuration: Configuration = Configuration()) throws(VouchClientError) {
        guard let uuid = LayerID.parseApp(appID) else {
            throw .invalidAppID(message: "\"\(appID)\" is neither layer:///apps/<uuid> nor a UUID")
        }
        self.serverURL = serverURL
        self.appID = LayerID.app(uuid)
        self.configuration = configuration
        self.device = configuration.device?.fittingServerRules()
        let namespace = StorageNamespace.name(appUUID: uuid.uuidString.lowercased(), serverURL: serverURL)
        let directory = (configuration.storageDirectory ?? Self.defaultStorageDirectory())
            .appendingPathComponent(namespace, isDirectory: true)
        self.containers = DataContainers(root: directory.appendingPathComponent("users", isDirectory: true))
        let store = configuration.credentialStore ?? Self.defaultCredentialStore(directory: directory, account: namespace)
        self.store = store
        // Read now, so that `currentState` is right for the app's first frame; an unreadable
        // store leaves it `unknown`, and the next call reads it again.
        loaded = false
        switch try? Self.readStore(store, serverURL: serverURL, appID: LayerID.app(uuid)) {
        case .session(let stored, let bytes):
            session = stored
            storedBytes = bytes
            loaded = true
            stateHub.publish(.signedIn(stored.user))
        case .none?:
            loaded = true
            stateHub.publish(.signedOut)
        case .discarded?:
            // Signed out; the first call reads it again and reports the discarded session.
            stateHub.publish(.signedOut)
        case nil:
            break
        }
        self.transport = HTTPTransport(configuration: .ephemeral, requestTimeout: configuration.requestTimeoutSeconds)
        // A session restored from the store opens the live channel without waiting for a call.
        if session != nil, configuration.liveChannel {
            Task { [weak self] in await self?.syncLiveChannel() }
        }
    }

    deinit {
        delegateTask?.cancel()
        live?.task?.cancel()
        if let connection = live?.connection { Task { await connection.close(code: 1000, reason: "") } }
        hub.finish()
        stateHub.finish()
        transport.session.finishTasksAndInvalidate()
    }

    // MARK: Events

    /// The client's events, in order. Each call returns a new stream; any number may be consumed
    /// at once, each sees every event emitted after it was created.
    public nonisolated func events() -> AsyncStream<VouchClientEvent> { hub.subscribe() }

    /// The delegate (held weakly) receives the same events as `events()`, one call at a time.
    public func setDelegate(_ delegate: (any VouchClientDelegate)?) {
        delegateBox.set(delegate)
        guard delegateTask == nil, delegate != nil else { return }
        let stream = hub.subscribe()
        delegateTask = Task { [weak self, delegateBox] in
            for await event in stream {
                guard let self, let delegate = delegateBox.value else { continue }
                switch event {
                case .authenticationChallenge(let nonce, let reason):
                    await delegate.vouchClient(self, didReceiveAuthenticationChallengeWith: nonce, reason: reason)
                case .didAuthenticate(let user): await delegate.vouchClient(self, didAuthenticateAs: user)
                case .didDeauthenticate(let userID, let reason): await delegate.vouchClient(self, didDeauthenticate: userID, reason: reason)
                case .storedSessionDiscarded(let reason): await delegate.vouchClient(self, didDiscardStoredSession: reason)
                case .liveChannelConnected, .liveChannelDisconnected, .liveChannelChallenge, .liveChannelReauthenticated:
                    await delegate.vouchClient(self, liveChannelEvent: event)
                }
            }
        }
    }

    // MARK: State

    /// The state now, without awaiting the client: for an app's first frame. Right from
    /// `init` when the stored session could be read then.
    public nonisolated var currentState: VouchClientState { stateHub.latest ?? .unknown }

    /// The user to show now (signed in, or being signed in again after a challenge), without
    /// awaiting the client.
    public nonisolated var currentUser: Identity? { (stateHub.latest ?? .unknown).user }

    /// The state now, then every change, in order. Each call returns a new stream; a new
    /// subscriber never misses the state it starts in.
    public nonisolated func states() -> AsyncStream<VouchClientState> { stateHub.subscribe() }

    /// Publishes the state the client's fields describe, and brings the live channel in line with
    /// them; called after every change of them.
    func publishState() {
        let state: VouchClientState =
            if let session { .signedIn(session.user) } else if let refresh {
                refresh.reauthenticating.map { .reauthenticating($0) } ?? .signingIn(userID: refresh.userID)
            } else if !loaded { .unknown } else { .signedOut }
        stateHub.publish(state)
        syncLiveChannel()
    }

    /// The signed-in user, restored from the store after a restart (the server checks the session
    /// on the next request). Throws `credentialStoreUnavailable` rather than answer `nil` when
    /// the store cannot be read.
    public func authenticatedUser() throws(VouchClientError) -> Identity? {
        try loadIfNeeded()
        return session?.user
    }

    /// The signed-in user's private directory for the app's local data (conversations, messages).
    /// It is removed by `deauthenticate()` and whenever another user signs in.
    public func dataContainer() throws(VouchClientError) -> URL {
        try loadIfNeeded()
        guard let session else { throw .notAuthenticated }
        let url = containers.url(for: session.container)
        do { try PrivateDirectory.ensure(url) } catch { throw .credentialStoreUnavailable(message: error.description) }
        return url
    }

    nonisolated func url(_ path: String) -> URL { serverURL.appendingPathComponent(path) }

    static func defaultStorageDirectory() -> URL {
        let base =
            FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
            ?? URL(fileURLWithPath: NSHomeDirectory()).appendingPathComponent(".local/share")
        return base.appendingPathComponent("Vouch", isDirectory: true)
    }

    static func defaultCredentialStore(directory: URL, account: String) -> any CredentialStore {
        #if canImport(Security)
            return KeychainCredentialStore(account: account)
        #else
            return FileCredentialStore(directory: directory)
        #endif
    }
}

/// The delegate, weakly, readable from the delivery task.
final class DelegateBox: Sendable {
    private struct Reference { weak var delegate: (any VouchClientDelegate)? }
    private let reference = Mutex(Reference())

    var value: (any VouchClientDelegate)? { reference.withLock { $0.delegate } }
    func set(_ delegate: (any VouchClientDelegate)?) { reference.withLock { $0.delegate = delegate } }
}
