import RunFixtures
import BadgeRules
import Foundation

/// Writes one rule pack into a fresh temporary `rules/` folder and makes an engine of it.
final class PackFixture {
    /// The folder, removed with the fixture.
    private let folder: TemporaryFolder
    let root: String

    init() throws {
        folder = try TemporaryFolder()
        root = folder.path
        try FileManager.default.createDirectory(atPath: root + "/rules", withIntermediateDirectories: true)
    }

    /// Writes `rules/<name>/pack.lua` and the given files.
    func pack(_ name: String, files: [String: String]) throws {
        let folder = root + "/rules/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "return { name = \"\(name)\", version = \"1.0.0\", description = \"test pack\" }"
            .write(toFile: folder + "/pack.lua", atomically: true, encoding: .utf8)
        for (file, text) in files { try text.write(toFile: folder + "/" + file, atomically: true, encoding: .utf8) }
    }

    func engine(_ packs: [String]) -> RuleEngine {
        let catalogue = Catalogue(badges: [
            CatalogueBadge(id: "5k", name: "5K", information: "Five kilometres", distanceMeters: 5_000),
            CatalogueBadge(id: "10k", name: "10K", information: "Ten kilometres", distanceMeters: 10_000),
        ], source: "test")
        return RuleEngine(packDirectories: packs.map { root + "/rules/" + $0 }, catalogue: catalogue,
                          limits: RuleEngine.Limits(instructionsPerCall: 2_000_000, memoryBytes: 16 << 20))
    }
}
