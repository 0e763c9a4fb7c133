/// The one JSON string writer: every JSON that badgectl writes by hand (the worker's lines, the
/// generator's summaries) quotes its strings here. Quotes, backslashes and control characters are
/// escaped as `JSONEncoder` escapes them (`\n`, `\r`, `\t`, `\b`, `\f`, otherwise `\u` and four
/// lowercase hex digits); everything else, slashes and non-ASCII included, is written as it is (UTF-8).
public enum JSONString {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string, quotes included.
    public static func quoted(_ text: String) -> String {
        var out = ""
        append(text, to: &out)
        return out
    }

    /// Appends `text` as a JSON string, quotes included, to `out` (UTF-8 bytes): the same bytes as
    /// `append(_:to:)` on a `String`. Reads the string's own UTF-8 storage (the worker writes every
    /// award and status through here: iterating `utf8` a byte at a time cost 6 % of its work).
    public static func append(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { append(utf8: $0, to: &out) }
    }

    /// Appends the UTF-8 text in `bytes` (valid UTF-8) as a JSON string, quotes included.
    private static func append(utf8 bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var plainUpTo = 0
        // Eight bytes at a time while none is a control character, a quote or a backslash (the
        // classic "has a byte less than n / equal to v" word tests; exact as to whether one is there).
        if let base = bytes.baseAddress {
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            while plainUpTo + 8 <= bytes.count {
                let word = UnsafeRawPointer(base + plainUpTo).loadUnaligned(as: UInt64.self)
                let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                let special = (word &- ones &* 0x20) & ~word | (quote &- ones) & ~quote | (backslash &- ones) & ~backslash
                if special & highs != 0 { break }
                plainUpTo += 8
            }
        }
        while plainUpTo < bytes.count {
            let byte = bytes[plainUpTo]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { break }
            plainUpTo += 1
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[0..<plainUpTo]))
        for byte in bytes[plainUpTo...] {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case let control where control < 0x20:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                        hex[Int(control >> 4)], hex[Int(control & 0xF)]])
            default: out.append(byte)  // UTF-8 bytes as they are (a valid String's bytes)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `text` as a JSON string, quotes included, to `out`: the bytes `append(_:to:)` writes.
    public static func append(_ text: String, to out: inout String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        append(text, to: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }
}

/// The one writer of a number as `JSONEncoder` writes a `Double` (the worker's lines, the state
/// database's award rows): Swift's shortest form without a trailing `.0`, `-0` for negative zero.
public enum JSONNumber {
    /// Appends finite `value` to `out`. Whole numbers below 10^15 (counts, most distances) are
    /// written as integers without going through `description`: the same digits.
    public static func append(_ value: Double, to out: inout [UInt8]) {
        precondition(value.isFinite, "JSON has no non-finite numbers: the caller says what stands for them")
        if value.magnitude < 1e15, value == value.rounded(.towardZero), !(value == 0 && value.sign == .minus) {
            out.append(contentsOf: String(Int(value)).utf8)
            return
        }
        let text = value.description
        if text.hasSuffix(".0") { out.append(contentsOf: text.utf8.dropLast(2)) } else { out.append(contentsOf: text.utf8) }
    }
}
