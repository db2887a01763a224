import VouchProtocol

/// The one JSON spelling Vouch mints with: compact, members sorted by name, `/` not escaped,
/// non-ASCII as UTF-8. Fixed so that a minted token is byte-for-byte reproducible (Sinch's
/// reference token is exactly this form), whatever Foundation version runs the minter.
///
/// Numbers are written as their literal, so a value parsed by `StrictJSON` is echoed exactly as it
/// was sent (`1700000000.0` stays `1700000000.0`): the validation tool relies on that.
public enum CanonicalJSON {
    public static func serialize(_ value: JSONValue) -> [UInt8] {
        var output = [UInt8]()
        write(value, into: &output)
        return output
    }

    private static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null: output += Array("null".utf8)
        case .bool(let flag): output += Array((flag ? "true" : "false").utf8)
        case .number(let number): output += Array(number.literal.utf8)
        case .string(let text): writeString(text, into: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(element, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            // Sorted by UTF-8 bytes, which for the ASCII names of JOSE is the usual order.
            let names = members.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            for (index, name) in names.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(name, into: &output)
                output.append(UInt8(ascii: ":"))
                if let member = members[name] { write(member, into: &output) }
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: output += Array("\\n".utf8)
            case 0x0D: output += Array("\\r".utf8)
            case 0x09: output += Array("\\t".utf8)
            case 0x08: output += Array("\\b".utf8)
            case 0x0C: output += Array("\\f".utf8)
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
