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
        self.init(
            identityToken: try jsonObject.optionalString("identity_token"), appID: try jsonObject.optionalString("app_id"),
            device: try jsonObject.optionalDevice("device"))
    }
}

extension JSONMembers {
    /// `device` as `DeviceDescription`: an object of optional strings, each named
    /// `device.<field>` when it has the wrong type.
    func optionalDevice(_ name: String) throws -> DeviceDescription? {
        switch self[name] {
        case nil, .null?: return nil
        case .object(let fields)?:
            func field(_ key: String) throws -> String? {
                switch fields[key] {
                case nil, .null?: return nil
                case .string(let value)?: return value
                default: throw APIError.invalidProperty("\(name).\(key)", "The property `\(name).\(key)` must be a string.")
                }
            }
            return DeviceDescription(name: try field("name"), platform: try field("platform"), appVersion: try field("app_version"))
        default: throw APIError.invalidProperty(name, "The property `\(name)` must be an object.")
        }
    }
}

extension CreateNonceRequest: JSONObjectDecodable {
    init(jsonObject: JSONMembers) throws {
        self.init(appID: try jsonObject.optionalString("app_id"))
    }
}
