import Foundation

/// Resolves a path inside a folder as the kernel would (links followed, `..` taken after the link
/// it follows), without ever looking outside the folder: each link met is read with `readlink` and
/// its target checked as text, so a path leading out is refused before anything outside is opened or
/// even `stat`ed. A refusal therefore tells nothing of the outside (not whether a file exists there).
///
/// Used where badgectl reads what it was pointed at: a pack's own files (`require`, rule files,
/// segment files), `report --images DIR`, `worker --root DIR`.
///
/// The check is made when the path is resolved; a link changed between the check and the read is
/// not caught (give folders that the input cannot write to).
package enum ConfinedPath {
    package enum Resolution: Equatable, Sendable {
        /// The path inside the folder, links resolved: the folder's real path and real names below it.
        /// Its last parts may not exist (the first missing part and what follows are kept as text):
        /// opening it fails as opening the path given would.
        case inside(String)
        /// The path leads outside the folder: through `link` (a link inside the folder, relative to
        /// it, as its real names spell it), or by itself (`..` above the folder, an absolute path
        /// elsewhere) when `link` is nil.
        case outside(link: String?)
        /// More than `maximumLinks` links were followed (a loop); `link` is the last one.
        case tooManyLinks(link: String)
    }

    /// As Linux's `MAXSYMLINKS`: past this many links, the kernel gives up too (ELOOP).
    package static let maximumLinks = 40

    /// Resolves `path` in `folder`: a relative path from the folder, or an absolute path that must
    /// start with the folder (as given or as its real path).
    package static func resolve(_ path: String, in folder: String) -> Resolution {
        let given = absolute(folder)
        let root = realpath(given, nil).map { pointer -> String in
            defer { free(pointer) }
            return String(cString: pointer)
        } ?? given
        let rootParts = parts(root)
        let start: [String]
        if path.hasPrefix("/") {
            guard let inner = below(parts(path), [rootParts, parts(given)]) else { return .outside(link: nil) }
            start = inner
        } else {
            start = parts(path)
        }
        // Parts still to take, last first; each with the link whose target it came from (nil: the path's own).
        var pending: [(part: String, via: String?)] = start.reversed().map { ($0, nil) }
        var resolved: [String] = []
        var links = 0
        func spelled(_ names: [String]) -> String { names.isEmpty ? root : (root == "/" ? "" : root) + "/" + names.joined(separator: "/") }
        while let (part, via) = pending.popLast() {
            if part == "." { continue }
            if part == ".." {
                guard !resolved.isEmpty else { return .outside(link: via) }
                resolved.removeLast()
                continue
            }
            resolved.append(part)
            let here = spelled(resolved)
            var status = stat()
            guard lstat(here, &status) == 0 else {
                // Missing (or not searchable): nothing below it exists, so the rest stays text (an
                // open of it fails at this part, as the kernel fails the path given); its `..` may
                // still climb out, which is refused as any other.
                let rest = pending.reversed()
                var depth = resolved.count
                for (later, via) in rest where later != "." {
                    depth += later == ".." ? -1 : 1
                    if depth < 0 { return .outside(link: via) }
                }
                return .inside(spelled(resolved + rest.map(\.part)))
            }
            guard status.st_mode & S_IFMT == S_IFLNK else { continue }
            let name = resolved.joined(separator: "/")
            links += 1
            guard links <= maximumLinks else { return .tooManyLinks(link: name) }
            guard let target = readLink(here) else { return .outside(link: name) }  // a link not read is not followed
            resolved.removeLast()
            let targetParts: [String]
            if target.hasPrefix("/") {
                guard let inner = below(parts(target), [rootParts, parts(given)]) else { return .outside(link: name) }
                resolved = []
                targetParts = inner
            } else {
                targetParts = parts(target)
            }
            pending.append(contentsOf: targetParts.reversed().map { ($0, name) })
        }
        return .inside(spelled(resolved))
    }

    /// `path` made absolute against the current directory, with `.`, `..` and repeated slashes taken out
    /// by the text alone (links are not resolved): the run cache's name for a file, the badge
    /// catalogue's recorded file. Foundation's `URL.standardized` gives the same, at the cost of
    /// `URL` and `NSString` work at every command's start.
    package static func standardizedAbsolute(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        // Already plain (the usual case): no copy. Bytes compared, not Foundation's `contains` (a locale-aware search).
        var previous: UInt8 = 0
        var plain = true
        for byte in absolute.utf8 {
            if previous == UInt8(ascii: "/"), byte == UInt8(ascii: "/") || byte == UInt8(ascii: ".") { plain = false; break }
            previous = byte
        }
        if plain, previous != UInt8(ascii: "/") { return absolute }
        var parts: [Substring] = []
        for part in absolute.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { _ = parts.popLast(); continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `path` made absolute against the current directory (not resolved).
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return FileManager.default.currentDirectoryPath + "/" + path
    }

    /// The names of a path, without empty names (repeated or trailing slashes).
    static func parts(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init).filter { $0 != "." }
    }

    /// What follows one of `prefixes` in `names`; nil when none of them starts it.
    static func below(_ names: [String], _ prefixes: [[String]]) -> [String]? {
        for prefix in prefixes where names.count >= prefix.count && Array(names.prefix(prefix.count)) == prefix {
            return Array(names.dropFirst(prefix.count))
        }
        return nil
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
