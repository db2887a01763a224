import Testing
@testable import VouchTokens

@Suite("Control characters")
struct ControlCharacterTests {
    @Test("the byte test agrees with Unicode's category Cc for every scalar, alone and inside text")
    func agreesWithUnicode() {
        var disagreements: [UInt32] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let expected = scalar.properties.generalCategory == .control
            let text = "aé" + String(Character(scalar)) + "z"
            if ControlCharacters.present(in: String(Character(scalar))) != expected
                || ControlCharacters.present(in: text) != expected
            {
                disagreements.append(value)
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(10).map { String($0, radix: 16) })")
    }
}
