import Foundation
import RunAnalysis
import RunFiles

extension RunLoader {
    /// What a folder holds: the run files to read, the entries that are not (each with why when it
    /// is not simply another kind of file), and the run files reached a second time by another
    /// path (a hard link, a symbolic link to a file already listed).
    public struct Discovery: Sendable, Equatable {
        /// Paths relative to the folder, sorted by bytes, each a distinct file.
        public var runs: [String] = []
        /// Each run file's size and modification time (nanoseconds) as the walk found them, links followed,
        /// by its path in `runs`: what a cache lookup needs (`RunCache.stamp`), so a warm read stats a file once.
        public var stamps: [String: Stamp] = [:]
        /// Paths relative to the folder, sorted by bytes.
        public var ignored: [String] = []
        /// Why an entry of `ignored` was left out, for those that are not plain non-run files:
        /// a named pipe, a device, a socket, a dangling symbolic link.
        public var ignoredReasons: [String: String] = [:]
        /// A run file reached by a second path: that path (`id`) and the first one (`sameAs`).
        public var duplicates: [RunDuplicate] = []
        /// Entries that could not be looked at: a name that is not valid UTF-8 (shown with its bad
        /// bytes escaped, `r\xFF.gpx`), a folder below the root that cannot be listed. Each is an
        /// error (exit 2), never dropped silently; the rest of the folder is walked.
        public var errors: [RunFileError] = []
        /// Zip archives (`.zip`), read as folders (`RunArchive`), and Apple Health exports
        /// (`export.xml`), each a path relative to the folder, sorted by bytes.
        public var archives: [String] = []
        public var healthExports: [String] = []
    }

    /// A file's size and modification time, as `RunCache.stamp` gives them.
    public struct Stamp: Sendable, Equatable {
        public var sizeBytes: Int64
        public var modifiedNanoseconds: Int64
    }

    /// Messages for the entries the walk cannot read.
    static let invalidFileName = "the file name is not valid UTF-8; rename it"
    static let invalidFolderName = "the folder name is not valid UTF-8; rename it (its files were not read)"
    static func unlistable(_ reason: String) -> String { "cannot list the folder (\(reason)); its files were not read" }
    /// System trees a link is never followed into: virtual files (sizes that lie, reads that block or
    /// never end, entries nobody may list), never runs.
    static let systemTrees = ["/proc", "/sys", "/dev"]
    static func systemTreeReason(_ tree: String) -> String {
        "a link into \(tree) (a system tree, not runs); not followed"
    }

    /// A name read from the disk as text: valid UTF-8 as it is, else each byte that is not part of
    /// a valid UTF-8 sequence written as `\xFF`; nil when the bytes are valid UTF-8.
    static func escapedIfInvalid(_ bytes: [UInt8]) -> String? {
        if String(validating: bytes, as: UTF8.self) != nil { return nil }
        var text = ""
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 0
            if length > 0, index + length <= bytes.count,
               let scalar = String(validating: bytes[index..<index + length], as: UTF8.self) {
                text += scalar
                index += length
            } else {
                text += "\\x" + String(lead, radix: 16, uppercase: true).leftPadded(to: 2)
                index += 1
            }
        }
        return text
    }

    /// Why an entry that is not a regular file or a directory is not read.
    static func kindReason(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a named pipe (FIFO), not a regular file"
        case S_IFCHR: return "a character device, not a regular file"
        case S_IFBLK: return "a block device, not a regular file"
        case S_IFSOCK: return "a socket, not a regular file"
        default: return "not a regular file"
        }
    }

    /// Walks a directory recursively (hidden files and folders skipped) and returns its run files
    /// and the other entries, as paths relative to the directory, sorted by bytes so the order is
    /// the same on every machine.
    ///
    /// Nothing is opened but folders: each entry is looked at with `lstat`/`stat` only, so a named
    /// pipe cannot block the walk. Only regular files are run files (a symbolic link to one is
    /// fine); pipes, devices and sockets are ignored with the reason. Symbolic links to folders are
    /// followed, but a folder (by device and inode) is walked once (`self -> .` is ignored as the
    /// same folder as `.`), and a link to a folder holding the one read (`up -> ..`) is ignored: the
    /// walk can neither loop nor leave the folder to read it again from outside. Entries are visited so that paths come in byte order, so the same file reached
    /// by two paths is listed under the first in byte order; the others become `duplicates`.
    public static func discover(directory: String) throws -> Discovery {
        var status = stat()
        guard stat(directory, &status) == 0 else {
            throw ActivityError.unreadable(path: directory, reason: "no such directory")
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw ActivityError.unreadable(path: directory, reason: "not a directory")
        }
        struct Identity: Hashable { var device: UInt64; var inode: UInt64 }
        func identity(_ s: stat) -> Identity { Identity(device: UInt64(s.st_dev), inode: UInt64(s.st_ino)) }

        var found = Discovery()
        // Every folder walked, by the path it was walked under ("." for the root).
        var folders: [Identity: String] = [identity(status): "."]
        var files: [Identity: String] = [:]
        // The folders that hold the root: a link to one would read the root again from outside.
        var ancestors: Set<Identity> = []
        let rootReal = realPath(directory)
        if var path = rootReal {
            while path != "/" && !path.isEmpty {
                path = (path as NSString).deletingLastPathComponent
                var up = stat()
                if stat(path, &up) == 0 { ancestors.insert(identity(up)) }
            }
        }

        func walk(_ absolute: String, _ relative: String) throws {
            guard let listing = opendir(absolute) else {
                let reason = String(cString: strerror(errno))
                // Only the folder named on the command line failing stops the command.
                guard !relative.isEmpty else {
                    throw ActivityError.unreadable(path: absolute, reason: "cannot list the directory: \(reason)")
                }
                found.errors.append(RunFileError(path: relative, message: "\(ShownName.of(absolute)): \(unlistable(reason))"))
                return
            }
            var names: [String] = []
            while let entry = readdir(listing) {
                let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                guard bytes.first != UInt8(ascii: ".") else { continue }  // hidden, "." and ".."
                if let shown = escapedIfInvalid(bytes) {
                    // Not valid UTF-8: the path cannot be carried as text to the readers, so it is an
                    // error naming it, never dropped.
                    var own = stat()
                    let isFolder = (Array(absolute.utf8) + [UInt8(ascii: "/")] + bytes + [0]).withUnsafeBufferPointer { path in
                        path.baseAddress.map { stat(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self), &own) == 0 } ?? false
                    } && own.st_mode & S_IFMT == S_IFDIR
                    let rel = relative.isEmpty ? shown : relative + "/" + shown
                    found.errors.append(RunFileError(path: rel, message: "\(ShownName.of(absolute + "/" + shown)): \(isFolder ? invalidFolderName : invalidFileName)"))
                    continue
                }
                names.append(String(decoding: bytes, as: UTF8.self))
            }
            closedir(listing)
            // Each entry's final status (links followed), or why it has none.
            var entries: [(name: String, key: [UInt8], status: stat?, reason: String?)] = []
            for name in names where !name.hasPrefix(".") {
                let path = absolute + "/" + name
                var own = stat()
                guard lstat(path, &own) == 0 else { continue }  // gone since the listing
                var target = own
                if own.st_mode & S_IFMT == S_IFLNK, stat(path, &target) != 0 {
                    entries.append((name, Array(name.utf8), nil, "a symbolic link to nothing (\(String(cString: strerror(errno))))"))
                    continue
                }
                // A folder's paths all start with "name/": sorting it by that key keeps every path
                // of the walk in byte order ("a-b" < "a/c").
                let isFolder = target.st_mode & S_IFMT == S_IFDIR
                entries.append((name, Array((isFolder ? name + "/" : name).utf8), target, nil))
            }
            entries.sort { $0.key.lexicographicallyPrecedes($1.key) }
            for entry in entries {
                let path = absolute + "/" + entry.name
                let rel = relative.isEmpty ? entry.name : relative + "/" + entry.name
                guard let target = entry.status else {
                    found.ignored.append(rel)
                    if let reason = entry.reason { found.ignoredReasons[rel] = reason }
                    continue
                }
                switch target.st_mode & S_IFMT {
                case S_IFDIR:
                    let folder = identity(target)
                    if let tree = systemTree(of: path, root: rootReal) {
                        found.ignored.append(rel)
                        found.ignoredReasons[rel] = systemTreeReason(tree)
                    } else if ancestors.contains(folder) {
                        found.ignored.append(rel)
                        found.ignoredReasons[rel] = "a link to a folder that holds the folder read (following it would read that folder again)"
                    } else if let first = folders[folder] {
                        found.ignored.append(rel)
                        found.ignoredReasons[rel] = "the same folder as \(first), read once"
                    } else {
                        folders[folder] = rel
                        try walk(path, rel)
                    }
                case S_IFREG:
                    if RunArchive.isZip(entry.name) || RunArchive.isHealthExport(entry.name) {
                        if let first = files[identity(target)] {
                            found.duplicates.append(RunDuplicate(id: rel, sameAs: first, reason: .sameFile))
                        } else {
                            files[identity(target)] = rel
                            if RunArchive.isZip(entry.name) { found.archives.append(rel) } else { found.healthExports.append(rel) }
                        }
                        continue
                    }
                    if let reason = RunArchive.garminMetadataReason(rel) {
                        found.ignored.append(rel)
                        found.ignoredReasons[rel] = reason
                        continue
                    }
                    guard RunFormat.of(path: entry.name) != nil else {
                        found.ignored.append(rel)
                        continue
                    }
                    if let first = files[identity(target)] {
                        found.duplicates.append(RunDuplicate(id: rel, sameAs: first, reason: .sameFile))
                    } else {
                        files[identity(target)] = rel
                        found.runs.append(rel)
                        found.stamps[rel] = RunCache.stamp(of: target)
                    }
                default:
                    found.ignored.append(rel)
                    found.ignoredReasons[rel] = kindReason(target.st_mode)
                }
            }
        }

        let root = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        try walk(root, "")
        let byBytes: (String, String) -> Bool = { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        // The route files of an Apple Health export are its workouts' routes, read with them.
        for export in found.healthExports {
            let routes = RunArchive.exportFolder(of: export) + "workout-routes/"
            let owned = found.runs.filter { $0.hasPrefix(routes) }
            guard !owned.isEmpty else { continue }
            found.runs.removeAll { $0.hasPrefix(routes) }
            for route in owned {
                found.ignored.append(route)
                found.ignoredReasons[route] = RunArchive.routeReason(export)
            }
        }
        found.runs.sort(by: byBytes)
        found.archives.sort(by: byBytes)
        found.healthExports.sort(by: byBytes)
        found.ignored.sort(by: byBytes)
        found.errors.sort { byBytes($0.path, $1.path) }
        return found
    }

    static func realPath(_ path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        return String(cString: real)
    }

    /// The system tree (`/proc`, `/sys`, `/dev`) a folder really lies in, when the folder read
    /// does not itself lie in it.
    static func systemTree(of path: String, root: String?) -> String? {
        guard let real = realPath(path) else { return nil }
        for tree in systemTrees where real == tree || real.hasPrefix(tree + "/") {
            if let root, root == tree || root.hasPrefix(tree + "/") { return nil }
            return tree
        }
        return nil
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
