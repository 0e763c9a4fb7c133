#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-level helpers shared by the hand-written XML readers: searching, whitespace, decimal
/// numbers (XMLBytes+Numbers.swift), the predefined XML entities, line numbers. Nothing here
/// allocates on the hot path.
enum XMLBytes {
    /// What the readers say of a UTF-16 file (they read UTF-8, as every device and service writes).
    static let utf16Refusal = "UTF-16 is not supported; save it as UTF-8"

    /// True when the first bytes are UTF-16 text: a UTF-16 byte-order mark, or markup's first
    /// character (`<` or a space) as two bytes, one of them zero (UTF-16 without a mark).
    static func isUTF16(_ p: UnsafePointer<UInt8>, count: Int) -> Bool {
        guard count >= 2 else { return false }
        if (p[0] == 0xFF && p[1] == 0xFE) || (p[0] == 0xFE && p[1] == 0xFF) { return true }
        let (a, b) = (p[0], p[1])
        guard (a == 0) != (b == 0) else { return false }
        let character = a == 0 ? b : a
        return character == lessThan || character == 0x20 || character == 0x0A || character == 0x0D || character == 0x09
    }

    static let lessThan: UInt8 = 0x3C  // <
    static let greaterThan: UInt8 = 0x3E  // >
    static let slash: UInt8 = 0x2F  // /
    static let question: UInt8 = 0x3F  // ?
    static let bang: UInt8 = 0x21  // !
    static let colon: UInt8 = 0x3A  // :
    static let equals: UInt8 = 0x3D  // =
    static let doubleQuote: UInt8 = 0x22
    static let singleQuote: UInt8 = 0x27
    static let ampersand: UInt8 = 0x26
    static let semicolon: UInt8 = 0x3B

    /// Space, tab, CR, LF (the XML `S` production).
    @inline(__always)
    static func isSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09
    }

    /// Index of the first `byte` in `p[from..<to]`, or -1.
    @inline(__always)
    static func find(_ byte: UInt8, in p: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        guard from < to, let q = memchr(p + from, Int32(byte), to - from) else { return -1 }
        return UnsafeRawPointer(p).distance(to: UnsafeRawPointer(q))
    }

    /// Index just past the first `a b >` (`-->`, `]]>`) whose `a` is at or after `from`, or -1.
    @inline(__always)
    static func findTerminator(_ a: UInt8, _ b: UInt8, in p: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var k = from
        while true {
            let gt = find(greaterThan, in: p, from: k, to: to)
            if gt < 0 { return -1 }
            if gt - 2 >= from, p[gt - 1] == b, p[gt - 2] == a { return gt + 1 }
            k = gt + 1
        }
    }

    /// Index just past the first `a >` (`?>`) whose `a` is at or after `from`, or -1.
    @inline(__always)
    static func findTerminator(_ a: UInt8, in p: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var k = from
        while true {
            let gt = find(greaterThan, in: p, from: k, to: to)
            if gt < 0 { return -1 }
            if gt - 1 >= from, p[gt - 1] == a { return gt + 1 }
            k = gt + 1
        }
    }

    /// Index of the first byte at or after `i` (before `n`) that is not XML whitespace; runs of
    /// spaces (indentation) go eight at a time, and the spaces ending a run are counted from one
    /// word (its first byte that is not a space, by trailing zero bits).
    @inline(__always)
    static func skipSpace(_ p: UnsafePointer<UInt8>, from i: Int, to n: Int) -> Int {
        var k = i
        while k < n {
            if k + 8 <= n {
                let x = UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self) ^ 0x2020_2020_2020_2020
                if x == 0 {
                    k += 8
                    continue
                }
                k += x.trailingZeroBitCount >> 3
            }
            guard isSpace(p[k]) else { break }
            k += 1
        }
        return k
    }

    /// `skipSpace` for what follows a tag inside a track point: a newline and up to 16 spaces
    /// of indentation are counted without a branch on their length (the length changes with
    /// every nesting level, which a branch mispredicts); anything else, or more, goes on the
    /// general way. Same result as `skipSpace`.
    @inline(__always)
    static func skipIndentation(_ p: UnsafePointer<UInt8>, from k: Int, to n: Int) -> Int {
        var j = k
        if k + 18 <= n, p[k] == 0x0A {
            let spaces: UInt64 = 0x2020_2020_2020_2020
            let a = UnsafeRawPointer(p + k + 1).loadUnaligned(as: UInt64.self) ^ spaces
            let b = UnsafeRawPointer(p + k + 9).loadUnaligned(as: UInt64.self) ^ spaces
            let first = a.trailingZeroBitCount >> 3  // 8 when all eight are spaces
            j = k + 1 + first + (first >> 3) * (b.trailingZeroBitCount >> 3)
            if p[j] == lessThan { return j }
        }
        return skipSpace(p, from: j, to: n)
    }

    /// Index of the first `byte` in `p[from..<to]`, or -1, without a call: for the short runs of
    /// text inside a track point, where memchr's call and setup cost more than the search. Eight
    /// bytes at a time (SWAR: the lowest flagged byte is exact).
    @inline(__always)
    static func findShort(_ byte: UInt8, in p: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let pattern = UInt64(byte) &* ones
        var k = from
        while k &+ 8 <= to {
            let x = UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self) ^ pattern
            let m = (x &- ones) & ~x & 0x8080_8080_8080_8080
            if m != 0 { return k &+ m.trailingZeroBitCount >> 3 }
            k &+= 8
        }
        while k < to {
            if p[k] == byte { return k }
            k += 1
        }
        return -1
    }

    /// Index of the first byte at or after `j` (before `n`) that ends an element name: whitespace
    /// or another control byte, `>` or `/`. Sets `colon` to the index of the name's last `:` (or
    /// leaves it). Eight bytes at a time (SWAR: the lowest flagged byte of the terminator tests is
    /// exact; the colon test is exact in every byte).
    @inline(__always)
    static func nameEnd(_ p: UnsafePointer<UInt8>, from j: Int, to n: Int, colon: inout Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var k = j
        while k + 8 <= n {
            let w = UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self)
            let control = (w &- 0x21 &* ones) & ~w & highs
            let g = w ^ (0x3E &* ones)
            let gt = (g &- ones) & ~g & highs
            let s = w ^ (0x2F &* ones)
            let sl = (s &- ones) & ~s & highs
            let c = w ^ (0x3A &* ones)
            var colons = ~(((c & lows) &+ lows) | c | lows)
            let m = control | gt | sl
            if m != 0 {
                let t = m.trailingZeroBitCount / 8
                colons &= (1 << UInt64(8 * t)) &- 1
                if colons != 0 { colon = k + (63 - colons.leadingZeroBitCount) / 8 }
                return k + t
            }
            if colons != 0 { colon = k + (63 - colons.leadingZeroBitCount) / 8 }
            k += 8
        }
        while k < n {
            let b = p[k]
            if b == greaterThan || b == slash || b <= 0x20 { return k }
            if b == XMLBytes.colon { colon = k }
            k += 1
        }
        return n
    }

    /// Copies a short run of bytes (element names) without a call to memmove.
    @inline(__always)
    static func copy(_ from: UnsafePointer<UInt8>, to: UnsafeMutablePointer<UInt8>, count: Int) {
        if count >= 8 {
            var k = 0
            while k + 8 <= count {
                UnsafeMutableRawPointer(to + k).storeBytes(of: UnsafeRawPointer(from + k).loadUnaligned(as: UInt64.self), as: UInt64.self)
                k += 8
            }
            let last = count - 8
            UnsafeMutableRawPointer(to + last).storeBytes(of: UnsafeRawPointer(from + last).loadUnaligned(as: UInt64.self), as: UInt64.self)
        } else {
            for k in 0..<count { to[k] = from[k] }
        }
    }

    /// True when `a[0..<count]` and `b[0..<count]` hold the same bytes (words of eight at a time).
    @inline(__always)
    static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        if count >= 8 {
            var k = 0
            while k + 8 <= count {
                if UnsafeRawPointer(a + k).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(b + k).loadUnaligned(as: UInt64.self) { return false }
                k += 8
            }
            let last = count - 8
            return UnsafeRawPointer(a + last).loadUnaligned(as: UInt64.self) == UnsafeRawPointer(b + last).loadUnaligned(as: UInt64.self)
        }
        // Two overlapping loads cover 2...7 bytes.
        if count >= 4 {
            let last = count &- 4
            return UnsafeRawPointer(a).loadUnaligned(as: UInt32.self) == UnsafeRawPointer(b).loadUnaligned(as: UInt32.self)
                && UnsafeRawPointer(a + last).loadUnaligned(as: UInt32.self) == UnsafeRawPointer(b + last).loadUnaligned(as: UInt32.self)
        }
        if count >= 2 {
            let last = count &- 2
            return UnsafeRawPointer(a).loadUnaligned(as: UInt16.self) == UnsafeRawPointer(b).loadUnaligned(as: UInt16.self)
                && UnsafeRawPointer(a + last).loadUnaligned(as: UInt16.self) == UnsafeRawPointer(b + last).loadUnaligned(as: UInt16.self)
        }
        return count < 1 || a[0] == b[0]
    }

    /// `equal` for the longer runs of markup a track point's skeleton holds (`GPXScanner.skeletonPoint`):
    /// sixteen bytes a step, the differences gathered without a branch, one test at the end (a
    /// run that differs is rare there, and found as surely).
    @inline(__always)
    static func sameMarkup(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        guard count >= 16 else { return equal(a, b, count) }
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var difference: UInt64 = 0
        var k = 0
        while k &+ 16 <= count {
            difference |= (ra.loadUnaligned(fromByteOffset: k, as: UInt64.self) ^ rb.loadUnaligned(fromByteOffset: k, as: UInt64.self))
                | (ra.loadUnaligned(fromByteOffset: k &+ 8, as: UInt64.self) ^ rb.loadUnaligned(fromByteOffset: k &+ 8, as: UInt64.self))
            k &+= 16
        }
        // The last sixteen bytes (overlapping those already compared).
        let last = count &- 16
        difference |= (ra.loadUnaligned(fromByteOffset: last, as: UInt64.self) ^ rb.loadUnaligned(fromByteOffset: last, as: UInt64.self))
            | (ra.loadUnaligned(fromByteOffset: last &+ 8, as: UInt64.self) ^ rb.loadUnaligned(fromByteOffset: last &+ 8, as: UInt64.self))
        return difference == 0
    }

    /// Appends `p[from..<to]` to `out`, replacing the five predefined entities (`&lt;` `&gt;` `&amp;`
    /// `&quot;` `&apos;`) and numeric character references. Any other `&name;` is kept literally:
    /// entities declared in a DTD are never expanded.
    static func appendDecoded(_ p: UnsafePointer<UInt8>, from: Int, to: Int, into out: inout [UInt8]) {
        var k = from
        while k < to {
            let amp = find(ampersand, in: p, from: k, to: to)
            if amp < 0 {
                out.append(contentsOf: UnsafeBufferPointer(start: p + k, count: to - k))
                return
            }
            if amp > k { out.append(contentsOf: UnsafeBufferPointer(start: p + k, count: amp - k)) }
            let semi = find(semicolon, in: p, from: amp + 1, to: min(to, amp + 12))
            if semi > amp + 1, let scalar = decodeReference(p + amp + 1, count: semi - amp - 1) {
                appendUTF8(scalar, into: &out)
                k = semi + 1
            } else {
                out.append(ampersand)
                k = amp + 1
            }
        }
    }

    /// The character an entity or character reference body (`lt`, `#65`, `#x41`) stands for.
    static func decodeReference(_ p: UnsafePointer<UInt8>, count: Int) -> UInt32? {
        let body = UnsafeBufferPointer(start: p, count: count)
        switch Array(body) {
        case Array("lt".utf8): return 0x3C
        case Array("gt".utf8): return 0x3E
        case Array("amp".utf8): return 0x26
        case Array("quot".utf8): return 0x22
        case Array("apos".utf8): return 0x27
        default: break
        }
        guard count >= 2, p[0] == 0x23 else { return nil }  // '#'
        var value: UInt32 = 0
        if p[1] | 0x20 == 0x78 {  // x
            guard count >= 3 else { return nil }
            for k in 2..<count {
                let c = p[k]
                let d: UInt8
                switch c {
                case 0x30...0x39: d = c - 0x30
                case 0x41...0x46: d = c - 0x41 + 10
                case 0x61...0x66: d = c - 0x61 + 10
                default: return nil
                }
                value = value &* 16 &+ UInt32(d)
                if value > 0x10FFFF { return nil }
            }
        } else {
            for k in 1..<count {
                let d = p[k] &- 0x30
                guard d <= 9 else { return nil }
                value = value &* 10 &+ UInt32(d)
                if value > 0x10FFFF { return nil }
            }
        }
        guard value > 0, Unicode.Scalar(value) != nil else { return nil }
        return value
    }

    static func appendUTF8(_ v: UInt32, into out: inout [UInt8]) {
        guard let scalar = Unicode.Scalar(v) else { return }
        out.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    /// 1-based line number of byte `offset` in `p[0..<count]` (counts the newlines before it).
    static func lineNumber(in p: UnsafePointer<UInt8>, count: Int, offset: Int) -> Int {
        1 + countNewlines(p, count: min(offset, count))
    }

    static func countNewlines(_ p: UnsafePointer<UInt8>, count: Int) -> Int {
        var lines = 0
        var k = 0
        while k < count {
            let nl = find(0x0A, in: p, from: k, to: count)
            if nl < 0 { break }
            lines += 1
            k = nl + 1
        }
        return lines
    }
}
