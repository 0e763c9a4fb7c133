import Foundation

extension StateStore {
    /// The folders of the packs `state` (this folder's) was made with, in order: what `badgectl add` loads when it
    /// is given no `--rules`, so that it goes on with the same packs wherever it is run.
    /// - Throws: `RulesError.state` naming every pack whose folder the state does not record (saved
    ///   before badgectl recorded it) or that no longer holds a `pack.lua`, and saying to give `--rules`.
    public func packFolders(of state: SavedState) throws -> [String] {
        var missing: [String] = []
        for pack in state.packs {
            guard let directory = pack.directory else {
                missing.append("'\(pack.name)' (where it was loaded from is not recorded)")
                continue
            }
            if !FileManager.default.fileExists(atPath: (directory as NSString).appendingPathComponent("pack.lua")) {
                missing.append("'\(pack.name)' (no pack.lua in \(directory) any more)")
            }
        }
        guard missing.isEmpty else {
            throw RulesError.state(path: statePath, reason: "made with \(missing.count == 1 ? "pack" : "packs") \(missing.joined(separator: ", ")): "
                + "give the packs with --rules PATH, or evaluate with --state again")
        }
        return state.packs.compactMap(\.directory)
    }
}
