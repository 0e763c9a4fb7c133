#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decimal numbers straight from the bytes (coordinates, elevations, heart rates): a fast path for
/// the usual `-12.345678…` shape that converts 8-digit words independently, and the general parser
/// (signs, exponents, whitespace) behind it; both keep 19 significant digits and round once.
extension XMLBytes {
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

    /// `parseDouble`, correctly rounded at any length: a number with more than 15 significant
    /// digits (where `parseDouble` may be 1 ulp off) is checked by `parseDouble` and converted by
    /// `strtod`. For the TCX reader, whose figures have always been correctly rounded (Garmin writes
    /// positions with 30 digits), so that a run gives the same figures as TCX and as GPX.
    static func parseDoubleCorrectlyRounded(_ p: UnsafePointer<UInt8>, count: Int) -> Double? {
        guard let value = parseDouble(p, count: count) else { return nil }
        guard count > 15 else { return value }
        var digits = 0
        var k = 0
        while k < count, p[k] | 0x20 != 0x65 {  // up to e or E
            let d = p[k] &- 0x30
            if d <= 9, digits > 0 || d != 0 { digits += 1 }
            k += 1
        }
        return digits > 15 ? slowParse(p, count: count) : value
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
                            mantissa = mantissa &* integerPowerOfTen(r) &+ eightDigits(w << UInt64(8 * (8 - r)))
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
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: count + 1) { copy -> Double? in
            guard let base = copy.baseAddress else { return nil }
            for k in 0..<count { copy[k] = CChar(bitPattern: p[k]) }
            copy[count] = 0
            var endPointer: UnsafeMutablePointer<CChar>? = nil
            let v = strtod(base, &endPointer)
            guard let endPointer else { return nil }
            var rest = UnsafePointer(endPointer)
            while rest.pointee != 0, isSpace(UInt8(bitPattern: rest.pointee)) { rest += 1 }
            guard rest.pointee == 0, v.isFinite else { return nil }
            return v
        }
    }
}
