import Foundation

/// Rule packs written into a fresh temporary `rules/` folder, for the tests of the rules host and of
/// the pipeline above it (each target makes its engine of them with its own catalogue). The folder
/// goes with the fixture.
public final class PackFixture: Sendable {
    private let folder: TemporaryFolder
    /// The temporary folder; the packs are in its `rules/`.
    public let root: String

    public init() throws {
        folder = try TemporaryFolder()
        root = folder.path
        try FileManager.default.createDirectory(atPath: root + "/rules", withIntermediateDirectories: true)
    }

    /// Writes `rules/<name>/pack.lua` (a minimal one unless `packLua` is given) and the given files
    /// (relative to the pack, folders made); returns the pack's folder.
    @discardableResult
    public func pack(_ name: String, packLua: String? = nil, files: [String: String] = [:]) throws -> String {
        let folder = directory(of: name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let declaration = packLua ?? "return { name = \"\(name)\", version = \"1.0.0\", description = \"test pack\" }"
        try declaration.write(toFile: folder + "/pack.lua", atomically: true, encoding: .utf8)
        for (file, text) in files {
            let path = folder + "/" + file
            try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        }
        return folder
    }

    /// Writes `bytes` at `relative` under `rules/`.
    public func writeBytes(_ bytes: [UInt8], to relative: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: root + "/rules/" + relative))
    }

    /// The folder of pack `name`.
    public func directory(of name: String) -> String { root + "/rules/" + name }
}
