import Foundation
import RunFiles

/// A deterministic generator of realistic runs, for `badgectl generate`, what-if runs, tests and benchmarks.
///
/// The same parameters (seed included) always give the same track and byte-identical GPX: the
/// generator has its own PRNG (SplitMix64) and formats every number itself. The route wanders
/// smoothly (the heading drifts slowly), so the distance measured along the written points is
/// close to `distanceMeters` (GPS noise is correlated over ~30 s, as real receivers' is, and adds
/// about 1% at the defaults). Pace varies gently around `paceSecondsPerKilometre`; heart rate
/// follows effort with a one-minute lag; elevation rolls with `hillAmplitudeMeters`.
public struct RunGenerator: Sendable {
    /// When points are recorded.
    public enum Sampling: Sendable, Equatable {
        /// A point every so many seconds (1 s like most watches).
        case every(Double)
        /// Garmin "smart recording": whole-second steps drawn between the bounds.
        case smart(minSeconds: Int, maxSeconds: Int)
    }

    /// How a pause appears in the file.
    public enum PauseStyle: Sendable, Equatable {
        /// No points for the pause: a time gap inside the segment (auto-pause).
        case timeGap
        /// The pause ends the segment; the run continues in a new `<trkseg>` (manual stop/start).
        case newSegment
        /// The watch keeps recording while the runner stands (points in place, GPS jitter only).
        case standing
    }

    /// A stretch run at a different pace, for fastest-effort tests.
    public struct FastSection: Sendable, Equatable {
        public var startMeters: Double
        public var lengthMeters: Double
        public var paceSecondsPerKilometre: Double
        public init(startMeters: Double, lengthMeters: Double, paceSecondsPerKilometre: Double) {
            self.startMeters = startMeters; self.lengthMeters = lengthMeters
            self.paceSecondsPerKilometre = paceSecondsPerKilometre
        }
    }

    /// How the GPX text looks.
    public enum GPXStyle: Sendable, Equatable {
        /// Like Garmin Connect exports: positions as exact decimals of the watch's semicircles
        /// (~30 digits), elevation as the exact decimal of a Float, milliseconds, `atemp`/`hr`/`cad`
        /// extensions, indented (~400 bytes a point).
        case garminConnect
        /// Seven decimals for positions, one for elevation, one line a point (~230 bytes with hr/cad).
        case compact
    }

    public var seed: UInt64
    /// Seconds since 1970 of the first point (default 2024-05-01T06:30:00Z).
    public var startEpochSeconds: Double = 1_714_545_000
    /// When set, timestamps are written in this zone (`+02:00`) instead of `Z`.
    public var utcOffsetSeconds: Int?
    /// The length of the true path.
    public var distanceMeters: Double = 5000
    public var paceSecondsPerKilometre: Double = 330
    /// How far the pace swings around `paceSecondsPerKilometre` (a sine over 1.7 km): 0.03 is ±3%;
    /// 0 gives an even pace (`badgectl whatif`'s hypothetical runs).
    public var paceVariation = 0.03
    /// A steady change of pace over the run, relative: the pace runs from (1 - ramp/2) to (1 + ramp/2)
    /// times `paceSecondsPerKilometre`; positive slows down (0, the default: none).
    public var paceRamp = 0.0
    public var sampling: Sampling = .every(1)
    /// Standard deviation of the (slowly varying) GPS error, per axis.
    public var gpsNoiseMeters: Double = 2
    /// Pauses spread evenly along the distance.
    public var pauseCount = 0
    public var pauseSeconds: Double = 60
    public var pauseStyle: PauseStyle = .timeGap
    public var hillAmplitudeMeters: Double = 15
    public var baseElevationMeters: Double = 50
    /// A steady slope under the hills: metres of climb per metre run (0.25 climbs 250 m a kilometre; 0, the
    /// default: none).
    public var gradient = 0.0
    /// Standard deviation of each elevation's independent error: 0.2 m (the default) is a barometric
    /// altimeter's; GPS altitude (a phone) scatters by metres.
    public var altitudeNoiseMeters = 0.2
    /// Write elevations in whole metres, as phones' GPS altitude is (false, the default: to the decimal).
    public var altitudeWholeMetres = false
    public var heartRate = true
    /// A planted heart rate instead of the simulated one: each step holds `bpm` exactly (no noise)
    /// until `untilSeconds` after the start; the last step holds to the end. For measures with a
    /// known time in each range.
    public var heartRateSteps: [HeartRateStep]?
    public struct HeartRateStep: Sendable, Equatable {
        public var untilSeconds: Double
        public var bpm: Double
        public init(untilSeconds: Double, bpm: Double) { self.untilSeconds = untilSeconds; self.bpm = bpm }
    }
    public var cadence = true
    public var startLatitude = 52.3702
    public var startLongitude = 4.8952
    public var fastSection: FastSection?
    /// A route to follow instead of wandering: the run starts at its first point and goes along it, back
    /// to the first point after the last and round again (laps of a loop), for as long as `distanceMeters`.
    /// GPS noise is added as on a wandering run. nil (the default): the heading drifts freely.
    public var route: [Waypoint]?
    /// A point of a `route`, in degrees.
    public struct Waypoint: Sendable, Equatable {
        public var latitude: Double
        public var longitude: Double
        public init(latitude: Double, longitude: Double) { self.latitude = latitude; self.longitude = longitude }
    }
    public var name: String? = "Morning Run"
    public var sport = "running"
    public var style: GPXStyle = .garminConnect

    public init(seed: UInt64, distanceMeters: Double = 5000, paceSecondsPerKilometre: Double = 330) {
        self.seed = seed
        self.distanceMeters = distanceMeters
        self.paceSecondsPerKilometre = paceSecondsPerKilometre
    }

    // MARK: - The run

    /// The generated run, with values already rounded the way `gpx()` writes them, so that reading
    /// the GPX back gives the same points.
    public func track() -> Track {
        var t = Track(source: "generated:\(seed)")
        t.name = name
        t.sport = sport
        t.utcOffsetSeconds = utcOffsetSeconds
        var rng = SplitMix64(seed: seed)
        let twoPi = 2 * Double.pi
        var heading = rng.uniform() * twoPi
        var turnRate = 0.0  // radians per metre
        var lat = startLatitude, lon = startLongitude
        let follow = route.flatMap(RouteFollower.init)
        if let follow { (lat, lon) = follow.position(at: 0) }
        var time = startEpochSeconds
        var covered = 0.0
        var noiseNorth = rng.gaussian() * gpsNoiseMeters, noiseEast = rng.gaussian() * gpsNoiseMeters
        let phase1 = rng.uniform() * twoPi, phase2 = rng.uniform() * twoPi, phase3 = rng.uniform() * twoPi
        var hr = 95.0
        var pausesDone = 0
        let target = max(0, distanceMeters)
        let noiseTime = 30.0

        func pace(at d: Double) -> Double {
            if let f = fastSection, d >= f.startMeters, d < f.startMeters + f.lengthMeters {
                return f.paceSecondsPerKilometre
            }
            return paceSecondsPerKilometre * (1 + paceVariation * sin(twoPi * d / 1700 + phase3))
                * (1 + paceRamp * (target > 0 ? d / target - 0.5 : 0))
        }

        func emit(_ rng: inout SplitMix64, speed: Double) {
            let (m, n) = RunGenerator.radii(latitude: lat)
            let degrees = 180 / Double.pi
            var la = lat + noiseNorth / m * degrees
            var lo = RunGenerator.onTheMap(lon + noiseEast / (n * cos(lat / degrees)) * degrees)
            var ele = baseElevationMeters + hillAmplitudeMeters * sin(twoPi * covered / 2000 + phase1)
                + 0.4 * hillAmplitudeMeters * sin(twoPi * covered / 650 + phase2) + altitudeNoiseMeters * rng.gaussian()
            if gradient != 0 { ele += gradient * covered }
            if altitudeWholeMetres { ele = ele.rounded() }
            switch style {
            case .garminConnect:
                la = RunGenerator.semicircleDegrees(la)
                lo = RunGenerator.semicircleDegrees(lo)
                ele = Double(Float(ele))
            case .compact:
                la = (la * 1e7).rounded() / 1e7
                lo = (lo * 1e7).rounded() / 1e7
                ele = (ele * 10).rounded() / 10
            }
            var heart = heartRate ? (hr + rng.gaussian()).rounded() : .nan
            if let steps = heartRateSteps, let last = steps.last {
                heart = (steps.first { time - startEpochSeconds < $0.untilSeconds } ?? last).bpm
            }
            let cad = cadence ? (speed > 0.5 ? (82 + 6 * (speed - 3) + rng.gaussian()).rounded() : 0) : .nan
            let stamp = (time * 1000).rounded() / 1000
            t.append(latitude: la, longitude: lo, elevation: ele, time: stamp, heartRate: heart, cadence: cad)
        }

        func advanceNoise(_ rng: inout SplitMix64, dt: Double) {
            let rho = exp(-dt / noiseTime)
            let k = (1 - rho * rho).squareRoot() * gpsNoiseMeters
            noiseNorth = rho * noiseNorth + k * rng.gaussian()
            noiseEast = rho * noiseEast + k * rng.gaussian()
        }

        func interval(_ rng: inout SplitMix64) -> Double {
            switch sampling {
            case .every(let s): return max(0.001, s)
            case .smart(let lo, let hi):
                let a = max(1, lo), b = max(a, hi)
                return Double(a + Int(rng.next() % UInt64(b - a + 1)))
            }
        }

        t.startSegment()
        emit(&rng, speed: 1000 / pace(at: 0))
        while covered < target {
            let speed = 1000 / pace(at: covered)
            var dt = interval(&rng)
            var step = speed * dt
            if covered + step > target {
                step = target - covered
                dt = step / speed
            }
            turnRate = 0.98 * turnRate + 0.0004 * rng.gaussian()
            turnRate = min(0.01, max(-0.01, turnRate))
            heading += turnRate * step
            let (m, n) = RunGenerator.radii(latitude: lat)
            let degrees = 180 / Double.pi
            lat += step * cos(heading) / m * degrees
            lon = RunGenerator.onTheMap(lon + step * sin(heading) / (n * cos(lat / degrees)) * degrees)
            covered += step
            if let follow { (lat, lon) = follow.position(at: covered) }
            time += dt
            let effort = min(1.3, speed / 3.5)
            let hrTarget = 70 + 95 * effort
            hr += (hrTarget - hr) * (1 - exp(-dt / 60))
            advanceNoise(&rng, dt: dt)
            emit(&rng, speed: speed)

            if pausesDone < pauseCount, covered < target,
                covered >= target * Double(pausesDone + 1) / Double(pauseCount + 1)
            {
                pausesDone += 1
                switch pauseStyle {
                case .timeGap:
                    time += pauseSeconds
                    advanceNoise(&rng, dt: pauseSeconds)
                case .newSegment:
                    time += pauseSeconds
                    advanceNoise(&rng, dt: pauseSeconds)
                    t.startSegment()
                    emit(&rng, speed: 0)
                case .standing:
                    var waited = 0.0
                    while waited < pauseSeconds {
                        let s = min(interval(&rng), pauseSeconds - waited)
                        waited += s
                        time += s
                        hr += (90 - hr) * (1 - exp(-s / 60))
                        advanceNoise(&rng, dt: s)
                        // Standing: the noise moves slowly, the runner not at all.
                        emit(&rng, speed: 0)
                    }
                }
            }
        }
        return t
    }

    /// A longitude brought onto the map, -180 ..< 180: a run going east past 180° goes on from -180°.
    static func onTheMap(_ longitude: Double) -> Double {
        longitude >= 180 ? longitude - 360 : (longitude < -180 ? longitude + 360 : longitude)
    }

    /// Positions along a closed route: straight lines between the waypoints in a local plane (metres
    /// east and north of the first one), the last joined back to the first. Each waypoint's longitude
    /// is taken within 180° of the one before, so a route from 179.97° to -179.97° crosses the
    /// antimeridian (0.06° east) rather than going round the world.
    struct RouteFollower {
        let points: [Waypoint]
        let along: [Double]
        let eastPerDegree: Double, northPerDegree: Double

        init?(_ route: [Waypoint]) {
            guard route.count >= 2 else { return nil }
            var points: [Waypoint] = []
            for waypoint in route {
                var longitude = waypoint.longitude
                if let last = points.last?.longitude, longitude.isFinite, last.isFinite {
                    var step = (longitude - last).truncatingRemainder(dividingBy: 360)
                    if step > 180 { step -= 360 } else if step < -180 { step += 360 }
                    longitude = last + step
                }
                points.append(Waypoint(latitude: waypoint.latitude, longitude: longitude))
            }
            if points.first != points.last, let first = points.first { points.append(first) }
            let (m, n) = RunGenerator.radii(latitude: points[0].latitude)
            northPerDegree = m * Double.pi / 180
            eastPerDegree = n * cos(points[0].latitude * Double.pi / 180) * Double.pi / 180
            var along = [0.0]
            for i in 1..<points.count {
                let dx = (points[i].longitude - points[i - 1].longitude) * eastPerDegree
                let dy = (points[i].latitude - points[i - 1].latitude) * northPerDegree
                along.append(along[i - 1] + (dx * dx + dy * dy).squareRoot())
            }
            guard let total = along.last, total > 0 else { return nil }
            self.points = points
            self.along = along
        }

        func position(at distance: Double) -> (Double, Double) {
            let total = along[along.count - 1]
            let d = distance.truncatingRemainder(dividingBy: total)
            var j = 1
            while j < along.count - 1, along[j] < d { j += 1 }
            let f = along[j] > along[j - 1] ? (d - along[j - 1]) / (along[j] - along[j - 1]) : 0
            let a = points[j - 1], b = points[j]
            return (a.latitude + f * (b.latitude - a.latitude), RunGenerator.onTheMap(a.longitude + f * (b.longitude - a.longitude)))
        }
    }

    /// Meridional (M) and prime-vertical (N) radii of curvature of WGS84 at a latitude.
    static func radii(latitude: Double) -> (Double, Double) {
        let s = sin(latitude * Double.pi / 180)
        let w = 1 - Geodesy.eccentricitySquared * s * s
        let n = Geodesy.equatorialRadius / w.squareRoot()
        return (n * (1 - Geodesy.eccentricitySquared) / w, n)
    }

    /// Degrees rounded to a Garmin semicircle (2³¹ per 180°), exact in a Double.
    static func semicircleDegrees(_ degrees: Double) -> Double {
        let s = (degrees * 2_147_483_648 / 180).rounded()
        return s * 180 / 2_147_483_648
    }

    // MARK: - GPX text

    /// The run as GPX 1.1 text.
    public func gpx() -> String {
        String(decoding: gpxBytes(), as: UTF8.self)
    }

    /// The run as GPX 1.1 bytes (UTF-8).
    public func gpxBytes() -> [UInt8] {
        let t = track()
        var out = GPXWriter()
        out.write(track: t, style: style, offset: utcOffsetSeconds, sport: sport)
        return out.bytes
    }

    /// Writes the GPX to `path`.
    public func writeGPX(to path: String) throws {
        try Data(gpxBytes()).write(to: URL(fileURLWithPath: path))
    }

    // MARK: - JSON summary

    /// A treadmill run as a JSON run summary (`SummaryReader`'s format): the target distance at the
    /// base pace, pauses added to the duration and left out of `moving_s`.
    public func summaryJSON() -> String {
        let moving = distanceMeters / 1000 * paceSecondsPerKilometre
        let duration = moving + Double(pauseCount) * pauseSeconds
        var fields = [
            "\"start\": \"\(RunGenerator.timestamp(startEpochSeconds, offset: utcOffsetSeconds, millis: false))\"",
            "\"distance_m\": \(RunGenerator.fixed(distanceMeters, 1))",
            "\"duration_s\": \(RunGenerator.fixed(duration, 1))",
            "\"moving_s\": \(RunGenerator.fixed(moving, 1))",
        ]
        if let name { fields.append("\"name\": \(JSONString.quoted(name))") }
        fields.append("\"sport\": \(JSONString.quoted(sport))")
        return "{\n  " + fields.joined(separator: ",\n  ") + "\n}\n"
    }

    // MARK: - Formatting (deterministic, locale-free)

    /// `value` with exactly `decimals` decimals (rounded half away from zero).
    package static func fixed(_ value: Double, _ decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return String(value) }
        let units = UInt64(scaled)
        let divisor = UInt64(scale)
        var s = value < 0 && units != 0 ? "-" : ""
        s += String(units / divisor)
        if decimals > 0 {
            let frac = String(units % divisor)
            s += "." + String(repeating: "0", count: decimals - frac.count) + frac
        }
        return s
    }

    /// The exact decimal of `semicircleDegrees` output (`41.16303957067430019378662109375`).
    package static func exactSemicircleDecimal(_ degrees: Double) -> String {
        let s = Int64((degrees * 2_147_483_648 / 180).rounded())
        let numerator = s * 45  // degrees = s·45 / 2²⁹
        let magnitude = UInt64(abs(numerator))
        let mask: UInt64 = (1 << 29) - 1
        var text = numerator < 0 ? "-" : ""
        text += String(magnitude >> 29)
        var frac = magnitude & mask
        if frac == 0 { return text + ".0" }
        text += "."
        while frac != 0 {
            frac *= 10
            text.append(Character(Unicode.Scalar(UInt8(0x30 + (frac >> 29)))))
            frac &= mask
        }
        return text
    }

    /// The exact decimal of a Float (`147.1999969482421875`), as Garmin Connect writes elevation.
    package static func exactFloatDecimal(_ value: Float) -> String {
        guard value.isFinite else { return "0.0" }
        if value == 0 { return "0.0" }
        let magnitude = abs(value)
        let exponent = Int(magnitude.exponent)
        var significand = UInt64(magnitude.significandBitPattern)
        var shift = 23 - exponent
        if magnitude.isNormal { significand |= 1 << 23 } else { shift = 149 }
        var text = value < 0 ? "-" : ""
        guard shift > 0 else { return text + String(significand << UInt64(-shift)) + ".0" }
        guard shift <= 58 else { return text + "0.0" }
        let mask = (UInt64(1) << UInt64(shift)) - 1
        text += String(significand >> UInt64(shift))
        var frac = significand & mask
        if frac == 0 { return text + ".0" }
        text += "."
        while frac != 0 {
            frac *= 10
            text.append(Character(Unicode.Scalar(UInt8(0x30 + (frac >> UInt64(shift))))))
            frac &= mask
        }
        return text
    }

    /// `2024-05-01T06:30:00.000Z` or `...T08:30:00.000+02:00`.
    package static func timestamp(_ epoch: Double, offset: Int?, millis: Bool) -> String {
        let totalMillis = Int64((epoch * 1000).rounded()) + Int64(offset ?? 0) * 1000
        var seconds = totalMillis / 1000
        var ms = totalMillis % 1000
        if ms < 0 { ms += 1000; seconds -= 1 }
        var days = Int(seconds / 86_400)
        var secs = Int(seconds % 86_400)
        if secs < 0 { secs += 86_400; days -= 1 }
        let (y, m, d) = Timestamps.civilFromDays(days)
        var s = "\(Timestamps.pad(y, 4))-\(Timestamps.pad(m, 2))-\(Timestamps.pad(d, 2))T"
        s += "\(Timestamps.pad(secs / 3600, 2)):\(Timestamps.pad(secs / 60 % 60, 2)):\(Timestamps.pad(secs % 60, 2))"
        if millis || ms != 0 { s += "." + Timestamps.pad(Int(ms), 3) }
        if let offset {
            let a = abs(offset)
            s += (offset < 0 ? "-" : "+") + "\(Timestamps.pad(a / 3600, 2)):\(Timestamps.pad(a / 60 % 60, 2))"
        } else {
            s += "Z"
        }
        return s
    }

    /// `& < > "` escaped for the GPX and TCX writers (an apostrophe is kept: values are in double quotes).
    package static func xmlEscaped(_ s: String) -> String {
        XMLText.escape(s, apostrophe: "'", droppingInvalidXML: false)
    }
}
