import Foundation
import RunFiles

extension RunAnalyzer {
    /// Gives a run its local date, start and offset: from the file's own UTC offset when it had one,
    /// else from `zone` at that instant (so daylight saving is right). A floating start (a wall-clock
    /// time the file wrote with no zone) is resolved here, in `zone`: after the cache, so that one
    /// cached row serves every `--tz`.
    public static func localise(_ run: RunSummary, zone: TimeZone) -> RunSummary {
        guard var epoch = run.startEpochSeconds else { return run }
        var run = run
        if run.floatingStart == true {
            epoch = resolve(wallClock: epoch, in: zone)
            run.floatingStart = nil
            run.startEpochSeconds = epoch
            run.start = Timestamps.iso8601(epoch)
        }
        let offset = run.utcOffsetSeconds ?? zone.secondsFromGMT(for: Date(timeIntervalSince1970: epoch))
        run.localDate = Timestamps.date(epoch, offsetSeconds: offset)
        run.localStart = Timestamps.localTime(epoch, offsetSeconds: offset)
        run.localOffsetSeconds = offset
        run.zoneSource = run.utcOffsetSeconds == nil ? "tz" : "file"
        if !run.measures.isEmpty { localiseMeasures(&run) }
        return run
    }

    /// The instant a wall clock in `zone` showed `wallClock` (read as if UTC). In a gap (clocks
    /// forward) the time is read with the offset before the change; in an overlap (clocks back),
    /// the first of the two instants.
    static func resolve(wallClock: Double, in zone: TimeZone) -> Double {
        let before = zone.secondsFromGMT(for: Date(timeIntervalSince1970: wallClock - 86_400))
        let after = zone.secondsFromGMT(for: Date(timeIntervalSince1970: wallClock + 86_400))
        // Try the larger offset first: in an overlap it gives the earlier instant.
        for offset in [max(before, after), min(before, after)] {
            let epoch = wallClock - Double(offset)
            if zone.secondsFromGMT(for: Date(timeIntervalSince1970: epoch)) == offset { return epoch }
        }
        return wallClock - Double(before)
    }
}
