import Foundation
import RunFiles

extension MeasureKind {
    /// `{ kind = "place", lat = 52.3579, lon = 4.8686, radius_m = 50 }`: whether and when the run passed
    /// within `radius_m` of a point.
    public static let place = MeasureKind(
        name: "place",
        parameters: [
            ParameterSpec(name: "lat", type: .number(minimum: -90, integer: false), doc: "the place's latitude, degrees"),
            ParameterSpec(name: "lon", type: .number(minimum: -180, integer: false), doc: "the place's longitude, degrees"),
            ParameterSpec(name: "radius_m", type: .number(minimum: 1, integer: false), doc: "how near counts as passing, metres"),
        ],
        fields: [.passed, .visits, .firstElapsedSeconds, .lastElapsedSeconds, .closestMeters],
        doc: "whether and when the run passed within radius_m of a point",
        check: { d in
            guard let lat = d.number("lat"), let lon = d.number("lon"), d.number("radius_m") != nil else {
                return "a place needs lat, lon (degrees) and radius_m (metres)"
            }
            if lat > 90 { return "lat must be at most 90, got \(lat)" }
            if lon > 180 { return "lon must be at most 180, got \(lon)" }
            if let radius = d.number("radius_m"), radius > 100_000 { return "radius_m must be at most 100000 (100 km)" }
            return nil
        })

    /// `{ kind = "segment", file = "segments/park-loop.gpx", tolerance_m = 25 }`: every pass of the run
    /// over a path the pack ships.
    public static let segment = MeasureKind(
        name: "segment",
        parameters: [
            ParameterSpec(name: "file", type: .text, doc: "the pack's segment file, segments/<name>.gpx"),
            ParameterSpec(name: "tolerance_m", type: .number(minimum: 1, integer: false), doc: "how far from the path a pass may stray, metres (default 25)"),
            ParameterSpec(name: "sha256", type: .text, doc: "set by badgectl: the segment file's SHA-256"),
        ],
        fields: [.count, .best, .bestElapsedSeconds, .lengthMeters, .efforts],
        doc: "every pass over a segment the pack ships: through both gates, on the path",
        check: { d in
            guard let file = d.text("file") else { return "missing required parameter 'file' (segments/<name>.gpx in the pack)" }
            if !SegmentPath.isPackPath(file) { return "file must be a path inside the pack's segments folder ending in .gpx, as in \"segments/park-loop.gpx\", got '\(file)'" }
            if let tolerance = d.number("tolerance_m"), tolerance > 500 { return "tolerance_m must be at most 500" }
            return nil
        })

    /// `{ kind = "tiles", zoom = 14 }`: the slippy-map tiles the route passes through.
    public static let tiles = MeasureKind(
        name: "tiles",
        parameters: [ParameterSpec(name: "zoom", type: .number(minimum: 1, integer: true), doc: "the tiles' zoom level, 1 to 20 (14: about 2.4 km at the equator)")],
        fields: [.zoom, .count, .tiles],
        doc: "the Web Mercator tiles (x, y at zoom) the route passes through",
        check: { d in
            guard let zoom = d.number("zoom") else { return "missing required parameter 'zoom' (14 is the explorers' usual)" }
            return zoom > Double(Tiles.maximumZoom) ? "zoom must be at most \(Tiles.maximumZoom), got \(Int(zoom))" : nil
        })
}

/// The path of a `segment` measure, read from the pack's GPX file, with what matching needs made once:
/// the points in a local plane (metres east and north of the first point, an equirectangular projection
/// on the mean radius: under 0.1 % off over a few kilometres), the distance along the path to each point
/// and the bounding box in degrees.
///
/// Across the antimeridian: each point's longitude is taken within 180° of the one before (179.99°
/// then −179.99° is a step of 0.02° east, not 359.98° west: the path from (0, 179.99) to (0, −179.99)
/// is 2.2 km, not 40,028 km), and a point's offset from the first is taken the short way round.
public final class SegmentPath: Sendable {
    public let latitudes: [Double]
    public let longitudes: [Double]
    public let x: [Double]
    public let y: [Double]
    /// Metres along the path to each point; the last one is `length`.
    public let along: [Double]
    public let length: Double
    /// The box of the points; the longitudes are those of the path unwrapped from its first point, so
    /// for a path across the antimeridian they run past ±180 (179.99 ... 180.01).
    public let minLatitude: Double, maxLatitude: Double, minLongitude: Double, maxLongitude: Double
    /// Metres per degree of longitude and of latitude in the local plane.
    public let metresPerDegreeLongitude: Double, metresPerDegreeLatitude: Double
    let originLatitude: Double, originLongitude: Double
    /// `tolerance_m` when a segment measure leaves it out.
    public static let defaultTolerance = 25.0
    /// How far from the path a pass may stray (the measure's `tolerance_m`).
    public let tolerance: Double
    /// A box in degrees; its longitudes may run past ±180 (a segment across the antimeridian).
    public struct Box: Sendable {
        public var minLatitude, maxLatitude, minLongitude, maxLongitude: Double

        /// Whether the box meets the box `south...north`, `west...east` (longitudes within ±180), the
        /// box taken also one turn east or west when it runs past ±180.
        @inline(__always)
        public func meets(south: Double, north: Double, west: Double, east: Double) -> Bool {
            guard minLatitude <= north, maxLatitude >= south else { return false }
            if minLongitude <= east, maxLongitude >= west { return true }
            if maxLongitude > 180, minLongitude - 360 <= east, maxLongitude - 360 >= west { return true }
            return minLongitude < -180 && minLongitude + 360 <= east && maxLongitude + 360 >= west
        }
    }
    /// The path's box widened by `tolerance`: a run whose box does not meet it is not matched at all.
    public let box: Box

    /// The path through `points` (latitude, longitude in degrees; consecutive duplicates dropped), matched
    /// within `tolerance` metres. nil with fewer than two distinct points or a coordinate out of range.
    public init?(latitudes: [Double], longitudes: [Double], tolerance: Double = defaultTolerance) {
        var lats: [Double] = [], lons: [Double] = [], unwrapped: [Double] = []
        for (lat, lon) in zip(latitudes, longitudes) {
            guard Geodesy.isValid(latitude: lat, longitude: lon) else { return nil }
            if lats.last == lat && lons.last == lon { continue }
            lats.append(lat); lons.append(lon)
            unwrapped.append(unwrapped.last.map { $0 + SegmentPath.shortWay(lon - $0) } ?? lon)
        }
        guard lats.count >= 2 else { return nil }
        let degrees = Double.pi / 180
        originLatitude = lats[0]; originLongitude = lons[0]
        metresPerDegreeLatitude = Geodesy.meanRadius * degrees
        metresPerDegreeLongitude = max(1, Geodesy.meanRadius * degrees * cos(originLatitude * degrees))
        var xs: [Double] = [], ys: [Double] = [], along: [Double] = []
        var total = 0.0
        for (lat, lon) in zip(lats, unwrapped) {
            let px = (lon - unwrapped[0]) * metresPerDegreeLongitude, py = (lat - lats[0]) * metresPerDegreeLatitude
            if let lx = xs.last, let ly = ys.last { total += ((px - lx) * (px - lx) + (py - ly) * (py - ly)).squareRoot() }
            xs.append(px); ys.append(py); along.append(total)
        }
        guard total > 0 else { return nil }
        self.latitudes = lats; self.longitudes = lons
        x = xs; y = ys; self.along = along; length = total
        minLatitude = lats.min() ?? 0; maxLatitude = lats.max() ?? 0
        minLongitude = unwrapped.min() ?? 0; maxLongitude = unwrapped.max() ?? 0
        self.tolerance = tolerance
        let dLat = tolerance / metresPerDegreeLatitude, dLon = tolerance / metresPerDegreeLongitude
        box = Box(minLatitude: minLatitude - dLat, maxLatitude: maxLatitude + dLat,
                  minLongitude: minLongitude - dLon, maxLongitude: maxLongitude + dLon)
    }

    /// `degrees` (a difference of longitudes) taken the short way round: within -180...180.
    @inline(__always)
    static func shortWay(_ degrees: Double) -> Double {
        degrees > 180 ? degrees - 360 : (degrees < -180 ? degrees + 360 : degrees)
    }

    /// A point in the local plane (its longitude taken within 180° of the path's first point).
    @inline(__always)
    public func plane(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        (SegmentPath.shortWay(longitude - originLongitude) * metresPerDegreeLongitude, (latitude - originLatitude) * metresPerDegreeLatitude)
    }

    /// A plane point back in degrees (longitude within -180...180).
    public func degrees(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        (originLatitude + y / metresPerDegreeLatitude, SegmentPath.shortWay(originLongitude + x / metresPerDegreeLongitude))
    }

    /// The point `distance` metres along the path (clamped to its ends), in the plane.
    public func point(along distance: Double) -> (x: Double, y: Double) {
        let d = min(max(0, distance), length)
        var j = 1
        while j < along.count - 1, along[j] < d { j += 1 }
        let piece = along[j] - along[j - 1]
        let f = piece > 0 ? (d - along[j - 1]) / piece : 0
        return (x[j - 1] + f * (x[j] - x[j - 1]), y[j - 1] + f * (y[j] - y[j - 1]))
    }

    /// `segments/<name>.gpx` (subfolders allowed), without `..`, `.`-names or a leading `/`.
    public static func isPackPath(_ file: String) -> Bool {
        let parts = file.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "segments", file.hasSuffix(".gpx") else { return false }
        return parts.dropFirst().allSatisfy { !$0.isEmpty && !$0.hasPrefix(".") }
    }
}
