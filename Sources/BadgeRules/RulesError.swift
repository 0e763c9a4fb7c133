/// What went wrong in the rules module: the one error type it throws. Failures of rules while they
/// run are not thrown: they are `RuleFailure` records of the evaluation (and `TestFailure` of a test).
public enum RulesError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The badge catalogue could not be read; `index` is the entry's position (0-based) when one entry is at fault.
    case catalogue(path: String, index: Int?, reason: String)
    /// A pack folder or its `pack.lua` is unusable; `line` when Lua reported one.
    case pack(file: String, line: Int?, reason: String)
    /// The Lua state itself could not be set up (out of memory, broken prelude).
    case lua(reason: String)
    /// A value handed to the host is malformed: a table a rule returned or passed (`award`,
    /// `status`, `progress`), a `t.run` spec or a `t.evaluate` option. The text names the field; the
    /// caller adds where it came from (the rule's file and line, `t.run: `).
    case field(String)
    /// A saved state (`evaluate --state DIR`, `StateStore`) cannot be read or written, or does not
    /// fit the packs and runs it is used with: `path` is the file, `reason` what is wrong.
    case state(path: String, reason: String)
    /// A what-if run (`WhatIf`) that cannot be made as asked: `reason` says why, with the limits.
    case whatIf(reason: String)

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
        case .field(let text):
            return text
        case .state(let path, let reason):
            return "\(path): \(reason)"
        case .whatIf(let reason):
            return "what-if: \(reason)"
        }
    }
}
