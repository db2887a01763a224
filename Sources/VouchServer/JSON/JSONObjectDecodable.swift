import VouchProtocol
import VouchTokens

/// A request body read from the object `StrictJSON` already parsed, with the answers
/// `JSONDecoder` would give: a missing or `null` optional member is `nil`, one of the wrong type
/// is `invalid_property` naming it, members the type does not know are ignored.
protocol JSONObjectDecodable: Decodable {
    init(jsonObject: JSONMembers) throws
}

extension JSONMembers {
    /// An optional device description (`DeviceDescription`): an object of optional strings, or
    /// `invalid_property` naming the member of the wrong type.
    func optionalDevice(_ name: String) throws -> DeviceDescription? {
        switch self[name] {
        case nil, .null?: return nil
        case .object(let members)?:
            func text(_ field: String) throws -> String? {
                switch members[field] {
                case nil, .null?: return nil
                case .string(let value)?: return value
                default: throw APIError.invalidProperty("\(name).\(field)", "The property `\(name).\(field)` has the wrong type.")
                }
            }
            return DeviceDescription(name: try text("name"), platform: try text("platform"), appVersion: try text("app_version"))
        default: throw APIError.invalidProperty(name, "The property `\(name)` has the wrong type.")
        }
    }

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
        self.init(
            identityToken: try jsonObject.optionalString("identity_token"), appID: try jsonObject.optionalString("app_id"),
            device: try jsonObject.optionalDevice("device"))
    }
}

extension CreateNonceRequest: JSONObjectDecodable {
    init(jsonObject: JSONMembers) throws {
        self.init(appID: try jsonObject.optionalString("app_id"))
    }
}
