import RunFiles

/// Writes a `Track` as a Garmin-style TCX activity (one lap, its `TotalTimeSeconds` the track's
/// `deviceTimerSeconds` when set, one `Track` element per segment,
/// positions with Garmin's long decimals, the cumulative `DistanceMeters` odometer measured with
/// `Geodesy.distance`, heart rate and cadence): TCX input for tests and `BadgeBench tcx`.
public enum TCXWriter {
    public static func encode(track t: Track, sport: String = "Running") -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(t.count * 420 + 1024)
        func put(_ s: String) { out.append(contentsOf: s.utf8) }
        let first = t.times.first { $0.isFinite }
        let start = first.map { RunGenerator.timestamp($0, offset: nil, millis: true) } ?? "1970-01-01T00:00:00.000Z"
        put("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        put("<TrainingCenterDatabase xmlns=\"http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2\"")
        put(" xmlns:ns3=\"http://www.garmin.com/xmlschemas/ActivityExtension/v2\">\n")
        put("  <Activities>\n    <Activity Sport=\"\(RunGenerator.xmlEscaped(sport))\">\n")
        put("      <Id>\(start)</Id>\n      <Lap StartTime=\"\(start)\">\n")
        if let timer = t.deviceTimerSeconds, timer.isFinite { put("        <TotalTimeSeconds>\(RunGenerator.fixed(timer, 1))</TotalTimeSeconds>\n") }
        var odometer = 0.0
        for range in t.segmentRanges {
            put("        <Track>\n")
            for i in range {
                if i > range.lowerBound {
                    odometer += Geodesy.distance(lat1: t.latitudes[i - 1], lon1: t.longitudes[i - 1], lat2: t.latitudes[i], lon2: t.longitudes[i])
                }
                put("          <Trackpoint>\n")
                if t.times[i].isFinite { put("            <Time>\(RunGenerator.timestamp(t.times[i], offset: nil, millis: true))</Time>\n") }
                put("            <Position>\n")
                put("              <LatitudeDegrees>\(RunGenerator.exactSemicircleDecimal(t.latitudes[i]))</LatitudeDegrees>\n")
                put("              <LongitudeDegrees>\(RunGenerator.exactSemicircleDecimal(t.longitudes[i]))</LongitudeDegrees>\n")
                put("            </Position>\n")
                if t.elevations[i].isFinite { put("            <AltitudeMeters>\(RunGenerator.exactFloatDecimal(Float(t.elevations[i])))</AltitudeMeters>\n") }
                put("            <DistanceMeters>\(RunGenerator.fixed(odometer, 2))</DistanceMeters>\n")
                let hr = t.heartRate(at: i), cad = t.cadence(at: i)
                if hr.isFinite { put("            <HeartRateBpm>\n              <Value>\(Int(hr))</Value>\n            </HeartRateBpm>\n") }
                if cad.isFinite { put("            <Cadence>\(Int(cad))</Cadence>\n") }
                put("          </Trackpoint>\n")
            }
            put("        </Track>\n")
        }
        put("      </Lap>\n    </Activity>\n  </Activities>\n</TrainingCenterDatabase>\n")
        return out
    }
}
