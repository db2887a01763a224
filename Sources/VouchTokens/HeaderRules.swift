import VouchProtocol

/// The header rules #5–#7, shared by both profiles: all missing parameters first, then all wrongly
/// typed ones, then all wrong values, so that the first finding is the lowest-numbered rule.
struct HeaderRules {
    struct Parameter {
        enum Comparison {
            /// Byte for byte: `alg`, `cty`.
            case exact(String)
            /// As a media type: `typ`.
            case mediaType(MediaTypeRule)
        }

        let name: String
        let comparison: Comparison
        let required: Bool

        init(name: String, expected: String, required: Bool) {
            self.init(name: name, comparison: .exact(expected), required: required)
        }

        init(name: String, comparison: Comparison, required: Bool) {
            self.name = name
            self.comparison = comparison
            self.required = required
        }

        func accepts(_ value: String) -> Bool {
            switch comparison {
            case .exact(let expected): value.bytesEqual(expected)
            case .mediaType(let rule): rule.accepts(value)
            }
        }

        var expectation: String {
            switch comparison {
            case .exact(let expected): "`\(expected)`"
            case .mediaType(let rule): rule.description
            }
        }
    }

    let header: [String: JSONValue]
    let parameters: [Parameter]
    /// Required parameters whose value is checked elsewhere (`kid`).
    let otherRequired: [String]

    func check(_ findings: inout Findings) throws(Findings.Stop) {
        let required = parameters.filter(\.required).map(\.name) + otherRequired
        for name in required where header[name] == nil {
            try findings.add(.headerParamNotFound, param: name)
        }
        for name in parameters.map(\.name) + otherRequired {
            if let value = header[name], value.stringValue == nil {
                try findings.add(.headerParamWrongType, param: name)
            }
        }
        for parameter in parameters {
            if let value = header[parameter.name]?.stringValue, !parameter.accepts(value) {
                try findings.add(.headerParamWrongValue, param: parameter.name,
                                 hint: "`\(parameter.name)` must be \(parameter.expectation)")
            }
        }
        // `crit` names extensions the recipient must understand; Vouch understands none, so any
        // `crit` at all is refused rather than silently ignored (RFC 7515 §4.1.11).
        if header["crit"] != nil {
            try findings.add(.headerParamWrongValue, param: "crit", hint: "no `crit` extension is supported")
        }
    }
}
