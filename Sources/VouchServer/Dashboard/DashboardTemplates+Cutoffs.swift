extension DashboardTemplates {
    /// An object's last cutoff, inside the object's values (`cutoff`: `false` before the first).
    static let lastCutoff = """
        <span class="last-cutoff">{{#cutoff}}Last cutoff {{cutoffAt}}{{#hasReason}}, reason: “{{cutoffReason}}”{{/hasReason}}{{/cutoff}}{{^cutoff}}No cutoff yet{{/cutoff}}</span>
        """

    /// The form an object page shows for its cutoff; it asks for the confirmation page.
    static let cutoffForm = """
        <form method="post" action="{{cutoffPath}}/review" class="row cutoff-form">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Reason (optional) <input name="reason" maxlength="256" placeholder="e.g. laptop stolen"></label>
        <button type="submit">Cut off sessions…</button>
        </form>
        """

    /// The confirmation step of a cutoff: how many sessions it ends, then the button that ends them.
    static let cutoff = """
        <h1>{{heading}}</h1>
        <p><code class="copy" id="cutoff-object">{{id}}</code> · <a href="{{back}}">Back</a></p>
        <section class="card" id="cutoff-review">
        <p>A cutoff ends every session of this {{kind}} now: <strong id="cutoff-live">{{live}}</strong> live {{sessionsWord}}.
        Their devices are asked to sign in again and shown the reason. Sessions opened afterwards are not affected.</p>
        <p class="meta">{{> last-cutoff}}</p>
        <form method="post" action="{{action}}" class="stack" id="cutoff-confirm">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="confirm" value="yes">
        <label for="cutoff-reason">Reason (optional, up to 256 bytes; kept in the audit log)</label>
        <input id="cutoff-reason" name="reason" value="{{reason}}" maxlength="256">
        <p class="inline"><button type="submit" class="danger">End {{live}} {{sessionsWord}}</button> <a href="{{back}}">Cancel</a></p>
        </form>
        </section>
        """
}
