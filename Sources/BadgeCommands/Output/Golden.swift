import ArgumentParser
import Foundation
import RunFiles

/// `--golden FILE [--update]`: compare a command's JSON output with a stored snapshot.
struct GoldenOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Compare the JSON output with this snapshot file instead of printing it; a difference fails "
            + "with the first differing lines. The header (badgectl's version, the packs' fingerprints) "
            + "is left out of the snapshot.", valueName: "file"))
    var golden: String?

    @Flag(name: .long, help: "With --golden: re-record the snapshot from this run (prints \"updated FILE\").")
    var update = false

    func validate() throws {
        if update && golden == nil { throw CommandError.updateWithoutGolden.usage }
    }
}

/// Snapshot comparison: readable, line-based, never silent.
enum Golden {
    enum Outcome: Equatable {
        case matched
        case updated
        /// The report to print: the first differing lines.
        case differs(String)
    }

    /// Compares `actual` with the snapshot at `path` (or re-records it when `update`).
    static func check(_ actual: String, path: String, update: Bool) throws -> Outcome {
        let text = actual.hasSuffix("\n") ? actual : actual + "\n"
        if update {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return .updated
        }
        guard let expected = try? String(contentsOfFile: path, encoding: .utf8) else {
            return .differs("\(path): no snapshot (record one with --update and review it)")
        }
        if expected == text || sameJSON(expected, text) { return .matched }
        return .differs(diff(expected: expected, actual: text, path: path))
    }

    /// Equal as JSON values (pretty-printers differ in whitespace between platforms): read by `JSONText`,
    /// where `true` is not the number 1 and `1` is `1.0`.
    static func sameJSON(_ a: String, _ b: String) -> Bool {
        guard let x = try? JSONText.parse(Array(a.utf8), source: "snapshot"),
              let y = try? JSONText.parse(Array(b.utf8), source: "output") else { return false }
        return x == y
    }

    /// The first `limit` differing lines with two lines of context, `-` for the snapshot, `+` for now.
    static func diff(expected: String, actual: String, path: String, limit: Int = 12) -> String {
        let old = expected.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let new = actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var out = ["\(path): output differs from the snapshot (- snapshot, + now; --update re-records it)"]
        guard let first = zip(old, new).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset
                ?? (old.count != new.count ? min(old.count, new.count) : nil) else {
            return out.joined(separator: "\n")
        }
        // Re-synchronise after the first difference: the shortest skip on either side that matches again.
        var oldEnd = old.count, newEnd = new.count
        search: for distance in 1...max(1, old.count + new.count) {
            for skipOld in 0...distance {
                let skipNew = distance - skipOld
                let i = first + skipOld, j = first + skipNew
                if i < old.count, j < new.count, old[i] == new[j], i + 1 >= old.count || j + 1 >= new.count || old[i + 1] == new[j + 1] {
                    oldEnd = i; newEnd = j
                    break search
                }
            }
        }
        out.append("@@ line \(first + 1) @@")
        for k in max(0, first - 2)..<first { out.append("  " + old[k]) }
        var shown = 0
        for k in first..<oldEnd where shown < limit { out.append("- " + old[k]); shown += 1 }
        for k in first..<newEnd where shown < 2 * limit { out.append("+ " + new[k]); shown += 1 }
        if oldEnd - first + newEnd - first > shown { out.append("  ...") }
        for k in oldEnd..<min(old.count, oldEnd + 2) { out.append("  " + old[k]) }
        return out.joined(separator: "\n")
    }
}

extension Golden {
    /// The command-line side: prints what happened; a difference exits with `testsFailed`.
    static func run(_ actual: String, path: String, update: Bool) throws {
        switch try check(actual, path: path, update: update) {
        case .matched:
            print("\(path): matches")
        case .updated:
            print("updated \(path)")
        case .differs(let report):
            Console.error(report)
            throw ExitCode(ExitStatus.testsFailed.rawValue)
        }
    }
}
