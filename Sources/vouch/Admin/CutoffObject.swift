import ArgumentParser
import VouchProtocol

/// The objects `vouch cutoff` names, each as its own arguments: where it is in the admin API
/// and how the output names it.
enum CutoffObject {
    protocol Arguments: ParsableArguments {
        /// The subcommand's name, as the API spells the scope: `app`, `provider`, `key`, `user`.
        static var scope: String { get }
        /// "an app", for help texts.
        static var what: String { get }
        /// Which sessions count as the object's, for help texts ("" when it goes without saying).
        static var reach: String { get }
        /// The object below `/admin/`: `apps/<uuid>`, `apps/<uuid>/users/<user>`.
        var resource: String { get throws }
        /// The object as output names it.
        var label: String { get throws }
    }

    struct App: Arguments {
        static var scope: String { "app" }
        static var what: String { "an app" }
        static var reach: String { "" }
        @Argument(help: "The app id (layer:///apps/<uuid> or the UUID).") var app: String

        var resource: String { get throws { "apps/\(try AdminPath.app(app))" } }
    }

    struct Provider: Arguments {
        static var scope: String { "provider" }
        static var what: String { "a provider" }
        static var reach: String { " (opened with any of its keys, in every app)" }
        @Argument(help: "The provider id (layer:///providers/<uuid> or the UUID).") var provider: String

        var resource: String { get throws { "providers/\(try AdminPath.provider(provider))" } }
    }

    struct Key: Arguments {
        static var scope: String { "key" }
        static var what: String { "a provider's key" }
        static var reach: String { " (opened with tokens it signed)" }
        @Argument(help: "The key id (layer:///keys/<uuid> or the UUID).") var key: String

        var resource: String { get throws { "keys/\(try AdminPath.key(key))" } }
    }

    struct User: Arguments {
        static var scope: String { "user" }
        static var what: String { "one user of an app" }
        static var reach: String { "" }
        @Argument(help: "The app id.") var app: String
        @Argument(help: "The user id, as the identity tokens name it.") var user: String

        var resource: String { get throws { "apps/\(try AdminPath.app(app))/users/\(try AdminPath.user(user))" } }
        var label: String { get throws { "user \(user) of layer:///apps/\(try AdminPath.app(app))" } }
    }
}

extension CutoffObject.Arguments {
    /// `/admin/…/cutoff`.
    var path: String { get throws { "/admin/\(try resource)/cutoff" } }

    /// Its `layer:///` id, which is spelled as its admin path is (apps, providers, keys).
    var label: String { get throws { "layer:///\(try resource)" } }
}
