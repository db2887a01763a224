import Hummingbird
import NIOCore

/// `GET /metrics`: the Prometheus text format. Open like `/health`: it holds counts by route
/// pattern and reason, nothing about any user or credential (restrict it at the proxy if even
/// that is too much; docs/OPERATIONS.md).
struct MetricsRoute {
    let metrics: ServerMetrics

    var routes: RouteCollection<VouchRequestContext> {
        RouteCollection(context: VouchRequestContext.self).on("/metrics", method: .get) { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: metrics.exposition())))
        }
    }
}
