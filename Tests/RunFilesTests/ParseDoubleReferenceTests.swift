@testable import RunFiles
import Foundation
import SyntheticRuns
import XCTest

/// `XMLBytes.parseDouble` (the eight-byte paths and the general one) against a reference written
/// here from its specification, sharing none of its code: which texts are numbers, and the value of
/// each, bit for bit.
final class ParseDoubleReferenceTests: XCTestCase {
    /// 10^0 ... 10^22: the powers of ten a double holds exactly.
    static let exactPowers: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// What `parseDouble` is specified to give `bytes`:
    /// - a number is `[spaces][+|-](digits[.[digits]] | .digits)[(e|E)[+|-]digits][spaces]` (spaces: space,
    ///   tab, CR, LF), anything else nil;
    /// - its value: the first 19 significant digits (from the first non-zero one, the point ignored)
    ///   as an integer M, truncated, and the power of ten that puts M's last digit in its place (with
    ///   the exponent, whose digits past 100,000 are not added); then `Double(M)` times or divided by
    ///   that power when it is within 22 (one IEEE operation), else the C library's `strtod` of the
    ///   whole text; all zeros is a zero with the sign; a value that is not finite is nil.
    static func reference(_ bytes: [UInt8]) -> Double? {
        func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }
        let spaces: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D]
        var text = ArraySlice(bytes)
        while let first = text.first, spaces.contains(first) { text = text.dropFirst() }
        while let last = text.last, spaces.contains(last) { text = text.dropLast() }
        var negative = false
        if text.first == UInt8(ascii: "-") || text.first == UInt8(ascii: "+") {
            negative = text.first == UInt8(ascii: "-")
            text = text.dropFirst()
        }
        let integer = Array(text.prefix(while: isDigit))
        text = text.dropFirst(integer.count)
        var fraction: [UInt8] = []
        if text.first == UInt8(ascii: ".") {
            text = text.dropFirst()
            fraction = Array(text.prefix(while: isDigit))
            text = text.dropFirst(fraction.count)
        }
        guard !integer.isEmpty || !fraction.isEmpty else { return nil }
        var written = 0
        if let e = text.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            text = text.dropFirst()
            var sign = 1
            if text.first == UInt8(ascii: "-") || text.first == UInt8(ascii: "+") {
                sign = text.first == UInt8(ascii: "-") ? -1 : 1
                text = text.dropFirst()
            }
            let digits = Array(text.prefix(while: isDigit))
            guard !digits.isEmpty else { return nil }
            text = text.dropFirst(digits.count)
            for d in digits where written < 100_000 { written = written * 10 + Int(d - 0x30) }
            written *= sign
        }
        guard text.isEmpty else { return nil }
        let all = integer + fraction
        guard let first = all.firstIndex(where: { $0 != 0x30 }) else { return negative ? -0.0 : 0.0 }
        let taken = all[first..<min(first + 19, all.count)]
        guard let mantissa = UInt64(String(decoding: taken, as: UTF8.self)) else { return nil }
        let exponent = integer.count - (first + taken.count) + written
        var value = Double(mantissa)
        if exponent >= -22, exponent <= 22 {
            value = exponent < 0 ? value / exactPowers[-exponent] : value * exactPowers[exponent]
        } else {
            var copy = bytes.map { CChar(bitPattern: $0) } + [0]
            var end: UnsafeMutablePointer<CChar>?
            value = copy.withUnsafeMutableBufferPointer { strtod($0.baseAddress!, &end) }
            return value.isFinite ? value : nil
        }
        guard value.isFinite else { return nil }
        return negative ? -value : value
    }

    static let spaces: [UInt8] = Array(" \t\n\r".utf8)
    /// Bytes that could confuse a word-at-a-time digit test: neighbours of the digits, signs,
    /// exponent letters, NUL, bytes that carry when 6 is added.
    static let oddBytes: [UInt8] = Array("./:;<=>?@+-eEaA x,".utf8) + [0x00, 0x09, 0x2F, 0x3A, 0x3F, 0x40, 0x7F, 0x80, 0xB0, 0xB9, 0xF9, 0xFA, 0xFF]

    /// A random number-like text: spaces, sign, integer digits (maybe leading zeros), point,
    /// fraction digits, exponent, spaces; sometimes a byte replaced, inserted or removed.
    static func sample(_ r: inout SplitMix64, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        func digits(_ n: Int, _ r: inout SplitMix64, _ out: inout [UInt8]) {
            for _ in 0..<n { out.append(0x30 + UInt8(r.below(10))) }
        }
        if r.chance(10) { for _ in 0..<(1 + r.below(3)) { out.append(spaces[r.below(4)]) } }
        switch r.below(10) {
        case 0: out.append(0x2B)
        case 1, 2, 3: out.append(0x2D)
        default: break
        }
        let leadingZeros = r.chance(15) ? r.below(4) : 0
        for _ in 0..<leadingZeros { out.append(0x30) }
        let intDigits = r.chance(5) ? r.below(26) : r.below(9)
        if intDigits > 0 {
            out.append(r.chance(10) ? 0x30 : 0x31 + UInt8(r.below(9)))
            digits(intDigits - 1, &r, &out)
        }
        if r.chance(90) {
            out.append(0x2E)
            if r.chance(20) { for _ in 0..<r.below(12) { out.append(0x30) } }
            let fractionDigits = r.chance(50) ? r.below(36) : 14 + r.below(18)
            digits(fractionDigits, &r, &out)
        }
        if r.chance(8) {
            out.append(r.chance(50) ? 0x65 : 0x45)
            if r.chance(50) { out.append(r.chance(50) ? 0x2D : 0x2B) }
            digits(r.below(4), &r, &out)
        }
        if r.chance(10) { for _ in 0..<(1 + r.below(3)) { out.append(spaces[r.below(4)]) } }
        if r.chance(25), !out.isEmpty {
            let k = r.below(out.count)
            let b = r.chance(30) ? UInt8(truncatingIfNeeded: r.next()) : oddBytes[r.below(oddBytes.count)]
            switch r.below(3) {
            case 0: out[k] = b
            case 1: out.insert(b, at: k)
            default: out.remove(at: k)
            }
        }
        if out.count > 40 { out.removeLast(out.count - 40) }
    }

    func check(_ bytes: [UInt8], failures: inout Int) {
        let (got, expected) = bytes.withUnsafeBufferPointer { buf -> (Double?, Double?) in
            // An empty array may have no base address: both parsers take any pointer with count 0.
            let base = buf.baseAddress ?? UnsafePointer(bitPattern: 8)!
            return (XMLBytes.parseDouble(base, count: buf.count), Self.reference(bytes))
        }
        if got?.bitPattern != expected?.bitPattern {
            failures += 1
            if failures <= 20 {
                XCTFail("'\(String(decoding: bytes, as: UTF8.self))' \(bytes): \(String(describing: got)) vs reference \(String(describing: expected))")
            }
        }
    }

    func testSameBitsAsReferenceOnRandomTexts() {
        var r = SplitMix64(seed: 0x5EED_0001)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        var failures = 0
        var accepted = 0
        for _ in 0..<1_500_000 {
            Self.sample(&r, into: &bytes)
            check(bytes, failures: &failures)
            if bytes.withUnsafeBufferPointer({ $0.baseAddress.flatMap { XMLBytes.parseDouble($0, count: bytes.count) } }) != nil { accepted += 1 }
        }
        // Both accepted and rejected texts are drawn in numbers.
        XCTAssertGreaterThan(accepted, 300_000)
        XCTAssertLessThan(accepted, 1_400_000)
        XCTAssertEqual(failures, 0)
    }

    /// Each byte of the usual shapes replaced by every byte value, at every position.
    func testSameBitsAsReferenceWithEveryByteAtEveryPosition() {
        var failures = 0
        let bases = ["52.37016328610479831695556640625", "-4.89521157927811145782470703125", "45.563327789306640625",
                     "1234567.12345678901234567", "9.9999999999999999999999", " 147.1999969482421875 ", "12.5", "3.14159265",
                     "-1.0000000000000000000000000000001", "+8.123456789012345678\t", "7654321.1", "1.12345678"]
        for base in bases {
            let text = Array(base.utf8)
            check(text, failures: &failures)
            for k in 0..<text.count {
                var mutated = text
                for b in 0...255 {
                    mutated[k] = UInt8(b)
                    check(mutated, failures: &failures)
                }
            }
            // Every prefix and suffix.
            for k in 0...text.count {
                check(Array(text.prefix(k)), failures: &failures)
                check(Array(text.suffix(k)), failures: &failures)
            }
        }
        XCTAssertEqual(failures, 0)
    }

    /// With at most 15 digits from the first nonzero one and a power of ten up to 22 away, `parseDouble` is the
    /// correctly rounded value (one exact integer, one exact power of ten, one IEEE operation):
    /// bit for bit `strtod`'s, on random numbers of every such shape and on edge cases.
    func testFifteenDigitsAreCorrectlyRoundedAsStrtod() {
        var r = SplitMix64(seed: 0x5EED_0015)
        var failures = 0
        var texts = ["0.1", "0.3", "1.7976931348623", "9007199254740.99", "999999999999999", "0.000000000000001",
                     "123456789012345e-22", "1e22", "4.9e-22", "-0.0", "52.370163286104", "-4.8952115792781",
                     "45.563327789306", "0000000000.100000000000000", "1.000000000000000e5"]
        for _ in 0..<400_000 {
            let significant = 1 + r.below(15)
            var digits = (0..<significant).map { _ in Character(String(r.below(10))) }
            if digits[0] == "0" { digits[0] = "7" }
            let point = r.below(significant + 4)  // where the decimal point goes, maybe after trailing zeros
            var text = r.chance(30) ? "-" : ""
            if point == 0 {
                text += "0." + String(repeating: "0", count: r.below(5)) + String(digits)
            } else if point <= significant {
                text += String(digits.prefix(point)) + (point < significant ? "." + String(digits.dropFirst(point)) : "")
            } else {
                // Trailing zeros are digits of the integer mantissa too: at most 15 in all.
                text += String(digits) + String(repeating: "0", count: min(point - significant, 15 - significant))
            }
            if r.chance(15) { text += "e\(r.chance(50) ? "-" : "")\(r.below(8))" }
            texts.append(text)
        }
        var checked = 0
        for text in texts {
            let bytes = Array(text.utf8)
            // Within the fast path's reach: at most 15 significant digits and |exponent| <= 22.
            let expected = strtod(text, nil)
            let got = bytes.withUnsafeBufferPointer { XMLBytes.parseDouble($0.baseAddress!, count: $0.count) }
            var exponentOK = true
            if let e = text.firstIndex(of: "e"), let value = Int(text[text.index(after: e)...]) {
                let fraction = text[..<e].split(separator: ".").dropFirst().first?.count ?? 0
                exponentOK = abs(value - fraction) <= 22
            }
            guard exponentOK else { continue }
            checked += 1
            if got?.bitPattern != expected.bitPattern {
                failures += 1
                if failures <= 20 { XCTFail("'\(text)': \(String(describing: got)) vs strtod \(expected)") }
            }
        }
        XCTAssertGreaterThan(checked, 390_000)
        XCTAssertEqual(failures, 0)
    }

    /// `XMLBytes.equal` (words, overlapping pairs of loads, single bytes) and `sameMarkup` (sixteen
    /// bytes a step) against Array equality for every length up to 70 and a difference at every position.
    func testByteEqualityAtEveryLengthAndPosition() {
        for count in 0...70 {
            let a = (0..<count).map { UInt8(0x61 + $0) }
            a.withUnsafeBufferPointer { pa in
                let base = pa.baseAddress ?? UnsafePointer(bitPattern: 8)!
                XCTAssertTrue(XMLBytes.equal(base, base, count))
                let same = a
                same.withUnsafeBufferPointer {
                    XCTAssertTrue(XMLBytes.equal(base, $0.baseAddress ?? base, count), "\(count)")
                    XCTAssertTrue(XMLBytes.sameMarkup(base, $0.baseAddress ?? base, count), "\(count)")
                }
                for k in 0..<count {
                    var b = a
                    b[k] ^= 0x20
                    b.withUnsafeBufferPointer { pb in
                        XCTAssertFalse(XMLBytes.equal(base, pb.baseAddress!, count), "\(count) at \(k)")
                        XCTAssertFalse(XMLBytes.sameMarkup(base, pb.baseAddress!, count), "\(count) at \(k)")
                    }
                }
            }
        }
    }
}

extension SplitMix64 {
    /// True with the given chance in per cent.
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}
