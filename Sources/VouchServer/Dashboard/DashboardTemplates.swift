/// The dashboard's Mustache templates, compiled into the binary so that `vouch serve` needs no
/// files beside it. One constant per page; `all` registers them by name.
enum DashboardTemplates {
    static let all: [(String, String)] = [
        ("layout", layout), ("error", error), ("sign-in", signIn),
        ("apps", apps), ("secrets", secrets), ("webhooks", webhooks), ("webhookDeliveries", webhookDeliveries), ("providers", providers),
        ("provider", provider),
        ("users", users), ("validate", validate), ("audit", audit), ("cutoff", cutoff),
        ("last-cutoff", lastCutoff), ("cutoff-form", cutoffForm),
    ]

    /// Every page: navigation, the one-shot notice, the inline error, the body.
    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Vouch</title>
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css">
        <link rel="icon" href="/dashboard/assets/favicon.svg" type="image/svg+xml">
        </head>
        <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
        <a class="brand" href="/dashboard">Vouch</a>
        {{#signedIn}}
        <nav aria-label="Sections">
        <a href="/dashboard/apps"{{#nav_apps}} aria-current="page"{{/nav_apps}}>Apps</a>
        <a href="/dashboard/providers"{{#nav_providers}} aria-current="page"{{/nav_providers}}>Providers &amp; keys</a>
        <a href="/dashboard/users"{{#nav_users}} aria-current="page"{{/nav_users}}>Users</a>
        <a href="/dashboard/validate"{{#nav_validate}} aria-current="page"{{/nav_validate}}>Validate a token</a>
        <a href="/dashboard/audit"{{#nav_audit}} aria-current="page"{{/nav_audit}}>Audit log</a>
        </nav>
        <form method="post" action="/dashboard/sign-out" class="sign-out">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit">Sign out</button>
        </form>
        {{/signedIn}}
        </header>
        <main id="main">
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{{content}}}
        </main>
        {{#scripts}}<script src="/dashboard/assets/{{.}}"></script>{{/scripts}}
        </body>
        </html>
        """

    static let error = """
        <h1>Error {{status}}</h1>
        <p class="error" role="alert">{{message}}</p>
        <p><a href="/dashboard">Back to the dashboard</a></p>
        """

    static let signIn = """
        <h1>Sign in</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/dashboard/sign-in" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="admin-token">Admin token</label>
        <input id="admin-token" name="admin_token" type="password" autocomplete="current-password" required autofocus>
        <p class="hint">The token <code>vouch serve</code> printed on first start, or <code>VOUCH_ADMIN_TOKEN</code>.
        It is checked once; the browser then holds a session cookie that ends after {{hours}} hours or when you sign out.</p>
        <button type="submit">Sign in</button>
        </form>
        """
}
