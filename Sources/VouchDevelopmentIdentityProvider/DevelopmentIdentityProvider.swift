import Foundation
import Hummingbird
import Logging
import VouchProtocol
import VouchServer
import VouchTokens

/// The stand-in for an app's backend (PROTOCOL §6), for trying Vouch out: it mints a token for
/// any user id it is asked for, so it must never face the internet.
public enum DevelopmentIdentityProvider {
    /// How Layer identity tokens are signed.
    public enum LayerSigning: Sendable {
        /// With a key uploaded to Vouch (`--key-id`, `--private-key`).
        case uploadedKey(LayerTokenMinter)
        /// With keys of its own, published on `GET /jwks.json` and rotated through
        /// `POST /keys/next` and `POST /keys/rotate` (`--publish-keys`).
        case publishedKeys(PublishedSigningKeys)
    }

    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var layerSigning: LayerSigning
        /// Present when started with a registration key and secret.
        public var sinchMinter: SinchTokenMinter?

        public init(host: String = "127.0.0.1", port: Int = 8090, layerSigning: LayerSigning, sinchMinter: SinchTokenMinter?) {
            self.host = host
            self.port = port
            self.layerSigning = layerSigning
            self.sinchMinter = sinchMinter
        }

        public init(host: String = "127.0.0.1", port: Int = 8090, layerMinter: LayerTokenMinter, sinchMinter: SinchTokenMinter?) {
            self.init(host: host, port: port, layerSigning: .uploadedKey(layerMinter), sinchMinter: sinchMinter)
        }

        /// The minter of the key that signs now.
        func layerMinter() throws(MintingError) -> LayerTokenMinter {
            switch layerSigning {
            case .uploadedKey(let minter): minter
            case .publishedKeys(let keys): try keys.minter()
            }
        }
    }

    struct IdentityTokenRequest: Decodable {
        var appID: String?
        var userID: String?
        var nonce: String?
        var displayName: String?
        var firstName: String?
        var lastName: String?
        var avatarURL: String?

        enum CodingKeys: String, CodingKey {
            case nonce
            case appID = "app_id"
            case userID = "user_id"
            case displayName = "display_name"
            case firstName = "first_name"
            case lastName = "last_name"
            case avatarURL = "avatar_url"
        }
    }

    struct RegistrationTokenRequest: Decodable {
        var userID: String?
        enum CodingKeys: String, CodingKey { case userID = "user_id" }
    }

    /// `{"error": "<text>", "status": <code>}`: this service's own, simpler error shape.
    struct Failure: Error, Encodable {
        let error: String
        let status: Int
    }

    public static func makeApplication(
        configuration: Configuration, logger: Logger,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: makeRouter(configuration: configuration),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "vouch-idp"),
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? configuration.port) },
            logger: logger)
    }

    /// The provider's routes, apart from the application so that a test can compare them with
    /// the OpenAPI document's.
    package static func makeRouter(configuration: Configuration) -> Router<VouchRequestContext> {
        let router = Router(context: VouchRequestContext.self)
        let table = RouteTableBox()
        router.add(middleware: FailureMiddleware(routes: table))
        router.addRoutes(tokenRoutes(configuration: configuration))
        router.addRoutes(keyRoutes(configuration: configuration))
        table.load(from: router)
        return router
    }

    /// `POST /identity_tokens` and `POST /registration_tokens`.
    private static func tokenRoutes(configuration: Configuration) -> RouteCollection<VouchRequestContext> {
        let routes = RouteCollection(context: VouchRequestContext.self)
        routes.on("/identity_tokens", method: .post) { request, context in
            let body = try await decode(IdentityTokenRequest.self, request, context)
            guard let appText = body.appID else { throw Failure(error: "app_id is required", status: 422) }
            guard LayerID.parseApp(appText) != nil else { throw Failure(error: "app_id must be layer:///apps/<uuid> or a UUID", status: 422) }
            guard let userID = body.userID else { throw Failure(error: "user_id is required", status: 422) }
            guard let nonce = body.nonce else { throw Failure(error: "nonce is required (get one with POST /nonces)", status: 422) }
            let identity = IdentityClaims(
                displayName: body.displayName, firstName: body.firstName,
                lastName: body.lastName, avatarURL: body.avatarURL)
            do {
                let token = try configuration.layerMinter().mint(userID: userID, nonce: nonce, identity: identity)
                return JSONResponse.make(["identity_token": token], status: .created)
            } catch let error as MintingError {
                throw Failure(error: error.description, status: 422)
            }
        }
        routes.on("/registration_tokens", method: .post) { request, context in
            guard let minter = configuration.sinchMinter else {
                throw Failure(error: "started without --registration-key and --registration-secret", status: 404)
            }
            let body = try await decode(RegistrationTokenRequest.self, request, context)
            guard let userID = body.userID else { throw Failure(error: "user_id is required", status: 422) }
            do {
                return JSONResponse.make(["registration_token": try minter.mint(userID: userID)], status: .created)
            } catch let error as MintingError {
                throw Failure(error: error.description, status: 422)
            }
        }
        return routes
    }

    /// `GET /jwks.json`, `GET /keys`, `POST /keys/next` and `POST /keys/rotate`: the
    /// published keys and their rotation; 404 when the keys are uploaded instead.
    private static func keyRoutes(configuration: Configuration) -> RouteCollection<VouchRequestContext> {
        let routes = RouteCollection(context: VouchRequestContext.self)
        let published: @Sendable () throws -> PublishedSigningKeys = {
            guard case .publishedKeys(let keys) = configuration.layerSigning else {
                throw Failure(error: "started with an uploaded key (--private-key): start with --publish-keys to publish keys", status: 404)
            }
            return keys
        }
        routes.on("/jwks.json", method: .get) { _, _ in
            let keys = try published()
            // A minute: Vouch refetches a set this old, so a key published ahead is fetched soon.
            var response = JSONResponse.make(["keys": try keys.jwks()], status: .ok)
            response.headers[.cacheControl] = "max-age=60"
            return response
        }
        routes.on("/keys", method: .get) { _, _ in
            JSONResponse.make(try published().status, status: .ok)
        }
        routes.on("/keys/next", method: .post) { _, _ in
            let keys = try published()
            do {
                return JSONResponse.make(try await keys.publishNext(), status: .created)
            } catch let error as PublishedSigningKeys.RotationError {
                throw Failure(error: error.description, status: 409)
            }
        }
        routes.on("/keys/rotate", method: .post) { _, _ in
            let keys = try published()
            do throws(PublishedSigningKeys.RotationError) {
                let (status, withdrawn) = try keys.rotate()
                return JSONResponse.make(RotationAnswer(signing: status.signing, published: status.published, withdrawn: withdrawn), status: .ok)
            } catch {
                throw Failure(error: error.description, status: 409)
            }
        }
        return routes
    }

    struct RotationAnswer: Encodable {
        let signing: String
        let published: [String]
        let withdrawn: String
    }

    private static func decode<T: Decodable>(_ type: T.Type, _ request: Request, _ context: VouchRequestContext) async throws -> T {
        do {
            return try await RequestBodyReader.decode(type, from: request, context: context)
        } catch let error as APIError {
            throw Failure(error: error.body.message, status: Int(error.status.code))
        }
    }

    /// Every error in the `{"error", "status"}` shape, never a 500 with internals.
    struct FailureMiddleware: RouterMiddleware {
        typealias Context = VouchRequestContext

        let routes: RouteTableBox

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            do {
                return try await next(request, context)
            } catch let failure as Failure {
                return JSONResponse.make(failure, status: .init(code: failure.status))
            } catch let error as HTTPError {
                if error.status == .notFound, !routes.methods(forPath: request.uri.path).isEmpty {
                    return JSONResponse.make(Failure(error: "method not allowed; use POST", status: 405), status: .methodNotAllowed)
                }
                return JSONResponse.make(Failure(error: error.status.reasonPhrase, status: Int(error.status.code)), status: error.status)
            } catch {
                return JSONResponse.make(Failure(error: "internal error", status: 500), status: .internalServerError)
            }
        }
    }
}
