extension DashboardTemplates {
    static let apps = """
        <h1>Apps</h1>
        {{#createdCredential}}
        <section class="card shown-once" id="created-service-credential" aria-live="polite">
        <h2>New service credential for {{appName}}: copy it now</h2>
        <p>It is shown this once; the server keeps only its hash and will not show it again.</p>
        <p>{{name}} <code class="copy" id="created-credential">{{credential}}</code></p>
        <p class="hint">The service sends it as <code>Authorization: Bearer vsc_…</code> to
        <code>POST /introspect</code> and <code>GET /events</code>.</p>
        </section>
        {{/createdCredential}}
        <section class="card">
        <h2>Create an app</h2>
        <form method="post" action="/dashboard/apps" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="new-app-name">Name</label>
        <input id="new-app-name" name="name" required maxlength="128">
        <label for="new-app-ttl">Session lifetime (30 seconds … 365 days; e.g. 30d, 12h, 90m)</label>
        <input id="new-app-ttl" name="session_ttl_seconds" value="30 days" required>
        <button type="submit">Create app</button>
        </form>
        </section>
        <h2>Your apps</h2>
        {{#apps}}
        <section class="card app" id="app-{{uuid}}">
        <h3>{{name}}</h3>
        <p>App id <code class="copy">{{id}}</code></p>
        <p class="meta">Sessions last {{ttl}} · challenges answered within {{margin}} · created {{createdAt}}</p>
        <p class="meta access-tokens">Access tokens last {{accessTTL}} · audiences: the app id{{#audiences}}, <code>{{.}}</code>{{/audiences}}</p>
        <p class="meta live-sockets">Live sockets on this instance: <strong>{{liveSockets}}</strong></p>
        <form method="post" action="/dashboard/apps/{{uuid}}" class="row app-settings">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Name <input name="name" value="{{name}}" required maxlength="128"></label>
        <label>Session lifetime <input name="session_ttl_seconds" value="{{ttl}}" required></label>
        <label>Challenge margin (5 s … 10 min) <input name="challenge_margin_seconds" value="{{margin}}" required></label>
        <label>Access-token lifetime (1 s … 5 min) <input name="access_token_ttl_seconds" value="{{accessTTL}}" required></label>
        <label class="wide"><span>Access-token audiences besides the app id: one per line (up to 20), such as
        <code>chat.example.com</code></span>
        <textarea name="audiences" rows="3" spellcheck="false" autocapitalize="off">{{audiencesText}}</textarea></label>
        <button type="submit">Save</button>
        </form>
        <h4>Sessions</h4>
        <p class="meta">{{> last-cutoff}}</p>
        {{> cutoff-form}}
        <h4>Service credentials</h4>
        <p class="hint">Each of the app's services introspects tokens and follows the endings with its own.</p>
        <div class="table-wrap"><table class="service-credentials">
        <thead><tr><th scope="col">Name</th><th scope="col" class="credential-id">Id</th><th scope="col">Created</th><th scope="col">Revoked</th></tr></thead>
        <tbody>
        {{#serviceCredentials}}
        <tr class="{{#revoked}}credential-revoked{{/revoked}}{{^revoked}}credential-live{{/revoked}}"><td>{{name}}</td><td class="credential-id"><code class="copy">{{id}}</code></td><td>{{createdAt}}</td>
        <td>{{#revoked}}{{revokedAt}}{{/revoked}}{{^revoked}}<form method="post" action="/dashboard/apps/{{uuid}}/service-credentials/{{id}}/revoke" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="danger">Revoke</button></form>{{/revoked}}</td></tr>
        {{/serviceCredentials}}
        {{^serviceCredentials}}<tr><td colspan="4">None yet.</td></tr>{{/serviceCredentials}}
        </tbody></table></div>
        <form method="post" action="/dashboard/apps/{{uuid}}/service-credentials" class="row service-credential-form">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>The service's name <input name="name" required maxlength="128" placeholder="chat server"></label>
        <button type="submit">Create a service credential</button>
        </form>
        <p class="links"><a href="/dashboard/apps/{{uuid}}/secrets">Registration secrets</a>
        <a href="/dashboard/apps/{{uuid}}/webhooks">Webhooks</a>
        <a href="/dashboard/users?app={{uuid}}">Users</a>
        <a href="/dashboard/validate?app={{uuid}}">Validate a token</a></p>
        </section>
        {{/apps}}
        {{^apps}}<p>No apps yet: create one above.</p>{{/apps}}
        """

    static let secrets = """
        <h1>Registration secrets of {{appName}}</h1>
        <p>App id <code class="copy">{{appID}}</code> · <a href="/dashboard/apps">All apps</a></p>
        {{#created}}
        <section class="card shown-once" aria-live="polite">
        <h2>New secret: copy it now</h2>
        <p>It is shown this once; the server will not show it again.</p>
        <p>Application key <code class="copy" id="created-application-key">{{applicationKey}}</code></p>
        <p>Application secret <code class="copy" id="created-application-secret">{{applicationSecret}}</code></p>
        </section>
        {{/created}}
        <form method="post" action="/dashboard/apps/{{appUUID}}/secrets" class="card">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <button type="submit">Create a registration secret</button>
        </form>
        <h2>Secrets</h2>
        <div class="table-wrap"><table>
        <thead><tr><th scope="col">Application key</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Revoked at</th><th scope="col">Revoke</th></tr></thead>
        <tbody>
        {{#secrets}}
        <tr><td><code class="copy">{{application_key}}</code></td><td>{{status}}</td><td>{{created_at}}</td><td>{{revoked_at}}</td>
        <td>{{#active}}<form method="post" action="/dashboard/apps/{{appUUID}}/secrets/{{application_key}}/revoke" class="row">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>Grace (up to 30 days) <input name="grace_seconds" value="0" size="8"></label>
        <button type="submit">Revoke</button></form>{{/active}}</td></tr>
        {{/secrets}}
        {{^secrets}}<tr><td colspan="5">None yet.</td></tr>{{/secrets}}
        </tbody></table></div>
        """

    static let webhooks = """
        <h1>Webhooks of {{appName}}</h1>
        <p>App id <code class="copy">{{appID}}</code> · <a href="/dashboard/apps">All apps</a></p>
        <p>Each delivery is a JSON POST signed with the endpoint's secret in <code>Vouch-Signature</code>;
        docs/PROTOCOL.md §8.17 shows the receiver's check. A failed delivery is tried again for 24 hours,
        then the endpoint is paused with the last failure as its reason.</p>
        {{#created}}
        <section class="card shown-once" id="created-webhook" aria-live="polite">
        <h2>New endpoint: copy its secret now</h2>
        <p>It is shown this once; the server will not show it again. Deliveries to <code>{{url}}</code> are signed with it.</p>
        <p>Secret <code class="copy" id="created-webhook-secret">{{secret}}</code></p>
        </section>
        {{/created}}
        <form method="post" action="/dashboard/apps/{{appUUID}}/webhooks" class="card webhook-form">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>URL <input name="url" type="url" required maxlength="2048" size="48" placeholder="https://backend.example.com/vouch"></label>
        <fieldset><legend>Events</legend>
        {{#kinds}}<label class="check"><input type="checkbox" name="event_{{kind}}"> {{kind}}</label>
        {{/kinds}}</fieldset>
        <button type="submit">Create a webhook endpoint</button>
        <p class="hint">https only, to public addresses (loopback with <code>vouch serve --allow-loopback-outbound</code>); at most {{maximum}} an app.</p>
        </form>
        <h2>Endpoints</h2>
        <div class="table-wrap"><table class="webhooks">
        <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
        <tbody>
        {{#endpoints}}
        <tr><td><code>{{url}}</code></td><td>{{events}}</td>
        <td>{{#paused}}paused since {{pausedAt}}: {{pauseReason}}{{/paused}}{{^paused}}active{{/paused}}</td><td>{{createdAt}}</td>
        <td><span class="row"><a href="/dashboard/apps/{{appUUID}}/webhooks/{{id}}">Deliveries</a>
        {{#paused}}<form method="post" action="/dashboard/apps/{{appUUID}}/webhooks/{{id}}/resume" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Resume</button></form>{{/paused}}{{^paused}}<form method="post" action="/dashboard/apps/{{appUUID}}/webhooks/{{id}}/pause" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Pause</button></form>{{/paused}}
        <form method="post" action="/dashboard/apps/{{appUUID}}/webhooks/{{id}}/delete" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" class="danger">Delete</button></form></span></td></tr>
        {{/endpoints}}
        {{^endpoints}}<tr><td colspan="5">None yet.</td></tr>{{/endpoints}}
        </tbody></table></div>
        """

    static let webhookDeliveries = """
        <h1>Deliveries to <code>{{url}}</code></h1>
        <p>App <a href="/dashboard/apps/{{appUUID}}/webhooks">{{appName}}'s webhooks</a> · events: {{events}}</p>
        {{#paused}}<p class="notice error" role="alert">Paused since {{pausedAt}}: {{pauseReason}}.
        Deliveries wait until it is resumed on the <a href="/dashboard/apps/{{appUUID}}/webhooks">webhooks page</a>.</p>{{/paused}}
        <p>The newest {{shown}} events owed to this endpoint. A replay sends the same event, with the same id, again.</p>
        <div class="table-wrap"><table class="deliveries">
        <thead><tr><th scope="col">Event</th><th scope="col">Type</th><th scope="col">User</th><th scope="col">Happened</th><th scope="col">State</th><th scope="col">Attempts</th><th scope="col">Last outcome</th><th scope="col">Replay</th></tr></thead>
        <tbody>
        {{#deliveries}}
        <tr class="{{state}}"><td><code title="{{eventID}}">{{shortID}}</code></td><td>{{type}}</td><td>{{user}}</td><td>{{time}}</td>
        <td>{{state}}{{#when}} ({{when}}){{/when}}</td><td>{{attempts}}</td><td>{{outcome}}</td>
        <td><form method="post" action="/dashboard/apps/{{appUUID}}/webhooks/{{endpointID}}/deliveries/{{eventID}}/replay" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Replay</button></form></td></tr>
        {{/deliveries}}
        {{^deliveries}}<tr><td colspan="8">No events owed to it yet (events are kept a week once delivered).</td></tr>{{/deliveries}}
        </tbody></table></div>
        """
}
