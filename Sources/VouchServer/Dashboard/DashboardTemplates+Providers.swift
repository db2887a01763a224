extension DashboardTemplates {
    static let providers = """
        <h1>Identity providers</h1>
        <p>A provider is an app's backend, known by the keys it signs identity tokens with.</p>
        <section class="card">
        <h2>Create a provider</h2>
        <form method="post" action="/dashboard/providers" class="stack">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="new-provider-name">Name</label>
        <input id="new-provider-name" name="name" required maxlength="128">
        <button type="submit">Create provider</button>
        </form>
        </section>
        <section class="card">
        <h2>Open a provider</h2>
        <form method="get" action="/dashboard/providers/open" class="row">
        <label>Provider id <input name="id" placeholder="layer:///providers/…" required></label>
        <button type="submit">Open</button>
        </form>
        </section>
        <h2>Providers in this session</h2>
        <ul class="plain">
        {{#providers}}<li><a href="/dashboard/providers/{{uuid}}">{{name}}</a> <code class="copy">{{id}}</code></li>{{/providers}}
        {{^providers}}<li>None yet: create one, or open one by its id.</li>{{/providers}}
        </ul>
        """

    static let provider = """
        <h1>Provider {{name}}</h1>
        <p>Provider id <code class="copy" id="provider-id">{{id}}</code></p>
        <section class="card">
        <h2>Apps it may vouch for</h2>
        <ul class="plain">
        {{#bound}}<li><span>{{name}}</span> <code class="copy">{{id}}</code>
        <form method="post" action="/dashboard/providers/{{providerUUID}}/unbind" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="app" value="{{uuid}}">
        <button type="submit">Unbind</button></form></li>{{/bound}}
        {{^bound}}<li>None: bind an app below.</li>{{/bound}}
        </ul>
        {{#hasUnbound}}
        <form method="post" action="/dashboard/providers/{{providerUUID}}/bind" class="row">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label>App <select name="app">{{#unbound}}<option value="{{uuid}}">{{name}}</option>{{/unbound}}</select></label>
        <button type="submit">Bind</button>
        </form>
        {{/hasUnbound}}
        </section>
        <section class="card" id="provider-cutoff">
        <h2>Sessions</h2>
        <p>A cutoff ends every session opened with this provider's keys, in every app; each device signs in again.</p>
        <p class="meta">{{> last-cutoff}}</p>
        {{> cutoff-form}}
        </section>
        <section class="card">
        <h2>Signing keys</h2>
        <div class="table-wrap"><table>
        <thead><tr><th scope="col">Key id</th><th scope="col">Status</th><th scope="col">Fingerprint</th><th scope="col">Added</th><th scope="col">Last verified</th><th scope="col">Last cutoff</th><th scope="col">Actions</th></tr></thead>
        <tbody>
        {{#keys}}
        <tr class="key-{{status}}"><td><code class="copy">{{id}}</code></td><td>{{status}}</td><td><code class="fingerprint">{{fingerprint}}</code></td><td>{{createdAt}}</td><td class="last-verified">{{lastVerified}}</td>
        <td class="key-cutoff">{{^deleted}}{{#cutoff}}{{cutoffAt}}{{#hasReason}}<br>“{{cutoffReason}}”{{/hasReason}}{{/cutoff}}{{^cutoff}}never{{/cutoff}}{{/deleted}}</td>
        <td>{{^deleted}}
        <form method="post" action="/dashboard/keys/{{uuid}}/status" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="provider" value="{{providerUUID}}">
        {{#active}}<input type="hidden" name="status" value="disabled"><button type="submit">Disable</button>{{/active}}
        {{^active}}<input type="hidden" name="status" value="active"><button type="submit">Enable</button>{{/active}}
        </form>
        <form method="post" action="/dashboard/keys/{{uuid}}/cutoff/review" class="inline key-cutoff-form">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit">Cut off…</button>
        </form>
        <form method="post" action="/dashboard/keys/{{uuid}}/delete" class="inline confirm-delete">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="provider" value="{{providerUUID}}">
        <label><input type="checkbox" name="confirm" value="yes" required> I am sure</label>
        <button type="submit" class="danger">Delete</button>
        </form>
        {{/deleted}}</td></tr>
        {{/keys}}
        {{^keys}}<tr><td colspan="7">No keys yet.</td></tr>{{/keys}}
        </tbody></table></div>
        </section>
        <section class="card" id="key-source">
        <h2>Key source</h2>
        {{#keySource}}
        {{#configured}}
        {{#failing}}<p class="error" role="alert" id="key-source-alert">The key source is failing since {{failingSince}}: {{lastError}}. Its last good keys still verify until {{trustedUntil}}.</p>{{/failing}}
        {{#expired}}<p class="error" role="alert" id="key-source-alert">The key source has failed since {{failingSince}} ({{lastError}}), longer than its keys are trusted: sign-ins with them are refused.</p>{{/expired}}
        {{#pending}}<p class="meta" id="key-source-pending">Not fetched yet: the first sign-in that needs a key fetches it, or fetch now.{{#hasError}} Last error: {{lastError}}.{{/hasError}}</p>{{/pending}}
        <p class="meta">Status <strong id="key-source-status">{{status}}</strong>{{#jwksURL}} · JWKS <code>{{jwksURL}}</code>{{/jwksURL}} · fetched {{fetchedAt}}{{#freshUntil}}, fresh until {{freshUntil}}{{/freshUntil}}</p>
        <div class="table-wrap"><table id="source-keys">
        <thead><tr><th scope="col">kid</th><th scope="col">Type</th><th scope="col">State</th><th scope="col">Fingerprint</th><th scope="col">First seen</th><th scope="col">Last seen</th><th scope="col">Sign-ins (24 h)</th></tr></thead>
        <tbody>
        {{#sourceKeys}}<tr class="source-key-{{state}}"><td><code>{{kid}}</code></td><td>{{keyType}}</td><td>{{state}}</td><td><code class="fingerprint">{{fingerprint}}</code></td><td>{{firstSeen}}</td><td>{{lastSeen}}</td><td>{{signIns}}</td></tr>{{/sourceKeys}}
        {{^sourceKeys}}<tr><td colspan="7">No keys seen yet.</td></tr>{{/sourceKeys}}
        </tbody></table></div>
        <form method="post" action="/dashboard/providers/{{providerUUID}}/key-source/refresh" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><button type="submit" id="refresh-key-source">Fetch now</button>
        </form>
        {{/configured}}
        {{^configured}}<p>Keys are uploaded by hand. A key source fetches them from the provider's JWKS URL, or from its OpenID
        issuer's discovery document, and follows its rotations; a federated provider's own ID tokens can then sign users in.</p>{{/configured}}
        <form method="post" action="/dashboard/providers/{{providerUUID}}/key-source" class="row" id="key-source-form">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label class="wide">JWKS URL <input type="url" name="jwks_uri" value="{{jwksURI}}" maxlength="2048" placeholder="https://login.example.com/.well-known/jwks.json"></label>
        <label class="wide">Issuer <input type="text" name="issuer" value="{{issuer}}" maxlength="2048" placeholder="https://login.example.com/"></label>
        <label>Client id <input type="text" name="client_id" value="{{clientID}}" maxlength="255"></label>
        <label>Algorithm <select name="algorithm"><option value="RS256">RS256</option><option value="ES256"{{#es256}} selected{{/es256}}>ES256</option></select></label>
        <label class="check wide"><input type="checkbox" name="federated" value="yes"{{#federated}} checked{{/federated}}> Federated: the provider's own ID tokens (aud = the client id) sign users in</label>
        {{#configured}}<label class="check wide"><input type="checkbox" name="remove" value="yes"> Remove the key source (uploaded keys stay)</label>{{/configured}}
        <button type="submit">Save key source</button>
        </form>
        <p class="hint">Tokens' <code>iss</code> must equal the issuer exactly. Without a JWKS URL, the issuer's discovery
        document (<code>/.well-known/openid-configuration</code>) names the keys. https only, to public addresses
        (loopback with <code>vouch serve --allow-loopback-outbound</code>).</p>
        {{/keySource}}
        </section>
        <section class="card">
        <h2>Add a key</h2>
        <div id="keygen" class="stack" hidden>
        <p>Generate an RSA key pair (2048 bits, RS256) in this browser: only the public key is sent
        to the server; the private key is shown here once and never leaves this page unless you save it.</p>
        <button type="button" id="generate-key">Generate a key pair in the browser</button>
        <p id="keygen-status" role="status"></p>
        <div id="keygen-result" hidden>
        <label for="private-key">Private key (PKCS #8 PEM): save it now, it will not be shown again</label>
        <textarea id="private-key" rows="8" readonly></textarea>
        <p class="row"><button type="button" id="download-private-key">Download private key</button>
        <span>Key id <code class="copy" id="generated-key-id"></code></span></p>
        </div>
        </div>
        <form method="post" action="/dashboard/providers/{{providerUUID}}/keys" class="stack" id="upload-key">
        <input type="hidden" name="csrf" value="{{csrf}}">
        <label for="public-key">Or upload a public key (PEM, RSA 2048 … 8192 bits)</label>
        <textarea id="public-key" name="public_key" rows="6" required placeholder="-----BEGIN PUBLIC KEY-----"></textarea>
        <button type="submit">Upload public key</button>
        </form>
        </section>
        """
}
