import Foundation
import RunAnalysis
import RunFiles

/// One badge as the catalogue lists it.
public struct CatalogueBadge: Sendable, Equatable, Codable {
    public var id: String
    public var name: String
    public var information: String
    /// The distance a run must exceed, in metres, for distance badges; nil for others.
    public var distanceMeters: Double?
    /// Image name (MoonRunner's `imageName`), resolved against an images folder by the report.
    public var image: String?
    /// The tiers a pack declares for one of its `badges` (`tiers = { "bronze", "silver", "gold" }`);
    /// nil when the entry gives none (the badge then has `earned` plus whatever tiers its rules award),
    /// and for catalogue badges and theme entries. Not part of the JSON forms.
    public var tiers: [String]? = nil

    public init(id: String, name: String, information: String = "", distanceMeters: Double? = nil, image: String? = nil,
                tiers: [String]? = nil) {
        self.id = id; self.name = name; self.information = information
        self.distanceMeters = distanceMeters; self.image = image; self.tiers = tiers
    }

    enum CodingKeys: String, CodingKey {
        case id, name, information
        case distanceMeters = "distance_m"
        case image
    }
}

/// The badge catalogue: `badges.json` (ours: an array of `{id, name, information, distance, image}`)
/// or the MoonRunner app's `badges.txt` as it is (an array of `{name, information, distance, imageName}`,
/// distance a string or a number, no id: the id is then the name's slug).
public struct Catalogue: Sendable, Equatable {
    public var badges: [CatalogueBadge]
    /// Where it was read from, for messages.
    public var source: String
    /// The file it was read from (`load`), absolute, symbolic links kept as given; nil when it was
    /// made or parsed in memory. A saved state records it (`SavedState.catalogue`).
    public var file: String?

    public init(badges: [CatalogueBadge], source: String = "<memory>", file: String? = nil) {
        self.badges = badges
        self.source = source
        self.file = file
    }

    /// Catalogues are equal when their badges and label are (where a file was read from is not a difference).
    public static func == (a: Catalogue, b: Catalogue) -> Bool { a.badges == b.badges && a.source == b.source }

    public func badge(id: String) -> CatalogueBadge? { badges.first { $0.id == id } }

    /// Distance badges in the order a runner meets them: by distance, then id.
    public var distanceBadges: [CatalogueBadge] {
        badges.filter { $0.distanceMeters != nil }
            .sorted { ($0.distanceMeters ?? 0, $0.id) < ($1.distanceMeters ?? 0, $1.id) }
    }

    /// The distance badges as checkpoints for `RunAnalyzer` to locate on each route.
    public var checkpointTargets: [RunAnalyzer.CheckpointTarget] {
        distanceBadges.compactMap { badge in
            badge.distanceMeters.map { RunAnalyzer.CheckpointTarget(badge: badge.id, name: badge.name, distanceMeters: $0) }
        }
    }

    /// Reads a catalogue file.
    public static func load(path: String) throws -> Catalogue {
        let data: Data
        do {
            // A regular file of at most 16 MiB (a catalogue of thousands of badges is kilobytes).
            data = Data(try FileBytes.read(path: path, maximumBytes: 16 << 20))
        } catch let error as ActivityError {
            throw RulesError.catalogue(path: path, index: nil, reason: "cannot read: \(error.reason)")
        } catch {
            throw RulesError.catalogue(path: path, index: nil, reason: "cannot read: \(error)")
        }
        var catalogue = try parse(data, source: path)
        catalogue.file = ConfinedPath.standardizedAbsolute(path)
        return catalogue
    }

    /// Parses catalogue bytes (either format).
    public static func parse(_ data: Data, source: String) throws -> Catalogue {
        // JSONText, the one JSON reader: a repeated key or invalid UTF-8 is refused, saying at which byte.
        let root: JSONValue
        do {
            root = try JSONText.parse(Array(data), source: source)
        } catch let error as ActivityError {
            if case .malformed(_, _, let offset?, let reason) = error {
                throw RulesError.catalogue(path: source, index: nil, reason: "not valid JSON: byte \(offset): \(reason)")
            }
            throw RulesError.catalogue(path: source, index: nil, reason: "not valid JSON: \(error.reason)")
        }
        let entries: [JSONValue]
        if case .array(let array) = root {
            entries = array
        } else if case .object(let object) = root, case .array(let array)? = object["badges"] {
            entries = array
        } else {
            throw RulesError.catalogue(path: source, index: nil, reason: "expected a JSON array of badges (or an object with a 'badges' array)")
        }
        var badges: [CatalogueBadge] = []
        var seen: Set<String> = []
        for (index, entry) in entries.enumerated() {
            guard case .object(let object) = entry else {
                throw RulesError.catalogue(path: source, index: index, reason: "expected an object, found \(describe(entry))")
            }
            func text(_ key: String) -> String? { if case .string(let value)? = object[key] { return value }; return nil }
            guard let name = text("name"), !Trimming.spaces(name).isEmpty else {
                throw RulesError.catalogue(path: source, index: index, reason: "missing required field 'name' (a non-empty string)")
            }
            let information = text("information") ?? ""
            var distance: Double? = nil
            if let raw = object["distance"] ?? object["distance_m"] {
                if case .number(let number) = raw {
                    distance = number
                } else if case .string(let text) = raw, let value = Double(Trimming.spaces(text)) {
                    distance = value
                } else if raw != .null {
                    throw RulesError.catalogue(path: source, index: index, reason: "field 'distance' must be a number of metres or a string holding one, found \(describe(raw))")
                }
                if let d = distance, !(d.isFinite && d >= 0) {
                    throw RulesError.catalogue(path: source, index: index, reason: "field 'distance' must be a finite number ≥ 0, found \(d)")
                }
            }
            let image = text("image") ?? text("imageName")
            let id: String
            if let given = object["id"] {
                guard case .string(let text) = given, !text.isEmpty else {
                    throw RulesError.catalogue(path: source, index: index, reason: "field 'id' must be a non-empty string")
                }
                id = text
            } else {
                id = slug(name)
            }
            guard seen.insert(id).inserted else {
                throw RulesError.catalogue(path: source, index: index, reason: "duplicate badge id '\(id)'")
            }
            badges.append(CatalogueBadge(id: id, name: name, information: information, distanceMeters: distance, image: image))
        }
        return Catalogue(badges: badges, source: source)
    }

    /// `"Half Marathon!"` → `"half-marathon"`: lower-case ASCII letters and digits, runs of anything else as one dash.
    public static func slug(_ name: String) -> String {
        var out = ""
        var dash = false
        for scalar in name.lowercased().unicodeScalars {
            if (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") {
                if dash && !out.isEmpty { out.append("-") }
                out.unicodeScalars.append(scalar)
                dash = false
            } else {
                dash = true
            }
        }
        return out.isEmpty ? "badge" : out
    }

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .number(let number): return "the number " + (number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)")
        case .bool(let flag): return "the boolean \(flag)"
        default: return value.kind
        }
    }
}
