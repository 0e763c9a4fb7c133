#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte-level helpers shared by the hand-written XML readers: searching, whitespace, decimal
/// numbers, the predefined XML entities, line numbers. Nothing here allocates on the hot path.
enum XMLBytes {
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

    /// True when every byte of `p[from..<to]` is XML whitespace.
    static func isAllSpace(_ p: UnsafePointer<UInt8>, from: Int, to: Int) -> Bool {
        var k = from
        while k < to {
            if !isSpace(p[k]) { return false }
            k += 1
        }
        return true
    }

    /// 10^e for 0 ≤ e ≤ 22 (the powers of ten that are exact in a Double). A switch of literals
    /// compiles to a table lookup, with no lazy global to check on every call.
    @inline(__always)
    static func exactPowerOfTen(_ e: Int) -> Double {
        switch e {
        case 0: return 1e0
        case 1: return 1e1
        case 2: return 1e2
        case 3: return 1e3
        case 4: return 1e4
        case 5: return 1e5
        case 6: return 1e6
        case 7: return 1e7
        case 8: return 1e8
        case 9: return 1e9
        case 10: return 1e10
        case 11: return 1e11
        case 12: return 1e12
        case 13: return 1e13
        case 14: return 1e14
        case 15: return 1e15
        case 16: return 1e16
        case 17: return 1e17
        case 18: return 1e18
        case 19: return 1e19
        case 20: return 1e20
        case 21: return 1e21
        default: return 1e22
        }
    }

    /// 10^e as an integer for 0 ≤ e ≤ 8.
    @inline(__always)
    static func exactIntegerPowerOfTen(_ e: Int) -> UInt64 {
        switch e {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1000
        case 4: return 10000
        case 5: return 100_000
        case 6: return 1_000_000
        case 7: return 10_000_000
        default: return 100_000_000
        }
    }

    /// Parses a decimal number (`-74.179619`, `+1.5e3`, ` 147.1999969482421875 `) straight from bytes.
    ///
    /// Up to 19 significant digits are kept in an integer, further digits are truncated (they change
    /// the value by less than 10⁻¹⁸ relative). With ≤ 15 digits and a small exponent the result is
    /// correctly rounded (one exact integer, one exact power of ten, one IEEE division); with 16–19
    /// digits it is within 1 ulp. Exponents beyond ±22 go to `strtod`. Returns nil for anything that
    /// is not a finite decimal number: empty, `NaN`, `inf`, `1,5`, trailing junk.
    @inline(__always)
    static func parseDouble(_ p: UnsafePointer<UInt8>, count: Int) -> Double? {
        // A short run of digits (heart rate, cadence): the integer, exactly as below.
        if count > 0, count <= 4 {
            var v = 0
            var k = 0
            while k < count {
                let d = p[k] &- 0x30
                if d > 9 { break }
                v = v &* 10 &+ Int(d)
                k += 1
            }
            if k == count { return Double(v) }
        }
        if count >= 8, let v = parseDecimalWords(p, count: count) { return v }
        return parseDoubleGeneral(p, count: count)
    }

    /// The usual shape of a coordinate or an elevation, `[-+]d[d…].ddd…` with one to seven integer
    /// digits (the first not 0) and nothing after the fraction, read eight bytes at a time: nil for
    /// any other shape (the general parser then decides). The value is exactly the general parser's:
    /// the first 19 significant digits (the integer digits, then as many fraction digits as fit) make
    /// the integer mantissa, later digits are only checked, and the one division is by 10^(fraction
    /// digits taken). The three words of fraction digits are converted independently and combined,
    /// instead of one long digit-by-digit chain. Needs `count >= 8`: a word that would run past the
    /// end is loaded from `end - 8` and shifted, so no byte outside `p[0..<count]` is read.
    @inline(__always)
    static func parseDecimalWords(_ p: UnsafePointer<UInt8>, count: Int) -> Double? {
        var end = count
        while end > 0, isSpace(p[end &- 1]) { end &-= 1 }
        guard end >= 8 else { return nil }
        var i = 0
        while isSpace(p[i]) { i &+= 1 }  // stops at the last byte, which is not a space
        let negative = p[i] == 0x2D
        if negative || p[i] == 0x2B { i &+= 1 }
        // Integer part: one word, its first non-digit must be the point, at index 1...7.
        let wi = word(p, at: i, end: end)
        let nonDigitsI = nonDigitBytes(wi)
        guard wi & 0xFF != 0x30, nonDigitsI != 0 else { return nil }
        let intCount = nonDigitsI.trailingZeroBitCount >> 3
        guard intCount >= 1, (wi >> UInt64(8 &* intCount)) & 0xFF == 0x2E else { return nil }
        let intValue = eightDigits(wi << UInt64(8 &* (8 &- intCount)))
        // Fraction: every byte up to `end` must be a digit. The last eight bytes are one word (with
        // the flags of bytes before the fraction shifted out: those are digits, the point, a sign
        // or spaces, none of which carries into the next byte), the first 8, 16 or 24 are whole
        // words, and only a fraction of more than 32 digits needs a loop.
        let f = i &+ intCount &+ 1
        let fractionCount = end &- f
        guard fractionCount >= 1 else { return nil }
        let last = UnsafeRawPointer(p + (end &- 8)).loadUnaligned(as: UInt64.self)
        let before = UInt64(8 &* max(0, 8 &- fractionCount))  // bits of `last` before the fraction
        var nonDigits = nonDigitBytes(last) >> before
        let w0 = fractionCount >= 8 ? UnsafeRawPointer(p + f).loadUnaligned(as: UInt64.self) : last >> before
        var w1: UInt64 = 0
        var w2: UInt64 = 0
        if fractionCount > 8 {
            nonDigits |= nonDigitBytes(w0)
            w1 = fractionCount >= 16 ? UnsafeRawPointer(p + (f &+ 8)).loadUnaligned(as: UInt64.self)
                : last >> UInt64(8 &* (16 &- fractionCount))
            if fractionCount > 16 {
                nonDigits |= nonDigitBytes(w1)
                w2 = fractionCount >= 24 ? UnsafeRawPointer(p + (f &+ 16)).loadUnaligned(as: UInt64.self)
                    : last >> UInt64(8 &* (24 &- fractionCount))
                if fractionCount > 24 {
                    nonDigits |= nonDigitBytes(w2)
                    var q = f &+ 24
                    while q &+ 8 < end {
                        nonDigits |= nonDigitBytes(UnsafeRawPointer(p + q).loadUnaligned(as: UInt64.self))
                        q &+= 8
                    }
                }
            }
        }
        guard nonDigits == 0 else { return nil }
        // The first 19 - intCount fraction digits (or all) join the mantissa, up to three words
        // converted independently.
        let taken = min(fractionCount, 19 &- intCount)  // 1...18
        var mantissa = intValue &* integerPowerOfTen(taken)
        if taken <= 8 {
            mantissa = mantissa &+ leadingDigits(w0, taken)
        } else if taken <= 16 {
            mantissa = mantissa &+ eightDigits(w0) &* integerPowerOfTen(taken &- 8) &+ leadingDigits(w1, taken &- 8)
        } else {
            mantissa = mantissa &+ eightDigits(w0) &* integerPowerOfTen(taken &- 8)
                &+ eightDigits(w1) &* integerPowerOfTen(taken &- 16) &+ leadingDigits(w2, taken &- 16)
        }
        // Below 2^63 the signed conversion (one instruction) rounds exactly as the unsigned one.
        let converted = mantissa < 1 << 63 ? Double(Int64(bitPattern: mantissa)) : Double(mantissa)
        let value = converted / exactPowerOfTen(taken)
        return negative ? -value : value
    }

    /// The eight bytes `p[at..<at + 8]` little-endian, bytes at or past `end` read as 0 (`end >= 8`).
    @inline(__always)
    static func word(_ p: UnsafePointer<UInt8>, at: Int, end: Int) -> UInt64 {
        if at &+ 8 <= end { return UnsafeRawPointer(p + at).loadUnaligned(as: UInt64.self) }
        if at >= end { return 0 }
        let w = UnsafeRawPointer(p + (end &- 8)).loadUnaligned(as: UInt64.self)
        return w >> UInt64(8 &* (at &+ 8 &- end))
    }

    /// Nonzero exactly in the bytes of `w` that are not ASCII digits, at least in the lowest such
    /// byte (a carry out of a byte ≥ 0xFA may also mark the next one, which is later in the text).
    @inline(__always)
    static func nonDigitBytes(_ w: UInt64) -> UInt64 {
        ((w & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030)
            | (((w &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) ^ 0x3030_3030_3030_3030)
    }

    /// The value of the first `r` (1...8) digits of a word of digits.
    @inline(__always)
    static func leadingDigits(_ w: UInt64, _ r: Int) -> UInt64 {
        eightDigits(r >= 8 ? w : w << UInt64(8 &* (8 &- r)))
    }

    /// 10^e for 0 ≤ e ≤ 19.
    @inline(__always)
    static func integerPowerOfTen(_ e: Int) -> UInt64 {
        switch e {
        case 0: return 1
        case 1: return 10
        case 2: return 100
        case 3: return 1000
        case 4: return 10000
        case 5: return 100_000
        case 6: return 1_000_000
        case 7: return 10_000_000
        case 8: return 100_000_000
        case 9: return 1_000_000_000
        case 10: return 10_000_000_000
        case 11: return 100_000_000_000
        case 12: return 1_000_000_000_000
        case 13: return 10_000_000_000_000
        case 14: return 100_000_000_000_000
        case 15: return 1_000_000_000_000_000
        case 16: return 10_000_000_000_000_000
        case 17: return 100_000_000_000_000_000
        case 18: return 1_000_000_000_000_000_000
        default: return 10_000_000_000_000_000_000
        }
    }

    /// Every shape `parseDouble` accepts: spaces, sign, integer digits, fraction, exponent.
    @inline(never)
    static func parseDoubleGeneral(_ p: UnsafePointer<UInt8>, count: Int) -> Double? {
        var i = 0
        var end = count
        while i < end, isSpace(p[i]) { i += 1 }
        while end > i, isSpace(p[end - 1]) { end -= 1 }
        guard i < end else { return nil }
        var negative = false
        if p[i] == 0x2D {
            negative = true
            i += 1
        } else if p[i] == 0x2B {
            i += 1
        }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var anyDigit = false
        while i < end {
            let d = p[i] &- 0x30
            if d > 9 { break }
            anyDigit = true
            if digits < 19 {
                if mantissa != 0 || d != 0 {
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    digits += 1
                }
            } else {
                exponent += 1
            }
            i += 1
        }
        if i < end, p[i] == 0x2E {
            i += 1
            while i < end {
                // Eight digits at a time (SWAR, as in simdjson), exactly as the loop below would
                // take them one by one: leading zeros only move the exponent, digits past the
                // 19th are truncated and only checked.
                if i + 8 <= end {
                    let w = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self)
                    if isEightDigits(w) {
                        anyDigit = true
                        if mantissa == 0 {
                            // digits is 0: the word's digits after its leading zeros count.
                            mantissa = eightDigits(w)
                            if mantissa != 0 { digits = 8 - (w & 0x0F0F_0F0F_0F0F_0F0F).trailingZeroBitCount >> 3 }
                            exponent -= 8
                        } else if digits <= 11 {
                            mantissa = mantissa &* 100_000_000 &+ eightDigits(w)
                            digits += 8
                            exponent -= 8
                        } else if digits < 19 {
                            // Only the first 19 - digits (1...7) count: shifting the word left
                            // drops the others and leaves zero bytes, read as leading zeros.
                            let r = 19 - digits
                            mantissa = mantissa &* exactIntegerPowerOfTen(r) &+ eightDigits(w << UInt64(8 * (8 - r)))
                            digits = 19
                            exponent -= r
                        }
                        i += 8
                        continue
                    }
                }
                let d = p[i] &- 0x30
                if d > 9 { break }
                anyDigit = true
                if digits < 19 {
                    if mantissa != 0 || d != 0 {
                        mantissa = mantissa &* 10 &+ UInt64(d)
                        digits += 1
                    }
                    exponent -= 1
                }
                i += 1
            }
        }
        guard anyDigit else { return nil }
        if i < end, p[i] | 0x20 == 0x65 {  // e or E
            i += 1
            var expNegative = false
            if i < end, p[i] == 0x2D {
                expNegative = true
                i += 1
            } else if i < end, p[i] == 0x2B {
                i += 1
            }
            var e = 0
            var any = false
            while i < end {
                let d = p[i] &- 0x30
                if d > 9 { break }
                if e < 100_000 { e = e * 10 + Int(d) }
                any = true
                i += 1
            }
            guard any else { return nil }
            exponent += expNegative ? -e : e
        }
        guard i == end else { return nil }
        if mantissa == 0 { return negative ? -0.0 : 0.0 }
        var value = Double(mantissa)
        if exponent < 0 {
            if exponent >= -22 {
                value /= exactPowerOfTen(-exponent)
            } else {
                return slowParse(p, count: count)
            }
        } else if exponent > 0 {
            if exponent <= 22 {
                value *= exactPowerOfTen(exponent)
            } else {
                return slowParse(p, count: count)
            }
        }
        guard value.isFinite else { return nil }
        return negative ? -value : value
    }

    /// True when the eight bytes of `w` (little-endian) are all ASCII digits.
    @inline(__always)
    static func isEightDigits(_ w: UInt64) -> Bool {
        ((w & 0xF0F0_F0F0_F0F0_F0F0) | (((w &+ 0x0606_0606_0606_0606) & 0xF0F0_F0F0_F0F0_F0F0) >> 4)) == 0x3333_3333_3333_3333
    }

    /// The value of eight ASCII digits loaded little-endian (first digit in the low byte).
    @inline(__always)
    static func eightDigits(_ w: UInt64) -> UInt64 {
        var v = w & 0x0F0F_0F0F_0F0F_0F0F
        v = (v &* 2561) >> 8
        v = ((v & 0x00FF_00FF_00FF_00FF) &* 6_553_601) >> 16
        return ((v & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) >> 32
    }

    /// `strtod` on a NUL-terminated copy, for exponents the fast path does not cover.
    static func slowParse(_ p: UnsafePointer<UInt8>, count: Int) -> Double? {
        var copy = [CChar](repeating: 0, count: count + 1)
        for k in 0..<count { copy[k] = CChar(bitPattern: p[k]) }
        return copy.withUnsafeBufferPointer { buf -> Double? in
            guard let base = buf.baseAddress else { return nil }
            var endPointer: UnsafeMutablePointer<CChar>? = nil
            let v = strtod(base, &endPointer)
            guard let endPointer else { return nil }
            var rest = UnsafePointer(endPointer)
            while rest.pointee != 0, isSpace(UInt8(bitPattern: rest.pointee)) { rest += 1 }
            guard rest.pointee == 0, v.isFinite else { return nil }
            return v
        }
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
