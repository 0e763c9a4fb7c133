import BadgeRules

/// A theme picked with `--theme NAME`: for each badge id, the name, information and image to show instead
/// of the catalogue's (or a pack's). Rules own ids, thresholds and tiers; a theme changes only the words
/// and pictures, so the same runs earn the same awards under every theme.
///
/// A pack offers themes in its `pack.lua` (`themes = { moon = { { id = "five-k", name = "...",
/// information = "...", image = "..." }, ... } }`). The theme NAME is looked up in every loaded pack;
/// when several packs define it, the first pack (in `--rules` order) wins for an id both mention.
/// Entries for ids that are neither in the catalogue nor in a pack's badges are ignored (a pack's theme
/// may cover more of a catalogue than the one in use).
public struct Theme: Sendable, Equatable {
    /// nil for no theme (everything shows as the catalogue and packs declare it).
    public var name: String?
    /// Per badge id, the themed entry (its `distanceMeters` is never used).
    public var overrides: [String: CatalogueBadge]

    public init(name: String?, overrides: [String: CatalogueBadge]) {
        self.name = name
        self.overrides = overrides
    }

    /// No theme.
    public static let none = Theme(name: nil, overrides: [:])

    /// The theme names the packs offer, sorted.
    public static func available(in packs: [RulePack]) -> [String] {
        Array(Set(packs.flatMap { $0.themes.keys })).sorted()
    }

    /// The theme called `name` over `packs`; `.none` for a nil name.
    /// - Throws: `CommandError.unknownTheme` when no pack defines it (the message lists the ones that exist).
    public static func resolve(_ name: String?, packs: [RulePack]) throws -> Theme {
        guard let name else { return .none }
        let defining = packs.filter { $0.themes[name] != nil }
        guard !defining.isEmpty else {
            throw CommandError.unknownTheme(name: name, available: available(in: packs))
        }
        var overrides: [String: CatalogueBadge] = [:]
        for pack in defining {
            for badge in pack.themes[name] ?? [] where overrides[badge.id] == nil {
                overrides[badge.id] = badge
            }
        }
        return Theme(name: name, overrides: overrides)
    }

    /// `badge` with the theme's name, information and image (id and distance unchanged). Information and
    /// image the theme leaves empty keep their unthemed values.
    public func apply(_ badge: CatalogueBadge) -> CatalogueBadge {
        guard let themed = overrides[badge.id] else { return badge }
        var result = badge
        result.name = themed.name
        if !themed.information.isEmpty { result.information = themed.information }
        if let image = themed.image { result.image = image }
        return result
    }

    public func apply(_ badges: [CatalogueBadge]) -> [CatalogueBadge] { badges.map(apply) }

    public func apply(_ catalogue: Catalogue) -> Catalogue {
        Catalogue(badges: apply(catalogue.badges), source: catalogue.source, file: catalogue.file)
    }
}
