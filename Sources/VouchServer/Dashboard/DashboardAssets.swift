/// The dashboard's stylesheet, script and icon, served from the binary at `/dashboard/assets/…`:
/// the Content-Security-Policy allows scripts, styles and images from there only, never inline.
enum DashboardAssets {
    static let files: [String: (text: String, contentType: String)] = [
        "dashboard.css": (stylesheet, "text/css; charset=utf-8"),
        "keygen.js": (DashboardKeygenScript.source, "text/javascript; charset=utf-8"),
        "favicon.svg": (icon, "image/svg+xml"),
    ]

    /// Every page names it in its head, so no browser asks for `/favicon.ico` (a 404 and a
    /// console error on every page).
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#0b5fff"/>\
        <path d="M8 9l8 15 8-15" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round" stroke-linejoin="round"/></svg>
        """

    static let stylesheet = """
        :root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #f6f8fa; --accent: #0b5fff; --bad: #b3261e; --ok: #1a7f37; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
        .skip { position: absolute; left: -999px; }
        .skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; z-index: 2; }
        .top { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; padding: 10px 16px; background: #fff; border-bottom: 1px solid var(--line); }
        .brand { font-weight: 700; font-size: 1.2rem; color: var(--fg); text-decoration: none; }
        .top nav { display: flex; flex-wrap: wrap; gap: 4px 12px; flex: 1; }
        .top nav a { color: var(--accent); text-decoration: none; padding: 4px 2px; }
        .top nav a[aria-current="page"] { font-weight: 700; border-bottom: 2px solid var(--accent); }
        main { max-width: 960px; margin: 0 auto; padding: 16px; }
        h1 { font-size: 1.6rem; margin: 8px 0 16px; }
        h2 { font-size: 1.2rem; margin: 0 0 8px; }
        h3 { font-size: 1.05rem; margin: 12px 0 6px; }
        .card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px; margin: 0 0 16px; }
        .stack { display: flex; flex-direction: column; gap: 8px; align-items: stretch; }
        .stack > button { align-self: flex-start; }
        .row { display: flex; flex-wrap: wrap; gap: 8px 12px; align-items: flex-end; }
        .inline { display: inline-flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 2px 0; }
        label { font-weight: 600; display: inline-flex; flex-direction: column; gap: 4px; }
        .inline label, .stack > label { flex-direction: row; }
        .row label.wide { flex: 1 1 100%; }
        .table-wrap + form { margin-top: 10px; }
        input, select, textarea { font: inherit; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; background: #fff; max-width: 100%; font-weight: 400; }
        textarea { width: 100%; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.85rem; }
        button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid var(--accent); background: var(--accent); color: #fff; cursor: pointer; }
        a.button { display: inline-block; padding: 6px 14px; border-radius: 6px; border: 1px solid var(--accent); color: var(--accent); text-decoration: none; }
        button.danger { background: var(--bad); border-color: var(--bad); }
        .sign-out button { background: #fff; color: var(--fg); border-color: var(--line); }
        :focus-visible { outline: 3px solid #ffb000; outline-offset: 2px; }
        code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.88rem; background: var(--bg); padding: 1px 4px; border-radius: 4px; overflow-wrap: anywhere; }
        code.copy { user-select: all; }
        pre { background: var(--bg); padding: 10px; border-radius: 6px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; font-size: 0.85rem; }
        .meta, .hint { color: var(--muted); font-size: 0.9rem; }
        .notice { background: #e6f4ea; border: 1px solid #9fd3ae; padding: 8px 12px; border-radius: 6px; }
        .error { background: #fdecea; border: 1px solid #f1aeb5; color: var(--bad); padding: 8px 12px; border-radius: 6px; }
        .ok { color: var(--ok); }
        .bad { color: var(--bad); }
        .shown-once { border-color: #ffb000; background: #fffbea; }
        .links { display: flex; flex-wrap: wrap; gap: 4px 16px; }
        .plain { list-style: none; padding: 0; margin: 0; }
        .plain li { padding: 6px 0; border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap; gap: 6px; align-items: center; }
        .reasons li { margin-bottom: 8px; }
        .reasons p { margin: 2px 0; }
        .table-wrap { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
        .key-deleted td, .credential-revoked td { color: var(--muted); }
        .fingerprint { font-size: 0.75rem; }
        fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 10px 0; padding: 8px 12px; display: flex; flex-wrap: wrap; gap: 6px 18px; }
        legend { font-weight: 600; padding: 0 4px; }
        label.check { flex-direction: row; align-items: center; gap: 6px; font-weight: 400; }
        table.deliveries td:nth-child(7) { min-width: 16em; overflow-wrap: anywhere; }
        .nowrap { white-space: nowrap; }
        @media (max-width: 600px) {
          .brand { flex: 1; }
          .top nav { order: 3; flex-basis: 100%; gap: 4px 14px; }
          .top .sign-out { order: 2; }
          main { padding: 10px; }
          .card { padding: 12px; }
          .row, .inline { flex-direction: column; align-items: stretch; }
          .row label, .inline label { width: 100%; }
          input, select { width: 100%; }
          th, td { padding: 4px; font-size: 0.9rem; }
          .credential-id { display: none; }
        }
        """
}
