import Foundation

extension RulePack {
    /// The pack folders that `paths` name, in order: each path is a pack (it holds `pack.lua`) or a
    /// folder of packs (each sub-folder, hidden ones skipped, sorted by name). A folder with no
    /// sub-folder is passed on as a pack, so that loading it says what is missing.
    ///
    /// The one expansion of `--rules PATH` and `BadgeEngine(packs:)`: the command line and the
    /// library load the same packs from the same paths.
    public static func folders(in paths: [String]) -> [String] {
        let manager = FileManager.default
        var result: [String] = []
        for path in paths {
            let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
            if manager.fileExists(atPath: trimmed + "/pack.lua") {
                result.append(trimmed)
                continue
            }
            let entries = (try? manager.contentsOfDirectory(atPath: trimmed)) ?? []
            let packs = entries.filter { entry in
                var isDirectory: ObjCBool = false
                return !entry.hasPrefix(".") && manager.fileExists(atPath: trimmed + "/" + entry, isDirectory: &isDirectory) && isDirectory.boolValue
            }.sorted()
            result += packs.isEmpty ? [trimmed] : packs.map { trimmed + "/" + $0 }
        }
        return result
    }
}
