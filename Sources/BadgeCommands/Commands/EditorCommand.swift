import ArgumentParser
import BadgeRules
import Foundation

/// `badgectl editor [--dir rules]`: writes the editor files for rule authors beside the packs, generated
/// from badgectl's own declarations (`LuaDefinitions`).
struct EditorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "editor",
        abstract: "Write the Lua language server definitions (badgectl.d.lua) and luacheck's .luacheckrc beside the packs.",
        discussion: """
            Both are generated from badgectl's own declarations (the run's fields, every measure kind, ctx, \
            award, the badgectl helpers, the test API and the sandbox's globals): run it again after an upgrade. \
            `badgectl new pack` points the new pack's .luarc.json at DIR/badgectl.d.lua. With --check, writes \
            nothing and fails when the files there differ from what this badgectl generates.

            Examples:
              badgectl editor --dir rules
              badgectl editor --dir rules --check

            \(ExitStatus.help)
            """
    )

    @Option(name: .long, help: ArgumentHelp("Folder of packs.", valueName: "dir"))
    var dir: String = "rules"

    @Flag(name: .long, help: "Only check that the files are those this badgectl generates (exit 1 otherwise).")
    var check = false

    func run() throws {
        let folder = RuleScaffold.trimmed(dir)
        let files = [(folder + "/" + LuaDefinitions.fileName, LuaDefinitions.definitions()), (folder + "/.luacheckrc", LuaDefinitions.luacheckrc())]
        if check {
            var stale: [String] = []
            for (path, text) in files where (try? String(contentsOfFile: path, encoding: .utf8)) != text { stale.append(path) }
            if !stale.isEmpty {
                Console.error(CommandError.prefix + "not what this badgectl generates (run `badgectl editor --dir \(folder)`): " + stale.joined(separator: ", "))
                throw ExitCode(ExitStatus.failure.rawValue)
            }
            print("up to date: " + files.map(\.0).joined(separator: ", "))
            return
        }
        guard FileManager.default.fileExists(atPath: folder) else { throw CommandError.noSuchFolder(path: folder).usage }
        for (path, text) in files {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            print("wrote \(path)")
        }
    }
}
