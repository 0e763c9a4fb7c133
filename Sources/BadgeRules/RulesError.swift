/// What went wrong in the rules module. Every case names the file; rule errors also name the pack and rule.
public enum RulesError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The badge catalogue could not be read; `index` is the entry's position (0-based) when one entry is at fault.
    case catalogue(path: String, index: Int?, reason: String)
    /// A pack folder or its `pack.lua` is unusable; `line` when Lua reported one.
    case pack(file: String, line: Int?, reason: String)
    /// The Lua state itself could not be set up (out of memory, broken prelude).
    case lua(reason: String)

    public var description: String {
        switch self {
        case .catalogue(let path, let index, let reason):
            if let index { return "\(path): badge \(index): \(reason)" }
            return "\(path): \(reason)"
        case .pack(let file, let line, let reason):
            if let line { return "\(file):\(line): \(reason)" }
            return "\(file): \(reason)"
        case .lua(let reason):
            return "lua: \(reason)"
        }
    }
}
