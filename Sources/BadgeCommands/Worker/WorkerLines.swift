import BadgeRules
import Foundation
import RunFiles

/// The lines `badgectl worker` writes (docs/worker.md): one JSON object per line, keys sorted,
/// each with a `type`.
enum WorkerLines {
    /// The first line: what makes the awards (badgectl's version, each pack's name, version and
    /// fingerprint, the zone of lines without `tz`, the sports that count).
    struct Header: Encodable {
        var type = "header"
        var badgectl: String
        var zone: String
        var sport: String
        var packs: [EvaluationReport.Header.Pack]
    }

    /// One award.
    struct Award: Encodable {
        var type = "award"
        var athlete: String
        var badge: String
        var tier: String
        var run: String
        /// The run's start, null when the run had no times.
        @NullEncoded var at: String?
        var awardID: String
        var pack: String
        /// The pack's version (its fingerprint is in the header).
        var packVersion: String
        var rule: String
        var detail: String
        /// What the rule showed for the award (`award{ evidence = ... }`), null when nothing.
        @NullEncoded var evidence: Evidence?

        enum CodingKeys: String, CodingKey {
            case type, athlete, badge, tier, run, at, pack, rule, detail, evidence
            case awardID = "award_id"
            case packVersion = "pack_version"
        }

    }

    /// The last line of an athlete: what was evaluated and what comes next.
    struct Status: Encodable {
        var type = "status"
        var athlete: String
        /// Runs the rules saw.
        var runs: Int
        var awards: Int
        /// The athlete's lines that failed, and rule failures in its evaluation.
        var errors: Int
        /// Runs of another sport or implausible, not evaluated.
        var excluded: Int
        /// Runs left out as another file of the same activity.
        var duplicates: Int
        /// Every pack's next badge and the distance left.
        var next: [NextBadge]
        /// Each badge the rules gave a progress for (`status()` or `progress()`): how far, and the hint.
        var progress: [Progress]
    }

    /// One badge's progress in a status line.
    struct Progress: Encodable {
        var pack: String
        var badge: String
        var current: Double
        var target: Double
        var unit: String
        @NullEncoded var hint: String?
    }

    /// A line (or an athlete's rule) that failed. `line` is nil for a failure that is not one line's
    /// (a pack that did not load, a rule that failed in an athlete's evaluation).
    struct Failure: Encodable {
        var type = "error"
        @NullEncoded var line: Int?
        @NullEncoded var athlete: String?
        var message: String
    }

    /// An award's line, written by hand: the same object `encode(Award)` makes (keys sorted), at a
    /// fraction of JSONEncoder's cost (a worker writes one per award; BENCHMARKS.md, "Worker").
    static func line(_ award: Award) -> String {
        var out = #"{"at":"#
        out.reserveCapacity(256)
        if let at = award.at { JSONString.append(at, to: &out) } else { out += "null" }
        for (key, value) in [("athlete", award.athlete), ("award_id", award.awardID), ("badge", award.badge), ("detail", award.detail)] {
            out += ",\""
            out += key
            out += "\":"
            JSONString.append(value, to: &out)
        }
        out += #","evidence":"#
        if let evidence = award.evidence { appendEvidence(evidence, to: &out) } else { out += "null" }
        for (key, value) in [("pack", award.pack), ("pack_version", award.packVersion), ("rule", award.rule), ("run", award.run),
                             ("tier", award.tier), ("type", award.type)] {
            out += ",\""
            out += key
            out += "\":"
            JSONString.append(value, to: &out)
        }
        out += "}"
        return out
    }

    /// Evidence as JSONEncoder writes it here: records with sorted keys, numbers in Swift's shortest
    /// form without a trailing `.0`, non-finite numbers as null.
    static func appendEvidence(_ evidence: Evidence, to out: inout String) {
        switch evidence {
        case .bool(let value): out += value ? "true" : "false"
        case .number(let value):
            guard value.isFinite else { out += "null"; return }
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            out += text
        case .string(let value): JSONString.append(value, to: &out)
        case .list(let values):
            out += "["
            for (index, value) in values.enumerated() {
                if index > 0 { out += "," }
                appendEvidence(value, to: &out)
            }
            out += "]"
        case .record(let fields):
            out += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { out += "," }
                JSONString.append(key, to: &out)
                out += ":"
                if let value = fields[key] { appendEvidence(value, to: &out) }
            }
            out += "}"
        }
    }

    /// One compact line (no newline), keys sorted, non-finite numbers as `null` (`JSONOutput`).
    static func encode<T: Encodable>(_ value: T) -> String {
        (try? JSONOutput.encode(value, pretty: false)) ?? #"{"message":"badgectl could not encode an output line","type":"error"}"#
    }
}
