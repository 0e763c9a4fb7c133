import BadgeRules
import Foundation
import RunFiles

/// The lines `badgectl worker` writes (docs/worker.md): one JSON object per line, keys sorted,
/// each with a `type`. Each becomes bytes one way, through `LineBuffer` (the worker's, BadgeKit's
/// `WorkerStream`'s and the tests' `line(_:)` alike); none is `Encodable`, so there is no second writer
/// to keep in step.
package enum WorkerLines {
    /// The first line: what makes the awards (badgectl's version, each pack's name, version and
    /// fingerprint, the zone of lines without `tz`, the sports that count).
    package struct Header {
        /// One loaded pack, as `evaluate`'s header names it.
        package struct Pack {
            package var name: String
            package var version: String
            package var fingerprint: String
            package var directory: String

            package init(name: String, version: String, fingerprint: String, directory: String) {
                self.name = name; self.version = version; self.fingerprint = fingerprint; self.directory = directory
            }
        }

        package var type = "header"
        package var badgectl: String
        package var zone: String
        package var sport: String
        package var packs: [Pack]

        package init(badgectl: String, zone: String, sport: String, packs: [Pack]) {
            self.badgectl = badgectl; self.zone = zone; self.sport = sport; self.packs = packs
        }
    }

    /// One award (`type` `award`, or `withdrawn` for one taken back).
    package struct Award {
        package var type = "award"
        package var athlete: String
        package var badge: String
        package var tier: String
        package var run: String
        /// The run's start, null when the run had no times.
        package var at: String?
        /// `award_id`.
        package var awardID: String
        package var pack: String
        /// `pack_version`: the pack's version (its fingerprint is in the header).
        package var packVersion: String
        package var rule: String
        package var detail: String
        /// What the rule showed for the award (`award{ evidence = ... }`), null when nothing.
        package var evidence: Evidence?

        package init(type: String = "award", athlete: String, badge: String, tier: String, run: String, at: String?, awardID: String,
                     pack: String, packVersion: String, rule: String, detail: String, evidence: Evidence?) {
            self.type = type; self.athlete = athlete; self.badge = badge; self.tier = tier; self.run = run; self.at = at
            self.awardID = awardID; self.pack = pack; self.packVersion = packVersion; self.rule = rule; self.detail = detail
            self.evidence = evidence
        }
    }

    /// The last line of an athlete: what was evaluated and what comes next.
    package struct Status {
        package var type = "status"
        package var athlete: String
        /// Runs the rules saw.
        package var runs: Int
        package var awards: Int
        /// The athlete's lines that failed, and rule failures in its evaluation.
        package var errors: Int
        /// Runs of another sport or implausible, not evaluated.
        package var excluded: Int
        /// Runs left out as another file of the same activity.
        package var duplicates: Int
        /// Every pack's next badge and the distance left.
        package var next: [NextBadge]
        /// Each badge the rules gave a progress for (`status()` or `progress()`): how far, and the hint.
        package var progress: [Progress]

        package init(athlete: String, runs: Int, awards: Int, errors: Int, excluded: Int, duplicates: Int, next: [NextBadge], progress: [Progress]) {
            self.athlete = athlete; self.runs = runs; self.awards = awards; self.errors = errors; self.excluded = excluded
            self.duplicates = duplicates; self.next = next; self.progress = progress
        }
    }

    /// One badge's progress in a status line.
    package struct Progress {
        package var pack: String
        package var badge: String
        package var current: Double
        package var target: Double
        package var unit: String
        package var hint: String?

        package init(pack: String, badge: String, current: Double, target: Double, unit: String, hint: String?) {
            self.pack = pack; self.badge = badge; self.current = current; self.target = target; self.unit = unit; self.hint = hint
        }
    }

    /// A line (or an athlete's rule) that failed. `line` is nil for a failure that is not one line's
    /// (a pack that did not load, a rule that failed in an athlete's evaluation).
    package struct Failure {
        package var type = "error"
        package var line: Int?
        package var athlete: String?
        package var message: String

        package init(line: Int?, athlete: String?, message: String) {
            self.line = line; self.athlete = athlete; self.message = message
        }
    }

    /// `{"type":"flushed"}`: written after the lines of a `{"flush": true}` (docs/worker.md).
    package static let flushed: StaticString = #"{"type":"flushed"}"#

    /// A line as text: the bytes `LineBuffer` writes for it (the tests compare them with the object
    /// JSONEncoder makes, keys sorted, as `JSONOutput` writes every other JSON of badgectl).
    package static func line(_ header: Header) -> String { text { $0.append(header) } }
    package static func line(_ award: Award) -> String { text { $0.append(award) } }
    package static func line(_ status: Status) -> String { text { $0.append(status) } }
    package static func line(_ failure: Failure) -> String { text { $0.append(failure) } }

    private static func text(_ write: (inout LineBuffer) -> Void) -> String {
        var out = LineBuffer()
        write(&out)
        return out.text
    }

    /// One output line's bytes, written by hand as JSONEncoder would write them (`JSONOutput`:
    /// compact, keys sorted, slashes unescaped, non-finite numbers as null), without its cost: the
    /// worker writes an award line per award and a status line per athlete, with every badge's
    /// progress. Every line through JSONEncoder instead costs the worker 69 % more CPU on one-run
    /// athletes with every shipped pack (5.9 s against 3.5 s for 10,000 athletes; BENCHMARKS.md,
    /// section 2), 6 % on 100 athletes of 1,000 runs each; so every line type is written here, the
    /// header and error lines too, and none has a second form. The worker keeps one and reuses its
    /// storage.
    package struct LineBuffer {
        package private(set) var bytes: [UInt8] = []

        package init() { bytes.reserveCapacity(1024) }

        package var text: String { String(decoding: bytes, as: UTF8.self) }

        package mutating func removeAll() { bytes.removeAll(keepingCapacity: true) }

        /// Text that needs no escaping (keys, punctuation).
        mutating func raw(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        mutating func string(_ text: String) { JSONString.append(text, to: &bytes) }

        mutating func string(_ text: String?) {
            if let text { JSONString.append(text, to: &bytes) } else { raw("null") }
        }

        mutating func integer(_ value: Int) { bytes.append(contentsOf: String(value).utf8) }

        /// As JSONEncoder writes a Double (`JSONNumber`), non-finite numbers as null.
        mutating func number(_ value: Double) {
            guard value.isFinite else { raw("null"); return }
            JSONNumber.append(value, to: &bytes)
        }

        package mutating func append(_ header: Header) {
            raw(#"{"badgectl":"#)
            string(header.badgectl)
            raw(#","packs":["#)
            for (index, pack) in header.packs.enumerated() {
                raw(index == 0 ? #"{"directory":"# : #",{"directory":"#)
                string(pack.directory)
                raw(#","fingerprint":"#)
                string(pack.fingerprint)
                raw(#","name":"#)
                string(pack.name)
                raw(#","version":"#)
                string(pack.version)
                raw("}")
            }
            raw(#"],"sport":"#)
            string(header.sport)
            raw(#","type":"#)
            string(header.type)
            raw(#","zone":"#)
            string(header.zone)
            raw("}")
        }

        package mutating func append(_ failure: Failure) {
            raw(#"{"athlete":"#)
            string(failure.athlete)
            raw(#","line":"#)
            if let line = failure.line { integer(line) } else { raw("null") }
            raw(#","message":"#)
            string(failure.message)
            raw(#","type":"#)
            string(failure.type)
            raw("}")
        }

        package mutating func append(_ award: Award) {
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

        package mutating func append(_ status: Status) {
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
}
