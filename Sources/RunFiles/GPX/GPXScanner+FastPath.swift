import Foundation

/// The fast path of the GPX scanner: a whole track point of the usual shape (leaves and ignored
/// containers, indentation only) read in one go; anything else is handed back to the general path
/// in GPXScanner.swift untouched.
extension GPXScanner {
    /// A point's usual attributes after its name at `p[from]`, ` lat="…" lon="…">` in either order:
    /// the value ranges and the index after the `>`, exactly what the general attribute loop finds
    /// for these bytes; nil for anything else.
    @inline(__always)
    static func pointAttributes(_ p: UnsafePointer<UInt8>, from: Int, count n: Int)
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
    ///
    /// A point it reads becomes the skeleton `skeletonPoint` tries first for the next one.
    mutating func fastPoint(_ p: UnsafePointer<UInt8>, from start: Int, count n: Int, name: UnsafePointer<UInt8>, nameLength: Int) -> Int {
        var values = PointValues()
        var leaves = 0  // leaves seen; their text ranges and kinds go to `leafRanges` while there is room
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
                    commitFast(values)
                    let end = at + nameLength + 1
                    learnSkeleton(p, from: start, to: end, leaves: leaves, nameLength: nameLength)
                    return end
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
            let leaf: PointLeaf
            switch tag {
            case .ele: leaf = level == 0 ? .elevation : .ignored
            case .time: leaf = level == 0 ? .time : .ignored
            case .hr: leaf = .heartRate
            case .cad: leaf = .cadence
            case .other, .heartRateSample:
                leaf = .ignored  // a SportTracks sample inside a point is ignored, as the general path does
            case .gpx, .metadata, .trk, .trkseg, .trkpt, .name, .type, .rte, .rtept, .wpt:
                return -1
            }
            values.take(leaf, p + textStart, lt - textStart, &dayCache)
            if leaves < GPXScanner.skeletonLeaves {
                leafRanges[3 * leaves] = textStart
                leafRanges[3 * leaves + 1] = lt
                leafRanges[3 * leaves + 2] = Int(leaf.rawValue)
            }
            leaves += 1
            k = endName + length + 1
        }
    }

    /// Commits a point read by `fastPoint` or `skeletonPoint` with its values.
    @inline(__always)
    mutating func commitFast(_ values: PointValues) {
        elevation = values.elevation; time = values.time; heartRate = values.heartRate; cadence = values.cadence
        if values.timed, !sawTime {
            sawTime = true
            track.utcOffsetSeconds = values.firstOffset
        }
        commitPoint()
    }

    /// Keeps the markup of the point `fastPoint` just read, `p[start..<end]` without its leaves'
    /// texts (the ranges in `leafRanges`), as the skeleton the next point is matched against.
    /// Forgets the skeleton when the point has too many leaves or too much markup to keep.
    @inline(__always)
    mutating func learnSkeleton(_ p: UnsafePointer<UInt8>, from start: Int, to end: Int, leaves: Int, nameLength: Int) {
        skeletonLeafCount = -1
        guard learnsSkeletons, leaves <= GPXScanner.skeletonLeaves else { return }
        var used = 0
        var from = start
        for s in 0..<leaves {
            let textStart = leafRanges[3 * s]
            let piece = textStart - from
            guard used + piece <= GPXScanner.skeletonBytes else { return }
            XMLBytes.copy(p + from, to: skeleton + used, count: piece)
            used += piece
            skeletonPieceEnds[s] = used
            skeletonLeafKinds[s] = PointLeaf(rawValue: UInt8(truncatingIfNeeded: leafRanges[3 * s + 2])) ?? .ignored
            from = leafRanges[3 * s + 1]
        }
        let last = end - from
        guard used + last <= GPXScanner.skeletonBytes else { return }
        XMLBytes.copy(p + from, to: skeleton + used, count: last)
        skeletonLength = used + last
        skeletonNameLength = nameLength
        skeletonLeafCount = leaves
    }

    /// The rest of a track point whose start tag (named `name`) ends at `p[start]`, when it is the
    /// last point `fastPoint` read with other texts in its leaves: the same markup byte for byte
    /// (indentation, tags, end tags, the point's own end tag) around texts without a `<`. Such a
    /// point is what `fastPoint` would read from the same elements, so this commits the same values
    /// and returns the index after the end tag; -1, having changed nothing, at the first byte that
    /// differs (`fastPoint` then decides, and learns the new shape).
    @inline(__always)
    mutating func skeletonPoint(_ p: UnsafePointer<UInt8>, from start: Int, count n: Int, name: UnsafePointer<UInt8>, nameLength: Int) -> Int {
        let leaves = skeletonLeafCount
        guard leaves >= 0, nameLength == skeletonNameLength,
            XMLBytes.equal(name, skeleton + (skeletonLength - 1 - nameLength), nameLength)
        else { return -1 }
        var values = PointValues()
        var k = start
        var pieceStart = 0
        for s in 0..<leaves {
            let pieceEnd = skeletonPieceEnds[s]
            let length = pieceEnd - pieceStart
            guard k + length < n, XMLBytes.sameMarkup(p + k, skeleton + pieceStart, length) else { return -1 }
            let textStart = k + length
            let lt = XMLBytes.findShort(XMLBytes.lessThan, in: p, from: textStart, to: n)
            guard lt >= 0 else { return -1 }
            values.take(skeletonLeafKinds[s], p + textStart, lt - textStart, &dayCache)
            k = lt
            pieceStart = pieceEnd
        }
        let length = skeletonLength - pieceStart
        guard k + length <= n, XMLBytes.sameMarkup(p + k, skeleton + pieceStart, length) else { return -1 }
        commitFast(values)
        skeletonPoints &+= 1
        return k + length
    }

    /// A point by its skeleton, else by `fastPoint` (see both); -1 when neither reads it.
    @inline(__always)
    mutating func quickPoint(_ p: UnsafePointer<UInt8>, from start: Int, count n: Int, name: UnsafePointer<UInt8>, nameLength: Int) -> Int {
        let end = skeletonPoint(p, from: start, count: n, name: name, nameLength: nameLength)
        return end >= 0 ? end : fastPoint(p, from: start, count: n, name: name, nameLength: nameLength)
    }
}

/// What a leaf inside a track point gives the point on the fast paths.
enum PointLeaf: UInt8 {
    /// Not read (`atemp`, an `ele` or `time` below the point's own children, a SportTracks sample).
    case ignored
    case elevation, time, heartRate, cadence
}

/// The values of a track point being read on a fast path, taken leaf by leaf exactly as the
/// general path takes them: the last `ele`, `time` (that parses), `hr` and `cad` win, empty texts
/// change nothing, and the first timestamp that parses gives the offset.
struct PointValues {
    var elevation = Double.nan, time = Double.nan, heartRate = Double.nan, cadence = Double.nan
    /// A timestamp parsed; `firstOffset` is the first one's explicit offset.
    var timed = false
    var firstOffset: Int? = nil

    @inline(__always)
    mutating func take(_ leaf: PointLeaf, _ text: UnsafePointer<UInt8>, _ count: Int, _ dayCache: inout Timestamps.DayCache) {
        guard count > 0 else { return }
        switch leaf {
        case .ignored: break
        case .elevation: elevation = XMLBytes.parseDouble(text, count: count) ?? .nan
        case .time:
            if let parsed = Timestamps.parse(text, count: count, cache: &dayCache) {
                time = parsed.epoch
                if !timed {
                    timed = true
                    firstOffset = GPXScanner.explicitOffset(parsed.offsetSeconds, text, count)
                }
            }
        case .heartRate: heartRate = XMLBytes.parseDouble(text, count: count) ?? .nan
        case .cadence: cadence = XMLBytes.parseDouble(text, count: count) ?? .nan
        }
    }
}
