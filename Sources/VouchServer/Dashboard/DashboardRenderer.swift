import Hummingbird
import Mustache

/// Renders the dashboard's pages: each page template, then the layout around it. The templates
/// are compiled into the binary (`DashboardTemplates`) and parsed once, at start.
///
/// `{{name}}` escapes HTML, so everything a person typed (an app's name, a user id, a token's
/// claims) is shown as text; only the page body, our own rendered template, is inserted raw.
struct DashboardRenderer: Sendable {
    private let library: MustacheLibrary

    init() {
        var library = MustacheLibrary()
        for (name, text) in DashboardTemplates.all {
            // The templates are constants of this file's module: a parse failure is a
            // programming error caught by the dashboard's tests, not something input can cause.
            do {
                try library.register(text, named: name)
            } catch {
                preconditionFailure("dashboard template \(name) does not parse: \(error)")
            }
        }
        self.library = library
    }

    /// A page: `template` rendered with `values`, inside the layout.
    func page(
        _ template: String, title: String, values: [String: Any] = [:], chrome: DashboardChrome?,
        status: HTTPResponse.Status = .ok, cookies: [String] = []
    ) -> Response {
        let content = library.render(values, withTemplate: template) ?? ""
        var layout: [String: Any] = ["title": title, "content": content]
        if let chrome {
            layout["signedIn"] = true
            layout["csrf"] = chrome.csrfToken
            layout["nav_" + chrome.section] = true
            if let notice = chrome.notice { layout["notice"] = notice }
            if let error = chrome.error { layout["error"] = error }
        }
        if let scripts = values["scripts"] { layout["scripts"] = scripts }
        return DashboardResponse.html(library.render(layout, withTemplate: "layout") ?? "", status: status, cookies: cookies)
    }

    func errorPage(_ error: DashboardError) -> Response {
        page(
            "error", title: "Error", values: ["message": error.message, "status": Int(error.status.code)],
            chrome: nil, status: error.status)
    }
}

/// What the layout shows around a signed-in page.
struct DashboardChrome: Sendable {
    var csrfToken: String
    /// `apps`, `providers`, `users` or `validate`: the navigation entry marked current.
    var section: String
    var notice: String?
    var error: String?
}
