import Hummingbird
import Testing
@testable import VouchServer

/// The `Authorization` forms of PROTOCOL §3, parsed from the header's bytes.
@Suite("Session credentials")
struct SessionCredentialsTests {
    private let token = "AAAAAGkR4ABhbGljZS1zZXNzaW9uLXRva2VuLWZvci10ZXN0aW5nLW9ubHk"

    @Test("the three forms, in any ASCII case, with the white space RFC 9110 allows around them")
    func accepted() {
        for header in [
            "Bearer \(token)", "bearer \(token)", "BEARER   \(token)", " \tBearer \(token)\t ",
            "Layer session-token=\"\(token)\"", "layer SESSION-TOKEN='\(token)'", "Layer   session-token=\"\(token)\" ",
        ] {
            #expect(SessionCredentials.token(fromAuthorization: header) == token, "\(header)")
        }
    }

    @Test("anything else names no token")
    func refused() {
        let headers: [String?] = [
            nil, "", "Bearer", "Bearer ", "Basic \(token)", "Bearer\t\(token)", "Layer session-token=\(token)",
            "Layer session-token=\"\(token)'", "Layer session-token=\"", "Layer token=\"\(token)\"",
            "Bearer \(token) extra", "Bearer a\"b", "Bearer a'b", "Layer session-token=\"a b\"",
            "Bearer " + String(repeating: "x", count: RequestLimits.maximumSessionTokenLength + 1),
            "Bérer \(token)",
        ]
        for header in headers {
            #expect(SessionCredentials.token(fromAuthorization: header) == nil, "\(header ?? "nil")")
        }
    }

    @Test("a token of non-ASCII text comes back whole")
    func nonASCII() {
        #expect(SessionCredentials.token(fromAuthorization: "Bearer é日本") == "é日本")
        #expect(SessionCredentials.token(fromAuthorization: "Layer session-token=\"é\"") == "é")
    }
}

/// The header as the route reads it: what the HTTP types' subscript would answer.
@Suite("A header's combined value")
struct CombinedHeaderValueTests {
    @Test("absent, single, repeated and in any case of name: the subscript's answer")
    func sameAsSubscript() {
        let shapes: [HTTPFields] = [
            [:],
            [.accept: "x"],
            [.authorization: "Bearer a"],
            [.accept: "x", .authorization: "Bearer a", .userAgent: "t"],
            // A literal appends every pair, repeated names included.
            [.authorization: "Bearer a", .accept: "x", .init("AUTHORIZATION")!: "Bearer b"],
            [.authorization: ""],
        ]
        for fields in shapes {
            #expect(fields.combinedValue(.authorization) == fields[.authorization], "\(fields)")
        }
        let repeated = shapes[4].combinedValue(.authorization)
        #expect(repeated == "Bearer a, Bearer b")
        #expect(SessionCredentials.token(fromAuthorization: repeated) == nil, "two credentials name no token")
    }
}
