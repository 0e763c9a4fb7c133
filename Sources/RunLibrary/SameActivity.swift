import RunFiles

/// One activity kept as several files (the watch's FIT, a Strava GPX, a TCX from another app):
/// the rule that tells them apart from two runs, and which one is kept (docs/rules.md,
/// "Definitions").
///
/// Two runs are the same activity when both have a start and an elapsed time, their starts and
/// their ends (start + elapsed) are each within `sameActivitySeconds` (60 s) of each other, and
/// their distances are within `sameActivityDistanceShare` (5%) of the longer one. Exports of one
/// recording agree on all three to a few seconds and metres (the real-data set's Garmin runs kept
/// as FIT, GPX and TCX: starts equal, ends within 7 s, distances within a metre); two real runs almost never
/// start and end within a minute of each other over the same distance. A run without times is
/// never a duplicate: nothing says when it was. The sport is not compared (apps name it
/// differently).
///
/// Of each group the richest source is kept: FIT, then TCX and the device logs (Suunto SML and JSON,
/// Polar Flow: the device's totals and samples, no laps or timer events), then an Apple Health
/// workout (the device's totals, a route, heart rate from records a few seconds apart), then GPX
/// (a route, often re-exported by an app: Strava's), then a JSON summary (totals only); then the
/// run with more points, then the id first in byte order. The others are listed as
/// `.sameActivity` duplicates of it and given to no rule, so its awards go to the kept id.
public enum Duplicates {
    /// Seconds within which two starts, and two ends, must fall.
    public static let sameActivitySeconds = 60.0
    /// The share of the longer distance within which two distances must fall.
    public static let sameActivityDistanceShare = 0.05

    /// True when `a` and `b` are the same activity by the rule above.
    public static func sameActivity(_ a: RunSummary, _ b: RunSummary) -> Bool {
        guard let startA = a.startEpochSeconds, let startB = b.startEpochSeconds,
              let elapsedA = a.elapsedSeconds, let elapsedB = b.elapsedSeconds else { return false }
        guard abs(startA - startB) <= sameActivitySeconds,
              abs((startA + elapsedA) - (startB + elapsedB)) <= sameActivitySeconds else { return false }
        return abs(a.distanceMeters - b.distanceMeters) <= sameActivityDistanceShare * max(a.distanceMeters, b.distanceMeters)
    }

    /// The order of preference of a run's source: lower is richer.
    static func richness(_ format: String) -> Int {
        switch format {
        case RunFormat.fit.rawValue: return 0
        case RunFormat.tcx.rawValue, RunFormat.sml.rawValue, RunFormat.suuntoJSON.rawValue, RunFormat.polarJSON.rawValue: return 1
        case RunFormat.appleHealth.rawValue: return 2
        case RunFormat.gpx.rawValue: return 3
        case RunFormat.json.rawValue: return 4
        default: return 5
        }
    }

    /// True when `a` is kept rather than `b`.
    static func preferred(_ a: RunSummary, over b: RunSummary) -> Bool {
        let ra = richness(a.format), rb = richness(b.format)
        if ra != rb { return ra < rb }
        if a.points != b.points { return a.points > b.points }
        return Array(a.id.utf8).lexicographicallyPrecedes(Array(b.id.utf8))
    }

    /// Splits `runs` into those kept (in their order) and the same-activity duplicates left out
    /// (sorted by id). Runs are compared with those starting within `sameActivitySeconds` of
    /// them only (sorted by start: O(n log n) plus the close pairs). Groups are made greedily
    /// from the earliest start: a run joins the group of the first run it matches.
    public static func removeSameActivity(from runs: [RunSummary]) -> (kept: [RunSummary], duplicates: [RunDuplicate]) {
        let timed = runs.indices.filter { runs[$0].startEpochSeconds != nil && runs[$0].elapsedSeconds != nil }
            .sorted { (runs[$0].startEpochSeconds ?? 0, $0) < (runs[$1].startEpochSeconds ?? 0, $1) }
        var groupOf = [Int: Int]()   // run index -> the group leader's index
        var members = [Int: [Int]]()
        for (position, i) in timed.enumerated() where groupOf[i] == nil {
            groupOf[i] = i
            members[i] = [i]
            let start = runs[i].startEpochSeconds ?? 0
            for j in timed[(position + 1)...] {
                guard (runs[j].startEpochSeconds ?? 0) - start <= sameActivitySeconds else { break }
                if groupOf[j] == nil, sameActivity(runs[i], runs[j]) {
                    groupOf[j] = i
                    members[i, default: []].append(j)
                }
            }
        }
        var leftOut = Set<Int>()
        var duplicates: [RunDuplicate] = []
        for (_, group) in members where group.count > 1 {
            var kept = group[0]
            for k in group.dropFirst() where preferred(runs[k], over: runs[kept]) { kept = k }
            for k in group where k != kept {
                leftOut.insert(k)
                duplicates.append(RunDuplicate(id: runs[k].id, sameAs: runs[kept].id, reason: .sameActivity))
            }
        }
        guard !leftOut.isEmpty else { return (runs, []) }
        let kept = runs.indices.filter { !leftOut.contains($0) }.map { runs[$0] }
        duplicates.sort { Array($0.id.utf8).lexicographicallyPrecedes(Array($1.id.utf8)) }
        return (kept, duplicates)
    }
}
