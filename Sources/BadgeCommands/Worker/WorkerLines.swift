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

    /// An award's line as text: what the worker's `LineBuffer` writes as bytes (the tests compare it
    /// with `encode(Award)`, the object JSONEncoder makes with keys sorted).
    static func line(_ award: Award) -> String {
        var out = LineBuffer()
        out.append(award)
        return out.text
    }

    /// A status line as text: what `LineBuffer` writes (the tests compare it with `encode(Status)`).
    static func line(_ status: Status) -> String {
        var out = LineBuffer()
        out.append(status)
        return out.text
    }

    /// One output line's bytes, written by hand as JSONEncoder would write them here (`JSONOutput`,
    /// compact, keys sorted, slashes unescaped, non-finite numbers as null), without its cost: the
    /// worker writes an award line per award and a status line per athlete, with every badge's
    /// progress (for one-run athletes JSONEncoder took a fifth of the worker's time; BENCHMARKS.md,
    /// "Issue F (#31) item 3, second round"). The worker keeps one and reuses its storage.
    struct LineBuffer {
        private(set) var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(1024) }

        var text: String { String(decoding: bytes, as: UTF8.self) }

        mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

        /// Text that needs no escaping (keys, punctuation).
        mutating func raw(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        mutating func string(_ text: String) { JSONString.append(text, to: &bytes) }

        mutating func string(_ text: String?) {
            if let text { JSONString.append(text, to: &bytes) } else { raw("null") }
        }

        mutating func integer(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

        /// Swift's shortest form without a trailing `.0` (as JSONEncoder writes a Double), non-finite
        /// numbers as null. Whole numbers below 10^15 (counts, most distances) are written as integers
        /// without going through `description`: the same digits.
        mutating func number(_ value: Double) {
            guard value.isFinite else { raw("null"); return }
            if value.magnitude < 1e15, value == value.rounded(.towardZero), !(value == 0 && value.sign == .minus) {
                integer(Int(value))
                return
            }
            let text = value.description
            if text.hasSuffix(".0") { bytes.append(contentsOf: text.utf8.dropLast(2)) } else { bytes.append(contentsOf: text.utf8) }
        }

        mutating func append(_ award: Award) {
            raw(#"{"at":"#)
            string(award.at)
            raw(#","athlete":"#)
            string(award.athlete)
            raw(#","award_id":"#)
            string(award.awardID)
            raw(#","badge":"#)
            string(award.badge)
            raw(#","detail":"#)
            string(award.detail)
            raw(#","evidence":"#)
            if let evidence = award.evidence { append(evidence) } else { raw("null") }
            raw(#","pack":"#)
            string(award.pack)
            raw(#","pack_version":"#)
            string(award.packVersion)
            raw(#","rule":"#)
            string(award.rule)
            raw(#","run":"#)
            string(award.run)
            raw(#","tier":"#)
            string(award.tier)
            raw(#","type":"#)
            string(award.type)
            raw("}")
        }

        mutating func append(_ status: Status) {
            raw(#"{"athlete":"#)
            string(status.athlete)
            raw(#","awards":"#)
            integer(status.awards)
            raw(#","duplicates":"#)
            integer(status.duplicates)
            raw(#","errors":"#)
            integer(status.errors)
            raw(#","excluded":"#)
            integer(status.excluded)
            raw(#","next":["#)
            for (index, next) in status.next.enumerated() {
                raw(index == 0 ? #"{"badge":"# : #",{"badge":"#)
                string(next.badge)
                raw(#","pack":"#)
                string(next.pack)
                raw(#","remaining_m":"#)
                number(next.remainingMeters)
                raw(#","rule":"#)
                string(next.rule)
                raw("}")
            }
            raw(#"],"progress":["#)
            for (index, progress) in status.progress.enumerated() {
                raw(index == 0 ? #"{"badge":"# : #",{"badge":"#)
                string(progress.badge)
                raw(#","current":"#)
                number(progress.current)
                raw(#","hint":"#)
                string(progress.hint)
                raw(#","pack":"#)
                string(progress.pack)
                raw(#","target":"#)
                number(progress.target)
                raw(#","unit":"#)
                string(progress.unit)
                raw("}")
            }
            raw(#"],"runs":"#)
            integer(status.runs)
            raw(#","type":"#)
            string(status.type)
            raw("}")
        }

        /// Evidence: records with sorted keys, numbers as `number`.
        mutating func append(_ evidence: Evidence) {
            switch evidence {
            case .bool(let value): value ? raw("true") : raw("false")
            case .number(let value): number(value)
            case .string(let value): string(value)
            case .list(let values):
                raw("[")
                for (index, value) in values.enumerated() {
                    if index > 0 { raw(",") }
                    append(value)
                }
                raw("]")
            case .record(let fields):
                raw("{")
                for (index, key) in fields.keys.sorted().enumerated() {
                    if index > 0 { raw(",") }
                    string(key)
                    raw(":")
                    if let value = fields[key] { append(value) }
                }
                raw("}")
            }
        }
    }

    /// One compact line (no newline), keys sorted, non-finite numbers as `null` (`JSONOutput`).
    static func encode<T: Encodable>(_ value: T) -> String {
        (try? JSONOutput.encode(value, pretty: false)) ?? #"{"message":"badgectl could not encode an output line","type":"error"}"#
    }
}
