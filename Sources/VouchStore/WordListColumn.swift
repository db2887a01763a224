/// How a short list of words is laid out in one text column, the same in both backends: the words
/// joined by single spaces, the empty string for none. An app's audiences and a webhook
/// endpoint's event kinds are kept this way. Neither ever contains a space (the callers validate
/// each word before it reaches the store: `AppRecord.isValidAudience`, `SecurityEventKind`), so
/// the list reads back exactly as it was written, in its order.
public enum WordListColumn {
    /// The column's text for `words`.
    public static func text(_ words: [String]) -> String {
        words.joined(separator: " ")
    }

    /// The words the column's `text` holds.
    public static func words(_ text: String) -> [String] {
        text.split(separator: " ").map(String.init)
    }
}
