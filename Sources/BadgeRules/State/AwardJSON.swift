import Foundation
import RunFiles

/// An award's JSON as the state database keeps it (the `json` column of `award`): the bytes
/// `StateStore.encoder()` writes for `Award.encode(to:)` (keys sorted, slashes as they are, a
/// non-finite number as "inf", "-inf" or "nan"), written directly. An addition compares each
/// rule's `finish` awards with the rows by this text, so it neither decodes the rows nor goes
/// through `JSONEncoder` (`AwardJSONTests` holds the two to the same bytes).
enum AwardJSON {
    /// The JSON of `award`.
    static func text(_ award: Award) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(320)
        out.append(contentsOf: #"{"at":"#.utf8)
        string(award.at, &out)
        out.append(contentsOf: #","badge":"#.utf8)
        JSONString.append(award.badge, to: &out)
        out.append(contentsOf: #","detail":"#.utf8)
        JSONString.append(award.detail, to: &out)
        out.append(contentsOf: #","evidence":"#.utf8)
        if let evidence = award.evidence { write(evidence, &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #","pack":"#.utf8)
        JSONString.append(award.pack, to: &out)
        if let fingerprint = award.packFingerprint {
            out.append(contentsOf: #","pack_fingerprint":"#.utf8)
            JSONString.append(fingerprint, to: &out)
        }
        out.append(contentsOf: #","pack_version":"#.utf8)
        JSONString.append(award.packVersion, to: &out)
        out.append(contentsOf: #","progress":"#.utf8)
        if let progress = award.progress {
            out.append(contentsOf: #"{"current":"#.utf8)
            number(progress.current, &out)
            out.append(contentsOf: #","target":"#.utf8)
            number(progress.target, &out)
            out.append(contentsOf: #","unit":"#.utf8)
            JSONString.append(progress.unit, to: &out)
            out.append(UInt8(ascii: "}"))
        } else {
            out.append(contentsOf: "null".utf8)
        }
        out.append(contentsOf: #","rule":"#.utf8)
        JSONString.append(award.rule, to: &out)
        out.append(contentsOf: #","run":"#.utf8)
        JSONString.append(award.run, to: &out)
        out.append(contentsOf: #","tier":"#.utf8)
        JSONString.append(award.tier, to: &out)
        out.append(UInt8(ascii: "}"))
        return String(decoding: out, as: UTF8.self)
    }

    private static func string(_ text: String?, _ out: inout [UInt8]) {
        if let text { JSONString.append(text, to: &out) } else { out.append(contentsOf: "null".utf8) }
    }

    /// A number as `JSONEncoder` writes it (`JSONNumber`); a non-finite one as the state files' strings.
    private static func number(_ value: Double, _ out: inout [UInt8]) {
        guard value.isFinite else {
            out.append(contentsOf: (value.isNaN ? #""nan""# : value > 0 ? #""inf""# : #""-inf""#).utf8)
            return
        }
        JSONNumber.append(value, to: &out)
    }

    private static func write(_ evidence: Evidence, _ out: inout [UInt8]) {
        switch evidence {
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let value): number(value, &out)
        case .string(let text): JSONString.append(text, to: &out)
        case .list(let values):
            out.append(UInt8(ascii: "["))
            for (i, value) in values.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(value, &out)
            }
            out.append(UInt8(ascii: "]"))
        case .record(let fields):
            out.append(UInt8(ascii: "{"))
            // (JSONEncoder's `sortedKeys` orders keys by their UTF-8 bytes, not as `String`'s `<`,
            // which compares them normalized: "éa" written decomposed comes before "fj".)
            for (i, key) in fields.keys.sorted(by: FoldStates.bytesPrecede).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONString.append(key, to: &out)
                out.append(UInt8(ascii: ":"))
                write(fields[key]!, &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
