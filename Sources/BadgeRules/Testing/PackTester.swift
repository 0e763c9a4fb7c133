import Foundation
import RunFiles

/// One failed expectation or error of a rule-pack test: where (the test file's line of the
/// expectation call, or of the Lua error), what, and for expectations what was expected and got.
public struct TestFailure: Codable, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var message: String
    public var expected: String?
    public var got: String?
    public var traceback: String?

    public init(file: String, line: Int?, message: String, expected: String? = nil, got: String? = nil, traceback: String? = nil) {
        self.file = file; self.line = line; self.message = message
        self.expected = expected; self.got = got; self.traceback = traceback
    }

    /// From a Lua message `path/x.lua:12: boom` (file and line split off when present).
    init(located message: String, file: String) {
        if let location = splitLocation(message) {
            self.init(file: location.file, line: location.line, message: location.rest)
        } else {
            self.init(file: file, line: nil, message: message)
        }
    }

    /// `file:line: message`
    public var place: String { line.map { "\(file):\($0)" } ?? file }

    public var description: String { "\(place): \(message)" }
}

/// The outcome of one test (or of loading a test file or the pack, which count as one failed test).
public struct TestResult: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable { case passed, failed, skipped }

    public var pack: String
    public var file: String
    /// The test's name; `(load)` when the test file or the pack could not be loaded.
    public var name: String
    /// Line of the `test(...)` declaration.
    public var line: Int?
    public var outcome: Outcome
    public var failures: [TestFailure]
    /// What the test printed.
    public var output: [String]

    public init(pack: String, file: String, name: String, line: Int?, outcome: Outcome, failures: [TestFailure] = [], output: [String] = []) {
        self.pack = pack; self.file = file; self.name = name; self.line = line
        self.outcome = outcome; self.failures = failures; self.output = output
    }
}

/// What no test of a pack covered.
public struct PackCoverage: Codable, Sendable, Equatable {
    /// `badge/tier` pairs no test awarded: each of the pack's badges that declares `tiers` in pack.lua
    /// at exactly those tiers; every other badge (the pack's own without `tiers`, and every badge its
    /// rules awarded or reported a status for in any test) at `earned`, every tier awarded for that
    /// badge in any test, and `silver`/`gold` when a status of that badge gave a silver/gold pace.
    public var notAwarded: [String]
    /// Rule ids no `t.evaluate` ran (rule files whose id never loaded are listed by file).
    public var rulesNotRun: [String]
    /// How many `badge/tier` pairs the pack is expected to have awarded (the denominator's first part).
    public var pairs: Int
    /// How many rules the pack has (loaded ids, plus files that did not load): the denominator's second part.
    public var rules: Int

    public init(notAwarded: [String], rulesNotRun: [String], pairs: Int = 0, rules: Int = 0) {
        self.notAwarded = notAwarded; self.rulesNotRun = rulesNotRun; self.pairs = pairs; self.rules = rules
    }

    /// What the tests covered of `pairs + rules`.
    public var covered: Int { max(0, pairs - notAwarded.count) + max(0, rules - rulesNotRun.count) }
    public var total: Int { pairs + rules }
    /// `covered / total` in percent; 100 when there is nothing to cover.
    public var percent: Double { total == 0 ? 100 : 100 * Double(covered) / Double(total) }

    enum CodingKeys: String, CodingKey {
        case notAwarded = "not_awarded"
        case rulesNotRun = "rules_not_run"
        case pairs, rules
    }
}

/// The tests of one pack.
public struct PackTestReport: Codable, Sendable, Equatable {
    public var pack: String
    public var directory: String
    public var results: [TestResult]
    public var coverage: PackCoverage?

    public var passed: Int { results.filter { $0.outcome == .passed }.count }
    public var failed: Int { results.filter { $0.outcome == .failed }.count }
    public var skipped: Int { results.filter { $0.outcome == .skipped }.count }
}

/// Runs the `*_test.lua` and `tests/*.lua` files of rule packs (the `badgectl test` runner).
/// Each test file gets its own sandboxed state; each test runs under the rules' instruction budget
/// and memory cap; a failing or broken pack never stops the others.
public struct PackTester: Sendable {
    public var limits: RuleEngine.Limits
    /// The catalogue `t.evaluate` uses unless a test passes `catalogue`; nil: `badges.json` found
    /// upward from each pack's folder (an empty catalogue when there is none).
    public var catalogue: Catalogue?
    /// Only tests this selects (see `selects`); nil: every test.
    public var filter: String?

    public init(limits: RuleEngine.Limits = .default, catalogue: Catalogue? = nil, filter: String? = nil) {
        self.limits = limits; self.catalogue = catalogue; self.filter = filter
    }

    /// Whether test `name` is selected: `filter` is a plain substring, or a regular expression
    /// when it is one (`--run 'silver|gold'`). A filter that is not a valid regex is a substring.
    public func selects(_ name: String) -> Bool {
        guard let filter, !filter.isEmpty else { return true }
        if name.contains(filter) { return true }
        if let regex = try? NSRegularExpression(pattern: filter) {
            return regex.firstMatch(in: name, range: NSRange(name.startIndex..., in: name)) != nil
        }
        return false
    }

    /// Test files of a pack folder: `*_test.lua` beside the rules and `tests/*.lua`, sorted.
    public static func testFiles(of pack: RulePack) -> [String] {
        var files = pack.testFiles
        let folder = pack.directory + "/tests"
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: folder) {
            for entry in entries where entry.hasSuffix(".lua") {
                var isDirectory: ObjCBool = false
                let path = folder + "/" + entry
                if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(path) }
            }
        }
        return files.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }

    /// `badges.json` in `directory` or the nearest folder above it.
    public static func findCatalogue(from directory: String) -> String? {
        var folder = URL(fileURLWithPath: directory).standardizedFileURL
        for _ in 0..<64 {
            let candidate = folder.appendingPathComponent("badges.json").path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            let parent = folder.deletingLastPathComponent()
            if parent.path == folder.path { break }
            folder = parent
        }
        return nil
    }

    /// The rule files of `pack` that do not load (a syntax error, an unknown badge, a top-level loop),
    /// each as a failed `(load)` test at the file and line of the real error, rather than showing up
    /// later only as `t.evaluate: no rule ...`.
    static func ruleLoadFailures(pack: RulePack, catalogue: Catalogue, limits: RuleEngine.Limits) -> [TestResult] {
        let failures: [RuleFailure]
        do {
            let session = try Session(packs: [pack], catalogue: catalogue, limits: limits, runs: [])
            session.loader.load()
            failures = session.loader.failures
        } catch {
            failures = [RuleFailure(pack: pack.name, rule: nil, file: pack.directory, line: nil, message: "\(error)")]
        }
        return failures.map { failure in
            let rule = failure.rule.map { "rule '\($0)' " } ?? ""
            let test = TestFailure(file: failure.file, line: failure.line, message: "\(rule)does not load: \(failure.message)",
                                   traceback: failure.traceback)
            return TestResult(pack: pack.name, file: failure.file, name: "(load)", line: failure.line, outcome: .failed, failures: [test])
        }
    }

    /// Runs every selected test of the pack in `directory`.
    public func run(packDirectory directory: String) -> PackTestReport {
        let folder = RulePack.normalise(directory)
        let folderName = (folder as NSString).lastPathComponent
        let pack: RulePack
        do {
            pack = try RulePack.load(directory: folder, limits: limits)
        } catch {
            let failure: TestFailure
            if case .pack(let file, let line, let reason) = error as? RulesError {
                failure = TestFailure(file: file, line: line, message: "pack does not load: \(reason)")
            } else {
                failure = TestFailure(file: folder, line: nil, message: "pack does not load: \(error)")
            }
            return PackTestReport(pack: folderName, directory: folder,
                                  results: [TestResult(pack: folderName, file: failure.file, name: "(load)", line: failure.line, outcome: .failed, failures: [failure])])
        }
        var catalogue = self.catalogue ?? Catalogue(badges: [])
        var results: [TestResult] = []
        if self.catalogue == nil, let path = PackTester.findCatalogue(from: folder) {
            do {
                catalogue = try Catalogue.load(path: path)
            } catch {
                let failure = TestFailure(file: path, line: nil, message: "catalogue does not load: \(error)")
                results.append(TestResult(pack: pack.name, file: path, name: "(load)", line: nil, outcome: .failed, failures: [failure]))
            }
        }
        results += PackTester.ruleLoadFailures(pack: pack, catalogue: catalogue, limits: limits)
        var awarded: Set<String> = []
        var statusBadges: Set<String> = []
        var statusTiers: Set<String> = []
        var rulesRun: Set<String> = []
        var ruleFiles: [String: String] = [:]
        for file in PackTester.testFiles(of: pack) {
            let session: TestSession
            do {
                session = try TestSession(pack: pack, file: file, catalogue: catalogue, limits: limits)
            } catch {
                results.append(TestResult(pack: pack.name, file: file, name: "(load)", line: nil, outcome: .failed,
                                          failures: [TestFailure(file: file, line: nil, message: "\(error)")]))
                continue
            }
            if let failure = session.load() {
                var failure = failure
                failure.message = "test file does not load: " + failure.message
                results.append(TestResult(pack: pack.name, file: file, name: "(load)", line: failure.line, outcome: .failed, failures: [failure]))
                continue
            }
            for (index, test) in session.declaredTests().enumerated() where selects(test.name) {
                if test.skip {
                    results.append(TestResult(pack: pack.name, file: file, name: test.name, line: test.line, outcome: .skipped))
                    continue
                }
                let (failures, output) = session.runTest(index)
                results.append(TestResult(pack: pack.name, file: file, name: test.name, line: test.line,
                                          outcome: failures.isEmpty ? .passed : .failed, failures: failures, output: output))
            }
            awarded.formUnion(session.awarded)
            statusBadges.formUnion(session.statusBadges)
            statusTiers.formUnion(session.statusTiers)
            rulesRun.formUnion(session.rulesRun)
            ruleFiles.merge(session.ruleIDs) { a, _ in a }
        }
        // Coverage: a badge whose pack.lua entry declares `tiers` is expected at exactly those tiers.
        // Any other badge — the pack's own without `tiers`, and every badge its rules awarded or
        // reported on (catalogue badges) — is expected at `earned` and at every tier seen for THAT
        // badge: awarded in some test, or silver/gold when one of its statuses gave their pace.
        // Theme entries only rename badges: they are not the pack's own.
        var expected: [String: Set<String>] = [:]
        var declared: [String: [String]] = [:]
        for badge in pack.badges {
            if let tiers = badge.tiers { declared[badge.id] = tiers } else { expected[badge.id] = ["earned"] }
        }
        func expect(_ badge: String, _ tier: String) {
            if declared[badge] == nil { expected[badge, default: ["earned"]].insert(tier) }
        }
        for badge in statusBadges where declared[badge] == nil { expected[badge, default: ["earned"]].insert("earned") }
        for key in awarded.union(statusTiers) {
            guard let slash = key.lastIndex(of: "/") else { continue }
            expect(String(key[..<slash]), String(key[key.index(after: slash)...]))
        }
        let order = ["earned", "bronze", "silver", "gold", "best"]
        func ordered(_ tiers: Set<String>) -> [String] {
            tiers.sorted { (order.firstIndex(of: $0) ?? 99, $0) < (order.firstIndex(of: $1) ?? 99, $1) }
        }
        var notAwarded: [String] = []
        var pairs = 0
        for badge in Set(declared.keys).union(expected.keys).sorted() {
            let tiers = declared[badge] ?? ordered(expected[badge] ?? ["earned"])
            pairs += tiers.count
            for tier in tiers where !awarded.contains(badge + "/" + tier) { notAwarded.append(badge + "/" + tier) }
        }
        let loadedFiles = Set(ruleFiles.values)
        var notRun = ruleFiles.keys.filter { !rulesRun.contains($0) }.sorted()
        notRun += pack.ruleFiles.filter { !loadedFiles.contains($0) }.map { "file " + $0 }
        let unloaded = pack.ruleFiles.filter { !loadedFiles.contains($0) }.count
        let coverage = PackCoverage(notAwarded: notAwarded, rulesNotRun: notRun, pairs: pairs, rules: ruleFiles.count + unloaded)
        return PackTestReport(pack: pack.name, directory: folder, results: results, coverage: coverage)
    }
}
