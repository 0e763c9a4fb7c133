import Foundation
import RunAnalysis
import RunFiles

/// One input line of `badgectl worker` (docs/worker.md): `{"athlete", "tz"?, "path" | "summary", "id"?}`,
/// and the athlete's profile (`birth_date`, `sex`, `max_hr`, `resting_hr`, `zones`) when it gives one.
///
/// The one reader of these lines: the bytes `LineReader` hands out, parsed by `JSONText` (repeated
/// keys, invalid UTF-8 and nesting are refused the same way everywhere). The worker (`Worker.take`)
/// and `diff --worker-input` read their lines here, so a line means the same to both.
package struct WorkerLine {
    /// Where the run comes from.
    package enum Source {
        /// A run file.
        case path(String)
        /// A JSON run summary, given in the line.
        case summary([String: JSONValue])
        /// `{"athlete": ..., "remove": RUN}`: the run with that id taken back (`worker --state-dir`).
        case remove(String)
        /// `{"athlete": ..., "forget": true}`: the athlete's whole saved state taken away (`worker --state-dir`).
        case forget
    }

    package var athlete: String
    /// The line's `tz`; nil: the default zone (`--tz`).
    package var zone: TimeZone?
    package var source: Source
    /// The run's id: `id`, else the file's name, else the summary's `start` as written, else `line N`.
    package var id: String
    /// The athlete's profile, when the line gives any of its fields (`Athlete.profile(in:)`, the parser
    /// of `--athlete FILE`); nil: `--athlete`'s. An athlete's lines agree on it (`Profiles`).
    package var profile: Athlete? = nil

    /// What a line holds.
    package enum Reading {
        /// Only blanks: not a line of any athlete.
        case blank
        /// `{"flush": true}`: the athlete being read ends here, their lines are written and then
        /// `{"type":"flushed"}`, and athletes may come again after it (a long-lived worker fed one
        /// athlete at a time: docs/worker.md).
        case flush
        /// A line that names no athlete (not JSON, not an object, no usable `athlete`): why.
        case unnamed(String)
        /// A line of `athlete`: its run, or why it cannot be used.
        case named(athlete: String, Result<WorkerLine, LineError>)
    }

    /// Why a line that names its athlete cannot be used.
    package struct LineError: Error, CustomStringConvertible, Equatable {
        package var description: String

        package init(description: String) { self.description = description }
    }

    /// The longest athlete name taken.
    package static let maximumAthleteBytes = 1024

    /// Messages of the errors a line can have (docs/worker.md lists them).
    package enum Message {
        static let notObject = "expected a JSON object {\"athlete\": ..., \"tz\": ..., \"path\" or \"summary\": ...}"
        static let athlete = "\"athlete\" must be a non-empty string of at most \(maximumAthleteBytes) bytes"
        static let pathAndSummary = "give \"path\" or \"summary\", not both"
        static let removeAndRun = "give \"remove\" (a run id) alone, not with \"path\" or \"summary\""
        static let forgetIsTrue = "\"forget\" must be true (the athlete's saved state taken away)"
        static let forgetAlone = "give \"forget\" alone, not with \"path\", \"summary\" or \"remove\""
        static let neither = "missing \"path\" (a run file) or \"summary\" (a JSON run summary)"
        static func mustBeString(_ field: String) -> String { "\"\(field)\" must be a string" }
        /// A line whose profile is not the one the athlete's first line gave (`Profiles`).
        static func profileDiffers(athlete: String, field: String, here: String?, first: String?, line: Int) -> String {
            "athlete \(ShownValue.quoted(athlete)): profile field \"\(field)\" "
                + (here.map { "is \($0) here" } ?? "is not given here")
                + (first.map { " but \($0) on line \(line)" } ?? " but not on line \(line)")
                + ", the athlete's first line: an athlete's lines give one profile (the first line's, repeated whole, or none of its fields)"
        }
        static func unknownZone(_ name: String) -> String { "unknown time zone \(ShownValue.quoted(name)) in \"tz\" (use a name like Europe/Paris or UTC)" }
    }

    /// Reads line `number` (its bytes, without the newline). `zone` turns a `tz` into a zone (the
    /// worker keeps the zones it met), throwing `LineError` for an unknown name.
    package static func read(_ bytes: UnsafeBufferPointer<UInt8>, number: Int, zone: (String) throws -> TimeZone) -> Reading {
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
        if fields["athlete"] == nil, fields.count == 1, fields["flush"] == .bool(true) { return .flush }
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
        let profile: Athlete?
        do { profile = try Athlete.profile(in: fields, source: "line \(number)") } catch { throw LineError(description: "\(error)") }
        let path = try string("path")
        let givenID = try string("id")
        if let forget = fields["forget"], forget != .null {
            guard forget == .bool(true) else { throw LineError(description: Message.forgetIsTrue) }
            guard path == nil, fields["summary"] == nil || fields["summary"] == .null, fields["remove"] == nil || fields["remove"] == .null else {
                throw LineError(description: Message.forgetAlone)
            }
            return WorkerLine(athlete: athlete, zone: zone, source: .forget, id: "", profile: profile)
        }
        if let removed = try string("remove") {
            guard path == nil, fields["summary"] == nil || fields["summary"] == .null else { throw LineError(description: Message.removeAndRun) }
            return WorkerLine(athlete: athlete, zone: zone, source: .remove(removed), id: removed, profile: profile)
        }
        switch (path, fields["summary"]) {
        case (_?, let summary?) where summary != .null:
            throw LineError(description: Message.pathAndSummary)
        case (let path?, _):
            return WorkerLine(athlete: athlete, zone: zone, source: .path(path), id: givenID ?? (path as NSString).lastPathComponent,
                              profile: profile)
        case (nil, .object(let summary)?):
            var id = givenID
            if id == nil, case .string(let start)? = summary["start"] { id = start }
            return WorkerLine(athlete: athlete, zone: zone, source: .summary(summary), id: id ?? "line \(number)", profile: profile)
        case (nil, let other?) where other != .null:
            throw LineError(description: "\"summary\" must be an object (a JSON run summary), not \(other.kind)")
        default:
            throw LineError(description: Message.neither)
        }
    }
}

extension WorkerLine {
    /// An athlete's profile across their lines (docs/worker.md, "The athlete's profile"): the first
    /// line of the athlete that is read without error fixes it (its profile fields, or none: then
    /// `--athlete`'s); a later line gives the same profile whole or none of its fields. A later line
    /// whose profile differs in any field is that line's error (its run is left out), naming the
    /// athlete and the first such field: the runs before it were already read and will be evaluated
    /// with the first line's profile, so there is no other one to switch to. The worker and `diff --worker-input` keep one
    /// per athlete.
    struct Profiles {
        /// The profile fixed, and the line that fixed it; nil until the athlete's first line.
        private(set) var fixed: (profile: Athlete?, line: Int)?

        /// Takes `line` (number `number`) of `athlete`: fixes the profile on the first line, else
        /// checks the line's against it. Returns the athlete's profile (nil: `--athlete`'s).
        /// - Throws: `LineError` naming the athlete and the first field that disagrees.
        mutating func take(_ line: WorkerLine, number: Int, athlete: String) throws -> Athlete? {
            guard let fixed else {
                self.fixed = (line.profile, number)
                return line.profile
            }
            guard let given = line.profile else { return fixed.profile }
            let first = fixed.profile ?? Athlete(source: "line \(fixed.line)")
            guard let field = given.differingField(from: first) else { return fixed.profile }
            throw LineError(description: Message.profileDiffers(athlete: athlete, field: field, here: Profiles.shown(field, of: given),
                                                                first: Profiles.shown(field, of: first), line: fixed.line))
        }

        /// A profile field's value as messages show it (strings quoted, up to 40 characters); nil when not given.
        static func shown(_ field: String, of profile: Athlete) -> String? {
            func number(_ value: Double?) -> String? { value.map { $0 == $0.rounded() && abs($0) < 1e6 ? String(Int($0)) : String($0) } }
            switch field {
            case "birth_date": return profile.birthDate.map { ShownValue.quoted($0) }
            case "sex": return profile.sex.map { ShownValue.quoted($0) }
            case "max_hr": return number(profile.maxHeartRate)
            case "resting_hr": return number(profile.restingHeartRate)
            default:
                guard !profile.zones.isEmpty else { return nil }
                return "[" + profile.zones.map { "[\(number($0.lower) ?? ""), \(number($0.upper) ?? "open")]" }.joined(separator: ", ") + "]"
            }
        }
    }
}

extension WorkerLine {
    /// The runs of a `path` or `summary` line (none for `remove`), read (through the cache) and
    /// localised by `pipeline`, the athlete's: the one reading of a line's run, for the worker and
    /// `diff --worker-input`. `open` gives the file to open for a `path` (the worker confines it to
    /// `--root`); the run's reader is still chosen by the name given.
    /// - Throws: `LineError` with the reader's message, or what `open` throws.
    package func runs(number: Int, pipeline: RunPipeline, open: (String) throws -> String = { $0 }) throws -> [RunSummary] {
        switch source {
        case .path(let path):
            let read = pipeline.read(files: [(try open(path), id)], zone: zone)
            if let error = read.errors.first { throw LineError(description: error.message) }
            return read.runs
        case .summary(let summary):
            return [try pipeline.summary(fields: summary, source: "line \(number) summary", id: id, zone: zone)]
        case .remove, .forget:
            return []
        }
    }
}
