// The code of the DocC article (Sources/VouchResourceServer/VouchResourceServer.docc/
// GettingStarted.md), kept verbatim between the markers: `DocumentationExampleTests` checks that
// the article shows exactly this, so the article's example always compiles and runs.
import Foundation
// example-start
import Hummingbird
import VouchResourceServer
import VouchResourceServerHummingbird

/// The chat service's request context: Hummingbird's storage plus the user the token named.
struct ChatRequestContext: VouchAuthenticatedRequestContext {
    var coreContext: CoreRequestContextStorage
    var vouchUser: VerifiedAccessToken?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
    }
}

/// A chat service whose `/rooms` routes take Vouch's access tokens, checked offline, and refuse
/// them within a second of their session ending.
func makeChatService(vouchURL: URL, serviceCredential: String, port: Int) -> some ApplicationProtocol {
    let verifier = AccessTokenVerifier(issuer: vouchURL.absoluteString, audience: "chat.example.com")
    let follower = SessionEndingsFollower(vouchURL: vouchURL, credential: serviceCredential, endings: verifier.endings)

    let router = Router(context: ChatRequestContext.self)
    // Ready when the keys are in hand and the endings are followed.
    router.get("/health/ready") { _, _ -> HTTPResponse.Status in
        verifier.keySetStatus.fetchedAt != nil && follower.isConnected ? .ok : .serviceUnavailable
    }
    router.group("rooms")
        .add(middleware: VouchAccessTokenMiddleware(verifier: verifier))
        .get(":room/messages") { _, context -> String in
            // The middleware let the request through, so the user is set.
            guard let user = context.vouchUser else { throw HTTPError(.unauthorized) }
            let room = try context.parameters.require("room")
            return "the messages of \(room) for \(user.userID)"
        }

    var app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
    app.addServices(SessionEndingsService(follower))
    return app
}
// example-end
