/// "Did you mean": the closest of a list of names to a misspelt one, for messages about rule tables,
/// badge ids, measure declarations, files and command arguments. Plain Swift, so that a misspelt
/// subcommand or badge id needs no Lua. The C shim has the same rule (`bclua_suggest`) for a rule's
/// unknown-field error (`run.distanse_m`), raised inside a C call where no Swift can run;
/// SuggestionTests checks that the two agree, so a name misspelt in Lua and in a pack declaration
/// gets the same suggestion.
public enum Suggestion {
    /// The candidate nearest to `word`: one that starts with it, or that it starts with (two characters
    /// at least), the nearest in length; else the nearest by edit distance (over UTF-8 bytes), when
    /// within `maxDistance` edits (default: a third of the word's length, between 1 and 3). Ties go to
    /// the first candidate. Nil when none is close enough.
    public static func closest(to word: String, in candidates: [String], maxDistance: Int? = nil) -> String? {
        let key = Array(word.utf8)
        let limit = maxDistance.flatMap { $0 >= 0 ? $0 : nil } ?? min(max(key.count / 3, 1), 3)
        // First the shared starts, then (only when none) the edit distances.
        for pass in 0..<2 {
            var best: (index: Int, score: Int)?
            for (index, candidate) in candidates.enumerated() {
                let name = Array(candidate.utf8)
                let score: Int
                if pass == 0 {
                    let shorter = min(key.count, name.count)
                    guard shorter >= 2, key[..<shorter] == name[..<shorter] else { continue }
                    score = abs(name.count - key.count)
                } else {
                    score = editDistance(key, name)
                    guard score <= limit else { continue }
                }
                if best.map({ score < $0.score }) ?? true { best = (index, score) }
            }
            if let best { return candidates[best.index] }
        }
        return nil
    }

    /// Levenshtein distance over bytes, one row at a time.
    static func editDistance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        var row = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var diagonal = row[0]
            row[0] = i + 1
            for (j, y) in b.enumerated() {
                let above = row[j + 1]
                row[j + 1] = min(diagonal + (x == y ? 0 : 1), above + 1, row[j] + 1)
                diagonal = above
            }
        }
        return row[b.count]
    }
}
