import Foundation

/// The elements the GPX reader cares about, by local name.
enum GPXTag: UInt8 {
    case other, gpx, metadata, trk, trkseg, trkpt, ele, time, name, type, hr, cad, rte, rtept, wpt
    /// SportTracks' `<st:heartRate time="…" bpm="…"/>`: a heart-rate sample of its own, outside the points.
    case heartRateSample

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
        case 9:
            guard p[8] == 0x65 else { return .other }
            if w == 0x7461727472616568 { return .hr }  // heartrate
            return w == 0x7461527472616568 ? .heartRateSample : .other  // heartRate
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
    var started = false
    var rootSeen = false
    private(set) var finished = false

    // Open elements (a stack) and their names, in storage this scanner manages.
    var stack: UnsafeMutablePointer<OpenElement>
    var stackCapacity = 32
    var depth = 0
    var names: UnsafeMutablePointer<UInt8>
    var namesCapacity = 1024
    var namesUsed = 0
    // Elements open inside a track point on the fast path (`fastPoint`): name start and length
    // in the window, two Ints per element.
    var pointOpen: UnsafeMutablePointer<Int>
    static let pointNesting = 8
    // The start tags of the last fast-path point, by position (a run's points repeat one shape):
    // a name of up to `shapeSlot` bytes and its tag per slot, length 0 for none. A start tag whose
    // bytes match its slot skips the name scan and classification.
    var shapeNames: UnsafeMutablePointer<UInt8>
    var shapeLengths: UnsafeMutablePointer<Int>
    var shapeTags: UnsafeMutablePointer<GPXTag>
    static let shapeSlots = 16, shapeSlot = 32
    // The skeleton of the last point `fastPoint` read (`skeletonPoint`): its markup without the
    // texts of its leaves, the end of the markup before each leaf's text, what each leaf gives the
    // point, the point name's length; `skeletonLeafCount` -1 for none. `leafRanges` holds the text
    // ranges and kinds of the leaves `fastPoint` is reading (three Ints each).
    var skeleton: UnsafeMutablePointer<UInt8>
    var skeletonPieceEnds: UnsafeMutablePointer<Int>
    var skeletonLeafKinds: UnsafeMutablePointer<PointLeaf>
    var leafRanges: UnsafeMutablePointer<Int>
    var skeletonLength = 0, skeletonNameLength = 0, skeletonLeafCount = -1
    /// False: no skeleton is kept (tests compare with `fastPoint` alone). Points read by one: `skeletonPoints`.
    var learnsSkeletons = true
    var skeletonPoints = 0
    static let skeletonLeaves = 16, skeletonBytes = 1024
    // Points in a row the fast path gave back: from 8 on, a file whose points have another shape
    // stops paying for the attempt, but for one point in 64 (the shape may change).
    var fastMisses = 0

    // The point being read.
    var inPoint = false
    var pointLevel = 0
    var hasLatitude = false, hasLongitude = false
    var latitude = Double.nan, longitude = Double.nan
    var elevation = Double.nan, time = Double.nan
    var heartRate = Double.nan, cadence = Double.nan
    /// SportTracks heart-rate samples (`st:heartRateTrack`): time, bpm; given to the points at the end.
    var heartRateSamples: [(time: Double, bpm: Double)] = []

    // Text being collected: raw bytes still in the input window (`inline`, the common case of
    // one text run), else decoded bytes copied to `text`.
    enum Capture { case none, elevation, time, heartRate, cadence, trackName, metadataName, sport }
    var capture = Capture.none
    var captureLevel = 0
    var inlineText: UnsafePointer<UInt8>? = nil
    var inlineCount = 0
    var text: [UInt8] = []
    static let maxCarriedText = 1 << 16

    var sawTime = false
    var dayCache = Timestamps.DayCache()
    var metadataName: String?
    var trackNameSeen = false, sportSeen = false
    var trackPoints = 0, routePoints = 0, waypoints = 0

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
        skeleton = .allocate(capacity: GPXScanner.skeletonBytes)
        skeletonPieceEnds = .allocate(capacity: GPXScanner.skeletonLeaves)
        skeletonLeafKinds = .allocate(capacity: GPXScanner.skeletonLeaves)
        leafRanges = .allocate(capacity: 3 * GPXScanner.skeletonLeaves)
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
        skeleton.deallocate()
        skeletonPieceEnds.deallocate()
        skeletonLeafKinds.deallocate()
        leafRanges.deallocate()
        skeletonLeafCount = -1
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
            if XMLBytes.isUTF16(p, count: n) { throw Failure(kind: .notGPX, offset: 0, reason: XMLBytes.utf16Refusal) }
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

    mutating func flushInline() {
        guard let t = inlineText else { return }
        inlineText = nil
        XMLBytes.appendDecoded(t, from: 0, to: inlineCount, into: &text)
    }

    func eof(_ at: Int, _ what: String) -> Failure {
        var f = Failure(kind: .malformed, offset: at, reason: "the file ends \(what)")
        if depth > 0 {
            f.reason += " within <\(openName(depth - 1))>"
            f.openedAt = stack[depth - 1].offset
        }
        return f
    }

    func checkComplete(offset: Int) throws {
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

    func openName(_ level: Int) -> String {
        let e = stack[level]
        return String(decoding: UnsafeBufferPointer(start: names + e.nameStart, count: e.nameLength), as: UTF8.self)
    }

    /// A start tag at `p[i] == '<'`. Returns the index after `>`, or -1 when more bytes are needed.
    @inline(__always)
    mutating func startTag(_ p: UnsafePointer<UInt8>, at i: Int, count n: Int, final: Bool, offset: Int) throws -> Int {
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
        var sampleTimeStart = -1, sampleTimeEnd = -1, bpmStart = -1, bpmEnd = -1
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
            if tag == .gpx, depth == 0, attributeEnd - attributeStart == 7,
               memcmp(p + attributeStart, "creator", 7) == 0, close > j {
                // <gpx creator="...">: the device or program that wrote the file (`Track.device`).
                var decoded: [UInt8] = []
                XMLBytes.appendDecoded(p, from: j, to: close, into: &decoded)
                let text = Trimming.spacesAndNewlines(String(decoding: decoded, as: UTF8.self))
                if !text.isEmpty, text.utf8.count <= 200 { track.device = text }
            }
            if tag == .heartRateSample {
                let local = attributeColon >= 0 ? attributeColon + 1 : attributeStart
                if attributeEnd - local == 4, p[local] == 0x74, p[local + 1] == 0x69, p[local + 2] == 0x6D, p[local + 3] == 0x65 {  // time
                    sampleTimeStart = j; sampleTimeEnd = close
                } else if attributeEnd - local == 3, p[local] == 0x62, p[local + 1] == 0x70, p[local + 2] == 0x6D {  // bpm
                    bpmStart = j; bpmEnd = close
                }
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
        case .heartRateSample:
            if !inPoint, sampleTimeStart >= 0, bpmStart >= 0,
               let when = Timestamps.parse(p + sampleTimeStart, count: sampleTimeEnd - sampleTimeStart, cache: &dayCache),
               let bpm = XMLBytes.parseDouble(p + bpmStart, count: bpmEnd - bpmStart), bpm.isFinite, when.epoch.isFinite {
                heartRateSamples.append((when.epoch, bpm))
            }
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
            var end = quickPoint(p, from: j, count: n, name: p + nameStart, nameLength: nameEnd - nameStart)
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
                    let next = quickPoint(p, from: usual.end, count: n, name: name, nameLength: nameLength)
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

    @inline(__always)
    mutating func push(_ tag: GPXTag, _ name: UnsafePointer<UInt8>, _ length: Int, _ offset: Int) {
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
    mutating func begin(_ what: Capture, _ level: Int) {
        if capture != .none { return }
        capture = what
        captureLevel = level
        inlineText = nil
        if !text.isEmpty { text.removeAll(keepingCapacity: true) }
    }

    /// An end tag whose name is `p[from..<to]` (`to` is the `>`), when the fast path did not match.
    mutating func endTag(_ p: UnsafePointer<UInt8>, from: Int, to: Int, offset: Int) throws {
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
    mutating func close(_ top: OpenElement) {
        let level = depth - 1
        if capture != .none, level == captureLevel { finishCapture() }
        if inPoint, level == pointLevel { commitPoint() }
        depth = level
        namesUsed = top.nameStart
        if level == 0 { finished = true }
    }

}
