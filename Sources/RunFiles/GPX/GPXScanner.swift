import Foundation

/// The elements the GPX reader cares about, by local name.
enum GPXTag: UInt8 {
    case other, gpx, metadata, trk, trkseg, trkpt, ele, time, name, type, hr, cad, rte, rtept, wpt

    /// Classifies a local name (the part after any prefix). `readable` is how many bytes from `p`
    /// may be read. The constants are the names' ASCII bytes read little-endian: 0x7268 is "hr".
    @inline(__always)
    static func classify(_ p: UnsafePointer<UInt8>, count: Int, readable: Int) -> GPXTag {
        guard count >= 2, count <= 9 else { return .other }
        var w: UInt64 = 0
        if readable >= 8 {
            // One load, masked to the name's bytes.
            w = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
            if count < 8 { w &= (1 << (8 * UInt64(count))) - 1 }
        } else {
            for k in 0..<min(count, 8) { w |= UInt64(p[k]) << (8 * UInt64(k)) }
        }
        switch count {
        case 2: return w == 0x7268 ? .hr : .other
        case 3:
            switch w {
            case 0x656c65: return .ele
            case 0x646163: return .cad
            case 0x6b7274: return .trk
            case 0x787067: return .gpx
            case 0x657472: return .rte
            case 0x747077: return .wpt
            default: return .other
            }
        case 4:
            switch w {
            case 0x656d6974: return .time
            case 0x656d616e: return .name
            case 0x65707974: return .type
            default: return .other
            }
        case 5:
            if w == 0x74706b7274 { return .trkpt }
            return w == 0x7470657472 ? .rtept : .other
        case 6: return w == 0x6765736b7274 ? .trkseg : .other
        case 7: return w == 0x65636e65646163 ? .cad : .other  // cadence
        case 8: return w == 0x617461646174656d ? .metadata : .other
        case 9: return w == 0x7461727472616568 && p[8] == 0x65 ? .hr : .other  // heartrate
        default: return .other
        }
    }
}

/// The GPX state machine. `feed` may be called with any split of the input: it only acts on
/// complete tokens and reports how many bytes it used. Owns manually managed storage for the
/// element stack: never copy a scanner, and call `release()` when done.
struct GPXScanner {
    /// An error found while scanning, with the byte offset it belongs to; turned into an
    /// `ActivityError` (with line numbers, computed only now) by `error(source:line:)`.
    struct Failure: Error {
        enum Kind { case malformed, notGPX }
        var kind: Kind
        var offset: Int
        var reason: String
        /// Where the element concerned was opened, reported as " (opened at line N)".
        var openedAt: Int? = nil

        func error(source: String, line: (Int) -> Int?) -> ActivityError {
            var text = reason
            if let openedAt, let l = line(openedAt) { text += " (opened at line \(l))" }
            switch kind {
            case .malformed:
                return .malformed(path: source, line: line(offset), offset: offset, reason: text)
            case .notGPX:
                if let l = line(offset) { text += " (line \(l))" }
                return .notFormat(path: source, format: "gpx", reason: text)
            }
        }
    }

    /// One open element: what it is, its qualified name in `names`, where it was opened.
    struct OpenElement {
        var tag: GPXTag
        var nameStart: Int
        var nameLength: Int
        var offset: Int
    }

    var track: Track
    private var started = false
    private var rootSeen = false
    private(set) var finished = false

    // Open elements (a stack) and their names, in storage this scanner manages.
    private var stack: UnsafeMutablePointer<OpenElement>
    private var stackCapacity = 32
    private var depth = 0
    private var names: UnsafeMutablePointer<UInt8>
    private var namesCapacity = 1024
    private var namesUsed = 0
    // Elements open inside a track point on the fast path (`fastPoint`): name start and length
    // in the window, two Ints per element.
    private var pointOpen: UnsafeMutablePointer<Int>
    private static let pointNesting = 8
    // The start tags of the last fast-path point, by position (a run's points repeat one shape):
    // a name of up to `shapeSlot` bytes and its tag per slot, length 0 for none. A start tag whose
    // bytes match its slot skips the name scan and classification.
    private var shapeNames: UnsafeMutablePointer<UInt8>
    private var shapeLengths: UnsafeMutablePointer<Int>
    private var shapeTags: UnsafeMutablePointer<GPXTag>
    private static let shapeSlots = 16, shapeSlot = 32
    // Points in a row the fast path gave back: from 8 on, a file whose points have another shape
    // stops paying for the attempt, but for one point in 64 (the shape may change).
    private var fastMisses = 0

    // The point being read.
    private var inPoint = false
    private var pointLevel = 0
    private var hasLatitude = false, hasLongitude = false
    private var latitude = Double.nan, longitude = Double.nan
    private var elevation = Double.nan, time = Double.nan
    private var heartRate = Double.nan, cadence = Double.nan

    // Text being collected: raw bytes still in the input window (`inline`, the common case of
    // one text run), else decoded bytes copied to `text`.
    private enum Capture { case none, elevation, time, heartRate, cadence, trackName, metadataName, sport }
    private var capture = Capture.none
    private var captureLevel = 0
    private var inlineText: UnsafePointer<UInt8>? = nil
    private var inlineCount = 0
    private var text: [UInt8] = []
    private static let maxCarriedText = 1 << 16

    private var sawTime = false
    private var dayCache = Timestamps.DayCache()
    private var metadataName: String?
    private var trackNameSeen = false, sportSeen = false
    private var trackPoints = 0, routePoints = 0, waypoints = 0

    init(source: String) {
        track = Track(source: source)
        track.format = .gpx
        text.reserveCapacity(256)
        stack = .allocate(capacity: stackCapacity)
        names = .allocate(capacity: namesCapacity)
        pointOpen = .allocate(capacity: 2 * GPXScanner.pointNesting)
        shapeNames = .allocate(capacity: GPXScanner.shapeSlots * GPXScanner.shapeSlot)
        shapeNames.initialize(repeating: 0, count: GPXScanner.shapeSlots * GPXScanner.shapeSlot)
        shapeLengths = .allocate(capacity: GPXScanner.shapeSlots)
        shapeLengths.initialize(repeating: 0, count: GPXScanner.shapeSlots)
        shapeTags = .allocate(capacity: GPXScanner.shapeSlots)
        shapeTags.initialize(repeating: .other, count: GPXScanner.shapeSlots)
    }

    /// Reserves the track's columns for the points the rest of the input will hold, extrapolated
    /// from the points found in its first `scanned` of `totalBytes` bytes, so the columns are not
    /// grown (copied, their new pages faulted in) point by point. Does nothing before a few points.
    /// Returns whether it reserved.
    mutating func reserveForRest(scanned: Int, totalBytes: Int) -> Bool {
        let points = track.count
        guard points >= 16, scanned > 0, totalBytes > scanned else { return points >= 16 }
        let estimate = Int((Double(points) * Double(totalBytes) / Double(scanned) * 1.0625).rounded(.up)) + 16
        track.reserveCapacity(estimate)
        return true
    }

    /// Frees the element stack.
    mutating func release() {
        stack.deallocate()
        names.deallocate()
        pointOpen.deallocate()
        shapeNames.deallocate()
        shapeLengths.deallocate()
        shapeTags.deallocate()
        stackCapacity = 0
        namesCapacity = 0
    }

    /// Scans `p[0..<n]`; `offset` is the stream position of `p[0]`. Returns the bytes used (the
    /// rest is an incomplete token to be offered again with more bytes), or nil once the root
    /// element has closed.
    mutating func feed(_ p: UnsafePointer<UInt8>, count n: Int, final: Bool, offset: Int) throws -> Int? {
        // Text kept in place must be copied before the window moves.
        defer { flushInline() }
        var i = 0
        if !started {
            if n < 3 && !final { return 0 }
            if n >= 3, p[0] == 0xEF, p[1] == 0xBB, p[2] == 0xBF { i = 3 }
            started = true
        }
        if finished { return nil }
        while i < n {
            if p[i] != XMLBytes.lessThan {
                // Character data up to the next '<'; indentation is skipped without memchr.
                let textStart = i
                i = XMLBytes.skipSpace(p, from: i, to: n)
                if i < n, p[i] == XMLBytes.lessThan, capture == .none { continue }
                var end = i < n && p[i] == XMLBytes.lessThan ? i : XMLBytes.find(XMLBytes.lessThan, in: p, from: i, to: n)
                if end < 0 { end = n }
                if capture != .none {
                    if end == n, !final, n - textStart < GPXScanner.maxCarriedText { return textStart }
                    if inlineText == nil, text.isEmpty {
                        inlineText = p + textStart
                        inlineCount = end - textStart
                    } else {
                        flushInline()
                        XMLBytes.appendDecoded(p, from: textStart, to: end, into: &text)
                    }
                } else if depth == 0, i < end {
                    throw Failure(kind: .notGPX, offset: offset + i, reason: "text before the root element; expected '<gpx'")
                }
                i = end
                continue
            }
            guard i + 1 < n else {
                if final { throw eof(offset + i, "inside a tag") }
                return i
            }
            switch p[i + 1] {
            case XMLBytes.slash:
                // Fast path: `</name>` exactly as the open element's name.
                if depth > 0 {
                    let top = stack[depth - 1]
                    let k = i + 2, length = top.nameLength
                    if k + length < n, p[k + length] == XMLBytes.greaterThan, XMLBytes.equal(p + k, names + top.nameStart, length) {
                        close(top)
                        i = k + length + 1
                        if finished { return nil }
                        continue
                    }
                }
                let gt = XMLBytes.find(XMLBytes.greaterThan, in: p, from: i + 2, to: n)
                if gt < 0 {
                    if final { throw eof(offset + i, "inside an end tag") }
                    return i
                }
                try endTag(p, from: i + 2, to: gt, offset: offset + i)
                i = gt + 1
                if finished { return nil }
            case XMLBytes.question:
                let end = XMLBytes.findTerminator(XMLBytes.question, in: p, from: i + 2, to: n)
                if end < 0 {
                    if final { throw eof(offset + i, "inside a processing instruction '<?'") }
                    return i
                }
                i = end
            case XMLBytes.bang:
                let next = try markupDeclaration(p, at: i, count: n, final: final, offset: offset)
                if next < 0 { return i }
                i = next
            default:
                let next = try startTag(p, at: i, count: n, final: final, offset: offset)
                if next < 0 { return i }
                i = next
                if finished { return nil }
            }
        }
        if final { try checkComplete(offset: offset + n) }
        return n
    }


    private mutating func flushInline() {
        guard let t = inlineText else { return }
        inlineText = nil
        XMLBytes.appendDecoded(t, from: 0, to: inlineCount, into: &text)
    }

    private func eof(_ at: Int, _ what: String) -> Failure {
        var f = Failure(kind: .malformed, offset: at, reason: "the file ends \(what)")
        if depth > 0 {
            f.reason += " within <\(openName(depth - 1))>"
            f.openedAt = stack[depth - 1].offset
        }
        return f
    }

    private func checkComplete(offset: Int) throws {
        if !rootSeen {
            throw Failure(kind: .notGPX, offset: offset, reason: "no root element; expected '<gpx'")
        }
        if depth > 0 {
            throw Failure(
                kind: .malformed, offset: offset,
                reason: "the file ends before <\(openName(depth - 1))> is closed (truncated?)",
                openedAt: stack[depth - 1].offset)
        }
    }

    private func openName(_ level: Int) -> String {
        let e = stack[level]
        return String(decoding: UnsafeBufferPointer(start: names + e.nameStart, count: e.nameLength), as: UTF8.self)
    }

    /// `<!-- -->`, `<![CDATA[ ]]>`, `<!DOCTYPE ...>`. Returns the index after it, or -1 for more bytes.
    private mutating func markupDeclaration(_ p: UnsafePointer<UInt8>, at i: Int, count n: Int, final: Bool, offset: Int) throws -> Int {
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

    private func matches(_ p: UnsafePointer<UInt8>, _ s: StaticString) -> Bool {
        let bytes = s.utf8Start
        for k in 0..<s.utf8CodeUnitCount where p[k] != bytes[k] { return false }
        return true
    }

    /// A start tag at `p[i] == '<'`. Returns the index after `>`, or -1 when more bytes are needed.
    @inline(__always)
    private mutating func startTag(_ p: UnsafePointer<UInt8>, at i: Int, count n: Int, final: Bool, offset: Int) throws -> Int {
        var colon = -1
        var j = XMLBytes.nameEnd(p, from: i + 1, to: n, colon: &colon)
        if j >= n {
            if final { throw eof(offset + i, "inside a start tag") }
            return -1
        }
        let nameStart = i + 1, nameEnd = j
        guard nameEnd > nameStart, p[nameStart] != XMLBytes.lessThan else {
            throw Failure(kind: depth == 0 && !rootSeen ? .notGPX : .malformed, offset: offset + i, reason: "expected an element name after '<'")
        }
        // The local name follows the last ':'.
        let localStart = colon >= 0 ? colon + 1 : nameStart
        let tag = GPXTag.classify(p + localStart, count: nameEnd - localStart, readable: n - localStart)
        let parent = depth > 0 ? stack[depth - 1].tag : .other
        let wantsPosition = tag == .trkpt && parent == .trkseg

        var latStart = -1, latEnd = -1, lonStart = -1, lonEnd = -1
        var selfClosing = false
        // Fast path for a point's usual attributes, ` lat="…" lon="…">` in either order: what
        // the general loop below finds for exactly these bytes. Anything else goes that way.
        var attributesRead = false
        if wantsPosition, let usual = GPXScanner.pointAttributes(p, from: j, count: n) {
            latStart = usual.latStart; latEnd = usual.latEnd
            lonStart = usual.lonStart; lonEnd = usual.lonEnd
            j = usual.end
            attributesRead = true
        }
        while !attributesRead {
            while j < n, XMLBytes.isSpace(p[j]) { j += 1 }
            guard j < n else {
                if final { throw eof(offset + i, "inside a start tag") }
                return -1
            }
            let b = p[j]
            if b == XMLBytes.greaterThan {
                j += 1
                break
            }
            if b == XMLBytes.slash {
                guard j + 1 < n else {
                    if final { throw eof(offset + i, "inside a start tag") }
                    return -1
                }
                guard p[j + 1] == XMLBytes.greaterThan else {
                    throw Failure(kind: .malformed, offset: offset + j, reason: "expected '>' after '/' in a start tag")
                }
                selfClosing = true
                j += 2
                break
            }
            let attributeStart = j
            var attributeColon = -1
            while j < n {
                let c = p[j]
                if c == XMLBytes.equals || c <= 0x20 || c == XMLBytes.greaterThan || c == XMLBytes.slash { break }
                if c == XMLBytes.colon { attributeColon = j }
                j += 1
            }
            let attributeEnd = j
            while j < n, XMLBytes.isSpace(p[j]) { j += 1 }
            guard j < n else {
                if final { throw eof(offset + i, "inside a start tag") }
                return -1
            }
            guard p[j] == XMLBytes.equals, attributeEnd > attributeStart else {
                let name = String(decoding: UnsafeBufferPointer(start: p + attributeStart, count: attributeEnd - attributeStart), as: UTF8.self)
                throw Failure(kind: .malformed, offset: offset + j, reason: "attribute '\(name)' has no '=value'")
            }
            j += 1
            while j < n, XMLBytes.isSpace(p[j]) { j += 1 }
            guard j < n else {
                if final { throw eof(offset + i, "inside a start tag") }
                return -1
            }
            let quote = p[j]
            guard quote == XMLBytes.doubleQuote || quote == XMLBytes.singleQuote else {
                throw Failure(kind: .malformed, offset: offset + j, reason: "attribute value is not quoted")
            }
            j += 1
            let close = XMLBytes.find(quote, in: p, from: j, to: n)
            if close < 0 {
                if final { throw eof(offset + i, "inside an attribute value") }
                return -1
            }
            if wantsPosition {
                let local = attributeColon >= 0 ? attributeColon + 1 : attributeStart
                if attributeEnd - local == 3, p[local] == 0x6C {  // l
                    if p[local + 1] == 0x61, p[local + 2] == 0x74 {  // at
                        latStart = j; latEnd = close
                    } else if p[local + 1] == 0x6F, p[local + 2] == 0x6E {  // on
                        lonStart = j; lonEnd = close
                    }
                }
            }
            j = close + 1
        }

        // The tag is complete: act on it.
        let level = depth
        if level == 0 {
            guard tag == .gpx else {
                let name = String(decoding: UnsafeBufferPointer(start: p + nameStart, count: nameEnd - nameStart), as: UTF8.self)
                throw Failure(kind: .notGPX, offset: offset + i, reason: "the root element is <\(name)>, not <gpx>")
            }
            rootSeen = true
        }
        var what = Capture.none
        switch tag {
        case .trkseg:
            if parent == .trk { track.startSegment() }
        case .trkpt:
            if wantsPosition {
                trackPoints += 1
                inPoint = true
                pointLevel = level
                hasLatitude = latStart >= 0
                hasLongitude = lonStart >= 0
                latitude = hasLatitude ? XMLBytes.parseDouble(p + latStart, count: latEnd - latStart) ?? .nan : .nan
                longitude = hasLongitude ? XMLBytes.parseDouble(p + lonStart, count: lonEnd - lonStart) ?? .nan : .nan
                elevation = .nan; time = .nan; heartRate = .nan; cadence = .nan
                if selfClosing { commitPoint() }
            }
        case .ele:
            if inPoint, level == pointLevel + 1 { what = .elevation }
        case .time:
            if inPoint, level == pointLevel + 1 { what = .time }
        case .hr:
            if inPoint { what = .heartRate }
        case .cad:
            if inPoint { what = .cadence }
        case .name:
            if parent == .trk, !trackNameSeen {
                what = .trackName
            } else if parent == .metadata || parent == .gpx, metadataName == nil {
                what = .metadataName
            }
        case .type:
            if parent == .trk, !sportSeen { what = .sport }
        case .rtept:
            routePoints += 1
        case .wpt:
            if parent == .gpx { waypoints += 1 }
        case .other, .gpx, .metadata, .trk, .rte:
            break
        }
        if selfClosing {
            if what != .none, capture == .none {
                begin(what, level)
                finishCapture()
            }
            if level == 0 { finished = true }
            return j
        }
        // Fast path for a whole track point in its usual shape (see `fastPoint`).
        if wantsPosition, capture == .none, fastMisses < 8 || trackPoints & 63 == 0 {
            var end = fastPoint(p, from: j, count: n, name: p + nameStart, nameLength: nameEnd - nameStart)
            if end >= 0 {
                fastMisses = 0
                // The next sibling, when it is a point with the same name and the usual attributes,
                // is read here too: what `feed` and this function would do for it. At anything
                // else, or if the fast path gives that point back, nothing is kept (the count and
                // `inPoint` are restored; the other point fields are rewritten at every point's
                // start tag) and the scan resumes where it stood, after this point.
                let name = p + nameStart, nameLength = nameEnd - nameStart
                while true {
                    let lt = XMLBytes.skipIndentation(p, from: end, to: n)
                    let at = lt + 1
                    guard at + nameLength < n, p[lt] == XMLBytes.lessThan, XMLBytes.equal(p + at, name, nameLength),
                        let usual = GPXScanner.pointAttributes(p, from: at + nameLength, count: n)
                    else { return end }
                    trackPoints += 1
                    inPoint = true
                    hasLatitude = true
                    hasLongitude = true
                    latitude = XMLBytes.parseDouble(p + usual.latStart, count: usual.latEnd - usual.latStart) ?? .nan
                    longitude = XMLBytes.parseDouble(p + usual.lonStart, count: usual.lonEnd - usual.lonStart) ?? .nan
                    elevation = .nan; time = .nan; heartRate = .nan; cadence = .nan
                    let next = fastPoint(p, from: usual.end, count: n, name: name, nameLength: nameLength)
                    guard next >= 0 else {
                        trackPoints -= 1
                        inPoint = false
                        return end
                    }
                    end = next
                }
            }
            fastMisses += 1
        }
        // Fast path for a leaf element, `<x>text</x>` (most elements of a track point): take the
        // text where it lies and skip the stack. Anything else (children, comments, CDATA, the
        // end tag beyond this window) goes the general way.
        if capture == .none {
            let length = nameEnd - nameStart
            let lt = XMLBytes.find(XMLBytes.lessThan, in: p, from: j, to: n)
            if lt >= 0, lt + 2 + length < n, p[lt + 1] == XMLBytes.slash, p[lt + 2 + length] == XMLBytes.greaterThan,
                XMLBytes.equal(p + lt + 2, p + nameStart, length)
            {
                if what != .none {
                    begin(what, level)
                    inlineText = p + j
                    inlineCount = lt - j
                    finishCapture()
                }
                if inPoint, level == pointLevel { commitPoint() }
                if level == 0 { finished = true }
                return lt + 3 + length
            }
        }
        push(tag, p + nameStart, nameEnd - nameStart, offset + i)
        if what != .none { begin(what, level) }
        return j
    }

    /// A point's usual attributes after its name at `p[from]`, ` lat="…" lon="…">` in either order:
    /// the value ranges and the index after the `>`, exactly what the general attribute loop finds
    /// for these bytes; nil for anything else.
    @inline(__always)
    private static func pointAttributes(_ p: UnsafePointer<UInt8>, from: Int, count n: Int)
        -> (latStart: Int, latEnd: Int, lonStart: Int, lonEnd: Int, end: Int)?
    {
        var latStart = -1, latEnd = -1, lonStart = -1, lonEnd = -1
        var k = from
        for _ in 0..<2 {
            guard k + 8 <= n else { break }
            let w = UnsafeRawPointer(p + k).loadUnaligned(as: UInt64.self) & 0xFFFF_FFFF_FFFF
            let isLatitude = w == 0x22_3D_74_61_6C_20  // ` lat="`
            guard isLatitude || w == 0x22_3D_6E_6F_6C_20 else { break }  // ` lon="`
            let close = XMLBytes.find(XMLBytes.doubleQuote, in: p, from: k + 6, to: n)
            guard close >= 0 else { break }
            if isLatitude {
                latStart = k + 6; latEnd = close
            } else {
                lonStart = k + 6; lonEnd = close
            }
            k = close + 1
        }
        guard latStart >= 0, lonStart >= 0, k < n, p[k] == XMLBytes.greaterThan else { return nil }
        return (latStart, latEnd, lonStart, lonEnd, k + 1)
    }

    /// The rest of a track point whose start tag ends at `p[start]`, when it has the usual shape:
    /// only indentation between tags; children that are leaves (`<x>text</x>`, no attributes, no
    /// comments, CDATA or entities... in the way of the end tag) or elements the reader ignores
    /// (`extensions`, `TrackPointExtension`) holding such children; `</trkpt>` in this window.
    /// Reads exactly what the general path would (ele and time as direct children, hr and cad at
    /// any depth, the first timestamp's offset) and commits the point; returns the index after
    /// `</trkpt>`. Returns -1, having changed nothing, at anything else: the general path then
    /// reads the point (and reports any error) from the start tag on.
    private mutating func fastPoint(_ p: UnsafePointer<UInt8>, from start: Int, count n: Int, name: UnsafePointer<UInt8>, nameLength: Int) -> Int {
        var ele = Double.nan, when = Double.nan, hr = Double.nan, cad = Double.nan
        var timed = false
        var firstOffset: Int? = nil
        var level = 0
        var step = 0  // start tags seen, the slot of the next one
        var k = start
        while true {
            k = XMLBytes.skipIndentation(p, from: k, to: n)
            guard k + 1 < n, p[k] == XMLBytes.lessThan else { return -1 }
            let second = p[k + 1]
            if second == XMLBytes.slash {
                let at = k + 2
                if level == 0 {
                    guard at + nameLength < n, p[at + nameLength] == XMLBytes.greaterThan, XMLBytes.equal(p + at, name, nameLength) else { return -1 }
                    elevation = ele; time = when; heartRate = hr; cadence = cad
                    if timed, !sawTime {
                        sawTime = true
                        track.utcOffsetSeconds = firstOffset
                    }
                    commitPoint()
                    return at + nameLength + 1
                }
                let openStart = pointOpen[2 * level - 2], openLength = pointOpen[2 * level - 1]
                guard at + openLength < n, p[at + openLength] == XMLBytes.greaterThan, XMLBytes.equal(p + at, p + openStart, openLength) else { return -1 }
                level -= 1
                k = at + openLength + 1
                continue
            }
            guard second != XMLBytes.bang, second != XMLBytes.question, second != XMLBytes.lessThan else { return -1 }
            let nameStart = k + 1
            let nameEnd: Int
            let tag: GPXTag
            let slot = step < GPXScanner.shapeSlots ? step : GPXScanner.shapeSlots - 1
            let predicted = step < GPXScanner.shapeSlots ? shapeLengths[slot] : 0
            let slotName = shapeNames + slot * GPXScanner.shapeSlot
            step += 1
            if predicted > 0, nameStart + predicted < n, p[nameStart + predicted] == XMLBytes.greaterThan,
                XMLBytes.equal(p + nameStart, slotName, predicted)
            {
                // The same name as last time, then '>': where the scan would have stopped (the
                // slot holds no byte that ends a name), with the same local name.
                nameEnd = nameStart + predicted
                tag = shapeTags[slot]
            } else {
                var colon = -1
                nameEnd = XMLBytes.nameEnd(p, from: nameStart, to: n, colon: &colon)
                guard nameEnd < n, nameEnd > nameStart, p[nameEnd] == XMLBytes.greaterThan else { return -1 }
                let localStart = colon >= 0 ? colon + 1 : nameStart
                tag = GPXTag.classify(p + localStart, count: nameEnd - localStart, readable: n - localStart)
                if step <= GPXScanner.shapeSlots {
                    let length = nameEnd - nameStart
                    if length <= GPXScanner.shapeSlot {
                        XMLBytes.copy(p + nameStart, to: slotName, count: length)
                        shapeLengths[slot] = length
                        shapeTags[slot] = tag
                    } else {
                        shapeLengths[slot] = 0
                    }
                }
            }
            let textStart = nameEnd + 1
            let lt = XMLBytes.findShort(XMLBytes.lessThan, in: p, from: textStart, to: n)
            guard lt >= 0, lt + 1 < n else { return -1 }
            let length = nameEnd - nameStart
            guard p[lt + 1] == XMLBytes.slash else {
                // A child: this element must be one the reader ignores, holding only indentation.
                guard tag == .other, level < GPXScanner.pointNesting else { return -1 }
                pointOpen[2 * level] = nameStart
                pointOpen[2 * level + 1] = length
                level += 1
                k = textStart
                continue
            }
            let endName = lt + 2
            guard endName + length < n, p[endName + length] == XMLBytes.greaterThan, XMLBytes.equal(p + endName, p + nameStart, length) else { return -1 }
            let count = lt - textStart
            switch tag {
            case .ele:
                if level == 0, count > 0 { ele = XMLBytes.parseDouble(p + textStart, count: count) ?? .nan }
            case .time:
                if level == 0, count > 0, let parsed = Timestamps.parse(p + textStart, count: count, cache: &dayCache) {
                    when = parsed.epoch
                    if !timed {
                        timed = true
                        firstOffset = GPXScanner.explicitOffset(parsed.offsetSeconds, p + textStart, count)
                    }
                }
            case .hr:
                if count > 0 { hr = XMLBytes.parseDouble(p + textStart, count: count) ?? .nan }
            case .cad:
                if count > 0 { cad = XMLBytes.parseDouble(p + textStart, count: count) ?? .nan }
            case .other:
                break
            case .gpx, .metadata, .trk, .trkseg, .trkpt, .name, .type, .rte, .rtept, .wpt:
                return -1
            }
            k = endName + length + 1
        }
    }

    @inline(__always)
    private mutating func push(_ tag: GPXTag, _ name: UnsafePointer<UInt8>, _ length: Int, _ offset: Int) {
        if depth == stackCapacity {
            let bigger = UnsafeMutablePointer<OpenElement>.allocate(capacity: stackCapacity * 2)
            bigger.initialize(from: stack, count: depth)
            stack.deallocate()
            stack = bigger
            stackCapacity *= 2
        }
        if namesUsed + length > namesCapacity {
            let size = max(namesCapacity * 2, namesUsed + length)
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
            bigger.initialize(from: names, count: namesUsed)
            names.deallocate()
            names = bigger
            namesCapacity = size
        }
        XMLBytes.copy(name, to: names + namesUsed, count: length)
        (stack + depth).initialize(to: OpenElement(tag: tag, nameStart: namesUsed, nameLength: length, offset: offset))
        namesUsed += length
        depth += 1
    }

    @inline(__always)
    private mutating func begin(_ what: Capture, _ level: Int) {
        if capture != .none { return }
        capture = what
        captureLevel = level
        inlineText = nil
        if !text.isEmpty { text.removeAll(keepingCapacity: true) }
    }

    /// An end tag whose name is `p[from..<to]` (`to` is the `>`), when the fast path did not match.
    private mutating func endTag(_ p: UnsafePointer<UInt8>, from: Int, to: Int, offset: Int) throws {
        var end = to
        while end > from, XMLBytes.isSpace(p[end - 1]) { end -= 1 }
        let name = String(decoding: UnsafeBufferPointer(start: p + from, count: end - from), as: UTF8.self)
        guard depth > 0 else {
            throw Failure(kind: rootSeen ? .malformed : .notGPX, offset: offset, reason: "end tag </\(name)> with no element open")
        }
        let top = stack[depth - 1]
        guard top.nameLength == end - from, XMLBytes.equal(p + from, names + top.nameStart, top.nameLength) else {
            throw Failure(
                kind: .malformed, offset: offset,
                reason: "end tag </\(name)> does not match <\(openName(depth - 1))>", openedAt: top.offset)
        }
        close(top)
    }

    /// Closes the innermost open element `top`.
    @inline(__always)
    private mutating func close(_ top: OpenElement) {
        let level = depth - 1
        if capture != .none, level == captureLevel { finishCapture() }
        if inPoint, level == pointLevel { commitPoint() }
        depth = level
        namesUsed = top.nameStart
        if level == 0 { finished = true }
    }

    private mutating func finishCapture() {
        let what = capture
        capture = .none
        var base: UnsafePointer<UInt8>
        var count: Int
        if let t = inlineText {
            inlineText = nil
            switch what {
            case .trackName, .metadataName, .sport:
                XMLBytes.appendDecoded(t, from: 0, to: inlineCount, into: &text)
                return finishName(what)
            default:
                base = t
                count = inlineCount
            }
        } else {
            switch what {
            case .trackName, .metadataName, .sport: return finishName(what)
            default: break
            }
            // Rare: text in several pieces (comments, CDATA, chunk boundaries).
            let copy = text
            text.removeAll(keepingCapacity: true)
            return copy.withUnsafeBufferPointer { buf in
                guard let b = buf.baseAddress else { return }
                finishValue(what, b, buf.count)
            }
        }
        finishValue(what, base, count)
    }

    @inline(__always)
    private mutating func finishValue(_ what: Capture, _ base: UnsafePointer<UInt8>, _ count: Int) {
        guard count > 0 else { return }
        switch what {
        case .elevation: elevation = XMLBytes.parseDouble(base, count: count) ?? .nan
        case .heartRate: heartRate = XMLBytes.parseDouble(base, count: count) ?? .nan
        case .cadence: cadence = XMLBytes.parseDouble(base, count: count) ?? .nan
        case .time:
            guard let parsed = Timestamps.parse(base, count: count, cache: &dayCache) else { return }
            time = parsed.epoch
            if !sawTime {
                sawTime = true
                track.utcOffsetSeconds = GPXScanner.explicitOffset(parsed.offsetSeconds, base, count)
            }
        case .trackName, .metadataName, .sport, .none:
            break
        }
    }

    private mutating func finishName(_ what: Capture) {
        let value = GPXScanner.string(text)
        text.removeAll(keepingCapacity: true)
        switch what {
        case .trackName:
            trackNameSeen = true
            track.name = value
        case .metadataName:
            metadataName = value
        case .sport:
            sportSeen = true
            track.sport = value
        default:
            break
        }
    }

    /// The offset a timestamp wrote, or nil for `Z`: a `Z` says the device wrote UTC, not which
    /// zone the runner was in, so the local date then comes from the zone the user chose.
    static func explicitOffset(_ offset: Int?, _ p: UnsafePointer<UInt8>, _ count: Int) -> Int? {
        guard let offset else { return nil }
        var end = count
        while end > 0, XMLBytes.isSpace(p[end - 1]) { end -= 1 }
        if end > 0, p[end - 1] | 0x20 == 0x7A { return nil }  // z or Z
        return offset
    }

    private static func string(_ bytes: [UInt8]) -> String? {
        let s = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return s.isEmpty ? nil : s
    }

    @inline(__always)
    private mutating func commitPoint() {
        inPoint = false
        guard hasLatitude, hasLongitude else { return track.drop("no position") }
        guard latitude.isFinite else { return track.drop("unparseable latitude") }
        guard longitude.isFinite else { return track.drop("unparseable longitude") }
        if latitude == 100 || latitude == 200 {
            // OpenTracks pause (100) and resume (200) markers: end the segment here.
            track.drop("pause marker (latitude 100 or 200)")
            track.startSegment()
            return
        }
        guard latitude >= -90, latitude <= 90 else { return track.drop("latitude out of range") }
        guard longitude >= -180, longitude <= 180 else { return track.drop("longitude out of range") }
        track.append(
            latitude: latitude, longitude: longitude, elevation: elevation, time: time,
            heartRate: heartRate, cadence: cadence)
    }

    /// The track, or `noUsablePoints` saying what was there instead.
    mutating func finish() throws -> Track {
        if track.name == nil { track.name = metadataName }
        guard track.isEmpty else { return track }
        let source = track.source
        if trackPoints == 0 {
            var reason = "the file has no track points (<trkpt> in <trk>/<trkseg>)"
            if routePoints > 0 || waypoints > 0 {
                reason += "; it has \(routePoints) route point(s) and \(waypoints) waypoint(s), which are a plan, not a recorded run"
            }
            throw ActivityError.noUsablePoints(path: source, reason: reason)
        }
        let counts = track.dropped.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        throw ActivityError.noUsablePoints(path: source, reason: "all \(trackPoints) track point(s) were dropped: \(counts)")
    }
}
