extension DashboardTemplates {
    static let users = """
        <h1>Users</h1>
        <form method="get" action="/dashboard/users" class="card row">
        <label>App <select name="app" required>{{#apps}}<option value="{{uuid}}"{{#selected}} selected{{/selected}}>{{name}}</option>{{/apps}}</select></label>
        <label>User id <input name="user" value="{{userID}}" required maxlength="255"></label>
        <button type="submit">Look up</button>
        </form>
        {{#result}}
        <section class="card" id="user-result">
        <h2>{{userID}}</h2>
        {{#hasDisplayName}}<p>Display name: {{displayName}}</p>{{/hasDisplayName}}
        {{^known}}<p>This user has not signed in to this app yet; suspending them now stops their first sign-in.</p>{{/known}}
        <p>Status: <strong id="user-status">{{#suspended}}suspended{{/suspended}}{{^suspended}}active{{/suspended}}</strong>
        · live sessions: <strong id="user-sessions">{{activeSessions}}</strong></p>
        <div class="row">
        <form method="post" action="/dashboard/users/suspension" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="app" value="{{appUUID}}"><input type="hidden" name="user" value="{{userID}}">
        {{#suspended}}<input type="hidden" name="suspended" value="false"><button type="submit">Unsuspend</button>{{/suspended}}
        {{^suspended}}<input type="hidden" name="suspended" value="true"><button type="submit" class="danger">Suspend</button>{{/suspended}}
        </form>
        <form method="post" action="/dashboard/users/revoke-sessions" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="app" value="{{appUUID}}"><input type="hidden" name="user" value="{{userID}}">
        <button type="submit">Revoke all sessions</button>
        </form>
        </div>
        <h3>Devices</h3>
        <div class="table-wrap"><table id="user-devices">
        <thead><tr><th scope="col">Device</th><th scope="col">Platform</th><th scope="col">App version</th><th scope="col">Signed in</th><th scope="col">Last seen</th><th scope="col">Sign out</th></tr></thead>
        <tbody>
        {{#devices}}
        <tr class="device" id="session-{{sessionID}}"><td title="Session {{sessionID}}">{{name}}</td><td>{{platform}}</td><td>{{appVersion}}</td><td>{{createdAt}}</td><td>{{lastSeenAt}}</td>
        <td><form method="post" action="/dashboard/sessions/{{sessionID}}/revoke" class="inline">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="app" value="{{appUUID}}"><input type="hidden" name="user" value="{{userID}}">
        <button type="submit">Sign out</button>
        </form></td></tr>
        {{/devices}}
        {{^devices}}<tr><td colspan="6">No live sessions.</td></tr>{{/devices}}
        </tbody></table></div>
        {{#known}}
        <h3>Personal data</h3>
        <p>Everything Vouch holds about this user: their profile, sessions (ended ones too), security events and audit entries.</p>
        <div class="row">
        <a class="button" id="user-export" href="/dashboard/users/export?app={{appUUID}}&amp;user={{userQuery}}" download>Download export (JSON)</a>
        <form method="post" action="/dashboard/users/erase" class="inline confirm-delete" id="user-erase">
        <input type="hidden" name="csrf" value="{{csrf}}"><input type="hidden" name="app" value="{{appUUID}}"><input type="hidden" name="user" value="{{userID}}">
        <label><input type="checkbox" name="confirm" value="yes" required> I am sure</label>
        <button type="submit" class="danger">Delete user</button>
        </form>
        </div>
        <p class="hint">Deleting ends every session (each device is signed out), forgets the profile and the sessions, and replaces the user id in the audit log with a pseudonym. A later sign-in makes a new user.</p>
        {{/known}}
        </section>
        {{/result}}
        """
}
