import Foundation
import RunAnalysis
import RunFiles

/// Archives read as folders: a `.zip` (zips inside it too) and an Apple Health export
/// (`export.xml` beside its `workout-routes/`, in a folder or in a zip).
///
/// A zip's entries follow the folder rules: run files by name (`RunFormat`), zips inside it read in
/// turn, an `export.xml` read as an Apple Health export (its route files are its workouts', not runs
/// of their own), everything else ignored with a reason. An entry that cannot be read (an unsafe
/// name, encrypted, another compression method, a zip bomb, damaged) is a named error
/// (`export.zip: activities/x.fit.gz: …`); the others are read. Entries are inflated in memory
/// (never to disk) inside the reading's memory budget, under the same caps as gzip.
///
/// One `ReadBudget` spans a whole read, every level of every archive in it: entries, bytes inflated
/// and messages; a zip inside a zip stays charged to the memory budget while its entries are read.
/// What passes a budget is a named skip, and the rest is read.
public enum RunArchive {
    /// Zips inside zips are read this deep (an account export holds zips of run files); deeper ones are errors.
    public static let maximumDepth = 4
    /// Why the route files of an Apple Health export are not runs of their own.
    static func routeReason(_ export: String) -> String { "a workout route of the Apple Health export \(export) (read with its workout)" }
    /// Why a file of a Garmin Connect account export is not a run: the export's own metadata, JSON
    /// under its `DI_CONNECT/` folder (`<user>_0_summarizedActivities.json`, profiles, wellness data)
    /// or a `summarizedActivities.json` anywhere. Its activities are the FIT files it holds (zipped in
    /// `DI-Connect-Uploaded-Files/`), read as any others. Nil for every other path.
    public static func garminMetadataReason(_ path: String) -> String? {
        let lower = path.lowercased()
        guard lower.hasSuffix(".json") else { return nil }
        let components = lower.split(separator: "/")
        guard components.contains("di_connect") || lower.hasSuffix("summarizedactivities.json") else { return nil }
        return "a Garmin Connect export's own metadata, not an activity (its activities are its FIT files)"
    }

    static let nestedTooDeep = "a zip nested more than \(maximumDepth) deep; not read"

    /// True for a path read as a zip archive (by its name, as run files are).
    public static func isZip(_ path: String) -> Bool {
        let name = RunFormat.lastComponent(of: path).lowercased()
        return name.hasSuffix(".zip") && name.count > 4
    }

    /// True for a path read as an Apple Health export (`export.xml`, by its name).
    public static func isHealthExport(_ path: String) -> Bool {
        RunFormat.lastComponent(of: path).lowercased() == "export.xml"
    }

    /// The folder of an export file (`apple_health_export/` for `apple_health_export/export.xml`; empty at the root).
    static func exportFolder(of name: String) -> String {
        guard let slash = name.lastIndex(of: "/") else { return "" }
        return String(name[...slash])
    }

    // MARK: - Zip

    /// Every run in the zip at `path`, `id` naming it in run ids and messages (`export.zip`): runs
    /// localised in `zone`, the entries ignored and the errors.
    /// `reads`: the budget of the command's whole read (a new one: this zip is all it reads).
    public static func read(zip path: String, id: String, analyzer: RunAnalyzer, zone: TimeZone, serial: Bool = false,
                            budget: MemoryBudget = .shared, reads: ReadBudget = ReadBudget()) -> RunFolder {
        read(id: id, analyzer: analyzer, zone: zone, serial: serial, budget: budget, reads: reads) { try ZipArchive(path: path, budget: reads) }
    }

    /// Every run in a zip held in memory (an upload), `id` naming it, as `read(zip:)` reads a file.
    public static func read(zipBytes bytes: [UInt8], id: String, analyzer: RunAnalyzer, zone: TimeZone, serial: Bool = false,
                            budget: MemoryBudget = .shared, reads: ReadBudget = ReadBudget()) -> RunFolder {
        read(id: id, analyzer: analyzer, zone: zone, serial: serial, budget: budget, reads: reads) {
            try ZipArchive(bytes: bytes, source: id, budget: reads)
        }
    }

    /// A top-level zip, however it is opened: a zip that cannot be opened is one error naming it.
    private static func read(id: String, analyzer: RunAnalyzer, zone: TimeZone, serial: Bool, budget: MemoryBudget, reads: ReadBudget,
                             open: () throws -> ZipArchive) -> RunFolder {
        var folder = RunFolder()
        do {
            read(try open(), id: id, depth: 1, analyzer: analyzer, serial: serial, budget: budget, reads: reads, into: &folder)
        } catch let error as ActivityError {
            folder.report(RunFileError(path: id, message: error.renamed(id).description), reads)
        } catch {
            folder.report(RunFileError(path: id, message: "\(id): \(error)"), reads)
        }
        folder.runs = folder.runs.map { RunAnalyzer.localise($0, zone: zone) }
        return folder
    }

    /// One task of a zip: a run file, or an Apple Health export, read in the budget.
    private enum Task: Sendable {
        case run(ZipArchive.Entry, RunFormat)
        case health(ZipArchive.Entry)
    }

    private static func read(_ archive: ZipArchive, id: String, depth: Int, analyzer: RunAnalyzer, serial: Bool, budget: MemoryBudget,
                             reads: ReadBudget, into folder: inout RunFolder) {
        let listed = archive.entries.filter { !$0.isDirectory }
        // The command's entry budget, across every level and archive: the entries past it are one named skip.
        let entries = Array(listed.prefix(reads.takeEntries(listed.count)))
        if entries.count < listed.count {
            folder.report(RunFileError(path: id, message: "\(id): \(listed.count - entries.count) of its \(listed.count) entries not read: \(reads.entriesSpent)"),
                          reads)
        }
        let byName = Dictionary(archive.entries.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        // The route folders of the Apple Health exports in this zip.
        let exports = entries.filter { isHealthExport($0.name) && ZipArchive.unsafeNameReason($0.name) == nil }
        let routeFolders = exports.map { exportFolder(of: $0.name) + "workout-routes/" }
        var found: [(task: Task, id: String, shown: String)] = []
        var nested: [(ZipArchive.Entry, String, String)] = []
        for entry in entries {
            let entryID = "\(id)/\(entry.name)"
            // The entry's name as the archive wrote it is the run's id; in messages, escaped (`ShownName`).
            let shown = ShownName.of("\(id): \(entry.name)")
            if let reason = ZipArchive.unsafeNameReason(entry.name) {
                folder.report(RunFileError(path: entryID, message: "\(shown): not read: \(reason)"), reads)
                continue
            }
            if let export = zip(exports, routeFolders).first(where: { entry.name.hasPrefix($0.1) })?.0 {
                folder.ignore(entryID, reason: routeReason("\(id)/\(export.name)"), reads)
                continue
            }
            if isHealthExport(entry.name) {
                found.append((.health(entry), entryID, shown))
            } else if isZip(entry.name) {
                nested.append((entry, entryID, shown))
            } else if let reason = garminMetadataReason(entry.name) {
                folder.ignore(entryID, reason: reason, reads)
            } else if let kind = RunFormat.of(path: entry.name) {
                found.append((.run(entry, kind.format), entryID, shown))
            } else {
                folder.ignore(entryID, reason: nil, reads)
            }
        }
        let tasks = found
        let outcomes = RunFolder.Outcomes(count: tasks.count)
        let sink = ErrorSink()
        let work: @Sendable (Int) -> Void = { index in
            let (task, taskID, shown) = tasks[index]
            do {
                let runs: [RunSummary] = try ReadBudget.$current.withValue(reads) { try budget.reading(shown) {
                    switch task {
                    case .run(let entry, let format):
                        let bytes = try archive.contents(entry, name: shown)
                        return try RunLoader.load(bytes: bytes, format: format, source: shown, id: taskID, analyzer: analyzer, zoneOffsetSeconds: nil)
                    case .health(let entry):
                        let base = exportFolder(of: entry.name)
                        let (runs, problems) = try readHealth(
                            source: shown, id: taskID, analyzer: analyzer, reads: reads,
                            open: {
                                let stream = try archive.stream(entry, name: shown, maximumBytes: Int.max)
                                return { dest, count in try stream.read(into: dest, count: count) }
                            },
                            route: { path in
                                let name = base + (path.hasPrefix("/") ? String(path.dropFirst()) : path)
                                guard ZipArchive.unsafeNameReason(name) == nil, let routeEntry = byName[name] else { return nil }
                                let routeShown = ShownName.of("\(id): \(name)")
                                return (try archive.contents(routeEntry, name: routeShown), routeShown)
                            })
                        sink.add(problems)
                        return runs
                    }
                } }
                outcomes.set(index, .runs(runs, nil))
            } catch let error as ActivityError {
                outcomes.set(index, .failed(RunFileError(path: taskID, message: error.description)))
            } catch {
                outcomes.set(index, .failed(RunFileError(path: taskID, message: "\(shown): \(error)")))
            }
        }
        if serial || tasks.count < 2 {
            for index in tasks.indices { work(index) }
        } else {
            DispatchQueue.concurrentPerform(iterations: tasks.count, execute: work)
        }
        var runs: [RunSummary] = []
        for (index, outcome) in outcomes.values.enumerated() {
            switch outcome {
            case .runs(let read, _, _)?: runs.append(contentsOf: read)
            case .failed(let error)?: folder.report(error, reads)
            case nil: folder.report(RunFileError(path: tasks[index].id, message: "\(tasks[index].shown): not read"), reads)
            }
        }
        // Apple Health problems were admitted to the message budget where they were found.
        folder.errors += sink.errors
        var stravaErrors: [RunFileError] = []
        folder.runs.append(contentsOf: annotateStrava(runs, archive: archive, id: id, byName: byName, errors: &stravaErrors))
        for error in stravaErrors { folder.report(error, reads) }
        for (entry, entryID, shown) in nested {
            guard depth < maximumDepth else {
                folder.report(RunFileError(path: entryID, message: "\(shown): \(nestedTooDeep)"), reads)
                continue
            }
            do {
                // The inner zip is held in memory while its entries are read (each in its own share of
                // the budget): its room stays charged until it is let go, after them.
                let (bytes, kept) = try budget.reading(shown) { () -> ([UInt8], MemoryBudget.Kept?) in
                    let bytes = try archive.contents(entry, name: shown)
                    guard let reservation = MemoryBudget.current else { return (bytes, nil) }
                    try reservation.adjust(bytes.count, as: .inflated)
                    return (bytes, reservation.keep(.inflated))
                }
                defer { kept?.release() }
                let inner = try ZipArchive(bytes: bytes, source: shown, budget: reads)
                read(inner, id: entryID, depth: depth + 1, analyzer: analyzer, serial: serial, budget: budget, reads: reads, into: &folder)
            } catch let error as ActivityError {
                folder.report(RunFileError(path: entryID, message: error.renamed(shown).description), reads)
            } catch {
                folder.report(RunFileError(path: entryID, message: "\(shown): \(error)"), reads)
            }
        }
    }

    /// A Strava bulk export zipped: its `activities.csv` names and sports applied to the runs of its
    /// files, as for its folder (`StravaExport.annotate`).
    private static func annotateStrava(_ runs: [RunSummary], archive: ZipArchive, id: String, byName: [String: ZipArchive.Entry],
                                       errors: inout [RunFileError]) -> [RunSummary] {
        guard let csvName = byName.keys.filter({ $0 == "activities.csv" || $0.hasSuffix("/activities.csv") }).min(by: { $0.count < $1.count }),
              let entry = byName[csvName] else { return runs }
        let shown = ShownName.of("\(id): \(csvName)")
        do {
            let base = exportFolder(of: csvName)
            let activities = try StravaExport.read(csv: archive.contents(entry, name: shown, maximumBytes: 256 << 20), source: shown, directory: "")
            return StravaExport.annotate(runs, with: activities) { "\(id)/\(base)\($0)" }
        } catch {
            errors.append(RunFileError(path: "\(id)/\(csvName)", message: "\(error)"))
            return runs
        }
    }

    // MARK: - Apple Health

    /// The workouts of an Apple Health export as runs (`id#1`, `id#2` in the file's order), each with
    /// its sport, the device's totals, its route (route files joined in time order) and heart rate.
    /// `open` gives a fresh stream of `export.xml`; `route` the bytes of a route file by the path the
    /// export wrote (nil when missing). A route file that is missing or unreadable is an error of its
    /// own, and its workout is read with what else it has (its other route files, else its totals):
    /// one bad file never costs the others. Throws only when the export itself cannot be read.
    ///
    /// The routes joined are held in the memory budget as a sum (each route's points, and the joined
    /// track's copy of them): a route that would pass it is a named skip, and the workout is read with
    /// the routes before it. A route file named twice by one workout is joined once. Errors are kept
    /// within the message budget of `reads`.
    static func readHealth(source: String, id: String, analyzer: RunAnalyzer, reads: ReadBudget, open: () throws -> AppleHealthReader.Fill,
                           route: (String) throws -> (bytes: [UInt8], source: String)?) throws -> (runs: [RunSummary], errors: [RunFileError]) {
        let export = try AppleHealthReader.read(source: source, maximumWorkouts: reads.limits.workoutsPerExport, open: open)
        let workouts = export.workouts
        var runs: [RunSummary] = []
        // What could not be read (a workout, an over-long tag, the workouts past the limit) is an error
        // of its own: the others are read.
        var errors = RunFolder()
        for skip in export.skipped {
            let line = skip.offset.flatMap { try? AppleHealthReader.line(at: $0, open: open) }
            let message = ActivityError.malformed(path: source, line: line, offset: skip.offset, reason: skip.reason).description
            errors.report(RunFileError(path: id, message: message), reads)
        }
        for (index, workout) in workouts.enumerated() {
            let runID = workouts.count == 1 ? id : "\(id)#\(index + 1)"
            var routes: [Track] = []
            var joinedBytes = 0
            var seen = Set<String>()
            for path in workout.routeFiles where seen.insert(path).inserted {
                do {
                    guard let file = try route(path) else {
                        throw ActivityError.malformed(
                            path: source, line: try? AppleHealthReader.line(at: workout.offset, open: open), offset: workout.offset,
                            reason: "the workout's route file \(path) is not in the export; the workout (\(runID)) is read without it")
                    }
                    let read = try GPXReader.read(bytes: file.bytes, source: file.source)
                    // Held while joined: this route and those before it, twice (the joined track copies them).
                    try MemoryBudget.current?.hold(joinedBytes + read.memoryBytes * 2, as: .joined)
                    joinedBytes += read.memoryBytes * 2
                    routes.append(read)
                } catch let error as ActivityError {
                    let shown: ActivityError
                    if case .tooLarge(_, let reason) = error {
                        shown = .tooLarge(path: source, reason: "the workout's route file \(path) is not joined (\(reason)); "
                            + "the workout (\(runID)) is read with the routes before it")
                    } else {
                        shown = error
                    }
                    errors.report(RunFileError(path: runID, message: shown.description), reads)
                }
            }
            let track = AppleHealthReader.track(workout, routes: routes, source: source)
            routes = []
            MemoryBudget.current?.release(.joined)
            // The points' analysis, held as a run file's is.
            try MemoryBudget.current?.hold(track.count * (analyzer.includeRoutes ? 88 : 40) + track.memoryBytes * 2, as: .analysis)
            runs.append(analyzer.summarize(track, id: runID, zoneOffsetSeconds: nil))
        }
        return (runs, errors.errors)
    }

    /// The Apple Health export `export.xml` at `path` in a folder (`id` its path relative to the
    /// folder read): route files resolved inside the export's folder. Runs localised in `zone`.
    public static func read(healthExport path: String, id: String, analyzer: RunAnalyzer, zone: TimeZone,
                            budget: MemoryBudget = .shared, reads: ReadBudget = ReadBudget()) -> RunFolder {
        var folder = RunFolder()
        let base = (path as NSString).deletingLastPathComponent
        do {
            let (runs, problems) = try budget.reading(id) {
                try readHealth(
                    source: id, id: id, analyzer: analyzer, reads: reads,
                    open: {
                        let (fd, _) = try FileBytes.openRegular(path: path, maximumBytes: Int.max)
                        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
                        return { dest, count in
                            while true {
                                let n = Foundation.read(handle.fileDescriptor, dest, count)
                                if n >= 0 { return n }
                                if errno != EINTR { throw ActivityError.unreadable(path: id, reason: String(cString: strerror(errno))) }
                            }
                        }
                    },
                    route: { written in
                        let relative = written.hasPrefix("/") ? String(written.dropFirst()) : written
                        guard ZipArchive.unsafeNameReason(relative) == nil else { return nil }
                        // Resolved from the export's folder (a relative `base` joined to it again lost every route).
                        guard case .inside(let real) = ConfinedPath.resolve(relative, in: base) else { return nil }
                        guard FileManager.default.fileExists(atPath: real) else { return nil }
                        let shown = (((id as NSString).deletingLastPathComponent) as NSString).appendingPathComponent(relative)
                        return (try FileBytes.read(path: real), shown)
                    })
            }
            folder.runs = runs.map { RunAnalyzer.localise($0, zone: zone) }
            folder.errors += problems
        } catch let error as ActivityError {
            folder.errors.append(RunFileError(path: id, message: error.renamed(id).description))
        } catch {
            folder.errors.append(RunFileError(path: id, message: "\(id): \(error)"))
        }
        return folder
    }
}

/// Errors gathered from the threads reading a zip's entries (a route file of an Apple Health
/// export that is missing: its workout is read all the same).
final class ErrorSink: @unchecked Sendable {
    private var gathered: [RunFileError] = []
    private let lock = NSLock()

    func add(_ errors: [RunFileError]) {
        guard !errors.isEmpty else { return }
        lock.lock(); gathered += errors; lock.unlock()
    }

    var errors: [RunFileError] {
        lock.lock(); defer { lock.unlock() }
        return gathered
    }
}
