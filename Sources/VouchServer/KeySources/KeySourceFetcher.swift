import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import VouchProtocol
import VouchStore
import VouchTokens

/// Fetches a provider's keys under the outbound rules (PROTOCOL §8.18): its JWKS URL as
/// configured, or the `jwks_uri` its issuer's discovery document publishes, each at most 64 KiB
/// within 5 s, over HTTPS to a public address that was checked, never following a redirect.
struct KeySourceFetcher: Sendable {
    static let maximumBytes = 64 * 1_024
    static let userAgent = "Vouch-KeySource/1"

    let outbound: OutboundPolicy
    let client: OutboundHTTPClient
    /// The whole fetch, discovery included (`KeySourceSettings.fetchTimeLimit`).
    let timeLimit: Duration

    init(outbound: OutboundPolicy, timeLimit: Duration) {
        self.outbound = outbound
        self.timeLimit = timeLimit
        let limit = TimeAmount.nanoseconds(Int64(timeLimit.components.seconds) * 1_000_000_000 + timeLimit.components.attoseconds / 1_000_000_000)
        client = OutboundHTTPClient(
            limits: OutboundHTTPClient.Limits(connectTimeout: limit, exchangeTimeout: limit, maximumBodyBytes: Self.maximumBytes))
    }

    /// What a fetch brought: a document Vouch takes, or why not, in words for the operator.
    struct Fetched: Sendable {
        let document: String
        let jwksURL: String
        let keys: JSONWebKeySetDocument
        /// How long the set is fresh: its `Cache-Control`, clamped.
        let freshSeconds: Int64
    }

    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        let description: String
    }

    /// The whole fetch, discovery included, answered within `timeLimit` however the source
    /// behaves: at the limit the fetch is cancelled and left to unwind on its own.
    func fetch(_ source: ProviderKeySource) async -> Result<Fetched, Failure> {
        let outcome = OneAnswer<Result<Fetched, Failure>>()
        let work = Task { outcome.answer(await self.fetchUnbounded(source)) }
        let timer = Task {
            try? await Task.sleep(for: timeLimit)
            outcome.answer(.failure(Failure(description: timeLimitReached)))
        }
        let result = await outcome.value
        work.cancel()
        timer.cancel()
        return result
    }

    private var timeLimitReached: String { "no answer within \(timeLimit.components.seconds) s" }

    private func fetchUnbounded(_ source: ProviderKeySource) async -> Result<Fetched, Failure> {
        do {
            let jwksURL: String
            if let configured = source.jwksURI {
                jwksURL = configured
            } else if let issuer = source.issuer {
                jwksURL = try await discoverJWKS(issuer: issuer)
            } else {
                throw Failure(description: "the provider has neither a JWKS URL nor an issuer")
            }
            let answer = try await getJSON(jwksURL, what: "the JWKS")
            let keys: JSONWebKeySetDocument
            do {
                keys = try JSONWebKeySetDocument(document: answer.body, algorithm: source.algorithm)
            } catch {
                throw Failure(description: error.description)
            }
            let freshSeconds = Self.freshness(cacheControl: answer.headers[canonicalForm: "cache-control"].map(String.init))
            return .success(
                Fetched(document: String(decoding: answer.body, as: UTF8.self), jwksURL: jwksURL, keys: keys, freshSeconds: freshSeconds))
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(Failure(description: "\(error)"))
        }
    }

    /// OpenID Connect Discovery 1.0 §4: `<issuer>/.well-known/openid-configuration`, whose
    /// `issuer` must be the configured one exactly (§4.3) and whose `jwks_uri` is used as written.
    private func discoverJWKS(issuer: String) async throws -> String {
        let trimmed = issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
        let answer = try await getJSON(trimmed + "/.well-known/openid-configuration", what: "the discovery document")
        guard let members = try? StrictJSON().parseObject(answer.body) else {
            throw Failure(description: "the discovery document is not one JSON object")
        }
        guard members["issuer"]?.stringValue == issuer else {
            throw Failure(description: "the discovery document names another issuer (it must be \(issuer) exactly)")
        }
        guard let jwksURI = members["jwks_uri"]?.stringValue else {
            throw Failure(description: "the discovery document has no `jwks_uri`")
        }
        return jwksURI
    }

    private func getJSON(_ url: String, what: String) async throws -> OutboundResponse {
        let destination: OutboundDestination
        do {
            destination = try await outbound.destination(url)
        } catch {
            throw Failure(description: "\(what) at \(url) is refused: \(error.explanation)")
        }
        switch await client.get(destination, headers: [("Accept", "application/json")], userAgent: Self.userAgent) {
        case .failure(.connectTimedOut), .failure(.timedOut):
            // The client's own deadlines equal the fetch's limit: whichever fires first, one reason.
            throw Failure(description: "\(what) at \(url): \(timeLimitReached)")
        case .failure(let failure):
            throw Failure(description: "\(what) at \(url): \(failure.explanation)")
        case .success(let answer) where answer.status != 200:
            let redirect = (300..<400).contains(answer.status) ? " (redirects are not followed)" : ""
            throw Failure(description: "\(what) at \(url) answered HTTP \(answer.status)\(redirect)")
        case .success(let answer) where answer.bodyExceededLimit:
            throw Failure(description: "\(what) at \(url) is larger than \(Self.maximumBytes / 1_024) KiB")
        case .success(let answer):
            return answer
        }
    }

    /// `max-age` (or `no-cache`, `no-store`: the floor) clamped to `KeySourceSettings.freshness`;
    /// a source that says nothing is fresh for `KeySourceSettings.defaultFreshnessSeconds`.
    static func freshness(cacheControl values: [String]) -> Int64 {
        let range = KeySourceSettings.freshness
        var maxAge: Int?
        for directive in values.lazy.flatMap({ $0.split(separator: ",") }) {
            let trimmed = directive.trimmingCharacters(in: .whitespaces).lowercased()
            if trimmed == "no-cache" || trimmed == "no-store" { return Int64(range.lowerBound) }
            guard trimmed.hasPrefix("max-age=") else { continue }
            var value = trimmed.dropFirst("max-age=".count)
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) else { return Int64(range.lowerBound) }
            // A huge number of digits is as good as "forever": the ceiling applies.
            maxAge = Int(value) ?? range.upperBound
        }
        return Int64(min(max(maxAge ?? KeySourceSettings.defaultFreshnessSeconds, range.lowerBound), range.upperBound))
    }
}

/// The first of several answers, awaited once.
private final class OneAnswer<Value: Sendable>: Sendable {
    private let state = Mutex<(value: Value?, waiter: CheckedContinuation<Value, Never>?)>((nil, nil))

    func answer(_ value: Value) {
        let waiter: CheckedContinuation<Value, Never>? = state.withLock { state in
            guard state.value == nil else { return nil }
            state.value = value
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: value)
    }

    var value: Value {
        get async {
            await withCheckedContinuation { continuation in
                let ready: Value? = state.withLock { state in
                    if let value = state.value { return value }
                    state.waiter = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }
    }
}
