import RunFixtures
import BadgeRules
import Foundation

/// The packs of a `PackFixture` (RunFixtures) evaluated with a catalogue of two distance badges.
extension PackFixture {
    func engine(_ packs: [String]) -> RuleEngine {
        let catalogue = Catalogue(badges: [
            CatalogueBadge(id: "5k", name: "5K", information: "Five kilometres", distanceMeters: 5_000),
            CatalogueBadge(id: "10k", name: "10K", information: "Ten kilometres", distanceMeters: 10_000),
        ], source: "test")
        return RuleEngine(packDirectories: packs.map(directory(of:)), catalogue: catalogue,
                          limits: RuleEngine.Limits(instructionsPerCall: 2_000_000, memoryBytes: 16 << 20))
    }
}
