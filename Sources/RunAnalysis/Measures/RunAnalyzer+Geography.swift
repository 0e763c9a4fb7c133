import Foundation
import RunFiles

/// The kept positions of a run (after teleports and clock jumps were cleaned), with their elapsed times
/// (NaN when untimed) and where each track segment starts: what the place, segment and tiles measures
/// read, made once per run for all of them.
public struct RunPositions: Sendable {
    var latitudes: [Double] = []
    var longitudes: [Double] = []
    var elapsed: [Double] = []
    /// True at a point that starts a new track segment (a paused recording).
    var segmentStart: [Bool] = []
    var minLatitude = Double.infinity, maxLatitude = -Double.infinity
    var minLongitude = Double.infinity, maxLongitude = -Double.infinity
    public var count: Int { latitudes.count }

    /// No positions (a run whose measures read none).
    public init() {}

    public init(track: Track, profile: Profile) {
        guard track.hasPositions else { return }
        latitudes.reserveCapacity(profile.count); longitudes.reserveCapacity(profile.count)
        elapsed.reserveCapacity(profile.count); segmentStart.reserveCapacity(profile.count)
        // Segment starts ascend: walked alongside, no set lookups per point.
        let starts = profile.segmentStarts
        var nextStart = 0
        for k in 0..<profile.count {
            var starting = k == 0
            while nextStart < starts.count, starts[nextStart] <= k {
                if starts[nextStart] == k { starting = true }
                nextStart += 1
            }
            let i = profile.pointIndex(k)
            let lat = track.latitudes[i], lon = track.longitudes[i]
            guard lat.isFinite, lon.isFinite else { continue }
            latitudes.append(lat); longitudes.append(lon); elapsed.append(profile.elapsed[k])
            segmentStart.append(starting)
            minLatitude = min(minLatitude, lat); maxLatitude = max(maxLatitude, lat)
            minLongitude = min(minLongitude, lon); maxLongitude = max(maxLongitude, lon)
        }
    }

    /// Whether the run's box meets a segment's box widened by its tolerance (`SegmentPath.box`, which
    /// may run past ±180; the run's box of a run across the antimeridian spans the whole row).
    @inline(__always)
    func touches(_ box: SegmentPath.Box) -> Bool {
        count > 0 && box.meets(south: minLatitude, north: maxLatitude, west: minLongitude, east: maxLongitude)
    }
}

/// One pass of a run over a segment: through the start gate and the end gate in the segment's direction,
/// on its path all the way. Times are elapsed seconds of the run, interpolated at the gates (nil for a
/// run without times); gates are where the run crossed them.
public struct SegmentEffort: Sendable, Equatable {
    public var startElapsedSeconds: Double?
    public var endElapsedSeconds: Double?
    public var startLatitude: Double, startLongitude: Double
    public var endLatitude: Double, endLongitude: Double
    public var elapsedSeconds: Double? {
        guard let a = startElapsedSeconds, let b = endElapsedSeconds else { return nil }
        return b - a
    }
}

extension RunAnalyzer {
    // MARK: Place

    /// Whether the run came within `radius_m` of the place. Each step between kept positions is a straight
    /// line in a local plane around the place, so a sparse recording that passes the place between two
    /// fixes still counts, at the interpolated time. A visit starts on entering the circle; it ends only
    /// once the run is farther than the radius plus `placeHysteresis` (20 %, 10 m at least), so GPS jitter at
    /// the edge does not make two visits. `first_elapsed_s` is the first entry, `last_elapsed_s` the last
    /// moment inside (left out for a run without times); `closest_m` the nearest approach.
    static func place(_ definition: MeasureDefinition, positions: RunPositions) -> MeasureValue? {
        guard positions.count > 0, let lat0 = definition.number("lat"), let lon0 = definition.number("lon"),
              let radius = definition.number("radius_m") else { return nil }
        let degrees = Double.pi / 180
        let ky = Geodesy.meanRadius * degrees, kx = max(1, ky * cos(lat0 * degrees))
        let release = radius + max(10, radius * placeHysteresis)
        var visits = 0, inside = false
        var first = Double.nan, last = Double.nan, closest = Double.infinity
        func plane(_ k: Int) -> (Double, Double) {
            var dLon = positions.longitudes[k] - lon0
            if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
            return (dLon * kx, (positions.latitudes[k] - lat0) * ky)
        }
        /// The fractions of the step a→b within distance r of the place (the chord of the circle), if any.
        func chord(_ a: (Double, Double), _ b: (Double, Double), _ r: Double) -> (Double, Double)? {
            let dx = b.0 - a.0, dy = b.1 - a.1
            let qa = dx * dx + dy * dy, qb = 2 * (a.0 * dx + a.1 * dy), qc = a.0 * a.0 + a.1 * a.1 - r * r
            if qa == 0 { return qc <= 0 ? (0, 1) : nil }
            let disc = qb * qb - 4 * qa * qc
            guard disc >= 0 else { return nil }
            let root = disc.squareRoot()
            let f0 = max(0, (-qb - root) / (2 * qa)), f1 = min(1, (-qb + root) / (2 * qa))
            return f0 <= f1 ? (f0, f1) : nil
        }
        var previous = plane(0)
        closest = (previous.0 * previous.0 + previous.1 * previous.1).squareRoot()
        if closest <= radius { inside = true; visits = 1; first = positions.elapsed[0]; last = positions.elapsed[0] }
        for k in 1..<max(1, positions.count) {
            let point = plane(k)
            let ta = positions.elapsed[k - 1], tb = positions.elapsed[k]
            let dx = point.0 - previous.0, dy = point.1 - previous.1, qa = dx * dx + dy * dy
            let f = qa > 0 ? min(1, max(0, -(previous.0 * dx + previous.1 * dy) / qa)) : 0
            let nx = previous.0 + f * dx, ny = previous.1 + f * dy
            closest = min(closest, (nx * nx + ny * ny).squareRoot())
            if let (f0, f1) = chord(previous, point, radius) {
                if !inside {
                    inside = true
                    visits += 1
                    if visits == 1 { first = ta + f0 * (tb - ta) }
                }
                last = ta + f1 * (tb - ta)
            }
            if inside, (point.0 * point.0 + point.1 * point.1).squareRoot() > release { inside = false }
            previous = point
        }
        var value = MeasureValue(fields: [.passed: .boolean(visits > 0), .visits: .integer(visits), .closestMeters: .float(closest)])
        if visits > 0, first.isFinite, last.isFinite {
            value[.firstElapsedSeconds] = .float(first)
            value[.lastElapsedSeconds] = .float(last)
        }
        return value
    }

    /// A visit to a place ends beyond the radius plus this share of it (10 m at least).
    public static let placeHysteresis = 0.2

    // MARK: Tiles

    /// The tiles at `zoom` the route passes through: the tile of every kept position and every tile the
    /// straight line (in the Mercator plane) between two consecutive positions of a track segment crosses
    /// (`Tiles.walk`); a paused recording's gap between track segments adds no tiles between.
    /// `tiles` are keys (`Tiles.key`), ascending.
    static func tiles(zoom: Int, positions: RunPositions) -> MeasureValue? {
        guard positions.count > 0, zoom >= 0, zoom <= Tiles.maximumZoom else { return nil }
        var seen = Set<Int>()
        // The box (in degrees, a hair inside) of the last point's tile: a point inside it is in the same
        // tile, and so is the straight step to it (a tile is convex), so most points cost four comparisons
        // instead of the Mercator formulas.
        var box = Tiles.bounds(x: 0, y: 0, zoom: zoom)
        var lastKey = -1
        // Whether the position before is on the map (and so the step from it is walked).
        var previousOnMap = false
        for k in 0..<positions.count {
            let lat = positions.latitudes[k], lon = positions.longitudes[k]
            // Beyond Web Mercator's latitude limit there are no tiles: a fix there (and a step to or from
            // it) adds none, where clamping it into the edge row made a polar run cross thousands.
            guard abs(lat) <= Tiles.maximumLatitude else { previousOnMap = false; continue }
            let continuing = previousOnMap && !positions.segmentStart[k]
            previousOnMap = true
            if continuing, lat > box.south, lat < box.north, lon > box.west, lon < box.east { continue }
            let c = Tiles.coordinates(latitude: lat, longitude: lon, zoom: zoom)
            if continuing {
                let previous = Tiles.coordinates(latitude: positions.latitudes[k - 1], longitude: positions.longitudes[k - 1], zoom: zoom)
                if Int(c.x) != Int(previous.x) || Int(c.y) != Int(previous.y) {
                    Tiles.walk(from: previous, to: c, zoom: zoom) { x, y in
                        let key = Tiles.key(x: x, y: y)
                        if key != lastKey { seen.insert(key); lastKey = key }
                    }
                }
            } else {
                seen.insert(Tiles.key(x: Int(c.x), y: Int(c.y)))
            }
            box = Tiles.bounds(x: Int(c.x), y: Int(c.y), zoom: zoom)
        }
        guard !seen.isEmpty else { return nil }
        let keys = seen.sorted()
        return MeasureValue(fields: [.zoom: .integer(zoom), .count: .integer(keys.count), .tiles: .list(keys.map { .integer($0) })])
    }

    // MARK: Segments

    /// Passes followed at once at most (a run zigzagging across a start gate drops its oldest).
    static let maximumAttempts = 16

    /// The segment measure: nil when the run has no positions or its box does not meet the segment's
    /// (widened by the tolerance): the cheap test that makes a thousand segments cost little.
    static func segment(_ definition: MeasureDefinition, positions: RunPositions) -> MeasureValue? {
        guard let path = definition.path, positions.count > 1, positions.touches(path.box) else { return nil }
        let tolerance = path.tolerance
        let efforts = segmentEfforts(path: path, tolerance: tolerance, positions: positions)
        var value = MeasureValue(fields: [.count: .integer(efforts.count), .lengthMeters: .float(path.length)])
        var records: [MeasureScalar] = []
        var best: (index: Int, elapsed: Double)?
        for (index, effort) in efforts.enumerated() {
            var fields: [MeasureField: MeasureScalar] = [
                .distanceMeters: .float(path.length),
                .startLatitude: .float(effort.startLatitude), .startLongitude: .float(effort.startLongitude),
                .endLatitude: .float(effort.endLatitude), .endLongitude: .float(effort.endLongitude),
            ]
            if let start = effort.startElapsedSeconds, let end = effort.endElapsedSeconds, let elapsed = effort.elapsedSeconds {
                fields[.startElapsedSeconds] = .float(start)
                fields[.endElapsedSeconds] = .float(end)
                fields[.elapsedSeconds] = .float(elapsed)
                fields[.paceSecondsPerKilometre] = .float(elapsed / path.length * 1000)
                if elapsed < (best?.elapsed ?? .infinity) { best = (index, elapsed) }
            }
            records.append(.record(fields: fields))
        }
        value[.efforts] = .list(records)
        if let best {
            value[.best] = .integer(best.index + 1)
            value[.bestElapsedSeconds] = .float(best.elapsed)
        }
        return value
    }

    /// Every pass of the run over `path`, in order.
    ///
    /// - The gates: a line across the path at each end, at right angles to the path's direction there
    ///   (taken over its first and last `tolerance` metres), `tolerance` metres to each side. A pass starts
    ///   when a step of the run crosses the start gate going the segment's way and ends when a later step
    ///   crosses the end gate going its way; the times are interpolated where the step crosses the gate.
    /// - On the path: every kept position between the gates, and points every `tolerance` metres along
    ///   longer steps (a GPS gap is a straight line between its fixes), is within `tolerance` of the path,
    ///   at a distance along it that never goes back by more than `tolerance` nor jumps ahead by more than
///   the step and twice `tolerance` (so a path that comes back near itself is followed in order); the pass reaches the end
    ///   gate only from within `tolerance` of the path's end. A run that leaves the path drops the pass
    ///   (a partial pass counts nothing); one that crosses the start gate again before the end starts over.
    /// - The reverse direction crosses the gates the other way: no pass. A loop segment (its gates at one
    ///   place) passed twice gives two efforts: the end of the first lap is the start of the second.
    public static func segmentEfforts(path: SegmentPath, tolerance: Double, positions: RunPositions) -> [SegmentEffort] {
        let n = positions.count
        guard n >= 2 else { return [] }
        var px = [Double](repeating: 0, count: n), py = [Double](repeating: 0, count: n)
        for k in 0..<n {
            let p = path.plane(latitude: positions.latitudes[k], longitude: positions.longitudes[k])
            px[k] = p.x; py[k] = p.y
        }
        let reach = min(tolerance, path.length / 2)
        let startPoint = (x: path.x[0], y: path.y[0]), endPoint = (x: path.x[path.x.count - 1], y: path.y[path.y.count - 1])
        func unit(_ from: (x: Double, y: Double), _ to: (x: Double, y: Double)) -> (x: Double, y: Double) {
            let dx = to.x - from.x, dy = to.y - from.y, l = (dx * dx + dy * dy).squareRoot()
            return l > 0 ? (dx / l, dy / l) : (1, 0)
        }
        let startDirection = unit(startPoint, path.point(along: reach))
        let endDirection = unit(path.point(along: path.length - reach), endPoint)
        /// Where step a→b crosses the gate at `g` (direction `d`) going forward: the step's fraction, if
        /// within `tolerance` of the path's end point along the gate.
        func crossing(_ a: Int, _ b: Int, gate g: (x: Double, y: Double), direction d: (x: Double, y: Double)) -> Double? {
            let sa = (px[a] - g.x) * d.x + (py[a] - g.y) * d.y, sb = (px[b] - g.x) * d.x + (py[b] - g.y) * d.y
            guard sa < 0, sb >= 0 else { return nil }
            let f = -sa / (sb - sa)
            let cx = px[a] + f * (px[b] - px[a]) - g.x, cy = py[a] + f * (py[b] - py[a]) - g.y
            return abs(cx * d.y - cy * d.x) <= tolerance ? f : nil
        }
        let limit = tolerance * tolerance
        /// The distance along the path of the point (x, y), searched from `progress - tolerance` up to
        /// `progress + advance + 2 tolerance` (a run cutting a corner inside jumps ahead by up to twice its
        /// offset), if within `tolerance` of the path there; the nearest match.
        func project(_ x: Double, _ y: Double, progress: Double, advance: Double) -> Double? {
            let from = progress - tolerance, to = progress + advance + 2 * tolerance
            var j = max(1, path.along.partitioningIndex { $0 >= from })
            var bestDistance = Double.infinity, bestAlong = 0.0
            while j < path.along.count {
                let ax = path.x[j - 1], ay = path.y[j - 1], dx = path.x[j] - ax, dy = path.y[j] - ay
                let q = dx * dx + dy * dy
                var f = q > 0 ? ((x - ax) * dx + (y - ay) * dy) / q : 0
                f = min(1, max(0, f))
                let along = path.along[j - 1] + f * (path.along[j] - path.along[j - 1])
                if along >= from, along <= to {
                    let ex = ax + f * dx - x, ey = ay + f * dy - y, d2 = ex * ex + ey * ey
                    if d2 <= limit, d2 < bestDistance { bestDistance = d2; bestAlong = along }
                }
                if path.along[j - 1] > to { break }
                j += 1
            }
            return bestDistance.isFinite ? bestAlong : nil
        }
        /// Follows the straight line from (x0, y0) to (x1, y1) along the path from `progress`: the new
        /// progress, or nil when a point of it (every `tolerance` metres, and its end) is off the path.
        func follow(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, progress: Double) -> Double? {
            let dx = x1 - x0, dy = y1 - y0, length = (dx * dx + dy * dy).squareRoot()
            let pieces = max(1, Int((length / tolerance).rounded(.up)))
            var at = progress
            for s in 1...pieces {
                let f = Double(s) / Double(pieces)
                guard let along = project(x0 + f * dx, y0 + f * dy, progress: at, advance: length / Double(pieces)) else { return nil }
                at = max(at, along)
            }
            return at
        }
        func time(_ a: Int, _ b: Int, _ f: Double) -> Double? {
            let ta = positions.elapsed[a], tb = positions.elapsed[b]
            return ta.isFinite && tb.isFinite ? ta + f * (tb - ta) : nil
        }
        func place(_ a: Int, _ b: Int, _ f: Double) -> (x: Double, y: Double) {
            (px[a] + f * (px[b] - px[a]), py[a] + f * (py[b] - py[a]))
        }
        var efforts: [SegmentEffort] = []
        /// The passes under way, oldest first: each started at a start-gate crossing and follows the path
        /// on its own (a segment that comes back over its own start, on a lap course, has several).
        var attempts: [(order: Int, start: Double?, gate: (x: Double, y: Double), progress: Double)] = []
        var started = 0
        for b in 1..<n {
            let a = b - 1
            if !attempts.isEmpty {
                let end = crossing(a, b, gate: endPoint, direction: endDirection)
                var finished: (order: Int, start: Double?, gate: (x: Double, y: Double), crossing: (x: Double, y: Double), f: Double)?
                var going: [(order: Int, start: Double?, gate: (x: Double, y: Double), progress: Double)] = []
                for attempt in attempts {
                    if let f = end {
                        let c = place(a, b, f)
                        if let along = follow(px[a], py[a], c.x, c.y, progress: attempt.progress), along >= path.length - tolerance {
                            // Of passes ending at one crossing, the one that started last (a runner who
                            // crossed the start gate twice is timed from the second crossing).
                            finished = (attempt.order, attempt.start, attempt.gate, c, f)
                            continue
                        }
                    }
                    if let along = follow(px[a], py[a], px[b], py[b], progress: attempt.progress) {
                        going.append((attempt.order, attempt.start, attempt.gate, along))
                    }
                }
                if let finished {
                    let start = path.degrees(x: finished.gate.x, y: finished.gate.y), stop = path.degrees(x: finished.crossing.x, y: finished.crossing.y)
                    efforts.append(SegmentEffort(startElapsedSeconds: finished.start, endElapsedSeconds: time(a, b, finished.f),
                                                 startLatitude: start.latitude, startLongitude: start.longitude,
                                                 endLatitude: stop.latitude, endLongitude: stop.longitude))
                    // Passes that started before the one just counted would end here too: gone.
                    going.removeAll { $0.order < finished.order }
                }
                attempts = going
            }
            if let f = crossing(a, b, gate: startPoint, direction: startDirection) {
                let c = place(a, b, f)
                if let along = follow(c.x, c.y, px[b], py[b], progress: 0) {
                    if attempts.count >= maximumAttempts { attempts.removeFirst() }
                    started += 1
                    attempts.append((started, time(a, b, f), c, along))
                }
            }
        }
        return efforts
    }
}
