import RunFiles

/// The cleaned distance/time series of a track that every figure is computed from.
///
/// `distances[k]` is the cumulative distance in metres at kept point `k` (no distance is added
/// across the gap between segments, nor for a GPS teleport); `elapsed[k]` is seconds since the
/// first timestamp of the run (`.nan` where the point has no time). `pointIndex(k)` (or
/// `indices[k]`) is the point's index in the `Track`, so positions and sensor values can be
/// looked up.
public struct Profile: Sendable {
    public var distances: [Double] = []
    public var elapsed: [Double] = []
    /// Track index of each kept point; empty while every point so far was kept (then the index
    /// is the position itself), which spares 8 bytes a point in the usual case.
    var keptIndices: [Int] = []
    /// Index into `distances` where each segment starts.
    public var segmentStarts: [Int] = []
    /// Epoch seconds of the first timestamp, nil when no point has a time.
    public var startEpoch: Double?
    public var dropped: [String: Int] = [:]

    public init() {}

    public var count: Int { distances.count }
    public var totalDistance: Double { distances.last ?? 0 }

    /// The track index of kept point `k`.
    @inline(__always)
    public func pointIndex(_ k: Int) -> Int { keptIndices.isEmpty ? k : keptIndices[k] }

    /// The track index of every kept point (made on demand; use `pointIndex` in loops).
    public var indices: [Int] {
        get { keptIndices.isEmpty ? Array(0..<count) : keptIndices }
        set { keptIndices = newValue }
    }
}
