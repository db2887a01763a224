import Synchronization

/// Hands out 0, 1, 2, … below a limit to the tasks of one measurement.
final class NextIndex: Sendable {
    private let value = Atomic<Int>(0)
    let limit: Int

    init(below limit: Int) { self.limit = limit }

    func take() -> Int? {
        let index = value.add(1, ordering: .relaxed).oldValue
        return index < limit ? index : nil
    }
}
