import ArgumentParser
import BadgeRules
import Foundation

/// `badgectl new pack NAME` / `badgectl new rule NAME --pack PACK`: scaffolding that passes its own tests.
struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create a rule pack or a rule, with a passing test beside it.",
        discussion: """
            Examples:
              badgectl new pack mine
              badgectl new rule hills --pack rules/mine

            \(ExitStatus.help)
            """,
        subcommands: [NewPackCommand.self, NewRuleCommand.self]
    )
}

/// Names of packs, rules and badges: lower-case letters, digits and '-', starting with a letter.
func validateScaffoldName(_ name: String, what: String) throws {
    let allowed = name.unicodeScalars.allSatisfy { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "-" }
    guard allowed, let first = name.unicodeScalars.first, first >= "a" && first <= "z", name.count <= 64 else {
        throw CommandError.invalidName(what: what, name: name).usage
    }
}

/// Writes `text` to `path`, refusing to overwrite.
func writeNew(_ text: String, to path: String) throws {
    guard !FileManager.default.fileExists(atPath: path) else {
        throw CommandError.alreadyExists(path: path).usage
    }
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    print("created \(path)")
}

struct NewPackCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pack",
        abstract: "Create rules/NAME/: pack.lua (declaring one badge), a first rule and its test.",
        discussion: """
            Run `badgectl test DIR/NAME` afterwards: the new pack's test passes.

            Examples:
              badgectl new pack mine
              badgectl new pack mine --dir ~/packs

            \(ExitStatus.help)
            """
    )

    @Argument(help: ArgumentHelp("The pack's name (its folder name).", valueName: "name"))
    var name: String

    @Option(name: .long, help: ArgumentHelp("Folder of packs.", valueName: "dir"))
    var dir: String = "rules"

    func run() throws {
        try validateScaffoldName(name, what: "pack")
        let folder = RuleScaffold.trimmed(dir) + "/" + name
        guard !FileManager.default.fileExists(atPath: folder) else {
            throw CommandError.alreadyExists(path: folder).usage
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let badge = name + "-first-10k"
        try writeNew(RuleScaffold.packLua(name: name, badge: badge), to: folder + "/pack.lua")
        try writeNew(RuleScaffold.ruleLua(rule: "first-10k", badge: badge), to: folder + "/first-10k.lua")
        try writeNew(RuleScaffold.testLua(rule: "first-10k", badge: badge), to: folder + "/first-10k_test.lua")
        // Editor support: the language server reads the definitions beside the packs, luacheck the globals.
        try writeNew(LuaDefinitions.luarc(), to: folder + "/.luarc.json")
        try writeNew(LuaDefinitions.luacheckrc(), to: folder + "/.luacheckrc")
        // Beside the packs, when the folder has none yet (`badgectl editor` writes them again after an upgrade).
        let beside = [(LuaDefinitions.fileName, LuaDefinitions.definitions()), (".luacheckrc", LuaDefinitions.luacheckrc())]
        for (file, text) in beside where !FileManager.default.fileExists(atPath: RuleScaffold.trimmed(dir) + "/" + file) {
            try writeNew(text, to: RuleScaffold.trimmed(dir) + "/" + file)
        }
        print("next: edit the rule, then run `badgectl test \(folder)`")
    }
}

struct NewRuleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rule",
        abstract: "Create PACK/NAME.lua (a per-run rule awarding a badge the pack declares) and NAME_test.lua.",
        discussion: """
            The rule awards the badge `<pack>-<name>` for a run longer than 10 km. The command declares \
            that badge in pack.lua's `badges` (it edits pack.lua); when pack.lua has no `badges = {` \
            line to add it to, it prints the entry to add by hand.

            Examples:
              badgectl new rule hills --pack mine
              badgectl new rule hills --pack ~/packs/mine

            \(ExitStatus.help)
            """
    )

    @Argument(help: ArgumentHelp("The rule's id (its file name).", valueName: "name"))
    var name: String

    @Option(name: .long, help: ArgumentHelp("The pack: a folder name under --dir, or a path to the pack folder.", valueName: "pack"))
    var pack: String

    @Option(name: .long, help: ArgumentHelp("Folder of packs.", valueName: "dir"))
    var dir: String = "rules"

    func run() throws {
        try validateScaffoldName(name, what: "rule")
        var folder = RuleScaffold.trimmed(pack)
        if !FileManager.default.fileExists(atPath: folder + "/pack.lua") {
            folder = RuleScaffold.trimmed(dir) + "/" + pack
        }
        let packFile = folder + "/pack.lua"
        guard let packText = try? String(contentsOfFile: packFile, encoding: .utf8) else {
            throw CommandError.noPack(folder: folder).usage
        }
        let packName = (folder as NSString).lastPathComponent
        let badge = packName + "-" + name
        try writeNew(RuleScaffold.ruleLua(rule: name, badge: badge), to: folder + "/\(name).lua")
        try writeNew(RuleScaffold.testLua(rule: name, badge: badge), to: folder + "/\(name)_test.lua")
        if !packText.contains("\"\(badge)\"") {
            if let updated = RuleScaffold.addBadge(badge, to: packText) {
                try updated.write(toFile: packFile, atomically: true, encoding: .utf8)
                print("updated \(packFile): declared badge \(badge)")
            } else {
                print("add to \(packFile)'s badges: { id = \"\(badge)\", name = \"\(badge)\", information = \"...\", tiers = { \"earned\" } }")
            }
        }
        print("next: edit the rule, then run `badgectl test \(folder)`")
    }
}

/// The text of scaffolded files (kept together so the guide and the tests can show them).
enum RuleScaffold {
    static func trimmed(_ path: String) -> String {
        path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// The marker `new rule` inserts badges after.
    static let badgesMarker = "  badges = {\n"

    static func packLua(name: String, badge: String) -> String {
        """
        -- The \(name) pack: its badges, and the rules beside this file (*.lua) that award them.
        return {
          name = "\(name)",
          version = "0.1.0",
          description = "Describe what this pack rewards.",
          badges = {
            { id = "\(badge)", name = "First 10 km", information = "Run more than 10 km in one go.", tiers = { "earned" } },
          },
        }

        """
    }

    static func ruleLua(rule: String, badge: String) -> String {
        """
        -- A per-run rule: `earned(run)` is asked for every run in start order; the first run for
        -- which it returns true earns the badge. Run fields: docs/rules.md.
        return {
          id = "\(rule)",
          badge = "\(badge)",
          title = "More than 10 km in one run",
          earned = function(run)
            return run.distance_m > 10000
          end,
        }

        """
    }

    static func testLua(rule: String, badge: String) -> String {
        """
        -- Tests for the rule '\(rule)': run them with `badgectl test`. API: docs/rules.md, "Testing rule packs".
        test("a run over 10 km earns \(badge)", function(t)
          local short = t.run{ distance_km = 9.9, duration = "55:00" }
          local long = t.run{ distance_km = 10.2, duration = "58:00" }
          local result = t.evaluate({ short, long }, { rule = "\(rule)" })
          t.expect_award(result, { badge = "\(badge)", tier = "earned", run = long })
          t.expect_no_award(result, { badge = "\(badge)", run = short })
        end)

        test("exactly 10 km is not enough", function(t)
          local result = t.evaluate({ t.run{ distance_m = 10000, duration = "50:00" } }, { rule = "\(rule)" })
          t.expect_awards(result, {})
        end)

        """
    }

    /// Inserts a badge entry at the start of pack.lua's `badges = {` table; nil when there is none.
    static func addBadge(_ badge: String, to packText: String) -> String? {
        guard let range = packText.range(of: badgesMarker) else { return nil }
        var text = packText
        text.insert(contentsOf: "    { id = \"\(badge)\", name = \"\(badge)\", information = \"Describe how to earn it.\", tiers = { \"earned\" } },\n", at: range.upperBound)
        return text
    }
}
