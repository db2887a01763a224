extension DashboardTemplates {
    static let audit = """
        <h1>Audit log</h1>
        <form method="get" action="/dashboard/audit" class="card row" id="audit-filters">
        <label>Kind <select name="kind">
        <option value=""{{#kindAny}} selected{{/kindAny}}>Any</option>
        <option value="admin"{{#kindAdmin}} selected{{/kindAdmin}}>Admin actions</option>
        <option value="sign_in_rejected"{{#kindRejected}} selected{{/kindRejected}}>Rejected sign-ins</option>
        </select></label>
        <label>Action <input name="action" value="{{action}}" maxlength="64" placeholder="key.disable"></label>
        <label>App <select name="app_id"><option value="">Any</option>{{#apps}}<option value="{{uuid}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/apps}}</select></label>
        <label>Object id <input name="object" value="{{object}}" maxlength="256" placeholder="key, provider, app or user id"></label>
        <label>Since (UTC) <input name="since" value="{{since}}" placeholder="2026-11-23T22:00:00Z"></label>
        <label>Until (UTC) <input name="until" value="{{until}}" placeholder="2026-11-24T00:00:00Z"></label>
        <button type="submit">Filter</button>
        </form>
        <section class="card">
        <p class="muted">Newest first. Rejected sign-ins are counted per app and reason over a few seconds; the count column says how many. An app or object links to its own entries.</p>
        {{#hasEntries}}
        <div class="table-wrap"><table id="audit-entries">
        <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Who</th><th scope="col">Action</th><th scope="col">Outcome</th><th scope="col">App</th><th scope="col">Object</th><th scope="col">Count</th></tr></thead>
        <tbody>
        {{#entries}}
        <tr class="audit-{{kind}}"><td>{{at}}</td><td>{{actor}}</td><td class="nowrap">{{action}}</td><td class="outcome">{{outcome}}</td>
        <td>{{#appName}}<a href="{{appLink}}" title="{{appUUID}}">{{appName}}</a>{{/appName}}</td>
        <td>{{#objectID}}{{objectType}} <a href="{{objectLink}}" title="{{objectID}}"><code>{{objectShort}}</code></a>{{/objectID}}</td><td>{{count}}</td></tr>
        {{/entries}}
        </tbody>
        </table></div>
        {{/hasEntries}}
        {{^hasEntries}}<p id="audit-empty">No entries match.</p>{{/hasEntries}}
        <p class="links">{{#isLaterPage}}<a href="{{firstPage}}" id="audit-newest">Newest entries</a>{{/isLaterPage}}
        {{#nextPage}}<a href="{{nextPage}}" id="audit-older">Older entries</a>{{/nextPage}}</p>
        </section>
        """
}
