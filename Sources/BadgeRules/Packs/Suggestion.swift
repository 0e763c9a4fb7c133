/// "Did you mean": the closest of a list of names to a misspelt one, for messages about rule tables,
/// badge ids, measure declarations, files and command arguments. One suggester for the whole tool:
/// this asks the C shim's (`bclua_suggest`), the one a rule's unknown-field error (`run.distanse_m`)
/// must use because it is raised inside a C call where no Swift can run, so a name misspelt in Lua
/// and in a pack declaration gets the same suggestion.
public enum Suggestion {
    /// The candidate nearest to `word`: one that starts with it, or that it starts with (two characters
    /// at least), the nearest in length; else the nearest by edit distance (over UTF-8 bytes), when
    /// within `maxDistance` edits (default: a third of the word's length, between 1 and 3). Ties go to
    /// the first candidate. Nil when none is close enough.
    public static func closest(to word: String, in candidates: [String], maxDistance: Int? = nil) -> String? {
        LuaState.closestIndex(to: word, in: candidates, maxDistance: maxDistance).map { candidates[$0] }
    }
}
