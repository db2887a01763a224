import VouchProtocol
import VouchTokens

/// A request body read from the object `StrictJSON` already parsed, with the answers
/// `JSONDecoder` would give: a missing or `null` optional member is `nil`, one of the wrong type
/// is `invalid_property` naming it, members the type does not know are ignored.
protocol JSONObjectDecodable: Decodable {
    init(jsonObject: JSONMembers) throws
}

extension JSONMembers {
    /// An optional string member, or `invalid_property` when it is there with another type.
    func optionalString(_ name: String) throws -> String? {
        switch self[name] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        default: throw APIError.invalidProperty(name, "The property `\(name)` has the wrong type.")
        }
    }
}

extension CreateSessionRequest: JSONObjectDecodable {
    init(jsonObject: JSONMembers) throws {
        self.init(identityToken: try jsonObject.optionalString("identity_token"), appID: try jsonObject.optionalString("app_id"))
    }
}

extension CreateNonceRequest: JSONObjectDecodable {
    init(jsonObject: JSONMembers) throws {
        self.init(appID: try jsonObject.optionalString("app_id"))
    }
}
