import RunFiles
import SyntheticRuns

/// Writes a `Track` as a Garmin-style TCX activity: its laps (`track.laps`, each with its
/// `StartTime`, `TotalTimeSeconds`, `DistanceMeters`, heart rates, `Intensity` and `TriggerMethod`, and
/// the points timed from its start to the next lap's), or one lap whose `TotalTimeSeconds` is the
/// track's `deviceTimerSeconds` when set; one `Track` element per segment within a lap; positions with
/// Garmin's long decimals, the cumulative `DistanceMeters` odometer measured with `Geodesy.distance`,
/// heart rate and cadence: TCX input for tests and `BadgeBench tcx`.
public enum TCXWriter {
    /// `singlePrecision`: write every `DistanceMeters` as the full expansion of a 32-bit float
    /// (`14004.849609375`), as some exporters do.
    public static func encode(track t: Track, sport: String = "Running", singlePrecision: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(t.count * 420 + 1024)
        func put(_ s: String) { out.append(contentsOf: s.utf8) }
        func meters(_ value: Double) -> String {
            singlePrecision ? RunGenerator.exactFloatDecimal(Float(value)) : RunGenerator.fixed(value, 2)
        }
        let first = t.times.first { $0.isFinite }
        let start = first.map { RunGenerator.timestamp($0, offset: nil, millis: true) } ?? "1970-01-01T00:00:00.000Z"
        put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        put("<TrainingCenterDatabase xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\"")
        put(" xmlns:ns3=\"http://www.garmin.com/xmlschemas/ActivityExtension/v2\">\n")
        put("  <Activities>\n    <Activity Sport=\"\(RunGenerator.xmlEscaped(sport))\">\n")
        put("      <Id>\(start)</Id>\n")

        // Each lap's points: from its start to the next lap's start (all points for one lap).
        let laps = t.laps.isEmpty ? [Lap(start: first, timerSeconds: t.deviceTimerSeconds)] : t.laps
        var odometer = 0.0
        var previous: Int? = nil
        for (n, lap) in laps.enumerated() {
            let from = t.laps.isEmpty ? -Double.infinity : (lap.start ?? -Double.infinity)
            let to = n + 1 < laps.count ? (laps[n + 1].start ?? Double.infinity) : Double.infinity
            let lapStart = lap.start.map { RunGenerator.timestamp($0, offset: nil, millis: true) } ?? start
            put("      <Lap StartTime=\"\(lapStart)\">\n")
            if let timer = lap.timerSeconds, timer.isFinite { put("        <TotalTimeSeconds>\(RunGenerator.fixed(timer, 3))</TotalTimeSeconds>\n") }
            if let distance = lap.distanceMeters, distance.isFinite { put("        <DistanceMeters>\(meters(distance))</DistanceMeters>\n") }
            if let average = lap.averageHeartRate { put("        <AverageHeartRateBpm>\n          <Value>\(Int(average))</Value>\n        </AverageHeartRateBpm>\n") }
            if let maximum = lap.maximumHeartRate { put("        <MaximumHeartRateBpm>\n          <Value>\(Int(maximum))</Value>\n        </MaximumHeartRateBpm>\n") }
            if let intensity = lap.intensity { put("        <Intensity>\(Lap.tcxIntensities.first { $0.value == intensity }?.key ?? intensity)</Intensity>\n") }
            if let trigger = lap.trigger { put("        <TriggerMethod>\(Lap.tcxTriggers.first { $0.value == trigger }?.key ?? trigger)</TriggerMethod>\n") }
            for range in t.segmentRanges {
                let points = range.filter { i in
                    let time = t.times[i]
                    return t.laps.isEmpty || (time.isFinite && time >= from && time < to)
                }
                guard !points.isEmpty else { continue }
                put("        <Track>\n")
                for i in points {
                    if let p = previous, p + 1 == i, p >= range.lowerBound {
                        odometer += Geodesy.distance(lat1: t.latitudes[p], lon1: t.longitudes[p], lat2: t.latitudes[i], lon2: t.longitudes[i])
                    }
                    previous = i
                    put("          <Trackpoint>\n")
                    if t.times[i].isFinite { put("            <Time>\(RunGenerator.timestamp(t.times[i], offset: nil, millis: true))</Time>\n") }
                    put("            <Position>\n")
                    put("              <LatitudeDegrees>\(RunGenerator.exactSemicircleDecimal(t.latitudes[i]))</LatitudeDegrees>\n")
                    put("              <LongitudeDegrees>\(RunGenerator.exactSemicircleDecimal(t.longitudes[i]))</LongitudeDegrees>\n")
                    put("            </Position>\n")
                    if t.elevations[i].isFinite { put("            <AltitudeMeters>\(RunGenerator.exactFloatDecimal(Float(t.elevations[i])))</AltitudeMeters>\n") }
                    put("            <DistanceMeters>\(meters(odometer))</DistanceMeters>\n")
                    let hr = t.heartRate(at: i), cad = t.cadence(at: i)
                    if hr.isFinite { put("            <HeartRateBpm>\n              <Value>\(Int(hr))</Value>\n            </HeartRateBpm>\n") }
                    if cad.isFinite { put("            <Cadence>\(Int(cad))</Cadence>\n") }
                    put("          </Trackpoint>\n")
                }
                put("        </Track>\n")
            }
            put("      </Lap>\n")
        }
        put("    </Activity>\n  </Activities>\n</TrainingCenterDatabase>\n")
        return out
    }
}
