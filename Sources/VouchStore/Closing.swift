/// Runs `body` with `store` and closes the store on every path (a thrown error, a failed test's
/// `#require`), since a backend may insist on being closed.
public func closing<S: Store, T>(_ store: S, _ body: (S) async throws -> T) async throws -> T {
    let value: T
    do {
        value = try await body(store)
    } catch {
        try? await store.close()
        throw error
    }
    try await store.close()
    return value
}
