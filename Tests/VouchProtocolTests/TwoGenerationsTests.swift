import Testing
import VouchSupport

/// The bounded table behind the rate limiter's clients and the SQLite writer's users.
@Suite("Two generations")
struct TwoGenerationsTests {
    @Test("a full current generation retires the previous one whole; a key in use stays; removal and emptying forget")
    func generations() {
        var table = TwoGenerations<String, Int>(generationSize: 2)
        #expect(table.set(1, for: "a").isEmpty && table.set(2, for: "b").isEmpty)
        #expect(table.set(3, for: "c").isEmpty, "the first full generation becomes the previous one, nothing is let go")
        #expect(table.count == 3)

        // "a" is in the previous generation: using it moves it into the current one, which is
        // then full, and the next newcomer retires the previous generation ("b") whole.
        #expect(table.value(for: "a").value == 1)
        #expect(table.set(2, for: "b2").keys.sorted() == ["b"])
        #expect(table.value(for: "b").value == nil)
        #expect(table.value(for: "a").value == 1 && table.value(for: "c").value == 3)

        // Setting a key already in the full current generation retires nothing.
        #expect(table.set(4, for: "b2").isEmpty)
        #expect(table.count <= 2 * table.generationSize)

        table.removeValue(forKey: "a")
        #expect(table.value(for: "a").value == nil)
        let all = table.removeAll()
        #expect(all.current.count + all.previous.count >= 1)
        #expect(table.count == 0)
    }
}
