import CZlib
import Foundation
import RunFiles

/// Writes zip archives for tests and benchmarks: stored or deflated entries (raw deflate through
/// zlib), and on request the faults a reader must name (an encrypted flag, a wrong CRC, a declared
/// size smaller than the data).
public struct ZipWriter: Sendable {
    /// One entry to write.
    public struct Entry: Sendable {
        public var name: String
        public var bytes: [UInt8]
        public var deflated: Bool
        /// Sets the encrypted flag (the data stays as it is).
        public var encrypted: Bool
        /// Writes a CRC-32 that does not match the data.
        public var wrongCRC: Bool
        /// Declares this inflated size instead of the real one.
        public var declaredSize: Int?

        public init(_ name: String, _ bytes: [UInt8], deflated: Bool = true, encrypted: Bool = false, wrongCRC: Bool = false,
                    declaredSize: Int? = nil) {
            self.name = name; self.bytes = bytes; self.deflated = deflated; self.encrypted = encrypted
            self.wrongCRC = wrongCRC; self.declaredSize = declaredSize
        }
    }

    public var entries: [Entry] = []

    public init(_ entries: [Entry] = []) { self.entries = entries }

    public mutating func add(_ name: String, _ bytes: [UInt8], deflated: Bool = true) {
        entries.append(Entry(name, bytes, deflated: deflated))
    }

    /// The archive's bytes.
    public func finish() -> [UInt8] {
        var out: [UInt8] = []
        var directory: [UInt8] = []
        func u16(_ v: Int, _ into: inout [UInt8]) { into.append(UInt8(v & 0xFF)); into.append(UInt8((v >> 8) & 0xFF)) }
        func u32(_ v: Int, _ into: inout [UInt8]) { u16(v & 0xFFFF, &into); u16((v >> 16) & 0xFFFF, &into) }
        for entry in entries {
            let name = Array(entry.name.utf8)
            // zlib fails only without memory; an empty entry then fails the reader loudly.
            let data = entry.deflated ? ((try? Gzip.deflateRaw(entry.bytes)) ?? []) : entry.bytes
            var crc = Int(entry.bytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, UInt32($0.count)) })
            if entry.wrongCRC { crc ^= 0xFFFF }
            let flags = (entry.encrypted ? 1 : 0) | 0x800
            let method = entry.deflated ? 8 : 0
            let size = entry.declaredSize ?? entry.bytes.count
            let offset = out.count
            u32(0x0403_4B50, &out); u16(20, &out); u16(flags, &out); u16(method, &out); u16(0, &out); u16(0x21, &out)
            u32(crc, &out); u32(data.count, &out); u32(size, &out); u16(name.count, &out); u16(0, &out)
            out += name
            out += data
            u32(0x0201_4B50, &directory); u16(20, &directory); u16(20, &directory); u16(flags, &directory); u16(method, &directory)
            u16(0, &directory); u16(0x21, &directory); u32(crc, &directory); u32(data.count, &directory); u32(size, &directory)
            u16(name.count, &directory); u16(0, &directory); u16(0, &directory); u16(0, &directory); u16(0, &directory)
            u32(0, &directory); u32(offset, &directory)
            directory += name
        }
        let directoryOffset = out.count
        out += directory
        u32(0x0605_4B50, &out); u16(0, &out); u16(0, &out); u16(entries.count, &out); u16(entries.count, &out)
        u32(directory.count, &out); u32(directoryOffset, &out); u16(0, &out)
        return out
    }
}

/// Apple Health exports for tests and benchmarks: an `export.xml` in the Health app's shape
/// (a DOCTYPE, `HealthData`, records before workouts, dates as `2025-09-16 16:14:50 +0100`).
public enum AppleHealthFixture {
    /// A workout to write.
    public struct Workout: Sendable {
        public var type: String
        public var start: Double
        public var minutes: Double
        public var kilometres: Double?
        public var zone: String?
        public var routeFiles: [String]
        /// The `HKIndoorWorkout` metadata (`1` indoors, `0` outdoors); nil: not written.
        public var indoor: Bool?
        public init(type: String = "HKWorkoutActivityTypeRunning", start: Double, minutes: Double, kilometres: Double?, zone: String? = nil,
                    routeFiles: [String] = [], indoor: Bool? = nil) {
            self.type = type; self.start = start; self.minutes = minutes; self.kilometres = kilometres; self.zone = zone
            self.routeFiles = routeFiles; self.indoor = indoor
        }
    }

    /// `epoch` as the export writes it, in `offset` seconds east of UTC.
    public static func date(_ epoch: Double, offset: Int) -> String {
        let local = Timestamps.localTime(epoch, offsetSeconds: offset).replacingOccurrences(of: "T", with: " ")
        let sign = offset < 0 ? "-" : "+"
        let magnitude = abs(offset)
        return "\(local) \(sign)\(Timestamps.pad(magnitude / 3600, 2))\(Timestamps.pad(magnitude % 3600 / 60, 2))"
    }

    /// The header up to `<HealthData>`'s first children.
    public static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE HealthData [
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
        ]>
        <HealthData locale="en_GB">
         <ExportDate value="2026-04-01 09:00:00 +0200"/>

        """

    /// A heart-rate record.
    public static func heartRate(_ epoch: Double, bpm: Int, offset: Int) -> String {
        let d = date(epoch, offset: offset)
        return " <Record type=\"HKQuantityTypeIdentifierHeartRate\" sourceName=\"Apple\u{00A0}Watch\" sourceVersion=\"11.6\" unit=\"count/min\" "
            + "creationDate=\"\(d)\" startDate=\"\(d)\" endDate=\"\(d)\" value=\"\(bpm)\">\n"
            + "  <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"2\"/>\n </Record>\n"
    }

    /// A step-count record (what most of a real export is).
    public static func steps(_ epoch: Double, count: Int, offset: Int) -> String {
        let d = date(epoch, offset: offset), e = date(epoch + 60, offset: offset)
        return " <Record type=\"HKQuantityTypeIdentifierStepCount\" sourceName=\"iPhone\" sourceVersion=\"17.1\" unit=\"count\" "
            + "creationDate=\"\(e)\" startDate=\"\(d)\" endDate=\"\(e)\" value=\"\(count)\"/>\n"
    }

    /// A workout element (distance as `WorkoutStatistics`, a per-segment statistic nested in a
    /// `WorkoutActivity` to be ignored, routes as `FileReference`s).
    public static func workout(_ w: Workout, offset: Int) -> String {
        let end = w.start + w.minutes * 60
        var text = "<Workout workoutActivityType=\"\(w.type)\" duration=\"\(w.minutes)\" durationUnit=\"min\" sourceName=\"Apple Watch\" "
            + "device=\"&lt;&lt;HKDevice: 0x1&gt;, name:Apple Watch&gt;\" creationDate=\"\(date(end, offset: offset))\" "
            + "startDate=\"\(date(w.start, offset: offset))\" endDate=\"\(date(end, offset: offset))\">\n"
        if let zone = w.zone { text += "  <MetadataEntry key=\"HKTimeZone\" value=\"\(zone)\"/>\n" }
        if let indoor = w.indoor { text += "  <MetadataEntry key=\"HKIndoorWorkout\" value=\"\(indoor ? 1 : 0)\"/>\n" }
        if let km = w.kilometres {
            text += "  <WorkoutActivity uuid=\"x\" startDate=\"\(date(w.start, offset: offset))\">\n"
            text += "   <WorkoutStatistics type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" sum=\"\(km / 2)\" unit=\"km\"/>\n"
            text += "  </WorkoutActivity>\n"
            text += "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" startDate=\"\(date(w.start, offset: offset))\" "
                + "endDate=\"\(date(end, offset: offset))\" sum=\"\(km)\" unit=\"km\"/>\n"
        }
        for file in w.routeFiles {
            text += "  <WorkoutRoute sourceName=\"Apple Watch\">\n   <FileReference path=\"/workout-routes/\(file)\"/>\n  </WorkoutRoute>\n"
        }
        return text + "</Workout>\n"
    }
}
