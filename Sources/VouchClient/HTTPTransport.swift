import Foundation
import VouchProtocol
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP exchange with its answer, before the client decides what the answer means.
struct HTTPAnswer: Sendable {
    let status: Int
    let body: Data
    let response: HTTPURLResponse

    var errorBody: ErrorBody? { try? JSONDecoder().decode(ErrorBody.self, from: body) }

    /// The challenge, when this is a 401 `authentication_required` with its nonce.
    var challenge: ChallengeDetails? {
        guard status == 401, let error = errorBody, error.kind == .authenticationRequired,
            let nonce = error.data?["nonce"]?.stringValue
        else { return nil }
        let reason = error.data?["reason"]?.stringValue.flatMap(ChallengeReason.init(rawValue:)) ?? .sessionUnknown
        return ChallengeDetails(nonce: nonce, reason: reason, detail: error.data?["detail"]?.stringValue)
    }
}

/// URLSession, bounded: every request has a timeout, every body a size cap, and failures become
/// `VouchClientError` values.
struct HTTPTransport: Sendable {
    static let maximumBodyBytes = 4 << 20

    let session: URLSession
    let requestTimeout: TimeInterval

    init(configuration: URLSessionConfiguration, requestTimeout: TimeInterval) {
        configuration.timeoutIntervalForRequest = requestTimeout
        configuration.timeoutIntervalForResource = requestTimeout * 2
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
        self.requestTimeout = requestTimeout
    }

    func send(_ request: URLRequest) async throws(VouchClientError) -> HTTPAnswer {
        var request = request
        request.timeoutInterval = requestTimeout
        let (data, response, failure) = await exchange(request)
        if let failure {
            let code = (failure as? URLError)?.code
            throw .network(message: code.map { "URLError \($0.rawValue)" } ?? String(describing: type(of: failure)), code: code)
        }
        guard let data, let http = response as? HTTPURLResponse else { throw .invalidResponse(message: "not an HTTP response") }
        guard data.count <= Self.maximumBodyBytes else { throw .invalidResponse(message: "body over \(Self.maximumBodyBytes) bytes") }
        return HTTPAnswer(status: http.statusCode, body: data, response: http)
    }

    /// One exchange. On Apple platforms it is cancelled with the calling task. With
    /// FoundationNetworking (Linux) it is deliberately not: cancelling an async URLSession call
    /// there can crash the process ("a task that is not in the registry"), so the request timeout
    /// bounds it instead, and a result that arrives for a cancelled sign-in is discarded by its
    /// generation check.
    private func exchange(_ request: URLRequest) async -> (Data?, URLResponse?, (any Error)?) {
        #if canImport(FoundationNetworking)
            await withCheckedContinuation { continuation in
                session.dataTask(with: request) { data, response, error in
                    continuation.resume(returning: (data, response, error))
                }.resume()
            }
        #else
            do {
                let (data, response) = try await session.data(for: request)
                return (data, response, nil)
            } catch {
                return (nil, nil, error)
            }
        #endif
    }

    /// A JSON request to the Vouch server.
    static func jsonRequest(_ url: URL, method: String, body: (some Encodable)?) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.setValue("application/json; charset=utf-8", forHTTPHeaderField: "Content-Type")
            request.httpBody = try? JSONEncoder().encode(body)
        }
        return request
    }

    /// The error an unexpected answer stands for.
    static func failure(_ answer: HTTPAnswer) -> VouchClientError {
        failure(
            status: answer.status, error: answer.errorBody,
            retryAfterSeconds: answer.response.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0) })
    }

    /// The error a refusal stands for, from its status and body: an HTTP answer's, or a live
    /// channel's `error` frame's, which has the status `POST /sessions` would have answered.
    ///
    /// - Parameters:
    ///   - status: the HTTP status.
    ///   - error: the protocol's error body, when there was one.
    ///   - retryAfterSeconds: how long a 429 asks to wait.
    static func failure(status: Int, error: ErrorBody?, retryAfterSeconds: Int?) -> VouchClientError {
        switch status {
        case 429:
            return .rateLimited(retryAfterSeconds: retryAfterSeconds)
        case 500...:
            return .serverUnavailable(status: status)
        case 403 where error?.kind == .invalidAppID:
            return .invalidAppID(message: error?.message ?? "")
        case 422 where error?.kind == .invalidProperty && error?.data?["reason"]?.stringValue != nil:
            let reason = error?.data?["reason"]?.stringValue ?? ""
            let serverTime = error?.data?["server_time"]?.integerValue
            let skewMatters = reason == RejectionReason.expired.rawValue || reason == RejectionReason.notBefore.rawValue
            let skew = serverTime.map { $0 - Int64(Date().timeIntervalSince1970.rounded()) }
            return .invalidIdentityToken(
                IdentityTokenRejection(
                    reason: reason, message: error?.message ?? "",
                    serverTime: serverTime.map { Date(timeIntervalSince1970: TimeInterval($0)) },
                    clockSkewSeconds: skewMatters ? skew : nil))
        default:
            return .server(status: status, id: error?.id, message: error?.message)
        }
    }
}
