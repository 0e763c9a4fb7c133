import Foundation
import RunFiles

/// Writes a `Track` as GPX 1.1 (used by `RunGenerator`).
struct GPXWriter {
    var bytes: [UInt8] = []

    mutating func put(_ s: String) { bytes.append(contentsOf: s.utf8) }

    mutating func write(track t: Track, style: RunGenerator.GPXStyle, offset: Int?, sport: String) {
        bytes.reserveCapacity(t.count * (style == .garminConnect ? 440 : 240) + 1024)
        put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        put("<gpx creator=\"badgectl RunGenerator\" version=\"1.1\"\n")
        put("     xsi:schemaLocation=\"http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/11.xsd\"\n")
        put("     xmlns:gpxtpx=\"http://www.garmin.com/xmlschemas/TrackPointExtension/v1\"\n")
        put("     xmlns=\"http://www.topografix.com/GPX/1/1\"\n")
        put("     xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\">\n")
        put("  <metadata>\n")
        if let first = t.times.first, first.isFinite {
            put("    <time>\(RunGenerator.timestamp(first, offset: offset, millis: style == .garminConnect))</time>\n")
        }
        put("  </metadata>\n  <trk>\n")
        if let name = t.name { put("    <name>\(RunGenerator.xmlEscaped(name))</name>\n") }
        put("    <type>\(RunGenerator.xmlEscaped(sport))</type>\n")
        for range in t.segmentRanges {
            put("    <trkseg>\n")
            for i in range { writePoint(t, i, style: style, offset: offset) }
            put("    </trkseg>\n")
        }
        put("  </trk>\n</gpx>\n")
    }

    private mutating func writePoint(_ t: Track, _ i: Int, style: RunGenerator.GPXStyle, offset: Int?) {
        let hr = t.heartRate(at: i), cad = t.cadence(at: i)
        switch style {
        case .garminConnect:
            put("      <trkpt lat=\"\(RunGenerator.exactSemicircleDecimal(t.latitudes[i]))\" lon=\"\(RunGenerator.exactSemicircleDecimal(t.longitudes[i]))\">\n")
            if t.elevations[i].isFinite { put("        <ele>\(RunGenerator.exactFloatDecimal(Float(t.elevations[i])))</ele>\n") }
            if t.times[i].isFinite { put("        <time>\(RunGenerator.timestamp(t.times[i], offset: offset, millis: true))</time>\n") }
            if hr.isFinite || cad.isFinite {
                put("        <extensions>\n          <gpxtpx:TrackPointExtension>\n")
                put("            <gpxtpx:atemp>21.0</gpxtpx:atemp>\n")
                if hr.isFinite { put("            <gpxtpx:hr>\(Int(hr))</gpxtpx:hr>\n") }
                if cad.isFinite { put("            <gpxtpx:cad>\(Int(cad))</gpxtpx:cad>\n") }
                put("          </gpxtpx:TrackPointExtension>\n        </extensions>\n")
            }
            put("      </trkpt>\n")
        case .compact:
            put("<trkpt lat=\"\(RunGenerator.fixed(t.latitudes[i], 7))\" lon=\"\(RunGenerator.fixed(t.longitudes[i], 7))\">")
            if t.elevations[i].isFinite { put("<ele>\(RunGenerator.fixed(t.elevations[i], 1))</ele>") }
            if t.times[i].isFinite { put("<time>\(RunGenerator.timestamp(t.times[i], offset: offset, millis: false))</time>") }
            if hr.isFinite || cad.isFinite {
                put("<extensions><gpxtpx:TrackPointExtension>")
                if hr.isFinite { put("<gpxtpx:hr>\(Int(hr))</gpxtpx:hr>") }
                if cad.isFinite { put("<gpxtpx:cad>\(Int(cad))</gpxtpx:cad>") }
                put("</gpxtpx:TrackPointExtension></extensions>")
            }
            put("</trkpt>\n")
        }
    }
}
