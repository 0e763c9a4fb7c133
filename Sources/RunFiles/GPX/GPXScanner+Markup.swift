import Foundation

/// Markup that is not an element: comments, CDATA sections and the
/// DOCTYPE (whose entities are never expanded).
extension GPXScanner {
    /// `<!-- -->`, `<![CDATA[ ]]>`, `<!DOCTYPE ...>`. Returns the index after it, or -1 for more bytes.
    mutating func markupDeclaration(_ p: UnsafePointer<UInt8>, at i: Int, count n: Int, final: Bool, offset: Int) throws -> Int {
        func need(_ k: Int) throws -> Bool {
            if i + k <= n { return true }
            if final { throw eof(offset + i, "inside '<!'") }
            return false
        }
        guard try need(4) else { return -1 }
        if p[i + 2] == 0x2D, p[i + 3] == 0x2D {  // <!--
            let end = XMLBytes.findTerminator(0x2D, 0x2D, in: p, from: i + 4, to: n)
            if end < 0 {
                if final { throw eof(offset + i, "inside a comment") }
                return -1
            }
            return end
        }
        if p[i + 2] == 0x5B {  // <![CDATA[
            guard try need(9) else { return -1 }
            guard matches(p + i + 2, "[CDATA[") else {
                throw Failure(kind: .malformed, offset: offset + i, reason: "expected '<![CDATA['")
            }
            let end = XMLBytes.findTerminator(0x5D, 0x5D, in: p, from: i + 9, to: n)
            if end < 0 {
                if final { throw eof(offset + i, "inside a CDATA section") }
                return -1
            }
            if capture != .none {
                flushInline()
                text.append(contentsOf: UnsafeBufferPointer(start: p + i + 9, count: end - 3 - (i + 9)))
            }
            return end
        }
        guard try need(9) else { return -1 }
        guard matches(p + i + 2, "DOCTYPE") else {
            throw Failure(kind: .malformed, offset: offset + i, reason: "unexpected markup '<!'; expected a comment, CDATA or DOCTYPE")
        }
        // Skip the declaration and any internal subset without interpreting it: entities
        // declared there are never expanded.
        var k = i + 9
        var bracket = 0
        while k < n {
            let c = p[k]
            if c == XMLBytes.doubleQuote || c == XMLBytes.singleQuote {
                let close = XMLBytes.find(c, in: p, from: k + 1, to: n)
                if close < 0 { break }
                k = close + 1
                continue
            }
            if c == XMLBytes.lessThan, k + 3 < n, p[k + 1] == XMLBytes.bang, p[k + 2] == 0x2D, p[k + 3] == 0x2D {
                let end = XMLBytes.findTerminator(0x2D, 0x2D, in: p, from: k + 4, to: n)
                if end < 0 { break }
                k = end
                continue
            }
            if c == 0x5B { bracket += 1 } else if c == 0x5D { bracket -= 1 } else if c == XMLBytes.greaterThan, bracket <= 0 { return k + 1 }
            k += 1
        }
        if final { throw eof(offset + i, "inside the DOCTYPE declaration") }
        return -1
    }

    func matches(_ p: UnsafePointer<UInt8>, _ s: StaticString) -> Bool {
        let bytes = s.utf8Start
        for k in 0..<s.utf8CodeUnitCount where p[k] != bytes[k] { return false }
        return true
    }
}
