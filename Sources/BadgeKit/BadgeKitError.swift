/// What the library reports when it cannot do what was asked.
public enum BadgeKitError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The catalogue at `path` cannot be read.
    case catalogue(path: String, reason: String)
    /// A run file (or upload) `id` cannot be read: the reader's message (file, line or byte, what is wrong).
    case run(id: String, reason: String)
    /// The samples of run `id` are not usable (columns of different lengths, a value out of range).
    case samples(id: String, reason: String)
    /// A saved state cannot be read, written or used: the file and what is wrong.
    case state(reason: String)
    /// A what-if run that cannot be made as asked: why, with the limits.
    case whatIf(reason: String)
    /// No badge of the catalogue or the packs has the id or name `id`; `suggestion`: the closest one's id.
    case unknownBadge(id: String, suggestion: String?)

    /// A message naming what is at fault.
    public var description: String {
        switch self {
        case .catalogue(let path, let reason): return "catalogue \(path): \(reason)"
        case .run(let id, let reason): return "run \(id): \(reason)"
        case .samples(let id, let reason): return "run \(id): \(reason)"
        case .state(let reason): return "state: \(reason)"
        case .whatIf(let reason): return reason
        case .unknownBadge(let id, let suggestion):
            return "unknown badge '\(id)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? " (the catalogue and the packs define no badges)")
        }
    }
}
