import Foundation
import Testing
import VouchStore

// MARK: - Webhook endpoints

extension StoreConformance {
    static let webhookEndpointChecks: [Check] = [
        Check(name: "webhook endpoints: create, list oldest first per app, events and secret kept exactly") {
            try await $0.webhookEndpointsLifecycle()
        },
        Check(name: "webhook endpoints: update what is given, pause once, resume, delete; only through their own app") {
            try await $0.webhookEndpointChanges()
        },
        Check(name: "webhook endpoints: an app's limit holds when creations race; another app's count is its own") {
            try await $0.webhookEndpointLimit()
        },
    ]

    func webhookEndpointLimit() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let other = try await store.addApp()
            try await store.createWebhookEndpoint(makeWebhookEndpoint(app: app.id), limit: 3)
            // Eight creations at once for the two places left: exactly two get in.
            let created = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<8 {
                    group.addTask {
                        do {
                            try await store.createWebhookEndpoint(makeWebhookEndpoint(app: app.id), limit: 3)
                            return true
                        } catch StoreError.limitReached {
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(created == 2)
            #expect(try await store.webhookEndpoints(appID: app.id).count == 3)
            await #expect(throws: StoreError.limitReached) {
                try await store.createWebhookEndpoint(makeWebhookEndpoint(app: app.id), limit: 3)
            }
            try await store.createWebhookEndpoint(makeWebhookEndpoint(app: other.id), limit: 3)
            #expect(try await store.webhookEndpoints(appID: other.id).count == 1)
            await #expect(throws: StoreError.notFound) { try await store.createWebhookEndpoint(makeWebhookEndpoint(app: UUID()), limit: 3) }
        }
    }

    func webhookEndpointsLifecycle() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let other = try await store.addApp()
            let older = makeWebhookEndpoint(app: app.id, url: "https://older.example/hook", createdAt: t0 - 10)
            let tied = [makeWebhookEndpoint(app: app.id, events: ["key.created"]), makeWebhookEndpoint(app: app.id, events: [])]
                .sorted { $0.id.uuidString < $1.id.uuidString }
            let others = makeWebhookEndpoint(app: other.id, events: ["registration_secret.revoked", "session.created"])
            for endpoint in [tied[1], others, older, tied[0]] { try await store.createWebhookEndpoint(endpoint, limit: 20) }

            #expect(try await store.webhookEndpoints(appID: app.id) == [older] + tied)
            #expect(try await store.webhookEndpoints(appID: other.id) == [others], "events read back in their order")
            #expect(try await store.webhookEndpoints(appID: UUID()) == [])

            let orphan = makeWebhookEndpoint(app: UUID())
            await #expect(throws: StoreError.notFound) { try await store.createWebhookEndpoint(orphan, limit: 20) }
            var sameID = makeWebhookEndpoint(app: app.id)
            sameID.id = older.id
            await #expect(throws: StoreError.alreadyExists) { try await store.createWebhookEndpoint(sameID, limit: 20) }
            #expect(try await store.webhookEndpoints(appID: app.id) == [older] + tied)
        }
    }

    func webhookEndpointChanges() async throws {
        try await withStore { store in
            let app = try await store.addApp()
            let other = try await store.addApp()
            let endpoint = makeWebhookEndpoint(app: app.id)
            try await store.createWebhookEndpoint(endpoint, limit: 20)

            // Only what is given changes; the time of the change is kept.
            var expected = endpoint
            expected.url = "https://moved.example/hook"
            expected.updatedAt = t0 + 5
            #expect(
                try await store.updateWebhookEndpoint(
                    id: endpoint.id, appID: app.id, change: WebhookEndpointChange(url: expected.url), now: t0 + 5) == expected)
            expected.events = ["cutoff.set"]
            expected.updatedAt = t0 + 6
            #expect(
                try await store.updateWebhookEndpoint(
                    id: endpoint.id, appID: app.id, change: WebhookEndpointChange(events: ["cutoff.set"]), now: t0 + 6) == expected)

            // A pause keeps its first time and reason.
            expected.pausedAt = t0 + 10
            expected.pauseReason = "HTTP 500 for 24 hours"
            #expect(try await store.pauseWebhookEndpoint(id: endpoint.id, appID: app.id, reason: "HTTP 500 for 24 hours", now: t0 + 10) == expected)
            #expect(try await store.pauseWebhookEndpoint(id: endpoint.id, appID: app.id, reason: "later", now: t0 + 20) == expected)
            #expect(try await store.webhookEndpoints(appID: app.id).first?.isPaused == true)

            // An update without a resume leaves the pause; a resume clears it.
            expected.updatedAt = t0 + 30
            #expect(try await store.updateWebhookEndpoint(id: endpoint.id, appID: app.id, change: WebhookEndpointChange(), now: t0 + 30) == expected)
            expected.pausedAt = nil
            expected.pauseReason = nil
            expected.updatedAt = t0 + 31
            #expect(
                try await store.updateWebhookEndpoint(id: endpoint.id, appID: app.id, change: WebhookEndpointChange(resume: true), now: t0 + 31)
                    == expected)
            // An empty list of events is a list, not "unchanged".
            expected.events = []
            expected.updatedAt = t0 + 32
            #expect(
                try await store.updateWebhookEndpoint(id: endpoint.id, appID: app.id, change: WebhookEndpointChange(events: []), now: t0 + 32)
                    == expected)

            // Another app's path, or an unknown id, reaches nothing.
            await #expect(throws: StoreError.notFound) {
                try await store.updateWebhookEndpoint(id: endpoint.id, appID: other.id, change: WebhookEndpointChange(url: "https://x.example/"), now: t0 + 40)
            }
            await #expect(throws: StoreError.notFound) {
                try await store.pauseWebhookEndpoint(id: endpoint.id, appID: other.id, reason: "x", now: t0 + 40)
            }
            await #expect(throws: StoreError.notFound) { try await store.deleteWebhookEndpoint(id: endpoint.id, appID: other.id) }
            await #expect(throws: StoreError.notFound) { try await store.deleteWebhookEndpoint(id: UUID(), appID: app.id) }
            #expect(try await store.webhookEndpoints(appID: app.id) == [expected])

            try await store.deleteWebhookEndpoint(id: endpoint.id, appID: app.id)
            #expect(try await store.webhookEndpoints(appID: app.id) == [])
            await #expect(throws: StoreError.notFound) { try await store.deleteWebhookEndpoint(id: endpoint.id, appID: app.id) }
        }
    }
}
