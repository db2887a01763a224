/// Values by key in two generations of at most `generationSize` each: a bounded table whose
/// forgetting costs nothing per use and the same whatever arrives.
///
/// A key used (`value(for:)`) or set moves into the current generation; when a new key finds the
/// current one full, the previous generation (every key not used since) is let go whole, and the
/// current one becomes the previous. So a key is forgotten only once `generationSize` others have
/// been used since it last was, and a key in steady use is never forgotten. Choosing whom to
/// forget by looking at every entry would take a pass (and a sort) over the whole table, under
/// whatever lock guards it (docs/PERFORMANCE.md, "The request path").
///
/// Not locked itself: its owners keep it behind their own lock, and free the generation a call
/// lets go (which it returns) after releasing that lock. Shared by the server's rate limiter and
/// the SQLite writer's users.
///
/// Public and inlinable so that each owner's module specialises it for its own key and value:
/// unspecialised, every look-up goes through the standard library's generic dictionary and the
/// runtime's metadata caches. Not `package`: this compiler does not serialise a `package`
/// declaration's inlinable body for another module, whose callers would then call the generic
/// code (docs/PERFORMANCE.md, "The request path").
public struct TwoGenerations<Key: Hashable, Value> {
    /// The most entries one generation holds.
    public let generationSize: Int
    @usableFromInline var current: [Key: Value] = [:]
    @usableFromInline var previous: [Key: Value] = [:]

    @inlinable
    public init(generationSize: Int) {
        self.generationSize = max(1, generationSize)
    }

    /// Entries in both generations.
    @inlinable
    public var count: Int { current.count + previous.count }

    /// The value for `key`, if kept; one found in the previous generation moves into the current
    /// one, which may let the previous generation go (returned, to be freed after the lock).
    @inlinable
    public mutating func value(for key: Key) -> (value: Value?, letGo: [Key: Value]) {
        if let value = current[key] { return (value, [:]) }
        guard let value = previous.removeValue(forKey: key) else { return (nil, [:]) }
        return (value, set(value, for: key))
    }

    /// Sets `value` for `key` in the current generation, letting the previous generation go first
    /// when `key` is new to a full current one. Returns the generation let go (empty when none
    /// was), to be freed after the lock. A stale copy of `key` in the previous generation is
    /// hidden by this one (`value(for:)` looks in the current generation first) and goes with it.
    @inlinable
    public mutating func set(_ value: Value, for key: Key) -> [Key: Value] {
        var letGo: [Key: Value] = [:]
        // The count first: the extra look-up happens only when the generation is full.
        if current.count >= generationSize, current[key] == nil {
            letGo = previous
            previous = current
            // Sized once: the new generation fills to the same size without growing.
            current = Dictionary(minimumCapacity: generationSize)
        }
        current[key] = value
        return letGo
    }

    /// Forgets `key` in both generations.
    @inlinable
    public mutating func removeValue(forKey key: Key) {
        current[key] = nil
        previous[key] = nil
    }

    /// Forgets every key; returns what was kept, to be freed after the lock.
    @inlinable
    public mutating func removeAll() -> (current: [Key: Value], previous: [Key: Value]) {
        defer {
            current = [:]
            previous = [:]
        }
        return (current, previous)
    }
}
