import BadgePipeline
import BadgeRules
import Foundation
import XCTest

@testable import BadgeCommands

/// Every worker line is written one way, by hand (`WorkerLines.LineBuffer`); here each is checked
/// against the object JSONEncoder makes through `JSONOutput` (how badgectl writes every other JSON),
/// byte for byte. The `Encodable` conformances below are this oracle's alone: no line type is
/// `Encodable` in the product.
final class WorkerLinesTests: XCTestCase {
    func testAwardLineIsJSONEncodersObject() {
        let texts = ["plain", "", "quote \" and back\\slash", "new\nline\ttab\r", "control \u{1} \u{1F} \u{8} \u{C}", "café 🏃 / slash", "\u{7F}\u{2028}"]
        let numbers: [Double] = [0, -0.0, 1, -3, 3228.209151695327, 0.1, 1e-7, 1.5e-300, 1e21, 123456789012345683968, 2.5e15, .infinity, .nan]
        let evidences: [Evidence?] = [
            nil, .record([:]), .list([]),
            .record(["distance_m": .number(3228.209151695327), "checkpoint": .string("five-k"), "ok": .bool(true),
                     "tiles": .list([.list([.number(8414), .number(5384)])]), "zz": .record(["a\"b": .bool(false)])]),
            .list(numbers.map { .number($0) }),
        ]
        for text in texts {
            for at in [Optional("2026-01-01T00:00:00Z"), nil] {
                for evidence in evidences + [.string(text), .record([text: .string(text)])] {
                    let award = WorkerLines.Award(athlete: text, badge: "b" + text, tier: "t", run: text + "r", at: at, awardID: "id",
                                                  pack: "p", packVersion: text, rule: text, detail: text, evidence: evidence)
                    XCTAssertEqual(WorkerLines.line(award), WorkerLinesTests.encode(award), text.debugDescription)
                }
            }
        }
    }

    /// The status line written by hand (`WorkerLines.line(Status)`) is the object JSONEncoder makes,
    /// byte for byte: empty and long progress and next lists, hints and none, every kind of string
    /// escape, unicode, numbers from subnormal to huge, and non-finite numbers (null).
    func testStatusLineIsJSONEncodersObject() {
        let texts = ["plain", "", "quote \" and back\\slash", "new\nline\ttab\r", "control \u{0} \u{1} \u{1F} \u{8} \u{C}",
                     "café 🏃 / slash", "\u{7F}\u{2028}\u{FEFF}", "Zürich → 東京", "e\u{301}"]
        let numbers: [Double] = [0, -0.0, 1, -3, 42.195, 3228.209151695327, 0.1, 1e-7, .leastNonzeroMagnitude, 1.5e-300, 1e15, 1e16, 1e21,
                                 123456789012345683968, 2.5e15, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
                                 .infinity, -.infinity, .nan]
        let counts = [0, 1, 7, 100_000, Int.max]
        var checked = 0
        for (t, text) in texts.enumerated() {
            for size in [0, 1, 3, numbers.count] {
                let progress = (0..<size).map { i in
                    WorkerLines.Progress(pack: i % 2 == 0 ? text : "lifetime", badge: "b\(i)" + text, current: numbers[(i + t) % numbers.count],
                                         target: numbers[(i * 7 + t + 3) % numbers.count], unit: i % 3 == 0 ? "m" : text,
                                         hint: (i + t) % 2 == 0 ? nil : "hint " + text)
                }
                let nexts = (0..<max(0, size - 1)).map { i in
                    NextBadge(pack: text + "p", rule: "r" + text, badge: text, remainingMeters: numbers[(i * 3 + t) % numbers.count])
                }
                let status = WorkerLines.Status(athlete: text, runs: counts[(t + size) % counts.count], awards: counts[t % counts.count],
                                                errors: counts[size % counts.count], excluded: size, duplicates: t,
                                                next: nexts, progress: progress)
                XCTAssertEqual(WorkerLines.line(status), WorkerLinesTests.encode(status), "\(text.debugDescription) \(size)")
                checked += 1
            }
        }
        XCTAssertEqual(checked, texts.count * 4)
    }

    func testHeaderLineIsJSONEncodersObject() {
        let texts = ["plain", "", "quote \" and back\\slash", "café 🏃 / slash", "/srv/rules/lifetime", "control \u{1}"]
        for text in texts {
            for count in [0, 1, 3] {
                let packs = (0..<count).map { i in
                    WorkerLines.Header.Pack(name: text + "\(i)", version: "1.\(i)", fingerprint: "sha256:" + text, directory: "rules/" + text)
                }
                let header = WorkerLines.Header(badgectl: "0.1.0", zone: text.isEmpty ? "UTC" : text, sport: text, packs: packs)
                XCTAssertEqual(WorkerLines.line(header), Self.encode(header), text.debugDescription)
            }
        }
    }

    func testErrorLineIsJSONEncodersObject() {
        let texts = ["plain", "", "quote \" and back\\slash", "new\nline\ttab\r", "control \u{0} \u{1F}", "café 🏃 / slash"]
        for text in texts {
            for line in [nil, 0, 1, 12_345, Int.max] {
                for athlete in [nil, text] {
                    let failure = WorkerLines.Failure(line: line, athlete: athlete, message: "line 3: " + text)
                    XCTAssertEqual(WorkerLines.line(failure), Self.encode(failure), text.debugDescription)
                }
            }
        }
        XCTAssertEqual(WorkerLines.line(WorkerLines.Failure(line: nil, athlete: nil, message: "m")),
                       #"{"athlete":null,"line":null,"message":"m","type":"error"}"#)
    }

    /// The oracle: the line as JSONEncoder writes it for badgectl's other JSON.
    static func encode<T: Encodable>(_ value: T) -> String {
        (try? JSONOutput.encode(value, pretty: false)) ?? "not encodable"
    }
}

// The oracle's conformances (optional fields written as null, as the lines write them).

extension WorkerLines.Header: Encodable {
    package enum CodingKeys: String, CodingKey { case type, badgectl, zone, sport, packs }
    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(badgectl, forKey: .badgectl)
        try container.encode(zone, forKey: .zone)
        try container.encode(sport, forKey: .sport)
        try container.encode(packs, forKey: .packs)
    }
}

extension WorkerLines.Header.Pack: Encodable {
    package enum CodingKeys: String, CodingKey { case name, version, fingerprint, directory }
    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(version, forKey: .version)
        try container.encode(fingerprint, forKey: .fingerprint)
        try container.encode(directory, forKey: .directory)
    }
}

extension WorkerLines.Award: Encodable {
    package enum CodingKeys: String, CodingKey {
        case type, athlete, badge, tier, run, at, pack, rule, detail, evidence
        case awardID = "award_id"
        case packVersion = "pack_version"
    }
    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(athlete, forKey: .athlete)
        try container.encode(badge, forKey: .badge)
        try container.encode(tier, forKey: .tier)
        try container.encode(run, forKey: .run)
        try container.encode(at, forKey: .at)
        try container.encode(awardID, forKey: .awardID)
        try container.encode(pack, forKey: .pack)
        try container.encode(packVersion, forKey: .packVersion)
        try container.encode(rule, forKey: .rule)
        try container.encode(detail, forKey: .detail)
        try container.encode(evidence, forKey: .evidence)
    }
}

extension WorkerLines.Status: Encodable {
    package enum CodingKeys: String, CodingKey { case type, athlete, runs, awards, errors, excluded, duplicates, next, progress }
    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(athlete, forKey: .athlete)
        try container.encode(runs, forKey: .runs)
        try container.encode(awards, forKey: .awards)
        try container.encode(errors, forKey: .errors)
        try container.encode(excluded, forKey: .excluded)
        try container.encode(duplicates, forKey: .duplicates)
        try container.encode(next, forKey: .next)
        try container.encode(progress, forKey: .progress)
    }
}

extension WorkerLines.Progress: Encodable {
    package enum CodingKeys: String, CodingKey { case pack, badge, current, target, unit, hint }
    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(pack, forKey: .pack)
        try container.encode(badge, forKey: .badge)
        try container.encode(current, forKey: .current)
        try container.encode(target, forKey: .target)
        try container.encode(unit, forKey: .unit)
        try container.encode(hint, forKey: .hint)
    }
}

extension WorkerLines.Failure: Encodable {
    package enum CodingKeys: String, CodingKey { case type, line, athlete, message }
    package func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(type, forKey: .type)
        try container.encode(line, forKey: .line)
        try container.encode(athlete, forKey: .athlete)
        try container.encode(message, forKey: .message)
    }
}
