import BadgeRules

extension RuleFailure {
    /// The failure as a message, named for what failed: `pack failed: …` for a pack that did not load
    /// (none of its rules ran), else `rule failed: …`; `side` after that (`current: `). The commands
    /// print it on stderr; the worker writes it in its error lines.
    package func shown(side: String = "") -> String {
        (isPackFailure ? "pack failed: " : "rule failed: ") + side + "\(self)"
    }
}
