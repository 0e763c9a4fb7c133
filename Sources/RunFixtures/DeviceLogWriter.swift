import Foundation
import RunFiles

/// Device logs in the shapes of the real ones, from a generated track: Suunto SML (an Ambit's),
/// a Suunto device log as JSON (a Suunto 9's: heart rate as R-R intervals only) and a Polar Flow
/// training session (its route on another clock than its heart rate, as real exports write it).
public enum DeviceLogWriter {
    static func iso(_ epoch: Double, offset: Int?) -> String {
        guard let offset else { return Timestamps.iso8601(epoch) }
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset)
        return Timestamps.localTime(epoch, offsetSeconds: offset) + "\(sign)\(Timestamps.pad(magnitude / 3600, 2)):\(Timestamps.pad(magnitude % 3600 / 60, 2))"
    }

    /// The cumulative distance of each point (haversine), in metres.
    static func distances(_ t: Track) -> [Double] {
        var out = [0.0]
        for i in 1..<max(1, t.count) {
            out.append(out[i - 1] + Geodesy.distance(lat1: t.latitudes[i - 1], lon1: t.longitudes[i - 1], lat2: t.latitudes[i], lon2: t.longitudes[i]))
        }
        return Array(out.prefix(t.count))
    }

    /// SML: a header (sport, distance, duration, average heart rate in Hz, local start) and a
    /// periodic sample and a GPS sample (radians) a point. `offset`: the local zone of `DateTime`.
    public static func sml(_ t: Track, activity: String = "Running", activityType: Int = 3, offset: Int = -25_200) -> [UInt8] {
        let d = distances(t)
        let start = t.times.first ?? 0, end = t.times.last ?? 0
        let hr = t.heartRates.filter { !$0.isNaN }
        let averageHz = hr.isEmpty ? 0 : hr.reduce(0, +) / Double(hr.count) / 60
        var x = """
            <?xml version="1.0" encoding="utf-8"?>
            <sml xmlns="http://www.suunto.com/schemas/sml">
            \t<DeviceLog>
            \t\t<Header>
            \t\t\t<Duration>\(end - start)</Duration>
            \t\t\t<HR><Avg>\(averageHz)</Avg><Max>\((hr.max() ?? 0) / 60)</Max></HR>
            \t\t\t<ActivityType>\(activityType)</ActivityType>
            \t\t\t<Activity>\(activity)</Activity>
            \t\t\t<Distance>\((d.last ?? 0).rounded())</Distance>
            \t\t\t<DateTime>\(Timestamps.localTime(start, offsetSeconds: offset))</DateTime>
            \t\t</Header>
            \t\t<Samples>

            """
        for i in 0..<t.count {
            let time = t.times[i] - start
            x += "\t\t\t<Sample><HR>\(t.heartRate(at: i) / 60)</HR><Altitude>\(t.elevations[i])</Altitude><Distance>\(d[i])</Distance>"
            x += "<Time>\(time)</Time><SampleType>periodic</SampleType><UTC>\(Timestamps.iso8601(t.times[i]))</UTC></Sample>\n"
            x += "\t\t\t<Sample><Latitude>\(t.latitudes[i] * .pi / 180)</Latitude><Longitude>\(t.longitudes[i] * .pi / 180)</Longitude>"
            x += "<Time>\(time)</Time><UTC>\(Timestamps.iso8601(t.times[i]))</UTC><SampleType>gps-base</SampleType></Sample>\n"
        }
        x += "\t\t</Samples>\n\t</DeviceLog>\n</sml>\n"
        return Array(x.utf8)
    }

    /// A Suunto device log as JSON: samples on the local clock with their offset, positions in
    /// radians, heart rate as R-R intervals only (one beat a point's interval at its heart rate).
    public static func suuntoJSON(_ t: Track, activity: String = "Running", offset: Int = 3600) -> [UInt8] {
        let d = distances(t)
        let start = t.times.first ?? 0, end = t.times.last ?? 0
        var samples: [String] = ["{\"Events\":[{\"Activity\":{\"ActivityType\":3}}],\"TimeISO8601\":\"\(iso(start, offset: offset))\"}"]
        var rr: [String] = []
        var beat = start
        for i in 0..<t.count {
            samples.append("{\"Distance\":\(d[i]),\"Altitude\":\(t.elevations[i]),\"TimeISO8601\":\"\(iso(t.times[i], offset: offset))\"}")
            samples.append("{\"Latitude\":\(t.latitudes[i] * .pi / 180),\"Longitude\":\(t.longitudes[i] * .pi / 180),"
                + "\"UTC\":\"\(iso(t.times[i], offset: 0))\",\"TimeISO8601\":\"\(iso(t.times[i], offset: 0))\"}")
            let bpm = t.heartRate(at: i).isNaN ? 140 : t.heartRate(at: i)
            let next = i + 1 < t.count ? t.times[i + 1] : end
            while beat < next {
                let interval = (60_000 / bpm).rounded()
                rr.append(String(Int(interval)))
                beat += interval / 1000
            }
        }
        let header = "{\"Activity\":\"\(activity)\",\"Distance\":\((d.last ?? 0).rounded()),\"Duration\":\(end - start),"
            + "\"PauseDuration\":0,\"DateTime\":\"\(iso(start, offset: offset))\"}"
        let text = "{\"DeviceLog\":{\"Header\":\(header),\"Samples\":[\(samples.joined(separator: ","))],\"R-R\":{\"Data\":[\(rr.joined(separator: ","))]}}}"
        return Array(text.utf8)
    }

    /// A Polar Flow training session: local times with `timeZoneOffset` minutes, heart rate on the
    /// session's clock, the route on a clock `routeClockShift` seconds later.
    public static func polarJSON(_ t: Track, sport: String = "RUNNING", offsetMinutes: Int = 60, routeClockShift: Double = 4827.8) -> [UInt8] {
        let d = distances(t)
        let offset = offsetMinutes * 60
        let start = t.times.first ?? 0, end = t.times.last ?? 0
        func local(_ epoch: Double) -> String { Timestamps.localTime(epoch, offsetSeconds: offset) + ".000" }
        var hr: [String] = [], route: [String] = []
        for i in 0..<t.count {
            if !t.heartRate(at: i).isNaN { hr.append("{\"dateTime\":\"\(local(t.times[i]))\",\"value\":\(Int(t.heartRate(at: i)))}") }
            route.append("{\"dateTime\":\"\(local(t.times[i] + routeClockShift))\",\"longitude\":\(t.longitudes[i]),\"latitude\":\(t.latitudes[i]),"
                + "\"altitude\":\(t.elevations[i].isNaN ? 0 : t.elevations[i])}")
        }
        let rates = t.heartRates.filter { !$0.isNaN }
        let average = rates.isEmpty ? 0 : Int((rates.reduce(0, +) / Double(rates.count)).rounded())
        let exercise = "{\"startTime\":\"\(local(start))\",\"stopTime\":\"\(local(end))\",\"timezoneOffset\":\(offsetMinutes),"
            + "\"duration\":\"PT\(end - start)S\",\"distance\":\((d.last ?? 0).rounded()),\"sport\":\"\(sport)\","
            + "\"heartRate\":{\"avg\":\(average),\"max\":\(Int(rates.max() ?? 0))},"
            + "\"samples\":{\"heartRate\":[\(hr.joined(separator: ","))],\"recordedRoute\":[\(route.joined(separator: ","))]}}"
        let text = "{\"exportVersion\":\"1.3\",\"name\":\"Laufen\",\"startTime\":\"\(local(start))\",\"timeZoneOffset\":\(offsetMinutes),"
            + "\"exercises\":[\(exercise)]}"
        return Array(text.utf8)
    }
}
