import Foundation
import Testing
import VouchStore

// MARK: - Vouch's signing keys

extension StoreConformance {
    static let signingKeyChecks: [Check] = [
        Check(name: "signing keys: added once per sequence and key id, listed by sequence, deleted below a sequence") {
            try await $0.signingKeysLifecycle()
        },
        Check(name: "race: two instances adding one successor, exactly one added, the winner's key kept") {
            try await $0.raceSigningKeySuccessors()
        },
    ]

    func signingKeysLifecycle() async throws {
        try await withStore { store async throws in
            #expect(try await store.signingKeys() == [])
            let first = makeSigningKey(sequence: 1)
            #expect(try await store.addSigningKey(first))
            #expect(try await store.signingKeys() == [first])

            // A taken sequence is refused whatever the key, the same key again too; a taken key
            // id under a free sequence as well. Nothing of them is written.
            #expect(try await store.addSigningKey(makeSigningKey(sequence: 1, createdAt: t0 + 5)) == false)
            #expect(try await store.addSigningKey(first) == false)
            var reused = makeSigningKey(sequence: 2)
            reused.keyID = first.keyID
            #expect(try await store.addSigningKey(reused) == false)
            #expect(try await store.signingKeys() == [first])

            // Listed by ascending sequence, whatever the order they were added in.
            let (second, third, fourth) = (makeSigningKey(sequence: 2), makeSigningKey(sequence: 3), makeSigningKey(sequence: 4))
            var long = makeSigningKey(sequence: 10, createdAt: t0 + 100)
            long.privateKey = randomBytes(121)
            for key in [fourth, long, second, third] {
                #expect(try await store.addSigningKey(key), "sequence \(key.sequence)")
            }
            #expect(try await store.signingKeys() == [first, second, third, fourth, long])

            #expect(try await store.deleteSigningKeys(below: 1) == 0)
            #expect(try await store.deleteSigningKeys(below: 3) == 2)
            #expect(try await store.signingKeys() == [third, fourth, long])
            #expect(try await store.deleteSigningKeys(below: 3) == 0)
            #expect(try await store.deleteSigningKeys(below: 10) == 2)
            #expect(try await store.signingKeys() == [long])
        }
    }

    /// Each round both instances add their own key as the next successor at once.
    func raceSigningKeySuccessors() async throws {
        try await withStores(2) { stores in
            for sequence in Int64(1)...20 {
                let (mine, theirs) = (makeSigningKey(sequence: sequence), makeSigningKey(sequence: sequence))
                async let addedMine = stores[0].addSigningKey(mine)
                async let addedTheirs = stores[1].addSigningKey(theirs)
                let (first, second) = try await (addedMine, addedTheirs)
                #expect(first != second, "sequence \(sequence): \(first) and \(second)")
                let winner = first ? mine : theirs
                for store in stores {
                    #expect(try await store.signingKeys().last == winner, "sequence \(sequence)")
                }
            }
            #expect(try await stores[0].signingKeys().map(\.sequence) == Array(1...20))
        }
    }
}
