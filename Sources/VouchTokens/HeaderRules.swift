import VouchProtocol
import VouchSupport

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

    let parameters: [Parameter]
    /// Required parameters whose value is checked elsewhere (`kid`).
    let otherRequired: [String]
    /// Every name looked at, in rule order, and which of them are required: worked out once per
    /// profile rather than per token.
    private let names: [String]
    private let required: [Bool]

    init(parameters: [Parameter], otherRequired: [String]) {
        self.parameters = parameters
        self.otherRequired = otherRequired
        names = parameters.map(\.name) + otherRequired
        required = parameters.map(\.required) + otherRequired.map { _ in true }
    }

    func check(_ header: JSONMembers, _ findings: inout Findings) throws(Findings.Stop) {
        // One look-up per name, kept on the stack; the three passes read these.
        try withUnsafeTemporaryAllocation(of: JSONValue?.self, capacity: names.count) { (values) throws(Findings.Stop) in
            for index in names.indices { values.initializeElement(at: index, to: header[names[index]]) }
            defer { values.deinitialize() }
            try check(values: UnsafeBufferPointer(values), &findings)
        }
        // `crit` names extensions the recipient must understand; Vouch understands none, so any
        // `crit` at all is refused rather than silently ignored (RFC 7515 §4.1.11).
        if header["crit"] != nil {
            try findings.add(.headerParamWrongValue, param: "crit", hint: "no `crit` extension is supported")
        }
    }

    private func check(values: UnsafeBufferPointer<JSONValue?>, _ findings: inout Findings) throws(Findings.Stop) {
        for index in names.indices where required[index] && values[index] == nil {
            try findings.add(.headerParamNotFound, param: names[index])
        }
        for index in names.indices {
            if let value = values[index], value.stringValue == nil {
                try findings.add(.headerParamWrongType, param: names[index])
            }
        }
        for (index, parameter) in parameters.enumerated() {
            if let value = values[index]?.stringValue, !parameter.accepts(value) {
                try findings.add(
                    .headerParamWrongValue, param: parameter.name,
                    hint: "`\(parameter.name)` must be \(parameter.expectation)")
            }
        }
    }
}
