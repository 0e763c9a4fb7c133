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
    mutating func fastPoint(_ p: UnsafePointer<UInt8>, from start: Int, count n: Int, name: UnsafePointer<UInt8>, nameLength: Int) -> Int {
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
            case .other, .heartRateSample:
                break  // a SportTracks sample inside a point is ignored, as the general path does
            case .gpx, .metadata, .trk, .trkseg, .trkpt, .name, .type, .rte, .rtept, .wpt:
                return -1
            }
            k = endName + length + 1
        }
    }
}
