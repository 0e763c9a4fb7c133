/// Why a run file yielded no run. Every case names the file; `description` says what is wrong
/// and where (line, point or byte offset) so a runner can act on it.
public enum ActivityError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The bytes are not the format the extension promised (no `<gpx>` root, bad FIT header).
    case notFormat(path: String, format: String, reason: String)
    /// The XML or binary stream ends or breaks before the document is complete.
    case malformed(path: String, line: Int?, offset: Int?, reason: String)
    /// The file parsed but holds no usable point (all dropped, or none present).
    case noUsablePoints(path: String, reason: String)
    /// A JSON run summary with a missing, mistyped or out-of-range field.
    case badSummary(path: String, field: String, reason: String)
    /// The file is past the size cap, inflates past it, or needs more memory to read than the
    /// process-wide budget allows (`MemoryBudget`): refused rather than read to exhaustion.
    case tooLarge(path: String, reason: String)

    /// The same error naming `path` (an archive's entry, `export.zip: activities/1.fit`) instead.
    package func renamed(_ path: String) -> ActivityError {
        switch self {
        case .unreadable(_, let reason): return .unreadable(path: path, reason: reason)
        case .notFormat(_, let format, let reason): return .notFormat(path: path, format: format, reason: reason)
        case .malformed(_, let line, let offset, let reason): return .malformed(path: path, line: line, offset: offset, reason: reason)
        case .noUsablePoints(_, let reason): return .noUsablePoints(path: path, reason: reason)
        case .badSummary(_, let field, let reason): return .badSummary(path: path, field: field, reason: reason)
        case .tooLarge(_, let reason): return .tooLarge(path: path, reason: reason)
        }
    }

    /// The same error with its path as printed (control characters escaped, `ShownName`).
    var shown: ActivityError {
        let name = ShownName.of(path)
        guard name != path else { return self }
        switch self {
        case .unreadable(_, let reason): return .unreadable(path: name, reason: reason)
        case .notFormat(_, let format, let reason): return .notFormat(path: name, format: format, reason: reason)
        case .malformed(_, let line, let offset, let reason): return .malformed(path: name, line: line, offset: offset, reason: reason)
        case .noUsablePoints(_, let reason): return .noUsablePoints(path: name, reason: reason)
        case .badSummary(_, let field, let reason): return .badSummary(path: name, field: field, reason: reason)
        case .tooLarge(_, let reason): return .tooLarge(path: name, reason: reason)
        }
    }

    /// What is wrong, without the path (for a message that names the file itself).
    public var reason: String {
        switch self {
        case .unreadable(_, let reason), .noUsablePoints(_, let reason), .tooLarge(_, let reason): return reason
        case .notFormat(_, let format, let reason): return "not a \(format) file: \(reason)"
        case .malformed(_, _, _, let reason), .badSummary(_, _, let reason): return reason
        }
    }

    public var path: String {
        switch self {
        case .unreadable(let p, _), .notFormat(let p, _, _), .malformed(let p, _, _, _),
            .noUsablePoints(let p, _), .badSummary(let p, _, _), .tooLarge(let p, _):
            return p
        }
    }

    public var description: String {
        // The name as printed: a newline in it must not break the message across lines.
        switch self.shown {
        case .unreadable(let path, let reason):
            return "\(path): cannot read: \(reason)"
        case .notFormat(let path, let format, let reason):
            return "\(path): not a \(format) file: \(reason)"
        case .malformed(let path, let line, let offset, let reason):
            var at = ""
            if let line { at += ":\(line)" }
            if let offset { at += " (byte \(offset))" }
            return "\(path)\(at): \(reason)"
        case .noUsablePoints(let path, let reason):
            return "\(path): no usable points: \(reason)"
        case .badSummary(let path, let field, let reason):
            return "\(path): field \(ShownValue.quoted(field)): \(reason)"
        case .tooLarge(let path, let reason):
            return "\(path): too large: \(reason)"
        }
    }
}
