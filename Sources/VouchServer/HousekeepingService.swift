import Logging
import ServiceLifecycle
import VouchStore

/// Purges expired rows in the background, so used nonces and replay entries never outgrow the
/// ten minutes (or the token lifetime) they matter for; and counts the live sessions for the
/// `vouch_live_sessions` gauge on the same interval (one COUNT, never per request).
///
/// It holds only what it needs: ServiceLifecycle logs every service by printing it, so a service
/// must never carry a secret (the whole configuration holds the admin token).
struct HousekeepingService: Service, CustomStringConvertible {
    let store: any Store
    let purgeIntervalSeconds: Int64
    let expiredSessionGraceSeconds: Int64
    /// Audit entries older than this many seconds are deleted.
    let auditRetentionSeconds: Int64
    let clocks: ServerClocks
    let logger: Logger
    let metrics: ServerMetrics

    var description: String { "HousekeepingService(every \(purgeIntervalSeconds) s)" }

    /// One purge, and a log line of what it removed.
    func purgeOnce() async {
        let now = clocks.now()
        do {
            let started = ContinuousClock.now
            // Expiries are told before expired sessions are purged, so none goes untold.
            var expiries = 0
            for _ in 0..<Self.expiryPagesPerRun {
                let told = try await store.recordSessionExpiries(now: now, limit: Self.expiryPageSize)
                expiries += told
                if told < Self.expiryPageSize { break }
            }
            if expiries > 0 { logger.debug("told session expiries", metadata: ["sessions": "\(expiries)"]) }
            let expired = try await store.purgeExpired(now: now, sessionGraceSeconds: expiredSessionGraceSeconds)
            // Routine when nothing was due, worth a line when something went.
            logger.log(
                level: expired.total == 0 ? .debug : .info, "purged expired rows",
                metadata: [
                    "server_nonces": "\(expired.serverNonces)", "registration_nonces": "\(expired.registrationNonces)",
                    "sessions": "\(expired.sessions)", "live_tickets": "\(expired.liveTickets)",
                    "duration": "\(ContinuousClock.now - started)",
                ])
            let (cutoff, overflow) = now.subtractingReportingOverflow(auditRetentionSeconds)
            let purged = overflow ? 0 : try await store.purgeAudit(before: cutoff)
            if purged > 0 { logger.info("purged old audit entries", metadata: ["entries": "\(purged)"]) }
            let endings = try await store.purgeSessionEndings(before: now - Self.sessionEndingRetentionSeconds)
            if endings > 0 { logger.debug("purged old session endings", metadata: ["entries": "\(endings)"]) }
            let events = try await store.purgeSecurityEvents(before: now - Self.securityEventRetentionSeconds)
            if events > 0 { logger.debug("purged old security events", metadata: ["events": "\(events)"]) }
        } catch {
            logger.warning("purge failed; will retry", metadata: ["error_type": "\(type(of: error))"])
        }
    }

    /// How long the log of session endings keeps an entry: an instance whose listener was away
    /// longer re-judges every socket instead of catching up.
    static let sessionEndingRetentionSeconds: Int64 = 86_400

    /// How long a security event is kept once no endpoint is owed it (PROTOCOL §8.17): a week, for
    /// the dashboard's list of deliveries and a replay.
    static let securityEventRetentionSeconds: Int64 = 7 * 86_400
    /// Expiries told per transaction (`session.ended` of kind `expired`), and the most
    /// transactions a run makes: a backlog is caught up over runs, each transaction short.
    static let expiryPageSize = 1_000
    static let expiryPagesPerRun = 100

    /// Sets the live-sessions gauge; on failure the gauge keeps its last value (the store error
    /// is counted by `InstrumentedStore`).
    func countLiveSessions() async {
        do {
            metrics.setLiveSessions(try await store.liveSessionCount(now: clocks.now()))
        } catch {
            logger.warning("counting live sessions failed; will retry", metadata: ["error_type": "\(type(of: error))"])
        }
    }

    func run() async throws {
        await countLiveSessions()
        await Periodically.run(every: purgeIntervalSeconds, sleep: clocks.sleep) {
            await purgeOnce()
            await countLiveSessions()
        }
    }
}
