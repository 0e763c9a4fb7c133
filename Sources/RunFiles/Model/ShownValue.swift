/// An input value as a message quotes it: in single quotes, at most `limit` characters and then
/// `…`, control characters escaped (`ShownName`). A message says which value was wrong without
/// carrying it whole: a field holding a secret (`'sk-live-…'`) or megabytes of text shows only its
/// start. Every message that quotes a value read from input (a run file, a summary, a worker line)
/// goes through here.
package enum ShownValue {
    /// Enough for any value that is right but misplaced (an ISO 8601 time with fraction and offset,
    /// the longest zone name), too short to carry a long secret or a file's content.
    package static let limit = 40

    /// `'text'`, or its first `limit` characters (Unicode scalars: a run of combining marks is not
    /// one unbounded character) and `…` inside the quotes.
    package static func quoted(_ text: String, limit: Int = limit) -> String {
        let scalars = text.unicodeScalars
        guard let end = scalars.index(scalars.startIndex, offsetBy: limit, limitedBy: scalars.endIndex), end < scalars.endIndex else {
            return "'" + ShownName.of(text) + "'"
        }
        return "'" + ShownName.of(String(scalars[..<end])) + "…'"
    }
}
