/// The slice of the Garmin FIT protocol and profile that badgectl reads and writes.
///
/// Written from the public FIT protocol description (file header, record headers, definition
/// messages, base types, CRC) and the global profile (`record`, `lap`, `session`, `event`, `sport`,
/// `activity`, `file_id`). Only the messages and fields a run summary needs are named here; all
/// others are decoded structurally (their sizes come from the definition message) and skipped.
public enum FITProfile {
    /// Seconds from 1970-01-01T00:00:00Z to the FIT epoch 1989-12-31T00:00:00Z.
    public static let epochOffset: Double = 631_065_600
    /// Degrees per semicircle: 180 / 2^31.
    public static let degreesPerSemicircle: Double = 180.0 / 2_147_483_648.0

    /// Global message numbers.
    public enum Message {
        public static let fileID: UInt16 = 0
        public static let sport: UInt16 = 12
        public static let session: UInt16 = 18
        public static let lap: UInt16 = 19
        public static let record: UInt16 = 20
        public static let event: UInt16 = 21
        public static let activity: UInt16 = 34
        /// A pool swim's length.
        public static let length: UInt16 = 101
    }

    /// Field numbers shared by every message.
    public static let timestampField: UInt8 = 253

    /// Base type numbers (the byte written in a field definition; bit 7 marks multi-byte types).
    public enum BaseType {
        public static let enumeration: UInt8 = 0x00
        public static let sint8: UInt8 = 0x01
        public static let uint8: UInt8 = 0x02
        public static let sint16: UInt8 = 0x83
        public static let uint16: UInt8 = 0x84
        public static let sint32: UInt8 = 0x85
        public static let uint32: UInt8 = 0x86
        public static let string: UInt8 = 0x07
        public static let float32: UInt8 = 0x88
        public static let float64: UInt8 = 0x89
        public static let uint8z: UInt8 = 0x0A
        public static let uint16z: UInt8 = 0x8B
        public static let uint32z: UInt8 = 0x8C
        public static let byte: UInt8 = 0x0D
        public static let sint64: UInt8 = 0x8E
        public static let uint64: UInt8 = 0x8F
        public static let uint64z: UInt8 = 0x90

        /// Size in bytes of one value of a base type (by its low five bits), 0 when unknown.
        @inline(__always)
        package static func size(_ baseType: UInt8) -> Int {
            switch baseType & 0x1F {
            case 0, 1, 2, 7, 10, 13: return 1
            case 3, 4, 11: return 2
            case 5, 6, 8, 12: return 4
            case 9, 14, 15, 16: return 8
            default: return 0
            }
        }
    }

    /// Event numbers and types used for timer pauses.
    public enum Event {
        public static let timer: UInt8 = 0
        public static let start: UInt8 = 0
        public static let stop: UInt8 = 1
        public static let stopAll: UInt8 = 4
        public static let stopDisable: UInt8 = 8
        public static let stopDisableAll: UInt8 = 9
    }

    /// The profile's `sport` enum, as the words the profile uses: entry `k` is sport `k`'s word, ""
    /// for a number the profile does not name (254, "all", is `sportName`'s own case).
    /// (An array, not a `[UInt8: String]`, for the reason `isIndoorSubSport` gives.)
    static let sportWords: [String] = [
        "generic", "running", "cycling", "transition", "fitness_equipment", "swimming",
        "basketball", "soccer", "tennis", "american_football", "training", "walking",
        "cross_country_skiing", "alpine_skiing", "snowboarding", "rowing", "mountaineering",
        "hiking", "multisport", "paddling", "flying", "e_biking", "motorcycling",
        "boating", "driving", "golf", "hang_gliding", "horseback_riding", "hunting",
        "fishing", "inline_skating", "rock_climbing", "sailing", "ice_skating",
        "sky_diving", "snowshoeing", "snowmobiling", "stand_up_paddleboarding", "surfing",
        "wakeboarding", "water_skiing", "kayaking", "rafting", "windsurfing",
        "kitesurfing", "tactical", "jumpmaster", "boxing", "floor_climbing",
        "", "", "", "", "diving",
    ]

    /// The profile's `sport` enum as a dictionary, for code that used it before `sportName` read an
    /// array (made on first use only, so that `summarize` never instantiates it).
    @available(*, deprecated, message: "use FITProfile.sportName(_:)")
    public static var sportNames: [UInt8: String] { sportNameTable }

    private static let sportNameTable: [UInt8: String] = {
        var table: [UInt8: String] = [254: "all"]
        for (k, word) in sportWords.enumerated() where !word.isEmpty { table[UInt8(k)] = word }
        return table
    }()

    /// `sub_sport` values that say the activity was indoors: treadmill (1), indoor cycling (6), virtual
    /// activity (58), indoor running (45).
    /// (A switch, not a `Set`, as `manufacturerName` is no dictionary: the first hashed collection of
    /// a type makes the runtime look its `Hashable` conformance up through every conformance record of
    /// the static binary; the two tables were 0.6 % of the samples of `summarize` of a 100k-record file.)
    public static func isIndoorSubSport(_ value: UInt8) -> Bool {
        switch value {
        case 1, 6, 45, 58: return true
        default: return false
        }
    }

    /// Makers of running devices by their `manufacturer` number (the profile's names, capitalised as the
    /// makers write them); nil for another number, which names no device.
    public static func manufacturerName(_ value: UInt16) -> String? {
        switch value {
        case 1: return "Garmin"
        case 23: return "Suunto"
        case 32: return "Wahoo Fitness"
        case 123: return "Polar"
        case 255: return "Development"
        case 260: return "Zwift"
        case 265: return "Strava"
        case 289: return "Hammerhead"
        case 294: return "Coros"
        default: return nil
        }
    }

    /// The word for a FIT sport number, or the number itself as text when the profile has no word for it.
    public static func sportName(_ value: UInt8) -> String {
        if value == 254 { return "all" }
        let k = Int(value)
        if k < sportWords.count, !sportWords[k].isEmpty { return sportWords[k] }
        return String(value)
    }

    static let crcTable: [UInt16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ]

    /// The FIT CRC-16 (the SDK's nibble table; the same polynomial as CRC-16/ARC, initial value 0),
    /// continued from `crc` over `bytes`.
    public static func crc16<C: Collection>(_ bytes: C, start crc: UInt16 = 0) -> UInt16 where C.Element == UInt8 {
        var crc = crc
        for byte in bytes { crc = crc16(crc, byte) }
        return crc
    }

    @inline(__always)
    static func crc16(_ crc: UInt16, _ byte: UInt8) -> UInt16 {
        var crc = crc
        var tmp = crcTable[Int(crc & 0xF)]
        crc = (crc >> 4) & 0x0FFF
        crc = crc ^ tmp ^ crcTable[Int(byte & 0xF)]
        tmp = crcTable[Int(crc & 0xF)]
        crc = (crc >> 4) & 0x0FFF
        crc = crc ^ tmp ^ crcTable[Int((byte >> 4) & 0xF)]
        return crc
    }

    /// The same CRC a byte at a time: entry `i` is the nibble algorithm applied to byte `i` from 0
    /// (the usual table-driven form of a reflected CRC); four times fewer lookups for whole files.
    static let byteTable: [UInt16] = (0..<256).map { crc16(0, UInt8($0)) }

    /// Slicing-by-16 tables: `sliceTables[256 * k + b]` is the CRC of byte `b` followed by `k` zero
    /// bytes. Sixteen bytes then cost sixteen independent lookups instead of a chain of sixteen; only
    /// the first two depend on the CRC so far, so the chain the processor waits on is one lookup per
    /// sixteen bytes (by eight it was one per eight: 4 % of a 100k-record `summarize --no-cache`).
    static let sliceTables: [UInt16] = {
        var tables = [UInt16](repeating: 0, count: 256 * 16)
        for b in 0..<256 { tables[b] = byteTable[b] }
        for k in 1..<16 {
            for b in 0..<256 {
                let previous = tables[256 * (k - 1) + b]
                tables[256 * k + b] = (previous >> 8) ^ byteTable[Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    /// The CRC of bytes `from..<to` of `p`, from 0.
    static func crc16(_ p: UnsafeRawBufferPointer, from: Int, to: Int) -> UInt16 {
        var crc: UInt16 = 0
        guard let base = p.baseAddress, from < to else { return crc }
        sliceTables.withUnsafeBufferPointer { t in
            @inline(__always) func at(_ k: Int, _ byte: UInt64) -> UInt16 { t[256 * k + Int(truncatingIfNeeded: byte & 0xFF)] }
            var i = from
            while i + 16 <= to {
                let a = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) ^ UInt64(crc)
                let b = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
                crc = at(15, a) ^ at(14, a >> 8) ^ at(13, a >> 16) ^ at(12, a >> 24)
                    ^ at(11, a >> 32) ^ at(10, a >> 40) ^ at(9, a >> 48) ^ at(8, a >> 56)
                    ^ at(7, b) ^ at(6, b >> 8) ^ at(5, b >> 16) ^ at(4, b >> 24)
                    ^ at(3, b >> 32) ^ at(2, b >> 40) ^ at(1, b >> 48) ^ at(0, b >> 56)
                i += 16
            }
            while i < to {
                crc = (crc >> 8) ^ t[Int(UInt8(truncatingIfNeeded: crc) ^ p[i])]
                i += 1
            }
        }
        return crc
    }
}
