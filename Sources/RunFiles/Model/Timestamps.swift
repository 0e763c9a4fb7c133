/// UTC calendar arithmetic without Foundation's formatters (they are slow and locale-bound).
/// Epoch seconds are seconds since 1970-01-01T00:00:00Z.
public enum Timestamps {
    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date for days since 1970-01-01.
    public static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }

    /// The instants the writers below take as they are: years 0000 to 9999. A total function for
    /// anything else (which a reader never hands on: `Plausible.isEpoch`): not a number reads as
    /// 0000-01-01T00:00:00Z and an instant beyond these years as the nearest of them, never a trap.
    static let writableEpochs = -62_167_219_200.0...253_402_300_799.0

    /// `epoch` in `writableEpochs` (nan: its lower end), whole seconds towards the past.
    static func writable(_ epoch: Double) -> Int {
        guard !epoch.isNaN else { return Int(writableEpochs.lowerBound) }
        return Int(min(max(epoch, writableEpochs.lowerBound), writableEpochs.upperBound).rounded(.down))
    }

    /// `YYYY-MM-DDThh:mm:ssZ`, seconds truncated towards the past.
    public static func iso8601(_ epoch: Double) -> String {
        let whole = writable(epoch)
        var days = whole / 86_400
        var secs = whole % 86_400
        if secs < 0 { secs += 86_400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        if let text = digits(y, m, d, seconds: secs, zulu: true) { return text }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secs / 3600, 2)):\(pad(secs / 60 % 60, 2)):\(pad(secs % 60, 2))Z"
    }

    /// `YYYY-MM-DD`, with `Thh:mm:ss` when `seconds` (of the day) is given and `Z` when `zulu`,
    /// written byte by byte (string interpolation and `pad` cost a worker line more than its JSON).
    /// nil for a year outside 0...9999, which the interpolating code writes as it always has.
    private static func digits(_ y: Int, _ m: Int, _ d: Int, seconds: Int?, zulu: Bool) -> String? {
        guard (0...9999).contains(y) else { return nil }
        let count = seconds == nil ? 10 : (zulu ? 20 : 19)
        return String(unsafeUninitializedCapacity: count) { buffer in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var value = value
                for k in stride(from: offset + width - 1, through: offset, by: -1) {
                    buffer[k] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(y, 4, at: 0)
            buffer[4] = UInt8(ascii: "-")
            put(m, 2, at: 5)
            buffer[7] = UInt8(ascii: "-")
            put(d, 2, at: 8)
            if let seconds {
                buffer[10] = UInt8(ascii: "T")
                put(seconds / 3600, 2, at: 11)
                buffer[13] = UInt8(ascii: ":")
                put(seconds / 60 % 60, 2, at: 14)
                buffer[16] = UInt8(ascii: ":")
                put(seconds % 60, 2, at: 17)
                if zulu { buffer[19] = UInt8(ascii: "Z") }
            }
            return count
        }
    }

    /// `YYYY-MM-DD` of the instant shifted by `offsetSeconds`.
    public static func date(_ epoch: Double, offsetSeconds: Int = 0) -> String {
        let local = writable(epoch + Double(offsetSeconds))
        var days = local / 86_400
        if local % 86_400 < 0 { days -= 1 }
        let (y, m, d) = civilFromDays(days)
        if let text = digits(y, m, d, seconds: nil, zulu: false) { return text }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }

    /// `YYYY-MM-DDThh:mm:ss`: the wall-clock time of the instant shifted by `offsetSeconds`
    /// (seconds truncated towards the past), with no zone designator.
    public static func localTime(_ epoch: Double, offsetSeconds: Int) -> String {
        let whole = writable(epoch + Double(offsetSeconds))
        var days = whole / 86_400
        var secs = whole % 86_400
        if secs < 0 { secs += 86_400; days -= 1 }
        let (y, m, d) = civilFromDays(days)
        if let text = digits(y, m, d, seconds: secs, zulu: false) { return text }
        return String(iso8601(Double(whole)).dropLast())
    }

    package static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    /// The widest UTC offset a timestamp may carry: 14 hours, the widest any time zone uses (Kiribati's
    /// Line Islands, +14:00; the westernmost is -12:00).
    public static let maximumOffsetSeconds = 14 * 3600

    /// What is wrong with a timestamp `parse` read, in words: a day its month does not have
    /// (`2024-02-30`, which `parse` reads as 1 March), an offset's minutes past 59, or an offset beyond
    /// ±14:00 (`+25:00`). nil when there is nothing wrong (or `text` is not a timestamp `parse` reads).
    public static func calendarProblem(_ text: String) -> String? {
        let bytes = Array(text.utf8.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, !range.isEmpty else { return nil }
            var value = 0
            for k in range {
                guard bytes[k] >= 0x30, bytes[k] <= 0x39 else { return nil }
                value = value * 10 + Int(bytes[k] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), (1...12).contains(month) else { return nil }
        if civilFromDays(daysFromCivil(year: year, month: month, day: day)) != (year, month, day) {
            let names = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
            let last = civilFromDays(daysFromCivil(year: month == 12 ? year + 1 : year, month: month == 12 ? 1 : month + 1, day: 1) - 1).day
            return "\(names[month - 1]) \(year) has no day \(day) (it has \(last) days)"
        }
        // The offset: a sign after the time (past the date's own '-'), then hh, [:]mm.
        guard let sign = bytes.lastIndex(where: { $0 == 0x2B || $0 == 0x2D }), sign > 10 else { return nil }
        var end = bytes.count
        while end > sign, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 || bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D { end -= 1 }
        let written = String(decoding: bytes[sign..<end], as: UTF8.self)
        guard let hours = number((sign + 1)..<(sign + 3)) else { return nil }
        let minuteStart = sign + 3 < end && bytes[sign + 3] == 0x3A ? sign + 4 : sign + 3
        let minutes = minuteStart < end ? number(minuteStart..<min(minuteStart + 2, end)) ?? 0 : 0
        if minutes > 59 { return "the UTC offset \(written) has \(minutes) minutes (at most 59)" }
        if hours * 3600 + minutes * 60 > maximumOffsetSeconds {
            return "the UTC offset \(written) is beyond ±14:00, the widest any time zone uses"
        }
        return nil
    }

    /// Parses an ISO 8601 / RFC 3339 timestamp (`2024-05-01T06:30:00Z`, `...T08:30:00.250+02:00`,
    /// `...T06:30:00` taken as UTC). Returns epoch seconds and the offset the text carried, or nil.
    public static func parse(_ text: String) -> (epoch: Double, offsetSeconds: Int?)? {
        var bytes = Array(text.utf8)
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { parse($0.baseAddress!, count: bytes.count - 1) }
    }

    /// The date part (`YYYY-MM-DD`) of the last timestamp a reader parsed and its day number: the
    /// points of a run share one or two dates, so they skip the date's checks and calendar
    /// arithmetic. Empty until a date has been parsed.
    public struct DayCache {
        var head: UInt64 = 0  // bytes 0..<8 ("YYYY-MM-"); never 0 once filled
        var tail: UInt16 = 0  // bytes 8..<10 ("DD")
        var days = 0

        public init() {}
    }

    /// Byte-level parser used by the readers. `p` points at the first character; `count` bytes are valid.
    public static func parse(_ p: UnsafePointer<UInt8>, count: Int) -> (epoch: Double, offsetSeconds: Int?)? {
        var cache = DayCache()
        return parse(p, count: count, cache: &cache)
    }

    /// Byte-level parser used by the readers, remembering the date in `cache` across calls.
    public static func parse(_ p: UnsafePointer<UInt8>, count: Int, cache: inout DayCache) -> (epoch: Double, offsetSeconds: Int?)? {
        var i = 0
        // skip leading spaces
        while i < count, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0A || p[i] == 0x0D { i += 1 }
        @inline(__always) func digits(_ n: Int) -> Int? {
            guard i + n <= count else { return nil }
            var v = 0
            for k in 0..<n {
                let c = p[i + k] &- 0x30
                guard c <= 9 else { return nil }
                v = v * 10 + Int(c)
            }
            i += n
            return v
        }
        @inline(__always) func expect(_ c: UInt8) -> Bool {
            guard i < count, p[i] == c else { return false }
            i += 1
            return true
        }
        let days: Int
        let dateStart = i
        if i + 10 <= count, cache.head != 0, UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) == cache.head,
            UnsafeRawPointer(p + i + 8).loadUnaligned(as: UInt16.self) == cache.tail
        {
            days = cache.days
            i += 10
        } else {
            guard let year = digits(4), expect(0x2D), let month = digits(2), expect(0x2D), let day = digits(2) else { return nil }
            guard (1...12).contains(month), (1...31).contains(day) else { return nil }
            days = daysFromCivil(year: year, month: month, day: day)
            // Ten bytes were read: the date as written, which the next timestamp can match.
            cache.head = UnsafeRawPointer(p + dateStart).loadUnaligned(as: UInt64.self)
            cache.tail = UnsafeRawPointer(p + dateStart + 8).loadUnaligned(as: UInt16.self)
            cache.days = days
        }
        guard i < count, p[i] == 0x54 || p[i] == 0x74 || p[i] == 0x20 else { return nil }
        i += 1
        guard let hour = digits(2), expect(0x3A), let minute = digits(2), expect(0x3A), let second = digits(2) else { return nil }
        guard hour <= 24, minute <= 59, second <= 60 else { return nil }
        var fraction = 0.0
        if i < count, p[i] == 0x2E || p[i] == 0x2C {
            i += 1
            var scale = 0.1
            var any = false
            // Only zeros (`.000`): the loop below would leave the fraction at +0.0.
            var zeros = i
            while zeros < count, p[zeros] == 0x30 { zeros += 1 }
            if zeros > i, zeros == count || p[zeros] &- 0x30 > 9 {
                i = zeros
                any = true
            }
            while i < count, p[i] &- 0x30 <= 9 {
                fraction += Double(p[i] &- 0x30) * scale
                scale *= 0.1
                i += 1
                any = true
            }
            guard any else { return nil }
        }
        var offset: Int? = nil
        if i < count {
            let c = p[i]
            if c == 0x5A || c == 0x7A {
                offset = 0
                i += 1
            } else if c == 0x2B || c == 0x2D {
                i += 1
                guard let oh = digits(2) else { return nil }
                _ = expect(0x3A)
                let om = digits(2) ?? 0
                let o = oh * 3600 + om * 60
                offset = c == 0x2D ? -o : o
            }
        }
        while i < count, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0A || p[i] == 0x0D { i += 1 }
        guard i == count else { return nil }
        let local = Double(days * 86_400 + hour * 3600 + minute * 60 + second) + fraction
        return (local - Double(offset ?? 0), offset)
    }
}
