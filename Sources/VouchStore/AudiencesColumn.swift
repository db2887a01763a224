/// How an app's audiences are laid out in its row, the same in both backends: one text column
/// holding the audiences joined by single spaces, the empty string for none. An audience never
/// contains a space (`AppRecord.isValidAudience` admits printable ASCII without it), so the
/// list reads back exactly as it was written, in its order; the caller validates each audience
/// before it reaches the store.
public enum AudiencesColumn {
    /// The column's text for `audiences`.
    public static func text(_ audiences: [String]) -> String {
        audiences.joined(separator: " ")
    }

    /// The audiences the column's `text` holds.
    public static func audiences(_ text: String) -> [String] {
        text.split(separator: " ").map(String.init)
    }
}
