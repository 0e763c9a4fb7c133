import Crypto
import Foundation

/// A pack's content fingerprint: SHA-256 over every file that decides its awards, so two folders
/// with the same fingerprint evaluate alike and an edited pack is told from the one a saved state
/// (or a worker's earlier output) was made with.
///
/// What is hashed: every regular file below the pack folder (rule files, `pack.lua`, segment files
/// and any other data the pack ships), by its path relative to the folder, in byte order of those
/// paths; each as its path, a 0 byte, its length (8 bytes, little-endian) and its bytes. Left out:
/// tests (`*_test.lua` and the `tests/` folder, which do not change awards) and hidden entries
/// (names starting with `.`, such as `.DS_Store`). Links are followed to regular files; a linked
/// folder is not entered (no cycles), and FIFOs, devices and sockets are skipped.
public enum PackFingerprint {
    /// Files larger than this are refused (a pack is code and small data, not a disk image).
    public static let maximumFileBytes = 256 << 20

    /// The fingerprint of the pack at `folder`: `sha256:` and 64 lowercase hex digits.
    /// - Throws: `RulesError.pack` naming a file that cannot be read or is over `maximumFileBytes`.
    public static func compute(folder: String) throws -> String {
        var hasher = SHA256()
        for relative in try files(in: folder) {
            let path = folder + "/" + relative
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw RulesError.pack(file: path, line: nil, reason: "cannot read it for the pack's fingerprint")
            }
            defer { try? handle.close() }
            var contents = Data()
            while true {
                let chunk: Data
                do {
                    chunk = try handle.read(upToCount: 1 << 20) ?? Data()
                } catch {
                    throw RulesError.pack(file: path, line: nil, reason: "cannot read it for the pack's fingerprint (\(error.localizedDescription))")
                }
                if chunk.isEmpty { break }
                contents.append(chunk)
                if contents.count > maximumFileBytes {
                    throw RulesError.pack(file: path, line: nil, reason: "over \(maximumFileBytes >> 20) MiB: too large for a pack file")
                }
            }
            hasher.update(data: Data(relative.utf8))
            hasher.update(data: Data([0]))
            withUnsafeBytes(of: UInt64(contents.count).littleEndian) { hasher.update(bufferPointer: $0) }
            hasher.update(data: contents)
        }
        return "sha256:" + hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// The relative paths that are hashed, in byte order.
    static func files(in folder: String) throws -> [String] {
        var found: [String] = []
        func walk(_ relative: String) throws {
            let absolute = relative.isEmpty ? folder : folder + "/" + relative
            let entries: [String]
            do {
                entries = try FileManager.default.contentsOfDirectory(atPath: absolute)
            } catch {
                throw RulesError.pack(file: absolute, line: nil, reason: "cannot list the folder for the pack's fingerprint")
            }
            for entry in entries where !entry.hasPrefix(".") {
                let child = relative.isEmpty ? entry : relative + "/" + entry
                if relative.isEmpty && entry == "tests" { continue }
                if entry.hasSuffix("_test.lua") { continue }
                var link = stat()
                guard lstat(folder + "/" + child, &link) == 0 else { continue }
                let isLink = (link.st_mode & S_IFMT) == S_IFLNK
                var target = stat()
                guard stat(folder + "/" + child, &target) == 0 else { continue }
                switch target.st_mode & S_IFMT {
                case S_IFREG: found.append(child)
                case S_IFDIR where !isLink: try walk(child)
                default: continue
                }
            }
        }
        try walk("")
        return found.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
    }
}
