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
        try JSONValue.optionalString(self[name], property: name)
    }
}

extension JSONValue {
    /// A string, or nil for an absent or `null` value; `invalid_property` naming `property` (its
    /// path, `device.name`, as `JSONDecoder`'s coding path would) for any other type.
    static func optionalString(_ value: JSONValue?, property: String) throws -> String? {
        switch value {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw APIError.invalidProperty(property, "The property `\(property)` has the wrong type.")
        }
    }
}

extension CreateSessionRequest: JSONObjectDecodable {
    init(jsonObject: JSONMembers) throws {
        self.init(
            identityToken: try jsonObject.optionalString("identity_token"), appID: try jsonObject.optionalString("app_id"),
            device: try DeviceDescription(member: jsonObject["device"]))
    }
}

extension DeviceDescription {
    /// A sign-in's `device` member: none when absent or `null`, each field an optional string.
    init?(member: JSONValue?) throws {
        switch member {
        case nil, .null?: return nil
        case .object(let fields)?:
            self.init(
                name: try JSONValue.optionalString(fields["name"], property: "device.name"),
                platform: try JSONValue.optionalString(fields["platform"], property: "device.platform"),
                appVersion: try JSONValue.optionalString(fields["app_version"], property: "device.app_version"))
        default: throw APIError.invalidProperty("device", "The property `device` has the wrong type.")
        }
    }
}

extension CreateNonceRequest: JSONObjectDecodable {
    init(jsonObject: JSONMembers) throws {
        self.init(appID: try jsonObject.optionalString("app_id"))
    }
}
