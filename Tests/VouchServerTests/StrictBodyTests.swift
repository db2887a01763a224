import Foundation
import Testing
import VouchProtocol

/// Defects 4–7 of the hardening review: request bodies are read by the same strict rules as
/// tokens, and names cannot carry text that displays as something else.
@Suite("Request bodies: strict JSON and plain names")
struct StrictBodyTests {
    @Test("only UTF-8: UTF-16 and UTF-32 (with or without a BOM), a UTF-8 BOM and invalid bytes are 400")
    func utf8Only() async throws {
        try await LiveServer.run { server in
            let json = #"{"name": "Demo"}"#
            let encodings: [(String, [UInt8])] = [
                ("UTF-16LE", Array(json.data(using: .utf16LittleEndian)!)),
                ("UTF-16BE", Array(json.data(using: .utf16BigEndian)!)),
                ("UTF-16 with BOM", Array(json.data(using: .utf16)!)),
                ("UTF-32LE", Array(json.data(using: .utf32LittleEndian)!)),
                ("UTF-8 with BOM", [0xEF, 0xBB, 0xBF] + Array(json.utf8)),
                ("invalid UTF-8", Array(#"{"name": "De"#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8)),
                ("overlong UTF-8", Array(#"{"name": ""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8)),
            ]
            for (name, bytes) in encodings {
                let answer = try await server.request(.POST, "/admin/apps", bytes: bytes, admin: true)
                #expect(answer.status == 400, "\(name): \(answer.text)")
                #expect(answer.json["id"] as? String == "invalid_request", "\(name)")
            }
            #expect(try await server.request(.GET, "/admin/apps", admin: true).jsonArray.isEmpty, "nothing was created")
            #expect(try await server.request(.POST, "/admin/apps", bytes: Array(json.utf8), admin: true).status == 201)
        }
    }

    @Test("duplicate member names are 400, on every route that takes a body")
    func duplicateMembers() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let duplicated: [(String, String, Bool)] = [
                ("/admin/apps", #"{"name": "a", "name": "b"}"#, true),
                ("/admin/providers", #"{"name": "a", "name": "b"}"#, true),
                ("/sessions", #"{"app_id": "\#(fixture.appID)", "identity_token": "x", "app_id": "x"}"#, false),
                ("/nonces", #"{"app_id": "\#(fixture.appID)", "app_id": "\#(fixture.appID)"}"#, false),
                ("/admin/tools/validate-identity-token", #"{"identity_token": "a", "identity_token": "b", "app_id": "x"}"#, true),
                ("/admin/apps", #"{"name": "a", "nested": {"k": 1, "k": 2}}"#, true),
            ]
            for (path, body, admin) in duplicated {
                let answer = try await server.request(.POST, path, body: body, admin: admin)
                #expect(answer.status == 400, "\(path) \(body): \(answer.text)")
                #expect(answer.json["id"] as? String == "invalid_request")
            }
            let patch = try await server.request(
                .PATCH, "/admin/apps/\(Fixture.bare(fixture.appID))",
                body: #"{"session_ttl_seconds": 60, "session_ttl_seconds": 120}"#, admin: true)
            #expect(patch.status == 400, "\(patch.text)")
        }
    }

    @Test("integers are written as integers: 36e2, 3600.0 and 3.6E3 are 422 naming the property")
    func integerLiterals() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let path = "/admin/apps/\(Fixture.bare(fixture.appID))"
            for literal in ["36e2", "3600.0", "3.6E3", "3600e0", "-0.0"] {
                let answer = try await server.request(.PATCH, path, body: #"{"session_ttl_seconds": \#(literal)}"#, admin: true)
                #expect(answer.status == 422, "\(literal): \(answer.text)")
                #expect(answer.json["id"] as? String == "invalid_property")
                #expect(answer.data["property"] as? String == "session_ttl_seconds", "\(literal)")
                let create = try await server.request(.POST, "/admin/apps", body: #"{"name": "x", "session_ttl_seconds": \#(literal)}"#, admin: true)
                #expect(create.status == 422, "\(literal): \(create.text)")
            }
            let fine = try await server.request(.PATCH, path, body: #"{"session_ttl_seconds": 3600}"#, admin: true)
            #expect(fine.status == 200)
            #expect(fine.json["session_ttl_seconds"] as? Int == 3600)
        }
    }

    @Test("a sign-in's device is read and checked: a wrong type or a refused text is 422 naming the field")
    func signInDevice() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let refused: [(String, String)] = [
                (#""phone""#, "device"), (#"{"name": 5}"#, "device.name"), (#"{"platform": ["iOS"]}"#, "device.platform"),
                (#"{"name": "Alice\u202eenohp"}"#, "device.name"), (#"{"platform": "two\nlines"}"#, "device.platform"),
                (#"{"app_version": ""}"#, "device.app_version"), (#"{"name": "\#(String(repeating: "x", count: 129))"}"#, "device.name"),
            ]
            for (device, property) in refused {
                let body = #"{"app_id": "\#(fixture.appID)", "identity_token": "x", "device": \#(device)}"#
                let answer = try await server.request(.POST, "/sessions", body: body)
                #expect(answer.status == 422, "\(device): \(answer.text)")
                #expect(answer.data["property"] as? String == property, "\(device): \(answer.text)")
            }
            // A device the rules accept leaves the token to be judged (and refused, here).
            let fine = #"{"app_id": "\#(fixture.appID)", "identity_token": "x", "device": {"name": "Alice's phone", "app_version": null}}"#
            let answer = try await server.request(.POST, "/sessions", body: fine)
            #expect(answer.status == 422 && answer.data["property"] as? String == "identity_token", "\(answer.text)")
        }
    }

    @Test("names refuse C0/C1 controls and bidirectional controls with 422, naming the character")
    func plainNames() async throws {
        try await LiveServer.run { server in
            let fixture = try await Fixture.make(server)
            let refused: [(String, String)] = [
                ("right-to-left override", "evil\u{202E}gnp.exe"), ("left-to-right embedding", "a\u{202A}b"),
                ("pop directional formatting", "a\u{202C}"), ("right-to-left isolate", "\u{2067}x"),
                ("first strong isolate", "x\u{2068}y"), ("pop directional isolate", "x\u{2069}"),
                ("right-to-left mark", "x\u{200F}"), ("arabic letter mark", "x\u{061C}"),
                ("NUL", "a\u{0}b"), ("escape", "a\u{1B}[31mred"), ("newline", "two\nlines"),
                ("C1 next line", "a\u{85}b"), ("C1 CSI", "a\u{9B}31m"), ("delete", "a\u{7F}"),
            ]
            for (name, value) in refused {
                for path in ["/admin/apps", "/admin/providers"] {
                    let answer = try await server.post(path, ["name": value], admin: true)
                    #expect(answer.status == 422, "\(name) on \(path): \(answer.text)")
                    #expect(answer.data["property"] as? String == "name")
                    #expect((answer.json["message"] as? String)?.contains("U+") == true, "\(answer.text)")
                }
                let rename = try await server.request(
                    .PATCH, "/admin/apps/\(Fixture.bare(fixture.appID))",
                    body: server.json(["name": value]), admin: true)
                #expect(rename.status == 422, "\(name) in a rename")
            }
            for fine in ["Démo", "日本語のアプリ", "עברית", "مرحبا", "emoji 🎉", "tab\u{9}".replacingOccurrences(of: "\u{9}", with: "")] {
                #expect(try await server.post("/admin/apps", ["name": fine], admin: true).status == 201, "\(fine)")
            }
        }
    }
}
