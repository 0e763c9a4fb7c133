import Foundation
import RunFiles

/// A pack reads only its own files. Every path a pack reads (`pack.lua`, its rule files, the modules
/// it `require`s, its segment files, its tests and their run files) resolves, links included, inside
/// the pack folder; a link inside the pack is followed (a file link or a linked folder), one that
/// leads out is refused by name, and the file it points at is never opened (`ConfinedPath`).
///
/// What a refusal costs is what any broken file of the same place costs: a rule file or a module
/// fails the rule that reads it, `pack.lua` or a segment file fails the pack; other packs never.
enum PackFiles {
    /// Why a path of the pack is not read.
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    /// The real path of `path` (a file below `folder`, as `folder/<relative>`), or the refusal,
    /// naming the link that leads outside (relative to the pack).
    static func resolve(_ path: String, folder: String) -> Result<String, Refusal> {
        let relative = path.hasPrefix(folder + "/") ? String(path.dropFirst(folder.count + 1)) : path
        switch ConfinedPath.resolve(relative, in: folder) {
        case .inside(let real):
            return .success(real)
        case .outside(let link?):
            return .failure(Refusal(description: "'\(ShownName.of(link))' is a link leading outside the pack: refused (a pack reads only files inside its folder)"))
        case .outside(nil):
            return .failure(Refusal(description: "'\(ShownName.of(relative))' leads outside the pack: refused (a pack reads only files inside its folder)"))
        case .tooManyLinks(let link):
            return .failure(Refusal(description: "'\(ShownName.of(link))': more than \(ConfinedPath.maximumLinks) links to follow (a loop?)"))
        }
    }
}
