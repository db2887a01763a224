import Foundation
import Testing
import VouchProtocol
import VouchStore

// MARK: - Live-channel tickets

extension StoreConformance {
    static let liveTicketChecks: [Check] = [
        Check(name: "live tickets: single use, valid through their expiry second, unknown ones open nothing") {
            try await $0.liveTicketsSingleUse()
        },
        Check(name: "live tickets: purgeExpired removes exactly the expired ones") { try await $0.liveTicketsPurged() },
        Check(name: "race: two instances consuming one ticket, exactly one wins") { try await $0.raceLiveTicketConsumes() },
    ]

    func makeTicket(expiresAt: Int64 = t0 + LiveTicket.maximumLifetimeSeconds) -> LiveTicket {
        LiveTicket(ticketHash: randomBytes(), sessionTokenHash: randomBytes(), expiresAt: expiresAt)
    }

    func liveTicketsSingleUse() async throws {
        try await withStore { store in
            let ticket = makeTicket()
            try await store.createLiveTicket(ticket)
            await #expect(throws: StoreError.alreadyExists) { try await store.createLiveTicket(ticket) }
            #expect(try await store.consumeLiveTicket(hash: ticket.ticketHash, now: t0) == ticket.sessionTokenHash)
            #expect(try await store.consumeLiveTicket(hash: ticket.ticketHash, now: t0) == nil, "used")

            let edge = makeTicket(expiresAt: t0 + 30)
            let expired = makeTicket(expiresAt: t0 + 30)
            try await store.createLiveTicket(edge)
            try await store.createLiveTicket(expired)
            #expect(try await store.consumeLiveTicket(hash: edge.ticketHash, now: t0 + 30) == edge.sessionTokenHash)
            #expect(try await store.consumeLiveTicket(hash: expired.ticketHash, now: t0 + 31) == nil, "expired")
            #expect(try await store.consumeLiveTicket(hash: expired.ticketHash, now: t0) == nil, "spent by the expired try")
            #expect(try await store.consumeLiveTicket(hash: randomBytes(), now: t0) == nil, "unknown")
        }
    }

    func liveTicketsPurged() async throws {
        try await withStore { store in
            let past = makeTicket(expiresAt: t0 - 1)
            let edge = makeTicket(expiresAt: t0)
            let future = makeTicket(expiresAt: t0 + 1)
            for ticket in [past, edge, future] { try await store.createLiveTicket(ticket) }
            let purged = try await store.purgeExpired(now: t0, sessionGraceSeconds: 0)
            #expect(purged == PurgedRows(serverNonces: 0, registrationNonces: 0, sessions: 0, liveTickets: 1))
            #expect(try await store.consumeLiveTicket(hash: past.ticketHash, now: t0 - 2) == nil, "purged")
            #expect(try await store.consumeLiveTicket(hash: edge.ticketHash, now: t0) == edge.sessionTokenHash)
            #expect(try await store.consumeLiveTicket(hash: future.ticketHash, now: t0) == future.sessionTokenHash)
        }
    }

    func raceLiveTicketConsumes() async throws {
        try await withStores(2) { stores in
            for round in 0..<16 {
                let ticket = makeTicket()
                try await stores[round % 2].createLiveTicket(ticket)
                let outcomes = await race(
                    (0..<4).map { index in
                        { @Sendable in try await stores[index % 2].consumeLiveTicket(hash: ticket.ticketHash, now: t0) }
                    })
                #expect(outcomes.allSatisfy { $0.value != nil }, "round \(round): a consume failed")
                let opened = outcomes.compactMap { $0.value ?? nil }
                #expect(opened == [ticket.sessionTokenHash], "round \(round): \(opened.count) consumers opened it")
            }
        }
    }
}
