import Logging
import ServiceLifecycle
import VouchStore

/// Wakes the follower of the log: after this process ends a session, on a notification from
/// another instance, and on the backstop's interval. Wakes that arrive while it reads collapse
/// into one more read.
final class LiveWakeSignal: Sendable {
    let wakes: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (wakes, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func wake() { continuation.yield() }
}

/// Reads the log of endings from the last position it read and hands each entry to the hub, and
/// runs the hub's clock. With a store shared by many instances (`SessionEndingFeed`), every
/// instance's endings wake it within moments; after its feed reconnects it catches up from the
/// log, so notifications lost while it was away lose nothing. If the log was purged past its
/// position, every socket is judged afresh.
struct LiveEndingsFollower: Service {
    let store: any Store
    let feed: (any SessionEndingFeed)?
    let hub: LiveHub
    let signal: LiveWakeSignal
    let logger: Logger
    /// The streams of `GET /events`, woken when the log moves and ended at shutdown.
    var eventStreams: SessionEventStreams? = nil
    /// Told whether the feed is listening (tests and health).
    var feedConnected: @Sendable (Bool) -> Void = { _ in }

    /// Runs until the server shuts down. By then the server has closed every socket with 1012 as
    /// it quiesced its connections (`LiveQuiesceHandler`); any socket left is closed here.
    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await follow() }
                group.addTask { await runClock() }
                group.addTask { await backstop() }
                if let feed {
                    let signal = self.signal
                    let connected = self.feedConnected
                    let logger = self.logger
                    group.addTask {
                        do {
                            try await feed.followSessionEndings(wake: { signal.wake() }, connected: connected)
                        } catch is CancellationError {
                        } catch {
                            logger.error("The feed of session endings stopped", metadata: ["error.type": "\(type(of: error))"])
                        }
                    }
                }
                // Each child runs until the shutdown cancels it; a feed that stopped leaves the
                // backstop reading the log.
                await group.waitForAll()
            }
        }
        await hub.closeAllForShutdown()
        eventStreams?.finishAll()
    }

    private func follow() async {
        var position = await startingPosition()
        for await _ in signal.wakes {
            guard !Task.isCancelled else { return }
            do {
                while true {
                    let page = try await store.sessionEndings(after: position, limit: LiveChannelLimits.endingsPageSize)
                    if page.missedEntries(after: position) {
                        logger.warning("Session endings were purged before this instance read them; judging every live socket afresh")
                        position = page.latestPosition
                        await hub.recheckAll()
                        eventStreams?.wakeAll()
                        break
                    }
                    for ending in page.entries {
                        await hub.apply(ending)
                        position = ending.position
                    }
                    if !page.entries.isEmpty { eventStreams?.wakeAll() }
                    if page.entries.count < LiveChannelLimits.endingsPageSize { break }
                }
            } catch {
                // The next wake (at the latest the backstop's) reads again from the same position.
                logger.warning("The log of session endings could not be read", metadata: ["error.type": "\(type(of: error))"])
            }
        }
    }

    /// Where the log stands now: what this instance's sockets have to hear of starts after it (an
    /// earlier ending of an admitted socket's session is found by its admission's re-check).
    private func startingPosition() async -> Int64 {
        var delay = Duration.milliseconds(100)
        while !Task.isCancelled {
            do {
                return try await store.sessionEndings(after: .max, limit: 1).latestPosition
            } catch {
                logger.warning("The log of session endings could not be read", metadata: ["error.type": "\(type(of: error))"])
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
        return 0
    }

    private func runClock() async {
        while !Task.isCancelled {
            await hub.tick()
            // The machine's clock, whatever `clocks` says: the hub reads `clocks.now` for what is due.
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func backstop() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: LiveChannelLimits.backstopInterval)
            signal.wake()
        }
    }
}
