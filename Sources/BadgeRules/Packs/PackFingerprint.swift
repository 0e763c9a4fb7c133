import Crypto
import Foundation

/// A pack's content fingerprint: SHA-256 over every file that decides its awards, so two folders
/// with the same fingerprint evaluate alike and an edited pack is told from the one a saved state
/// (or a worker's earlier output) was made with.
///
/// What is hashed: every regular file the pack can read (rule files, `pack.lua`, modules, segment
/// files and any other data the pack ships), by its path relative to the folder, in byte order of
/// those paths; each as its path, a 0 byte, its length (8 bytes, little-endian) and its bytes. Links
/// that stay inside the pack are followed, to files and into folders (`lib -> .shared`: its files
/// are hashed as `lib/...`; a folder already entered is not entered again, so a loop ends); a link
/// leading outside is left out, as the pack cannot read it (`PackFiles` refuses it). Left out too:
/// tests (`*_test.lua` and the `tests/` folder, which do not change awards and which rules cannot
/// `require`) and hidden entries (names starting with `.`, such as `.DS_Store`, which a module name
/// or a segment path cannot reach but through a link, hashed then by the link's name). FIFOs,
/// devices and sockets are skipped.
public enum PackFingerprint {
    /// Files larger than this are refused (a pack is code and small data, not a disk image).
    public static let maximumFileBytes = 256 << 20

    /// The fingerprint of the pack at `folder`: `sha256:` and 64 lowercase hex digits.
    /// - Throws: `RulesError.pack` naming a file that cannot be read or is over `maximumFileBytes`.
    public static func compute(folder: String) throws -> String {
        var hasher = SHA256()
        for (relative, real) in try files(in: folder) {
            let path = folder + "/" + relative
            guard let handle = FileHandle(forReadingAtPath: real) else {
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
        return "sha256:" + hex(hasher.finalize())
    }

    /// Lowercase hex digits, two per byte (`String(format: "%02x")` per byte took 16,000 instructions
    /// each: half the fingerprint of a small pack). Award ids are written with it too.
    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * bytes.underestimatedCount)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The relative paths that are hashed, in byte order, each with the real path to read.
    static func files(in folder: String) throws -> [(relative: String, real: String)] {
        var found: [(relative: String, real: String)] = []
        // Folders entered (device, inode): a linked folder that is already walked, or holds itself, is
        // entered once, so the walk ends and each folder costs one listing.
        var entered: Set<[UInt64]> = []
        func enter(_ path: String) -> Bool {
            var status = stat()
            guard stat(path, &status) == 0 else { return false }
            return entered.insert([UInt64(status.st_dev), UInt64(status.st_ino)]).inserted
        }
        func walk(_ relative: String, at real: String) throws {
            let entries: [String]
            do {
                entries = try FileManager.default.contentsOfDirectory(atPath: real)
            } catch {
                let absolute = relative.isEmpty ? folder : folder + "/" + relative
                throw RulesError.pack(file: absolute, line: nil, reason: "cannot list the folder for the pack's fingerprint")
            }
            for entry in entries.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) where !entry.hasPrefix(".") {
                let child = relative.isEmpty ? entry : relative + "/" + entry
                if relative.isEmpty && entry == "tests" { continue }
                if entry.hasSuffix("_test.lua") { continue }
                var link = stat()
                guard lstat(real + "/" + entry, &link) == 0 else { continue }
                var target = real + "/" + entry
                if (link.st_mode & S_IFMT) == S_IFLNK {
                    // Followed only while it stays inside the pack; one leading out cannot be read.
                    guard case .success(let inside) = PackFiles.resolve(folder + "/" + child, folder: folder) else { continue }
                    target = inside
                }
                var status = stat()
                guard stat(target, &status) == 0 else { continue }
                switch status.st_mode & S_IFMT {
                case S_IFREG: found.append((child, target))
                case S_IFDIR where enter(target): try walk(child, at: target)
                default: continue
                }
            }
        }
        _ = enter(folder)
        try walk("", at: folder)
        return found.sorted { Array($0.relative.utf8).lexicographicallyPrecedes(Array($1.relative.utf8)) }
    }
}
