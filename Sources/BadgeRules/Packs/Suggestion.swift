/// "Did you mean": the closest of a list of names to a misspelt one (Levenshtein distance over
/// characters), for messages about rule tables, badge ids and command arguments.
public enum Suggestion {
    /// The candidate nearest to `word`; nil when even the nearest is more than `maxDistance` edits away
    /// (default: a third of the word's length, at least 2). Ties go to the first candidate.
    public static func closest(to word: String, in candidates: [String], maxDistance: Int? = nil) -> String? {
        let limit = maxDistance ?? max(2, word.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(word, candidate)
            if distance <= limit, distance < (best?.distance ?? .max) { best = (candidate, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance over characters.
    public static func editDistance(_ a: String, _ b: String) -> Int {
        let x = Array(a), y = Array(b)
        if x.isEmpty { return y.count }
        if y.isEmpty { return x.count }
        var previous = Array(0...y.count)
        var current = Array(repeating: 0, count: y.count + 1)
        for i in 1...x.count {
            current[0] = i
            for j in 1...y.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (x[i - 1] == y[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[y.count]
    }
}
