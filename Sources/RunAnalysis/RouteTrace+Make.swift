import Foundation
import RunFiles

extension RouteTrace {
    /// Speeds are averaged over a window this long (centred on the vertex).
    public static let speedWindowSeconds = 10.0

    /// Builds the simplified route of `track` from its cleaned `profile` (the points the profile
    /// kept, so teleports and backwards timestamps are already gone). Returns nil when the track
    /// has no positions or fewer than two usable points.
    ///
    /// - Parameters:
    ///   - toleranceMeters: Douglas–Peucker tolerance in projected metres.
    ///   - maxVertices: cap on vertices; the least important are dropped first (segment ends are
    ///     always kept).
    ///   - colourStrideMeters: a vertex is kept at least this often along the route (when the cap
    ///     allows), so a long straight stretch still shows how the speed changed along it.
    public static func make(
        track: Track, profile: Profile, toleranceMeters: Double = 4, maxVertices: Int = 800,
        colourStrideMeters: Double = 100
    ) -> RouteTrace? {
        guard track.hasPositions else { return nil }
        let n = profile.count
        guard n >= 2, profile.elapsed.count == n else { return nil }
        var lat = [Double](repeating: 0, count: n)
        var lon = [Double](repeating: 0, count: n)
        for k in 0..<n {
            let i = profile.pointIndex(k)
            guard i >= 0, i < track.latitudes.count, i < track.longitudes.count else { return nil }
            lat[k] = track.latitudes[i]
            lon[k] = track.longitudes[i]
        }
        // Segments of the profile, sanitised.
        var starts = profile.segmentStarts.filter { $0 >= 0 && $0 < n }
        if starts.first != 0 { starts.insert(0, at: 0) }
        var ranges: [Range<Int>] = []
        for (s, start) in starts.enumerated() {
            let end = s + 1 < starts.count ? starts[s + 1] : n
            if end > start { ranges.append(start..<end) }
        }

        // Local projection in metres: longitudes unwrapped around the first point.
        let lat0 = lat[0], lon0 = lon[0]
        var meanLat = 0.0
        for v in lat { meanLat += v }
        meanLat /= Double(n)
        let degree = Geodesy.meanRadius * Double.pi / 180
        let kx = degree * cos(meanLat * Double.pi / 180)
        var x = [Double](repeating: 0, count: n), y = [Double](repeating: 0, count: n)
        for k in 0..<n {
            var dl = lon[k] - lon0
            if dl > 180 { dl -= 360 } else if dl < -180 { dl += 360 }
            x[k] = dl * kx
            y[k] = (lat[k] - lat0) * degree
        }

        // Importance of each point; segment ends must stay.
        let tolerance = max(0, toleranceMeters)
        var importance = [Double](repeating: 0, count: n)
        for r in ranges {
            importance[r.lowerBound] = .infinity
            importance[r.upperBound - 1] = .infinity
            douglasPeucker(x: x, y: y, range: r, tolerance: tolerance, importance: &importance)
        }
        // Keep a vertex every `colourStrideMeters` along the route when the cap allows.
        if colourStrideMeters > 0 {
            let forced = tolerance.nextUp
            for r in ranges {
                var nextMark = profile.distances[r.lowerBound] + colourStrideMeters
                for k in r where profile.distances[k] >= nextMark {
                    importance[k] = max(importance[k], forced)
                    nextMark = profile.distances[k] + colourStrideMeters
                }
            }
        }
        var keep = (0..<n).filter { importance[$0] > tolerance }
        let cap = max(2, maxVertices)
        if keep.count > cap {
            // The most important `cap` points, ties broken by position so the result is deterministic.
            let ranked = keep.sorted { importance[$0] != importance[$1] ? importance[$0] > importance[$1] : $0 < $1 }
            keep = Array(ranked.prefix(cap)).sorted()
        }

        let speeds = smoothedSpeeds(profile: profile, ranges: ranges)
        var trace = RouteTrace(latitudes: [], longitudes: [], speedsMetersPerSecond: [], segmentStarts: [])
        trace.latitudes.reserveCapacity(keep.count); trace.longitudes.reserveCapacity(keep.count)
        var rangeIndex = 0
        var openRange = -1
        for k in keep {
            while rangeIndex < ranges.count, k >= ranges[rangeIndex].upperBound { rangeIndex += 1 }
            if rangeIndex != openRange {
                trace.segmentStarts.append(trace.latitudes.count)
                openRange = rangeIndex
            }
            trace.latitudes.append(round(lat[k], 1e6))
            trace.longitudes.append(round(lon[k], 1e6))
            if let speeds { trace.speedsMetersPerSecond.append(speeds[k].isFinite ? round(speeds[k], 100) : nil) }
        }
        return trace
    }

    @inline(__always)
    static func round(_ v: Double, _ scale: Double) -> Double { (v * scale).rounded() / scale }

    /// Iterative Douglas–Peucker over `range`: writes each interior point's importance (its
    /// deviation from the chord when it was chosen, capped by the importance of the split that
    /// created the chord). A chord whose farthest point is within `tolerance` is not split further:
    /// everything under it would have importance ≤ tolerance and is never kept. Points never
    /// chosen keep importance 0.
    static func douglasPeucker(x: [Double], y: [Double], range: Range<Int>, tolerance: Double, importance: inout [Double]) {
        guard range.count > 2 else { return }
        var stack: [(first: Int, last: Int, cap: Double)] = [(range.lowerBound, range.upperBound - 1, .infinity)]
        while let (first, last, cap) = stack.popLast() {
            guard last - first > 1 else { continue }
            let ax = x[first], ay = y[first]
            let dx = x[last] - ax, dy = y[last] - ay
            let length2 = dx * dx + dy * dy
            var best = -1
            var bestDistance2 = -1.0
            for k in (first + 1)..<last {
                let px = x[k] - ax, py = y[k] - ay
                let d2: Double
                if length2 == 0 {
                    d2 = px * px + py * py
                } else {
                    // Distance to the segment (not the infinite line), so out-and-back spurs count.
                    let t = max(0, min(1, (px * dx + py * dy) / length2))
                    let ex = px - t * dx, ey = py - t * dy
                    d2 = ex * ex + ey * ey
                }
                if d2 > bestDistance2 { bestDistance2 = d2; best = k }
            }
            guard best > 0 else { continue }
            let level = min(cap, bestDistance2.squareRoot())
            importance[best] = max(importance[best], level)
            guard level > tolerance else { continue }
            stack.append((first, best, level))
            stack.append((best, last, level))
        }
    }

    /// Speed at each profile point: distance over time across a window of about
    /// `speedWindowSeconds` centred on the point, within its segment. Points that share one
    /// timestamp (dt = 0, as some devices write) form one group placed at their mean distance, so
    /// the speed is neither infinite nor biased by the repeat. Points without a time, and segments
    /// with a single timestamp, take the nearest known speed in their segment; a segment without
    /// any stays `.nan`. Nil when no point has a speed at all.
    static func smoothedSpeeds(profile: Profile, ranges: [Range<Int>]) -> [Double]? {
        let n = profile.count
        var speeds = [Double](repeating: .nan, count: n)
        let half = speedWindowSeconds / 2
        var any = false
        for r in ranges {
            // Groups of equal timestamps; times are non-decreasing within a profile.
            var groupTime: [Double] = [], groupDistance: [Double] = [], groupSize: [Int] = []
            var groupOf: [(point: Int, group: Int)] = []
            for k in r {
                let t = profile.elapsed[k]
                guard t.isFinite else { continue }
                if let last = groupTime.last, last == t {
                    groupDistance[groupDistance.count - 1] += profile.distances[k]
                    groupSize[groupSize.count - 1] += 1
                } else {
                    groupTime.append(t); groupDistance.append(profile.distances[k]); groupSize.append(1)
                }
                groupOf.append((k, groupTime.count - 1))
            }
            let m = groupTime.count
            guard m >= 2 else { continue }
            for g in 0..<m { groupDistance[g] /= Double(groupSize[g]) }
            var groupSpeed = [Double](repeating: .nan, count: m)
            var lo = 0, hi = 0
            for g in 0..<m {
                let t = groupTime[g]
                while lo < g, groupTime[lo] < t - half { lo += 1 }
                if hi < g { hi = g }
                while hi + 1 < m, groupTime[hi + 1] <= t + half { hi += 1 }
                // At least one neighbour on each side that exists.
                let a = min(lo, max(0, g - 1)), b = max(hi, min(m - 1, g + 1))
                let dt = groupTime[b] - groupTime[a]
                let v = (groupDistance[b] - groupDistance[a]) / dt
                if dt > 0, v.isFinite, v >= 0 { groupSpeed[g] = v }
            }
            for (k, g) in groupOf where groupSpeed[g].isFinite {
                speeds[k] = groupSpeed[g]
                any = true
            }
            // Within the segment, points without a speed take the nearest known one before, else after.
            var last = Double.nan
            for k in r {
                if speeds[k].isFinite { last = speeds[k] } else if last.isFinite { speeds[k] = last }
            }
            last = .nan
            for k in r.reversed() {
                if speeds[k].isFinite { last = speeds[k] } else if last.isFinite { speeds[k] = last }
            }
        }
        guard any else { return nil }
        return speeds
    }
}
