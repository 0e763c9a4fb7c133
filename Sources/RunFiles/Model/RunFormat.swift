import Foundation

/// The formats badgectl reads, spelled as the JSON output spells them (`RunSummary.format`).
///
/// A path is classified once, by `RunFormat.of(path:)`: its suffix names the format and whether
/// the file is gzip-compressed. A `.json` file is a run summary unless its first key says it is a
/// device's log (`DeviceJSON.kind`: Suunto, Polar Flow). To add a reader: add a case, its suffixes in `suffixes`, and a
/// case in `RunLoader.load`.
public enum RunFormat: String, Sendable, Equatable, CaseIterable {
    case gpx, tcx, fit, json
    /// Suunto's SML (the XML of Ambit watches, `.sml`).
    case sml
    /// A Suunto device log as JSON (Suunto 9 and the Suunto app: `{"DeviceLog": …}`), in a `.json` file.
    case suuntoJSON = "suunto_json"
    /// A Polar Flow training session (`{"exportVersion": …, "exercises": […]}`), in a `.json` file.
    case polarJSON = "polar_json"
    /// A workout of an Apple Health export (`export.xml`, read by `RunArchive`, never by suffix).
    case appleHealth = "apple_health"

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
        (".sml", Kind(format: .sml, gzipped: false)), (".sml.gz", Kind(format: .sml, gzipped: true)),
    ]

    /// Which reader handles a path: by the suffix of its last component, case-insensitive.
    /// nil = not a run file (a name that is only a suffix, like `.gpx`, is none).
    public static func of(path: String) -> Kind? {
        let name = lastComponent(of: path).lowercased()
        var best: (length: Int, kind: Kind)?
        for entry in suffixes where name.hasSuffix(entry.suffix) && name.count > entry.suffix.count {
            if entry.suffix.count > (best?.length ?? 0) { best = (entry.suffix.count, entry.kind) }
        }
        return best?.kind
    }

    /// The last component of a path, as `NSString.lastPathComponent` gives it: trailing slashes
    /// dropped, "/" for "/", "" for "" and for two slashes or more alone. Read off the UTF-8 bytes: Foundation's
    /// version builds a normalised copy of the whole path first (about 9,700 instructions a call,
    /// 3% of a warm `evaluate` of 1,000 runs, which asks it three times per file).
    public static func lastComponent(of path: String) -> Substring {
        let bytes = path.utf8
        let slash = UInt8(ascii: "/")
        var end = bytes.endIndex
        while end > bytes.startIndex, bytes[bytes.index(before: end)] == slash { end = bytes.index(before: end) }
        if end == bytes.startIndex { return path == "/" ? "/" : "" }
        var start = end
        while start > bytes.startIndex, bytes[bytes.index(before: start)] != slash { start = bytes.index(before: start) }
        // "/" is ASCII: both ends fall on scalar boundaries.
        return path[start..<end]
    }

    /// The format of a path (see `of(path:)`), nil when it is not a run file.
    public init?(path: String) {
        guard let kind = RunFormat.of(path: path) else { return nil }
        self = kind.format
    }

    /// What a file's first bytes look like, in words for a message ("a zip archive", "gzip data",
    /// "a FIT file", "a GPX file", "a TCX file", "XML", "JSON", "plain text", "binary data"), nil
    /// when there are none. Used when a file is not the format its name says, so the message can
    /// say what it is instead (a zip named `.gpx.gz`, a FIT file named `.gpx`).
    public static func looksLike(_ prefix: ArraySlice<UInt8>) -> String? {
        let bytes = Array(prefix)
        guard !bytes.isEmpty else { return nil }
        if bytes.starts(with: [0x50, 0x4B, 0x03, 0x04]) || bytes.starts(with: [0x50, 0x4B, 0x05, 0x06]) { return "a zip archive" }
        if bytes.starts(with: [0x1F, 0x8B]) { return "gzip data" }
        if bytes.count >= 12, bytes[8] == 0x2E, bytes[9] == 0x46, bytes[10] == 0x49, bytes[11] == 0x54 { return "a FIT file" }
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        let text = String(decoding: bytes[start...], as: UTF8.self)
        if text.hasPrefix("<") {
            if text.contains("<gpx") || text.contains(":gpx") { return "a GPX file" }
            if text.contains("TrainingCenterDatabase") { return "a TCX file" }
            if text.contains("<sml") { return "a Suunto SML file" }
            return "XML"
        }
        if text.hasPrefix("{") || text.hasPrefix("[") { return "JSON" }
        let printable = bytes.allSatisfy { $0 >= 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        return printable && !text.contains("\u{FFFD}") ? "plain text" : "binary data"
    }

    /// The words `looksLike` gives for what this format's files hold (to leave the hint out when
    /// the content is what the name says, and only broken).
    public var lookedLike: String {
        switch self {
        case .gpx: return "a GPX file"
        case .tcx: return "a TCX file"
        case .fit: return "a FIT file"
        case .json, .suuntoJSON, .polarJSON: return "JSON"
        case .sml: return "a Suunto SML file"
        case .appleHealth: return "XML"
        }
    }
}
