import Foundation

/// A rule pack: the folder `rules/<pack>/`, what its `pack.lua` declares, and its rule files.
public struct RulePack: Sendable, Equatable {
    public var name: String
    public var version: String
    public var description: String
    /// The folder as given (`rules/checkpoints`), without a trailing slash; chunk names start with it.
    public var directory: String
    /// Badges this pack defines (beside the catalogue's).
    public var badges: [CatalogueBadge]
    /// Named sets of badges (`themes = { name = { badge, ... } }`).
    public var themes: [String: [CatalogueBadge]]
    /// Rule files, `directory/<file>.lua`, sorted; `pack.lua`, `*_test.lua` and subfolders left out.
    public var ruleFiles: [String]
    /// Test files beside the rules (`*_test.lua`), sorted.
    public var testFiles: [String]
    /// The measures `pack.lua` declares, by name (`run.measures.<name>` in this pack's rules).
    public var measures: [PackMeasure] = []
    /// Which runs count for the pack (`eligibility` in `pack.lua`); nil: every run.
    public var eligibility: Eligibility?
    /// The content fingerprint of the pack's files (`PackFingerprint`): `sha256:<hex>`. Empty for a
    /// pack made in memory.
    public var fingerprint: String = ""

    public init(name: String, version: String, description: String = "", directory: String,
                badges: [CatalogueBadge] = [], themes: [String: [CatalogueBadge]] = [:],
                ruleFiles: [String] = [], testFiles: [String] = []) {
        self.name = name; self.version = version; self.description = description
        self.directory = directory; self.badges = badges; self.themes = themes
        self.ruleFiles = ruleFiles; self.testFiles = testFiles
    }

    /// Every badge the pack declares, `badges` then the themes' (by theme name).
    public var allBadges: [CatalogueBadge] {
        badges + themes.keys.sorted().flatMap { themes[$0] ?? [] }
    }

    /// Reads `directory/pack.lua` (in the sandbox, with the default limits) and lists the rule files.
    public static func load(directory: String) throws -> RulePack {
        try load(directory: directory, limits: .default)
    }

    public static func load(directory: String, limits: RuleEngine.Limits) throws -> RulePack {
        let folder = normalise(directory)
        let packFile = folder + "/pack.lua"
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw RulesError.pack(file: folder, line: nil, reason: "no such pack folder")
        }
        guard FileManager.default.fileExists(atPath: packFile) else {
            throw RulesError.pack(file: packFile, line: nil, reason: "missing: every pack folder needs a pack.lua returning { name = ..., version = ... }")
        }
        var pack = try PackReader.read(packFile: packFile, folderName: (folder as NSString).lastPathComponent, limits: limits)
        pack.directory = folder
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw RulesError.pack(file: folder, line: nil, reason: "cannot list the folder: \(error.localizedDescription)")
        }
        var rules: [String] = []
        var tests: [String] = []
        for entry in entries where entry.hasSuffix(".lua") && entry != "pack.lua" {
            var isDir: ObjCBool = false
            let path = folder + "/" + entry
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else { continue }
            if entry.hasSuffix("_test.lua") { tests.append(path) } else if entry != LeagueHook.fileName { rules.append(path) }
        }
        pack.ruleFiles = rules.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        pack.testFiles = tests.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        pack.fingerprint = try PackFingerprint.compute(folder: folder)
        return pack
    }

    static func normalise(_ directory: String) -> String {
        var folder = directory
        while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
        return folder
    }
}
