/// The action names the audit log uses, in one place so that the API, the dashboard, the docs
/// (PROTOCOL §8) and the filters agree.
enum AuditAction {
    static let signInRejected = "sign_in.rejected"
    /// Written by the dashboard's sign-in form, the one admin action outside the signed-in group.
    static let dashboardSignIn = "dashboard.sign_in"
}
