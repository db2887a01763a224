import Foundation
import Testing
import VouchProtocol
import VouchStore
@testable import VouchServer

/// The hot answers are written by hand; they must be exactly what `JSONEncoder` writes.
@Suite("JSON bodies written by hand")
struct JSONBodyWriterTests {
    static let awkward = [
        "", "alice", "Ada \"the\" Countess", "back\\slash", "layer:///identities/a%2Fb", "tab\tnew\nline\r",
        "\u{01}\u{08}\u{0C}\u{1F}\u{7F}", "émoji 👩‍💻 and 中文", "\u{2028}\u{2029}", "</script>",
        // Longer than the writer's kilobyte: escapes all the way, and one run of plain bytes
        // longer than the kilobyte by itself.
        String(repeating: "a\"\u{01}é\\", count: 300), String(repeating: "x", count: 3000),
    ]

    func expectSame(_ value: some JSONBodyWritable, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reference = Array(try JSONResponse.encoder().encode(value))
        #expect(
            value.jsonBody == reference,
            "\(String(decoding: value.jsonBody, as: UTF8.self)) != \(String(decoding: reference, as: UTF8.self))",
            sourceLocation: sourceLocation)
    }

    @Test("every response type, with every awkward string in every field, byte for byte")
    func sameAsJSONEncoder() throws {
        for text in Self.awkward {
            try expectSame(NonceResponse(nonce: text, expiresAt: text))
            try expectSame(AccessTokenResponse(accessToken: text, expiresAt: text, audience: text, tokenType: text))
            for audience in [text, nil] {
                try expectSame(
                    IntrospectionResponse(
                        active: true, tokenType: text, subject: text, appID: UUID(), sessionID: UUID(), issuedAt: -1,
                        expiresAt: 1_790_000_000, audience: audience, issuer: text, tokenID: audience))
            }
            try expectSame(IntrospectionResponse.inactive)
            // The server's own answers, written from the user's record; each encodes as the
            // protocol's type (`SessionResponse`, `CurrentUserResponse`) for the reference.
            let fullRecord = UserRecord(
                appID: UUID(), userID: text,
                profile: IdentityProfile(
                    displayName: text, firstName: text, lastName: text, avatarURL: text), suspended: false)
            let sparseRecord = UserRecord(appID: UUID(), userID: text, profile: IdentityProfile(), suspended: false)
            for record in [fullRecord, sparseRecord] {
                let signedIn = SignedInSession(sessionToken: text, sessionID: text, expiresAt: text, user: record)
                try expectSame(signedIn)
                try expectSame(CurrentUserAnswer(user: record, sessionCreatedAt: text, sessionExpiresAt: text, sessionID: text))
            }
        }
    }

    @Test("every byte below 0x80 alone in a string")
    func everyASCIIByte() throws {
        for scalar in (0..<0x80).compactMap(Unicode.Scalar.init) {
            try expectSame(NonceResponse(nonce: "a\(Character(scalar))b", expiresAt: String(Character(scalar))))
        }
    }
}
