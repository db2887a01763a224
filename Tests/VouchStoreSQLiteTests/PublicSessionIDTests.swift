import Foundation
import Testing
import VouchStore

@Suite("public session ids")
struct PublicSessionIDTests {
    @Test("version 7: the millisecond first, so ids made later sort later; 74 random bits; never repeated")
    func shape() {
        let first = PublicSessionID.make(now: Date(timeIntervalSince1970: 1_800_000_000.001))
        let later = PublicSessionID.make(now: Date(timeIntervalSince1970: 1_800_000_000.002))
        let text = first.uuidString.lowercased()
        #expect(text.split(separator: "-")[2].first == "7", "version 7: \(text)")
        #expect(["8", "9", "a", "b"].contains(text.split(separator: "-")[3].first.map(String.init) ?? ""), "variant: \(text)")
        #expect(String(text.prefix(13)).replacingOccurrences(of: "-", with: "") == String(format: "%012llx", 1_800_000_000_001))
        #expect(first.uuidString < later.uuidString)
        let many = Set((0..<10_000).map { _ in PublicSessionID.make() })
        #expect(many.count == 10_000)
    }
}
