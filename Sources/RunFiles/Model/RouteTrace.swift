import Foundation

/// A run's route, simplified for drawing: positions of the kept vertices, the smoothed speed at
/// each, and where each recorded segment starts. Built by `RouteTrace.make` from a track and its
/// cleaned `Profile`; the HTML report draws it coloured by speed.
///
/// Simplification is Douglas–Peucker on a local equirectangular projection in metres (x scaled by
/// cos of the mean latitude), run iteratively with an explicit stack so a 100,000-point track
/// cannot overflow the call stack. Every split point gets an *importance*: the deviation at which
/// it was split, capped by its parent's, so the points kept for any tolerance are a consistent
/// Douglas–Peucker result and the `maxVertices` cap keeps the most important ones.
public struct RouteTrace: Codable, Sendable, Equatable {
    /// Degrees, WGS84, rounded to 1e-6° (about 0.1 m).
    public var latitudes: [Double]
    public var longitudes: [Double]
    /// Speed at each vertex in m/s, averaged over a window of about `speedWindowSeconds`, rounded
    /// to 0.01 m/s; nil (JSON `null`) in a segment that has no usable times. Empty when the whole
    /// track has none (the route is then drawn in one neutral colour).
    public var speedsMetersPerSecond: [Double?]
    /// Index into the vertex arrays where each recorded segment starts; starts with 0.
    public var segmentStarts: [Int]

    public init(latitudes: [Double], longitudes: [Double], speedsMetersPerSecond: [Double?], segmentStarts: [Int]) {
        self.latitudes = latitudes; self.longitudes = longitudes
        self.speedsMetersPerSecond = speedsMetersPerSecond; self.segmentStarts = segmentStarts
    }

    public var count: Int { latitudes.count }

    /// The half-open vertex range of each segment.
    public var segmentRanges: [Range<Int>] {
        var result: [Range<Int>] = []
        for (i, start) in segmentStarts.enumerated() {
            let end = i + 1 < segmentStarts.count ? segmentStarts[i + 1] : count
            if end > start, start >= 0, end <= count { result.append(start..<end) }
        }
        return result
    }

    enum CodingKeys: String, CodingKey {
        case latitudes = "lat"
        case longitudes = "lon"
        case speedsMetersPerSecond = "speed_m_per_s"
        case segmentStarts = "segment_starts"
    }
}
