extension DashboardTemplates {
    static let validate = """
        <h1>Validate an identity token</h1>
        <p>Checks a token as <code>POST /sessions</code> would, without opening a session and without using its nonce.</p>
        <form method="post" action="/dashboard/validate" class="card stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="validate-app">App</label>
        <select id="validate-app" name="app" required>{{#apps}}<option value="{{uuid}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/apps}}</select>
        <label for="identity-token">Identity token</label>
        <textarea id="identity-token" name="identity_token" rows="6" required spellcheck="false">{{token}}</textarea>
        <button type="submit">Validate</button>
        </form>
        {{#result}}
        <section class="card" id="validation-result">
        {{#valid}}<h2 class="ok" id="verdict">Valid{{#profile}} ({{profile}} profile){{/profile}}</h2>
        <p>POST /sessions would accept this token (if its nonce is unused).</p>{{/valid}}
        {{^valid}}<h2 class="bad" id="verdict">Not valid: {{reasonCount}} problem(s)</h2>
        <ol class="reasons">
        {{#reasons}}<li><code class="reason">{{reason}}</code>{{#where}} <span class="meta">({{where}})</span>{{/where}}
        <p>{{message}}</p>{{#hint}}<p class="hint">What to change: {{hint}}</p>{{/hint}}</li>{{/reasons}}
        </ol>
        <p class="meta">The first reason is what POST /sessions answers.</p>{{/valid}}
        <h3>Times</h3>
        <ul class="plain" id="times">
        <li>Server time: <code>{{serverTime}}</code> ({{serverTimeText}})</li>
        {{#times}}<li><code>{{claim}}</code>: <code>{{literal}}</code> {{relative}}</li>{{/times}}
        </ul>
        <h3>Header</h3>
        <pre id="token-header">{{header}}</pre>
        <h3>Claims</h3>
        <pre id="token-claims">{{claims}}</pre>
        </section>
        {{/result}}
        """
}
