import Foundation
import RunAnalysis
import RunFiles

extension RunLoader {
    /// Walks a directory recursively (hidden files and folders skipped, symbolic links followed
    /// once) and returns the run files and the other files, as paths relative to the directory,
    /// each list sorted by bytes so the order is the same on every machine.
    public static func discover(directory: String) throws -> (runs: [String], ignored: [String]) {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        guard fm.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw ActivityError.unreadable(path: directory, reason: "no such directory")
        }
        guard isDirectory.boolValue else {
            throw ActivityError.unreadable(path: directory, reason: "not a directory")
        }
        var runs: [String] = []
        var ignored: [String] = []
        var visited: Set<String> = []

        func walk(_ absolute: String, _ relative: String) throws {
            let real = (absolute as NSString).resolvingSymlinksInPath
            guard visited.insert(real).inserted else { return }
            let entries: [String]
            do {
                entries = try fm.contentsOfDirectory(atPath: absolute)
            } catch {
                throw ActivityError.unreadable(path: absolute, reason: "cannot list the directory: \((error as NSError).localizedDescription)")
            }
            for entry in entries where !entry.hasPrefix(".") {
                let path = absolute + "/" + entry
                let rel = relative.isEmpty ? entry : relative + "/" + entry
                var dir: ObjCBool = false
                guard fm.fileExists(atPath: path, isDirectory: &dir) else {
                    ignored.append(rel)  // a dangling symbolic link
                    continue
                }
                if dir.boolValue {
                    try walk(path, rel)
                } else if RunFormat.of(path: entry) != nil {
                    runs.append(rel)
                } else {
                    ignored.append(rel)
                }
            }
        }

        let root = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        try walk(root, "")
        let byBytes: (String, String) -> Bool = { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return (runs.sorted(by: byBytes), ignored.sorted(by: byBytes))
    }
}
