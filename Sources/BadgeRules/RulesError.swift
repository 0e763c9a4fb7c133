/// What went wrong in the rules module. Every case names the file; rule errors also name the pack and rule.
public enum RulesError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The badge catalogue could not be read; `index` is the entry's position (0-based) when one entry is at fault.
    case catalogue(path: String, index: Int?, reason: String)

    public var description: String {
        switch self {
        case .catalogue(let path, let index, let reason):
            if let index { return "\(path): badge \(index): \(reason)" }
            return "\(path): \(reason)"
        }
    }
}
