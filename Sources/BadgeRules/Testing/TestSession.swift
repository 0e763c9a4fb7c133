import Foundation
import RunAnalysis
import RunFiles

/// One test file of one pack: its own sandboxed Lua state (the rules' allow list plus the test
/// API of `Lua/test_prelude.lua`), the runs its tests made and what they found. `t.evaluate` builds a
/// fresh `Session` over the pack and the runs for every call.
final class TestSession {
    let lua: LuaState
    /// The host functions of this state (`t.*` come back to this session through them).
    private(set) var host: HostFunctions!
    let pack: RulePack
    let file: String
    let limits: RuleEngine.Limits
    let defaultCatalogue: Catalogue
    var envRef: Int32 = LuaState.noRef
    var controllerRef: Int32 = LuaState.noRef
    /// Runs made by `t.run` in the current test (in creation order): `t.run` hands out real run
    /// proxies, made as the evaluation makes them, with the pack's measures.
    let runs: RunTable
    /// How each run of the current test that `t.run` read from a file was made (by run id), to read
    /// it again with `t.evaluate`'s athlete.
    struct FileRun {
        var file: String
        var id: String?
        var localOffset: Int?
        /// The run was given its own `athlete` in `t.run` (kept over `t.evaluate`'s).
        var ownAthlete: Bool
    }
    var fileRuns: [String: FileRun] = [:]
    /// The file spec of the run `t.run` is making (committed once the run is added).
    var pendingFileRun: FileRun?
    /// Failures the current test recorded.
    var failures: [TestFailure] = []
    var output: [String] = []
    /// Coverage, over every test of the file.
    var awarded: Set<String> = []
    var statusBadges: Set<String> = []
    /// `badge/silver` / `badge/gold` when some status of that badge gave a pace for that tier (the rule can award it).
    var statusTiers: Set<String> = []
    var rulesRun: Set<String> = []
    var ruleIDs: [String: String] = [:]

    init(pack: RulePack, file: String, catalogue: Catalogue, limits: RuleEngine.Limits) throws {
        self.lua = try LuaState(limits: limits)
        self.pack = pack
        self.file = file
        self.limits = limits
        self.defaultCatalogue = catalogue
        runs = TestSession.runTable(lua: lua, pack: pack)
        host = HostFunctions(lua: lua, sandbox: nil, runs: runs)
        host.tests = self
        lua.ensureStack()
        try Prelude.runRules(in: lua)
        // make_env(pack_name, print, loader)
        lua.push(pack.name)
        lua.pushHostFunction(.testPrint, token: 0)
        lua.pushHostFunction(.testRequire, token: 0)
        if let error = lua.call(nargs: 3, nresults: 1) { throw RulesError.lua(reason: "test environment: \(error.message)") }
        envRef = lua.ref()
        try Prelude.tests.run(in: lua, label: "test prelude", nargs: 5) {
            lua.push(ref: envRef)
            for host in [HostFunction.testRun, .testEvaluate, .testFail, .testWhere] { lua.pushHostFunction(host, token: 0) }
        }
        controllerRef = lua.ref()
    }

    /// An empty table of runs for a test, reading the pack's measures.
    static func runTable(lua: LuaState, pack: RulePack) -> RunTable {
        RunTable(lua: lua, runs: [], measureTable: PackMeasureTable(packs: [pack], athlete: nil), defaultPack: 0)
    }

    /// `require("league")` in a test: the pack's league.lua loaded (text only, inside the pack folder)
    /// into the test's environment, left on the stack for `require` to run; or an error raised.
    func requireLeague() -> Int32 {
        let file = pack.directory + "/" + LeagueHook.fileName
        let path: String
        switch PackFiles.resolve(file, folder: pack.directory) {
        case .success(let real): path = real
        case .failure(let refusal): return lua.raise("require: 'league': \(refusal)", level: 2)
        }
        guard FileManager.default.fileExists(atPath: path), let bytes = PackSandbox.read(path) else {
            return lua.raise("require: no league.lua in pack '\(pack.name)'", level: 2)
        }
        if let message = lua.load(bytes, chunkName: "@" + file) {
            lua.push(message)
            return -1
        }
        lua.setEnvironment(ofFunctionAt: -1, envRef: envRef)
        return 1
    }

    // MARK: - Driving the tests

    /// Runs the file's top level (which declares the tests). The error names file:line when Lua gave one.
    func load() -> TestFailure? {
        let path: String
        switch PackFiles.resolve(file, folder: pack.directory) {
        case .success(let real): path = real
        case .failure(let refusal): return TestFailure(file: file, line: nil, message: refusal.description)
        }
        guard let bytes = PackSandbox.read(path) else {
            return TestFailure(file: file, line: nil, message: "cannot read the test file")
        }
        if let message = lua.load(bytes, chunkName: "@" + file) {
            return TestFailure(located: message, file: file)
        }
        lua.setEnvironment(ofFunctionAt: -1, envRef: envRef)
        if let error = lua.call(nargs: 0, nresults: 0) {
            var failure = TestFailure(located: error.message, file: file)
            failure.traceback = error.traceback.map(TestSession.authorsFrames)
            return failure
        }
        return nil
    }

    /// A traceback without the preludes' own frames (the test API, `require`'s machinery and the host
    /// function it calls), which say nothing to a rule author.
    static func authorsFrames(_ traceback: String) -> String {
        traceback.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { line in
                !line.contains(Prelude.tests.locationPrefix) && !line.contains(Prelude.rules.locationPrefix)
                    && !line.contains("[C]: in ?") && !line.contains("[C]: in upvalue 'loader'")
            }
            .joined(separator: "\n")
    }

    func controller(_ name: String) {
        lua.push(ref: controllerRef)
        lua.getField(-1, name)
        lua.remove(at: -2)
    }

    /// The declared tests: name, skipped, `file:line` of the declaration.
    func declaredTests() -> [(name: String, skip: Bool, line: Int?)] {
        lua.ensureStack()
        controller("count")
        guard lua.call(nargs: 0, nresults: 1) == nil else { return [] }
        let count = Int(lua.number(at: -1) ?? 0)
        lua.pop()
        var tests: [(String, Bool, Int?)] = []
        for i in 0..<count {
            controller("info")
            lua.push(integer: i + 1)
            guard lua.call(nargs: 1, nresults: 3) == nil else { continue }
            let name = lua.string(at: -3) ?? "?"
            let skip = lua.boolean(at: -2)
            let place = lua.string(at: -1) ?? ""
            lua.pop(3)
            tests.append((name, skip, splitLocation(place + " x")?.line))
        }
        return tests
    }

    /// Runs test `index` (0-based) under the budget; returns its failures (an error adds one).
    func runTest(_ index: Int) -> (failures: [TestFailure], output: [String]) {
        runs.removeAll()
        fileRuns = [:]
        failures = []
        output = []
        lua.ensureStack()
        controller("run")
        lua.push(integer: index + 1)
        if let error = lua.call(nargs: 1, nresults: 0) {
            var failure = TestFailure(located: error.message, file: file)
            // The sandbox's messages speak of rules; here the limits apply to one test.
            failure.message = failure.message
                .replacingOccurrences(of: "instructions per call)", with: "instructions per test)")
                .replacingOccurrences(of: "for rules in one evaluation)", with: "for the tests of one file)")
                .replacingOccurrences(of: "MB allocated per call)", with: "MB allocated per test)")
                .replacingOccurrences(of: "s per call)", with: "s per test)")
            if error.stop == .instructions && !failure.message.contains(LuaState.instructionsStopped) {
                failure.message = "\(LuaState.instructionsStopped) (\(limits.instructionsPerCall) instructions per test): " + failure.message
            }
            failure.traceback = error.traceback.map(TestSession.authorsFrames)
            failures.append(failure)
        }
        lua.collectGarbage()
        return (failures, output)
    }

    // MARK: - Host functions of tests (dispatched by `HostFunctions`)

    /// A test file's `print`: a line of the test's output.
    func hostPrint() -> Int32 {
        let count = lua.top
        var parts: [String] = []
        for i in 1...max(count, 1) where count > 0 {
            switch lua.type(at: i) {
            case .boolean: parts.append(lua.boolean(at: i) ? "true" : "false")
            case .nil: parts.append("nil")
            default:
                if let text = lua.string(at: i) { parts.append(text) } else if let n = lua.number(at: i) { parts.append(NumberText.number(n)) } else { parts.append(lua.typeName(at: i)) }
            }
        }
        output.append(parts.joined(separator: "\t"))
        return 0
    }

    func raise(_ message: String, level: Int32) -> Int32 {
        lua.raise(message, level: level)
    }

    func hostFail() -> Int32 {
        let level = Int32(lua.number(at: 1) ?? 2)
        let place = lua.whereString(level: level)
        var failure = TestFailure(located: place + " x", file: file)
        failure.message = lua.errorMessage(at: 2) ?? "expectation failed"
        failure.expected = lua.errorMessage(at: 3)
        failure.got = lua.errorMessage(at: 4)
        failures.append(failure)
        return 0
    }

    // MARK: t.run

    func hostRun() -> Int32 {
        guard lua.type(at: 1) == .table else { return raise("t.run: expected a table", level: 2) }
        let run: RunSummary
        pendingFileRun = nil
        do {
            run = try RunSpec.build(from: self, table: 1, ordinal: runs.count + 1)
        } catch RulesError.field(let text) {
            return raise("t.run: \(text)", level: 2)
        } catch {
            return raise("t.run: \(error)", level: 2)
        }
        if runs.indexByID[run.id] != nil { return raise("t.run: a run with id '\(run.id)' already exists in this test", level: 2) }
        if let source = pendingFileRun { fileRuns[run.id] = source }
        // The real run proxy (strict fields, "did you mean", read-only); its index is its creation order.
        runs.pushNewProxy(runs.append(run))
        return 1
    }

    // MARK: t.evaluate

    func hostEvaluate() -> Int32 {
        guard lua.type(at: 1) == .table else { return raise("t.evaluate: expected an array of run ids", level: 2) }
        var selected: [RunSummary] = []
        let count = lua.rawLength(at: 1)
        for i in 0..<count {
            lua.getIndex(1, i + 1)
            let id = lua.string(at: -1)
            lua.pop()
            guard let id, let index = runs.indexByID[id] else {
                return raise("t.evaluate: no run '\(id ?? "?")' made by t.run in this test", level: 2)
            }
            selected.append(runs.runs[index - 1])
        }
        // The options (a table the test prelude always passes): every key known, or refused by name.
        guard lua.type(at: 2) == .table else { return raise("t.evaluate: options must be a table", level: 2) }
        lua.pushNil()
        while lua.next(2) {
            lua.pop()
            guard lua.type(at: -1) == .string, let key = lua.string(at: -1) else {
                let what = lua.typeName(at: -1)
                lua.pop()
                return raise("t.evaluate: option keys are names (\(TestSession.evaluateOptions.joined(separator: ", "))), got a \(what)", level: 2)
            }
            guard TestSession.evaluateOptions.contains(key) else {
                lua.pop()
                let hint = Suggestion.closest(to: key, in: TestSession.evaluateOptions).map { "; did you mean '\($0)'?" } ?? ""
                return raise("t.evaluate: unknown option '\(key)'\(hint) (options: \(TestSession.evaluateOptions.joined(separator: ", ")))", level: 2)
            }
        }
        var ruleFilter: String? = nil
        if lua.getField(2, "rule") != .nil {
            guard let rule = lua.string(at: -1) else { lua.pop(); return raise("t.evaluate: option 'rule' must be a rule id (a string)", level: 2) }
            ruleFilter = rule
        }
        lua.pop()
        var catalogue = defaultCatalogue
        if lua.getField(2, "catalogue") != .nil {
            do {
                catalogue = try readCatalogue(at: lua.top)
            } catch RulesError.field(let text) {
                lua.pop()
                return raise("t.evaluate: option 'catalogue': \(text)", level: 2)
            } catch {
                lua.pop()
                return raise("t.evaluate: option 'catalogue': \(error)", level: 2)
            }
        }
        lua.pop()
        var athlete: Athlete? = nil
        if lua.getField(2, "athlete") != .nil {
            do {
                athlete = try readAthlete(at: lua.top)
            } catch {
                lua.pop()
                return raise("t.evaluate: option 'athlete': \(error)", level: 2)
            }
        }
        lua.pop()
        if let athlete {
            // As --athlete: the pack's age grades and zones computed with the profile (a run's own
            // `athlete` in t.run, and measures the test set, are kept).
            do {
                selected = try selected.map { try profiled($0, athlete: athlete) }
            } catch RulesError.field(let text) {
                return raise("t.evaluate: option 'athlete': \(text)", level: 2)
            } catch {
                return raise("t.evaluate: option 'athlete': \(error)", level: 2)
            }
        }
        let sorted = RuleEngine.ordered(selected)
        var evaluation: Evaluation
        var sessionRules: [RuleLoader.Rule] = []
        do {
            let session = try Session(packs: [pack], catalogue: catalogue, limits: limits, runs: sorted)
            evaluation = session.evaluate(athlete: athlete)
            sessionRules = session.loader.rules
        } catch {
            evaluation = Evaluation(runOrder: sorted.map(\.id))
            evaluation.failures.append(RuleFailure(pack: pack.name, rule: nil, file: pack.directory, line: nil, message: "\(error)"))
        }
        for rule in sessionRules { ruleIDs[rule.id] = rule.file }
        if let ruleFilter {
            guard sessionRules.contains(where: { $0.id == ruleFilter }) else {
                let known = sessionRules.map(\.id).joined(separator: ", ")
                let unloaded = Set(evaluation.failures.filter { failure in failure.rule != nil && !sessionRules.contains { $0.id == failure.rule } }
                    .map { ($0.file as NSString).lastPathComponent }).sorted()
                let hint = unloaded.isEmpty ? "" : "; files that do not load (see their (load) failure): \(unloaded.joined(separator: ", "))"
                return raise("t.evaluate: no rule '\(ruleFilter)' in pack '\(pack.name)' (rules: \(known.isEmpty ? "none" : known))\(hint)", level: 2)
            }
            evaluation.awards = evaluation.awards.filter { $0.rule == ruleFilter }
            evaluation.statuses = evaluation.statuses.filter { $0.rule == ruleFilter }
            evaluation.nexts = evaluation.nexts.filter { $0.rule == ruleFilter }
            evaluation.notes = evaluation.notes.filter { $0.rule == nil || $0.rule == ruleFilter }
            evaluation.failures = evaluation.failures.filter { $0.rule == nil || $0.rule == ruleFilter }
            rulesRun.insert(ruleFilter)
        } else {
            for rule in sessionRules { rulesRun.insert(rule.id) }
        }
        for award in evaluation.awards { awarded.insert(award.badge + "/" + award.tier) }
        for status in evaluation.statuses {
            statusBadges.insert(status.badge)
            if status.silverPaceSecondsPerKilometre != nil { statusTiers.insert(status.badge + "/silver") }
            if status.goldPaceSecondsPerKilometre != nil { statusTiers.insert(status.badge + "/gold") }
        }
        pushEvaluation(evaluation)
        return 1
    }

    /// The option keys `t.evaluate` takes.
    static let evaluateOptions = ["allow_failures", "athlete", "catalogue", "rule"]

    /// `t.evaluate`'s `athlete = { birth_date =, sex =, max_hr =, resting_hr =, zones = { {lower, upper}, ... } }`:
    /// the fields of an `--athlete` file, checked by the same code (`Athlete.parse(fields:source:)`).
    func readAthlete(at index: Int32) throws -> Athlete {
        guard lua.type(at: index) == .table else {
            throw RulesError.field("expected a table { birth_date = \"1970-05-01\", sex = \"female\", max_hr =, resting_hr =, zones = }, got \(lua.typeName(at: index))")
        }
        guard case .object(let fields) = try jsonValue(at: index, depth: 0) else {
            throw RulesError.field("expected a table of named fields")
        }
        do {
            return try Athlete.parse(fields: fields, source: "t.evaluate's athlete")
        } catch let error as ActivityError {
            throw RulesError.field("\(error)")
        }
    }

    /// A Lua value as JSON (strings, numbers, booleans, arrays and tables of names, three levels at
    /// most): what a profile's fields are.
    private func jsonValue(at index: Int32, depth: Int) throws -> JSONValue {
        let at = lua.absolute(index)
        switch lua.type(at: at) {
        case .string: return .string(lua.string(at: at, limit: HostFunctions.textLimit) ?? "")
        case .number: return .number(lua.number(at: at) ?? .nan)
        case .boolean: return .bool(lua.boolean(at: at))
        case .table:
            guard depth < 3 else { throw RulesError.field("nested too deep") }
            let count = lua.rawLength(at: at)
            var array: [JSONValue] = [], object: [String: JSONValue] = [:]
            lua.pushNil()
            while lua.next(at) {
                defer { lua.pop() }
                if lua.type(at: -2) == .string, let key = lua.string(at: -2) {
                    object[key] = try jsonValue(at: -1, depth: depth + 1)
                } else if count == 0 {
                    throw RulesError.field("keys must be names, or an array")
                }
            }
            // An empty table inside the profile is an empty list (`goals = {}`); the profile itself a record.
            guard count > 0 else { return object.isEmpty && depth > 0 ? .array([]) : .object(object) }
            guard object.isEmpty else { throw RulesError.field("a table is named fields or an array, not both") }
            for i in 0..<count {
                lua.getIndex(at, i + 1)
                defer { lua.pop() }
                array.append(try jsonValue(at: -1, depth: depth + 1))
            }
            return .array(array)
        default:
            throw RulesError.field("\(lua.typeName(at: at)) is not a profile value")
        }
    }

    /// `run` with the pack's athlete measures (age grades, heart-rate zones) computed with `athlete`,
    /// as `--athlete` computes them: a run read from a file is read again with the profile, a run made
    /// from fields is graded as an even-paced run. A run given its own `athlete` in `t.run`, and a
    /// measure the test set, keep theirs.
    func profiled(_ run: RunSummary, athlete: Athlete) throws -> RunSummary {
        var run = run
        if let source = fileRuns[run.id] {
            guard !source.ownAthlete else { return run }
            let again = try RunSpec.load(file: source.file, id: source.id, localOffset: source.localOffset, athlete: athlete, session: self)
            for (key, value) in again.measures where run.measures[key] == nil { run.measures[key] = value }
            return run
        }
        // An athlete without birth date or sex grades nothing (the evaluation's notes say why), as --athlete.
        guard athlete.birthDate != nil, Athlete.tableSex(athlete.sex) != nil else { return run }
        try RunSpec.grade(&run, athlete: athlete, session: self)
        return run
    }

    func readCatalogue(at index: Int32) throws -> Catalogue {
        guard lua.type(at: index) == .table else { throw RulesError.field("expected an array of { id =, name =, distance_m = }") }
        var badges: [CatalogueBadge] = []
        let count = lua.rawLength(at: index)
        for i in 0..<count {
            lua.getIndex(index, i + 1)
            defer { lua.pop() }
            let entry = lua.top
            guard lua.type(at: entry) == .table else { throw RulesError.field("entry \(i + 1) is not a table") }
            lua.getField(entry, "id")
            let id = lua.string(at: -1)
            lua.pop()
            guard let id, !id.isEmpty else { throw RulesError.field("entry \(i + 1): missing 'id'") }
            lua.getField(entry, "name")
            let name = lua.string(at: -1) ?? id
            lua.pop()
            lua.getField(entry, "distance_m")
            let distance = lua.number(at: -1)
            lua.pop()
            badges.append(CatalogueBadge(id: id, name: name, distanceMeters: distance))
        }
        return Catalogue(badges: badges, source: file)
    }

    func pushProgress(_ progress: Progress?) {
        guard let progress else { return }
        lua.newTable(record: 3)
        lua.push(progress.current); lua.setField(-2, "current")
        lua.push(progress.target); lua.setField(-2, "target")
        lua.push(progress.unit); lua.setField(-2, "unit")
        lua.setField(-2, "progress")
    }

    func pushEvaluation(_ evaluation: Evaluation) {
        lua.newTable(record: 5)
        lua.newTable(array: Int32(evaluation.awards.count))
        for (i, award) in evaluation.awards.enumerated() {
            lua.newTable(record: 8)
            lua.push(award.badge); lua.setField(-2, "badge")
            lua.push(award.tier); lua.setField(-2, "tier")
            lua.push(award.run); lua.setField(-2, "run")
            lua.push(award.rule); lua.setField(-2, "rule")
            lua.push(award.pack); lua.setField(-2, "pack")
            lua.push(award.detail); lua.setField(-2, "detail")
            if let at = award.at { lua.push(at); lua.setField(-2, "at") }
            pushProgress(award.progress)
            lua.setIndex(-2, i + 1)
        }
        lua.setField(-2, "awards")
        lua.newTable(array: Int32(evaluation.statuses.count))
        for (i, status) in evaluation.statuses.enumerated() {
            lua.newTable(record: 7)
            lua.push(status.badge); lua.setField(-2, "badge")
            lua.push(status.rule); lua.setField(-2, "rule")
            lua.push(status.pack); lua.setField(-2, "pack")
            if let v = status.hint { lua.push(v); lua.setField(-2, "hint") }
            if let v = status.silverPaceSecondsPerKilometre { lua.push(v); lua.setField(-2, "silver_pace_s_per_km") }
            if let v = status.goldPaceSecondsPerKilometre { lua.push(v); lua.setField(-2, "gold_pace_s_per_km") }
            pushProgress(status.progress)
            lua.setIndex(-2, i + 1)
        }
        lua.setField(-2, "statuses")
        if let next = evaluation.next {
            lua.newTable(record: 4)
            lua.push(next.badge); lua.setField(-2, "badge")
            lua.push(next.remainingMeters); lua.setField(-2, "remaining_m")
            lua.push(next.rule); lua.setField(-2, "rule")
            lua.push(next.pack); lua.setField(-2, "pack")
            lua.setField(-2, "next")
        }
        lua.newTable(array: Int32(evaluation.notes.count))
        for (i, note) in evaluation.notes.enumerated() {
            lua.newTable(record: 3)
            lua.push(note.pack); lua.setField(-2, "pack")
            if let rule = note.rule { lua.push(rule); lua.setField(-2, "rule") }
            lua.push(note.message); lua.setField(-2, "message")
            lua.setIndex(-2, i + 1)
        }
        lua.setField(-2, "notes")
        lua.newTable(array: Int32(evaluation.failures.count))
        for (i, failure) in evaluation.failures.enumerated() {
            lua.newTable(record: 6)
            lua.push(failure.pack); lua.setField(-2, "pack")
            if let rule = failure.rule { lua.push(rule); lua.setField(-2, "rule") }
            lua.push(failure.file); lua.setField(-2, "file")
            if let line = failure.line { lua.push(integer: line); lua.setField(-2, "line") }
            lua.push(failure.message); lua.setField(-2, "message")
            lua.push(failure.description); lua.setField(-2, "text")
            lua.setIndex(-2, i + 1)
        }
        lua.setField(-2, "failures")
    }
}

/// Numbers for `print` in tests: integers without a fraction.
enum NumberText {
    static func number(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }
}
