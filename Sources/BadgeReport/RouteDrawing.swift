import Foundation
import RunFiles

/// Fits a route into an SVG viewBox: equirectangular projection (x scaled by cos of the mean
/// latitude), north up, aspect kept, the longer side `RouteProjection.side` units plus padding.
struct RouteProjection {
    static let side = 1000.0
    static let padding = 60.0
    static let minimumSpanMeters = 100.0

    let lon0: Double
    let kx: Double
    let ky: Double
    let minX: Double
    let maxY: Double
    let scale: Double
    let width: Double
    let height: Double

    init?(route: RouteTrace) {
        let n = route.count
        guard n > 0, route.longitudes.count == n else { return nil }
        var meanLat = 0.0
        var usable = 0
        for v in route.latitudes where v.isFinite { meanLat += v; usable += 1 }
        guard usable > 0 else { return nil }
        meanLat /= Double(usable)
        lon0 = route.longitudes[0].isFinite ? route.longitudes[0] : 0
        let degree = Geodesy.meanRadius * Double.pi / 180
        kx = degree * cos(meanLat * Double.pi / 180)
        ky = degree
        var lo = (x: Double.infinity, y: Double.infinity), hi = (x: -Double.infinity, y: -Double.infinity)
        for k in 0..<n {
            let lat = route.latitudes[k], lon = route.longitudes[k]
            guard lat.isFinite, lon.isFinite else { continue }
            let x = RouteProjection.unwrap(lon - lon0) * kx, y = lat * ky
            lo.x = min(lo.x, x); lo.y = min(lo.y, y); hi.x = max(hi.x, x); hi.y = max(hi.y, y)
        }
        let spanX = hi.x - lo.x, spanY = hi.y - lo.y
        // A route smaller than `minimumSpanMeters` (GPS jitter on a treadmill, a stand-still) is
        // drawn at the scale of that span, centred, rather than blown up to fill the box; this
        // also keeps a single point from dividing by zero.
        let shownX = max(spanX, RouteProjection.minimumSpanMeters), shownY = max(spanY, RouteProjection.minimumSpanMeters)
        scale = RouteProjection.side / max(shownX, shownY)
        minX = lo.x - (shownX - spanX) / 2
        maxY = hi.y + (shownY - spanY) / 2
        width = (shownX * scale).rounded() + 2 * RouteProjection.padding
        height = (shownY * scale).rounded() + 2 * RouteProjection.padding
    }

    static func unwrap(_ dl: Double) -> Double {
        dl > 180 ? dl - 360 : (dl < -180 ? dl + 360 : dl)
    }

    /// viewBox units, rounded to whole units (a unit is well under a pixel at the drawn size).
    func point(latitude: Double, longitude: Double) -> (x: Int, y: Int)? {
        guard latitude.isFinite, longitude.isFinite else { return nil }
        let x = RouteProjection.padding + (RouteProjection.unwrap(longitude - lon0) * kx - minX) * scale
        let y = RouteProjection.padding + (maxY - latitude * ky) * scale
        guard x.isFinite, y.isFinite, abs(x) < 1e7, abs(y) < 1e7 else { return nil }
        return (Int(x.rounded()), Int(y.rounded()))
    }
}

enum RouteDrawing {
    /// The route SVG of a run: one `<path>` per colour bin used (`class="bN"`, or `nospeed`), each
    /// holding a subpath for every stretch of the route in that bin, with relative coordinates;
    /// start and finish dots; a labelled marker where each checkpoint was reached.
    /// Returns the scale used (for the legend), nil when the route has no speeds.
    @discardableResult
    static func svg(run: RunSummary, route: RouteTrace, segments: [ReportSegment] = [], into out: inout String) -> PaceScale? {
        guard let projection = RouteProjection(route: route) else { return nil }
        let hasSpeeds = route.speedsMetersPerSecond.count == route.count
        let scale = hasSpeeds ? PaceScale(speeds: route.speedsMetersPerSecond.compactMap { $0 }) : nil
        let w = Int(projection.width), h = Int(projection.height)
        out += "<svg class=\"route\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(w) \(h)\""
        out += " data-vertices=\"\(route.count)\" role=\"img\" aria-label=\"Route of \(ReportFormat.escape(run.name ?? run.id))\">"
        out += "<rect class=\"route-bg\" width=\"\(w)\" height=\"\(h)\" rx=\"24\"/>"
        let points = (0..<route.count).map { projection.point(latitude: route.latitudes[$0], longitude: route.longitudes[$0]) }
        // Path data per bin; the last slot is for a route without speeds.
        var paths = [String](repeating: "", count: PaceScale.binCount + 1)
        let noSpeed = PaceScale.binCount
        for range in route.segmentRanges where range.count >= 2 {
            var current = -1  // slot of the open subpath, -1 when none is open
            var pen = (x: 0, y: 0)
            for i in range.lowerBound..<(range.upperBound - 1) {
                guard let a = points[i], let b = points[i + 1] else {
                    current = -1
                    continue
                }
                var slot = noSpeed
                if let scale, let u = route.speedsMetersPerSecond[i], let v = route.speedsMetersPerSecond[i + 1] {
                    slot = scale.bin((u + v) / 2)
                }
                // One bin of hysteresis: a stretch keeps its colour while the speed stays within a
                // neighbouring bin, so GPS jitter does not chop the route into tiny pieces.
                let keepsColour = current >= 0 && (slot == current || (slot != noSpeed && current != noSpeed && abs(slot - current) <= 1))
                if !keepsColour {
                    paths[slot] += "M\(a.x) \(a.y)l"
                    current = slot
                    pen = a
                } else {
                    paths[current] += " "
                }
                let dx = b.x - pen.x, dy = b.y - pen.y
                paths[current] += dy < 0 ? "\(dx)\(dy)" : "\(dx) \(dy)"
                pen = b
            }
        }
        for (slot, d) in paths.enumerated() where !d.isEmpty {
            let name = slot == noSpeed ? "nospeed" : "b\(slot)"
            out += "<path class=\"\(name)\" d=\"\(d)\"/>"
        }
        // The segments this run passed: the path dashed over the route, a dot at each gate.
        for segment in segments {
            let drawn = zip(segment.latitudes, segment.longitudes).compactMap { projection.point(latitude: $0.0, longitude: $0.1) }
            guard let first = drawn.first, let last = drawn.last, drawn.count >= 2 else { continue }
            var d = "M\(first.x) \(first.y)"
            for p in drawn.dropFirst() { d += "L\(p.x) \(p.y)" }
            let name = ReportFormat.escape(segment.name)
            out += "<g class=\"segment\" data-segment=\"\(name)\"><title>Segment \(name)</title><path d=\"\(d)\"/>"
            out += "<circle class=\"gate\" cx=\"\(first.x)\" cy=\"\(first.y)\" r=\"10\"/><circle class=\"gate\" cx=\"\(last.x)\" cy=\"\(last.y)\" r=\"10\"/></g>"
        }
        if let first = points.first ?? nil {
            out += "<circle class=\"start\" cx=\"\(first.x)\" cy=\"\(first.y)\" r=\"14\"><title>Start</title></circle>"
        }
        if let last = points.last ?? nil {
            out += "<circle class=\"finish\" cx=\"\(last.x)\" cy=\"\(last.y)\" r=\"14\"><title>Finish</title></circle>"
        }
        for checkpoint in run.checkpoints {
            guard let lat = checkpoint.latitude, let lon = checkpoint.longitude,
                let p = projection.point(latitude: lat, longitude: lon)
            else { continue }
            let name = ReportFormat.escape(checkpoint.name)
            let leftHalf = Double(p.x) < projection.width / 2
            let tx = leftHalf ? p.x + 22 : p.x - 22
            var title = name + " · " + ReportFormat.kilometres(checkpoint.distanceMeters)
            if let t = checkpoint.elapsedSeconds { title += " at " + ReportFormat.duration(t) }
            out += "<g class=\"checkpoint\" data-badge=\"\(ReportFormat.escape(checkpoint.badge))\"><title>\(title)</title>"
            out += "<circle cx=\"\(p.x)\" cy=\"\(p.y)\" r=\"16\"/>"
            out += "<text x=\"\(tx)\" y=\"\(p.y + 10)\" text-anchor=\"\(leftHalf ? "start" : "end")\">\(name)</text></g>"
        }
        out += "</svg>"
        return scale
    }

    /// Bars of the kilometre splits, taller and greener for faster; the last partial split is faded.
    static func splits(_ splits: [Split], into out: inout String) {
        let usable = splits.filter { $0.distanceMeters > 0 && $0.elapsedSeconds > 0 && $0.elapsedSeconds.isFinite }
        guard !usable.isEmpty else { return }
        let speeds = usable.map { $0.distanceMeters / $0.elapsedSeconds }
        let scale = PaceScale(speeds: speeds)
        let fastest = speeds.max() ?? 1
        let slowest = speeds.min() ?? 0
        let width = 1000, chartHeight = 150.0, top = 16.0
        let barWidth = Double(width) / Double(usable.count)
        let labelEvery = max(1, Int((Double(usable.count) / 20).rounded(.up)))
        out += "<svg class=\"splits\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) 200\" role=\"img\" aria-label=\"Kilometre splits\">"
        for (k, split) in usable.enumerated() {
            let v = speeds[k]
            // Height: 30% for the slowest split, 100% for the fastest (all equal: full height).
            let u = fastest - slowest > 1e-9 ? (v - slowest) / (fastest - slowest) : 1
            let barHeight = chartHeight * (0.3 + 0.7 * u)
            let x = Double(k) * barWidth
            let bin = scale?.bin(v) ?? PaceScale.middleBin
            let pace = ReportFormat.pace(split.paceSecondsPerKilometre)
            out += "<rect class=\"split b\(bin)\(split.partial ? " partial" : "")\" data-index=\"\(split.index)\""
            out += " x=\"\(ReportFormat.fixed(x + barWidth * 0.08, 1))\" y=\"\(ReportFormat.fixed(top + chartHeight - barHeight, 1))\""
            out += " width=\"\(ReportFormat.fixed(barWidth * 0.84, 1))\" height=\"\(ReportFormat.fixed(barHeight, 1))\"><title>km \(split.index)\(split.partial ? " (" + ReportFormat.kilometres(split.distanceMeters) + ")" : ""): \(pace)</title></rect>"
            if k % labelEvery == 0 {
                let cx = ReportFormat.fixed(x + barWidth / 2, 1)
                out += "<text x=\"\(cx)\" y=\"186\" text-anchor=\"middle\">\(ReportFormat.duration(split.paceSecondsPerKilometre))</text>"
            }
        }
        out += "</svg>"
    }
}
