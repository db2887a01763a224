/// How long a fetched key set is used before it is fetched again: the answer's
/// `Cache-Control: max-age`, held between a floor and a ceiling.
///
/// The floor stops an issuer (or a proxy in front of it) that says `no-cache` from turning every
/// verification into a fetch; the ceiling bounds how long a key Vouch has retired stays trusted
/// and how late a new one is seen. Vouch publishes a key 2 × the ceiling before it signs with it.
struct CacheLifetime: Sendable {
    let minimum: Double
    let maximum: Double

    /// The lifetime for the `Cache-Control` header values of one answer (one or several header lines).
    func seconds(cacheControl values: [String]) -> Double {
        var maxAge: Double?
        for directive in values.lazy.flatMap({ $0.split(separator: ",") }) {
            let trimmed = directive.trimmingASCIISpaces().lowercased()
            if trimmed == "no-cache" || trimmed == "no-store" { return minimum }
            guard trimmed.hasPrefix("max-age=") else { continue }
            var value = trimmed.dropFirst("max-age=".count)
            if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
            guard !value.isEmpty, value.allSatisfy({ $0.isASCII && $0.isNumber }) else { return minimum }
            // A huge number of digits is as good as "forever": the ceiling applies.
            maxAge = Double(value) ?? maximum
        }
        return min(max(maxAge ?? minimum, minimum), maximum)
    }
}

extension Substring {
    fileprivate func trimmingASCIISpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
