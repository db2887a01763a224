import Testing
import VouchStore

@testable import VouchServer

/// The rotation schedule as a value (`SigningKeyPlan`): what signs, what is published, what may
/// go, and when a successor is due, from the stored keys and the clock alone.
@Suite("Signing key plan: one successor, published ahead, the predecessor kept past every token")
struct SigningKeyPlanTests {
    static func key(_ sequence: Int64, created: Int64, activates: Int64) -> SigningKeyRecord {
        SigningKeyRecord(
            sequence: sequence, keyID: "k\(sequence)", algorithm: "ES256", privateKey: [], createdAt: created, activatesAt: activates)
    }

    static var schedule: SigningKeySchedule {
        var schedule = SigningKeySchedule()
        schedule.rotationIntervalSeconds = 1000
        schedule.publishLeadSeconds = 100
        schedule.retentionSeconds = 400
        return schedule
    }

    @Test("no key: the first is due at once and activates at once")
    func firstKey() {
        let plan = SigningKeyPlan(keys: [], schedule: Self.schedule, now: 50)
        #expect(plan.signing == nil && plan.published.isEmpty)
        #expect(plan.successor?.sequence == 1 && plan.successor?.activatesAt == 50)
    }

    @Test("a successor is due a lead before the interval ends, activates a lead later, and only once")
    func successorTiming() {
        let first = Self.key(1, created: 0, activates: 0)
        #expect(SigningKeyPlan(keys: [first], schedule: Self.schedule, now: 899).successor == nil)
        let due = SigningKeyPlan(keys: [first], schedule: Self.schedule, now: 900)
        #expect(due.successor?.sequence == 2 && due.successor?.activatesAt == 1000)
        let second = Self.key(2, created: 900, activates: 1000)
        let pending = SigningKeyPlan(keys: [first, second], schedule: Self.schedule, now: 950)
        #expect(pending.successor == nil, "a successor waiting to activate is not replaced")
        #expect(pending.signing == first, "the old key signs until the successor's time")
        #expect(pending.published == [first, second], "the successor is published ahead")
        #expect(SigningKeyPlan(keys: [first, second], schedule: Self.schedule, now: 1000).signing == second)
    }

    @Test("a predecessor stays published for the retention after its successor took over, then may go")
    func retention() {
        let keys = [Self.key(1, created: 0, activates: 0), Self.key(2, created: 900, activates: 1000)]
        let kept = SigningKeyPlan(keys: keys, schedule: Self.schedule, now: 1399)
        #expect(kept.published.map(\.sequence) == [1, 2])
        #expect(kept.firstKept == 1)
        let gone = SigningKeyPlan(keys: keys.reversed(), schedule: Self.schedule, now: 1400)
        #expect(gone.published.map(\.sequence) == [2])
        #expect(gone.firstKept == 2)
    }

    @Test("the schedule refuses a lead shorter than two cache lifetimes and a retention shorter than the longest token")
    func validation() {
        var schedule = SigningKeySchedule()
        #expect(throws: Never.self) { try schedule.validate(leewaySeconds: 60) }
        schedule.publishLeadSeconds = 2 * schedule.jwksMaxAgeSeconds - 1
        #expect(throws: ConfigurationError.self) { try schedule.validate(leewaySeconds: 60) }
        schedule = SigningKeySchedule()
        schedule.retentionSeconds = 300 + 59
        #expect(throws: ConfigurationError.self) { try schedule.validate(leewaySeconds: 60) }
        schedule = SigningKeySchedule()
        schedule.publishLeadSeconds = schedule.rotationIntervalSeconds + 1
        #expect(throws: ConfigurationError.self) { try schedule.validate(leewaySeconds: 60) }
    }
}

@Suite("Form bodies (RFC 7662's token=…)")
struct FormBodyTests {
    @Test("pairs, + and %XX decoded, empty fields skipped")
    func parsing() {
        #expect(FormBody.parse(Array("token=a%2Bb+c&token_type_hint=x&&".utf8)) == ["token": "a+b c", "token_type_hint": "x"])
        #expect(FormBody.parse(Array("token".utf8)) == ["token": ""])
        #expect(FormBody.parse([]) == [:])
    }

    @Test("a name twice, a bad escape, or bytes that are not UTF-8 refuse the whole body")
    func refusals() {
        #expect(FormBody.parse(Array("token=a&token=b".utf8)) == nil)
        for bad in ["token=%", "token=%2", "token=%zz", "token=%FF"] {
            #expect(FormBody.parse(Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test("a Content-Type's media type: lowercased, parameters and surrounding spaces dropped")
    func mediaType() {
        #expect(RequestBodyReader.mediaType("Application/X-WWW-Form-URLencoded ; charset=UTF-8") == "application/x-www-form-urlencoded")
        #expect(RequestBodyReader.mediaType(" \tapplication/json") == "application/json")
        #expect(RequestBodyReader.mediaType("application/json;charset=utf-8") == "application/json")
        #expect(RequestBodyReader.mediaType("text/plain") == "text/plain")
        #expect(RequestBodyReader.mediaType("  ; x=y") == "")
        #expect(RequestBodyReader.mediaType(nil) == "")
        #expect(RequestBodyReader.mediaType("applicatión/json") == "applicatión/json", "non-ASCII bytes kept as they are")
    }
}
