import Foundation

/// Where badgectl finds its rule packs and badge catalogue when no flag names them, in this order:
/// the flag; `./rules` and `./badges.json` in the current folder; `<binary>/../share/badgectl/`
/// (what `scripts/install PREFIX` puts beside `PREFIX/bin/badgectl`). A find outside the current
/// folder is said on stderr; a miss says where it looked and which flag to use.
enum Installation {
    /// `<folder of the running binary>/../share/badgectl`, symbolic links resolved; nil when unknown.
    static var shareDirectory: String? {
        guard let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() else { return nil }
        return executable.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/badgectl").standardizedFileURL.path
    }

    /// The file or folder `name` (`badges.json`, `rules`): `given` when a flag gave one, else the first
    /// of `./name` and `<share>/name` that exists. `flag` is named in the error. The share folder is
    /// worked out only when `./name` is not there (it asks Foundation's `Bundle`, which costs a
    /// `summarize` of one file about 2% of its time).
    static func locate(_ name: String, given: String?, flag: String, directory: Bool) throws -> String {
        if let given { return given }
        let fm = FileManager.default
        func exists(_ path: String) -> Bool {
            var isDirectory: ObjCBool = false
            return fm.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue == directory
        }
        if exists(name) { return name }
        var looked = ["./" + name]
        if let share = shareDirectory {
            let installed = (share as NSString).appendingPathComponent(name)
            if exists(installed) {
                noticeOnce("badgectl: using \(installed) (no ./\(name) here; \(flag) to choose)")
                return installed
            }
            looked.append(installed)
        }
        throw CommandError.cannotFind(what: directory ? "rule packs" : "badge catalogue", looked: looked, flag: flag)
    }

    /// The notices already printed: a command that looks the catalogue up twice (to check, then to
    /// load) says where it found it once.
    nonisolated(unsafe) private static var noticed: Set<String> = []
    private static let lock = NSLock()

    /// Prints `notice` on stderr unless this process already did.
    static func noticeOnce(_ notice: String) {
        lock.lock()
        let fresh = noticed.insert(notice).inserted
        lock.unlock()
        if fresh { Console.error(notice) }
    }
}
