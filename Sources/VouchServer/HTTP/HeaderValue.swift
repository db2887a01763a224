import HTTPTypes

extension HTTPFields {
    /// What `self[name]` answers (the field's value; a repeated field's values joined with ", "),
    /// without the subscript's generic lazy join for the usual single field: on an authenticated
    /// request that join costs more than parsing the token it returns. Not for `Cookie`, which the
    /// subscript joins with "; ".
    func combinedValue(_ name: HTTPField.Name) -> String? {
        var value: String?
        for field in self where field.name == name {
            value = value.map { $0 + ", " + field.value } ?? field.value
        }
        return value
    }
}
