import Foundation
import Testing
import VouchClient
import VouchTestSupport

/// Issue 40, item 5: every sign-in describes its device, and the user sees their devices.
@Suite struct DeviceTests {
    @Test func theDefaultDeviceDescriptionReachesTheServer() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(backend: bed.backend())
            try await client.connect(userID: "alice")

            let system = DeviceDescription.thisDevice()
            let platform = try #require(system.platform)
            #if os(Linux)
                #expect(platform.contains("Linux"))
            #endif
            let sessions = try await bed.admin.sessions(of: "alice", appID: bed.appID)
            let device = try #require(sessions.first?["device"] as? [String: Any])
            #expect(sessions.count == 1)
            #expect(device["platform"] as? String == platform)
            #expect(device["app_version"] as? String == system.appVersion)
            #expect(device["name"] is NSNull, "no name unless the app gives one (absent members are null)")
        }
    }

    @Test func devicesListsEveryClientOfTheUserWithThisOneMarked() async throws {
        try await TestBed.run { bed in
            let phone = try bed.client(
                backend: bed.backend(), storage: bed.scratch.appendingPathComponent("phone"), device: .thisDevice(name: "Alice's phone"))
            let laptop = try bed.client(
                backend: bed.backend(), storage: bed.scratch.appendingPathComponent("laptop"), device: .thisDevice(name: "Alice's laptop"))
            try await phone.connect(userID: "alice")
            try await laptop.connect(userID: "alice")

            let fromPhone = try await phone.devices()
            #expect(fromPhone.map(\.name) == ["Alice's phone", "Alice's laptop"])
            #expect(fromPhone.map(\.isCurrent) == [true, false])
            #expect(fromPhone.allSatisfy { $0.platform == DeviceDescription.thisDevice().platform })
            let fromLaptop = try await laptop.devices()
            #expect(fromLaptop.map(\.id) == fromPhone.map(\.id))
            #expect(fromLaptop.map(\.isCurrent) == [false, true])
            for device in fromPhone {
                #expect(device.createdAt <= device.lastSeenAt)
                #expect(device.lastSeenAt < device.expiresAt)
                #expect(abs(device.createdAt.timeIntervalSinceNow) < 300, "the server's clock, as a Date")
            }
        }
    }

    @Test func aDeviceNameWithControlCharactersOrTenKilobytesNeverFailsASignIn() async throws {
        try await TestBed.run { bed in
            let tenKilobytes = String(repeating: "é", count: 5_000)
            let descriptions: [(DeviceDescription, DeviceDescription?)] = [
                (.init(name: "Alice's\n\u{202E}phone\u{7}", platform: "\tiOS 18.1\u{85}"), .init(name: "Alice'sphone", platform: "iOS 18.1")),
                (
                    .init(name: tenKilobytes, appVersion: "1.0 " + tenKilobytes),
                    .init(name: String(tenKilobytes.prefix(64)), appVersion: "1.0 " + String(tenKilobytes.prefix(62)))
                ),
                (.init(name: "\u{1}\u{2066}\n", platform: " "), nil),
            ]
            for (index, (given, sent)) in descriptions.enumerated() {
                let userID = "user\(index)"
                let client = try bed.client(backend: bed.backend(), storage: bed.scratch.appendingPathComponent(userID), device: given)
                try await client.connect(userID: userID)
                let device = try #require(try await client.devices().first)
                #expect(device.name == sent?.name)
                #expect(device.platform == sent?.platform)
                #expect(device.appVersion == sent?.appVersion)
                let stored = try #require(try await bed.admin.sessions(of: userID, appID: bed.appID).first)
                #expect((stored["device"] == nil || stored["device"] is NSNull) == (sent == nil))
            }
        }
    }

    @Test func withoutADeviceDescriptionTheSessionHasNone() async throws {
        try await TestBed.run { bed in
            let client = try bed.client(backend: bed.backend(), device: nil)
            try await client.connect(userID: "alice")
            let device = try #require(try await client.devices().first)
            #expect(device.name == nil && device.platform == nil && device.appVersion == nil)
            #expect(device.isCurrent)
        }
    }
}
