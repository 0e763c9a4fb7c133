import Foundation
import RunFiles

/// One input line of `badgectl worker` (docs/worker.md): `{"athlete", "tz"?, "path" | "summary", "id"?}`.
///
/// The one reader of these lines: the bytes `LineReader` hands out, parsed by `JSONText` (repeated
/// keys, invalid UTF-8 and nesting are refused the same way everywhere). The worker (`Worker.take`)
/// and `diff --worker-input` read their lines here, so a line means the same to both.
struct WorkerLine {
    /// Where the run comes from.
    enum Source {
        /// A run file.
        case path(String)
        /// A JSON run summary, given in the line.
        case summary([String: JSONValue])
    }

    var athlete: String
    /// The line's `tz`; nil: the default zone (`--tz`).
    var zone: TimeZone?
    var source: Source
    /// The run's id: `id`, else the file's name, else the summary's `start` as written, else `line N`.
    var id: String

    /// What a line holds.
    enum Reading {
        /// Only blanks: not a line of any athlete.
        case blank
        /// A line that names no athlete (not JSON, not an object, no usable `athlete`): why.
        case unnamed(String)
        /// A line of `athlete`: its run, or why it cannot be used.
        case named(athlete: String, Result<WorkerLine, LineError>)
    }

    /// Why a line that names its athlete cannot be used.
    struct LineError: Error, CustomStringConvertible, Equatable {
        var description: String
    }

    /// The longest athlete name taken.
    static let maximumAthleteBytes = 1024

    /// Messages of the errors a line can have (docs/worker.md lists them).
    enum Message {
        static let notObject = "expected a JSON object {\"athlete\": ..., \"tz\": ..., \"path\" or \"summary\": ...}"
        static let athlete = "\"athlete\" must be a non-empty string of at most \(maximumAthleteBytes) bytes"
        static let pathAndSummary = "give \"path\" or \"summary\", not both"
        static let neither = "missing \"path\" (a run file) or \"summary\" (a JSON run summary)"
        static func mustBeString(_ field: String) -> String { "\"\(field)\" must be a string" }
        static func unknownZone(_ name: String) -> String { "unknown time zone \(ShownValue.quoted(name)) in \"tz\" (use a name like Europe/Paris or UTC)" }
    }

    /// Reads line `number` (its bytes, without the newline). `zone` turns a `tz` into a zone (the
    /// worker keeps the zones it met), throwing `LineError` for an unknown name.
    static func read(_ bytes: UnsafeBufferPointer<UInt8>, number: Int, zone: (String) throws -> TimeZone) -> Reading {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { return .blank }
        let fields: [String: JSONValue]
        do {
            guard case .object(let object) = try JSONText.parse(bytes, source: "line \(number)") else { return .unnamed(Message.notObject) }
            fields = object
        } catch let error as ActivityError {
            if case .malformed(_, _, let offset?, let reason) = error { return .unnamed("invalid JSON at byte \(offset + 1): \(reason)") }
            return .unnamed(error.description)
        } catch {
            return .unnamed("\(error)")
        }
        guard case .string(let name)? = fields["athlete"], !name.isEmpty, name.utf8.count <= maximumAthleteBytes else {
            return .unnamed(Message.athlete)
        }
        do {
            return .named(athlete: name, .success(try line(of: name, fields, number: number, zone: zone)))
        } catch let error as LineError {
            return .named(athlete: name, .failure(error))
        } catch {
            return .named(athlete: name, .failure(LineError(description: "\(error)")))
        }
    }

    private static func line(of athlete: String, _ fields: [String: JSONValue], number: Int, zone: (String) throws -> TimeZone) throws -> WorkerLine {
        func string(_ key: String) throws -> String? {
            switch fields[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            case .some: throw LineError(description: Message.mustBeString(key))
            }
        }
        let zone = try string("tz").map(zone)
        let path = try string("path")
        let givenID = try string("id")
        switch (path, fields["summary"]) {
        case (_?, let summary?) where summary != .null:
            throw LineError(description: Message.pathAndSummary)
        case (let path?, _):
            return WorkerLine(athlete: athlete, zone: zone, source: .path(path), id: givenID ?? (path as NSString).lastPathComponent)
        case (nil, .object(let summary)?):
            var id = givenID
            if id == nil, case .string(let start)? = summary["start"] { id = start }
            return WorkerLine(athlete: athlete, zone: zone, source: .summary(summary), id: id ?? "line \(number)")
        case (nil, let other?) where other != .null:
            throw LineError(description: "\"summary\" must be an object (a JSON run summary), not \(other.kind)")
        default:
            throw LineError(description: Message.neither)
        }
    }
}
