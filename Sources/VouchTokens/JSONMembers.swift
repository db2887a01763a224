import VouchProtocol
import VouchSupport

/// The members of a token's header or claims set, in the order they were written.
///
/// A header has three or four members and a claims set under a dozen, and every rule asks for a
/// few of them by name: a list searched by name costs less than a dictionary, whose every look-up
/// hashes the name (a per-process seeded SipHash) and whose building allocates a table. Names are
/// compared byte for byte, as RFC 7515 compares them, and the parser has already refused a
/// second member of the same name.
public struct JSONMembers: Sendable, Equatable {
    public struct Member: Sendable, Equatable {
        public let name: String
        public let value: JSONValue
    }

    public private(set) var members: [Member]

    init(members: [Member]) {
        self.members = members
    }

    /// The value of the member named `name` (compared byte for byte), if there is one.
    public subscript(name: String) -> JSONValue? {
        index(of: name).map { members[$0].value }
    }

    /// Where the member named `name` (compared byte for byte) is in `members`, if there is one.
    func index(of name: String) -> Int? {
        // Lengths first (free), then `==` (a few instructions for two short ASCII names, but
        // canonical equivalence in general), then the bytes, only for the member that matched.
        let length = name.utf8.count
        return members.withUnsafeBufferPointer { members in
            for index in members.indices {
                let candidate = members[index].name
                if candidate.utf8.count == length && candidate == name && candidate.bytesEqual(name) {
                    return index
                }
            }
            return nil
        }
    }

    public var count: Int { members.count }

    /// The members as a dictionary, for display and for callers that want one; should a name
    /// appear twice (the parser refuses that), the first member wins.
    ///
    /// Filled in place at its final size: every JSON body is read through one (a sign-in's too),
    /// and building it from an array of pairs cost that array and a regrowth besides.
    public var dictionary: [String: JSONValue] {
        var dictionary = [String: JSONValue](minimumCapacity: members.count)
        // Backwards, so that of two equal names the first is written last.
        for member in members.reversed() { dictionary[member.name] = member.value }
        return dictionary
    }
}
