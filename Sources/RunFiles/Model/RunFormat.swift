import Foundation

/// The formats badgectl reads, spelled as the JSON output spells them (`RunSummary.format`).
///
/// A path is classified once, by `RunFormat.of(path:)`: its suffix names the format and whether
/// the file is gzip-compressed. To add a reader: add a case, its suffixes in `suffixes`, and a
/// case in `RunLoader.load`.
public enum RunFormat: String, Sendable, Equatable, CaseIterable {
    case gpx, tcx, fit, json

    /// A run file's format and whether it is gzip-compressed (`.gpx.gz`).
    public struct Kind: Sendable, Equatable {
        public var format: RunFormat
        public var gzipped: Bool
    }

    /// Run-file suffixes (lower case; the longest that matches wins).
    public static let suffixes: [(suffix: String, kind: Kind)] = [
        (".gpx", Kind(format: .gpx, gzipped: false)), (".gpx.gz", Kind(format: .gpx, gzipped: true)),
        (".tcx", Kind(format: .tcx, gzipped: false)), (".tcx.gz", Kind(format: .tcx, gzipped: true)),
        (".fit", Kind(format: .fit, gzipped: false)), (".fit.gz", Kind(format: .fit, gzipped: true)),
        (".json", Kind(format: .json, gzipped: false)),
    ]

    /// Which reader handles a path: by the suffix of its last component, case-insensitive.
    /// nil = not a run file (a name that is only a suffix, like `.gpx`, is none).
    public static func of(path: String) -> Kind? {
        let name = (path as NSString).lastPathComponent.lowercased()
        var best: (length: Int, kind: Kind)?
        for entry in suffixes where name.hasSuffix(entry.suffix) && name.count > entry.suffix.count {
            if entry.suffix.count > (best?.length ?? 0) { best = (entry.suffix.count, entry.kind) }
        }
        return best?.kind
    }

    /// The format of a path (see `of(path:)`), nil when it is not a run file.
    public init?(path: String) {
        guard let kind = RunFormat.of(path: path) else { return nil }
        self = kind.format
    }
}
