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
        · active sessions: <strong id="user-sessions">{{activeSessions}}</strong></p>
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
        </section>
        {{/result}}
        """
}
