// A server's upload handler, without the HTTP: a runner's history is kept as a saved state on disk;
// a new run arrives as arrays of timestamped positions; the server summarises it, adds it to the
// state and answers with the new awards, the ones withdrawn and the next badges.
//
//   swift run ServerExample [REPO]   (REPO: the badgectl checkout with rules/ and badges.json)
import BadgeKit
import Foundation

/// The repository root: the argument, else four folders above this file.
let repository = CommandLine.arguments.dropFirst().first
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

/// What a phone or watch app holds after a run: a lap of a circular park at a steady pace, a point
/// every 2 s, with elevation and heart rate.
func recordedRun(startingAt start: Double, kilometres: Double, paceSecondsPerKilometre: Double) -> RunSamples {
    let metresPerSecond = 1000 / paceSecondsPerKilometre
    let radius = 400.0
    let (latitude, longitude) = (52.3584, 4.8811)  // Vondelpark, Amsterdam
    var samples = RunSamples(times: [], latitudes: [], longitudes: [], elevations: [], heartRates: [], sport: "running")
    var elapsed = 0.0
    while elapsed * metresPerSecond <= kilometres * 1000 {
        let angle = elapsed * metresPerSecond / radius
        samples.times.append(start + elapsed)
        samples.latitudes.append(latitude + radius * sin(angle) / 111_320)
        samples.longitudes.append(longitude + radius * (1 - cos(angle)) / (111_320 * cos(latitude * .pi / 180)))
        samples.elevations?.append(2 + sin(angle))
        samples.heartRates?.append(140 + 10 * sin(elapsed / 300))
        elapsed += 2
    }
    return samples
}

do {
    let engine = try BadgeEngine(packs: [repository + "/rules"], catalogue: repository + "/badges.json",
                                 zone: TimeZone(identifier: "Europe/Amsterdam") ?? .current)
    for pack in engine.packs { print("pack \(pack.name) \(pack.version) \(pack.fingerprint)") }

    // The history the server already had: five runs, a day apart.
    let day = 86_400.0
    let first = 1_780_000_000.0
    let history = try (0..<5).map { i in
        try engine.summary(samples: recordedRun(startingAt: first + Double(i) * day, kilometres: 3 + Double(i) * 1.5,
                                                paceSecondsPerKilometre: 360 - Double(i) * 5), id: "upload-\(i)")
    }
    let folder = NSTemporaryDirectory() + "badgekit-example-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let saved = try engine.saveState(of: history, in: folder)
    print("history: \(saved.runCount) runs, \(saved.evaluation.awards.count) awards")

    // The upload: a faster 10.5 km, summarised from its points by the same analyzer as a file.
    let upload = try engine.summary(samples: recordedRun(startingAt: first + 6 * day, kilometres: 10.5, paceSecondsPerKilometre: 300),
                                    id: "upload-5")
    print(String(format: "upload: %.2f km in %.0f s, %d km splits, fastest efforts: %@", upload.distanceMeters / 1000,
                 upload.elapsedSeconds ?? 0, upload.splitsKilometre.count, upload.efforts.map(\.name).joined(separator: " ")))
    let update = try engine.add([upload], toStateIn: folder)
    for award in update.added { print("new award: \(award.badge) (\(award.tier)) \(award.detail)") }
    for award in update.withdrawn { print("withdrawn: \(award.badge) (\(award.tier)) from \(award.run)") }
    if let next = update.evaluation.next {
        print(String(format: "next: %@, %.2f km to go", next.badge, next.remainingMeters / 1000))
    }
    for status in update.evaluation.statuses.prefix(5) {
        if let progress = status.progress {
            print(String(format: "progress: %@ %.1f of %.1f %@", status.badge, progress.current, progress.target, progress.unit))
        }
    }

    // The state holds exactly what evaluating the whole history again gives (the update itself
    // carries only this upload's awards; the whole list is read from the state).
    let full = engine.evaluate(history + [upload])
    let stored = try engine.awards(inStateIn: folder)
    func identity(_ award: Award) -> String { [award.pack, award.rule, award.badge, award.tier, award.run].joined(separator: "/") }
    let same = full.awards.map(identity) == stored.map(identity)
    guard update.replayed == nil, same, update.awardCount == stored.count, !update.added.isEmpty, full.failures.isEmpty else {
        FileHandle.standardError.write(Data("ServerExample: the state and a full evaluation differ (or nothing was awarded)\n".utf8))
        exit(1)
    }
    print("ok: \(update.added.count) new awards, \(update.withdrawn.count) withdrawn, same as a full evaluation")
} catch {
    FileHandle.standardError.write(Data("ServerExample: \(error)\n".utf8))
    exit(1)
}
