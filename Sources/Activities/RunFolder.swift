import Foundation

/// A file that yielded no run, and why.
public struct RunFileError: Codable, Sendable, Equatable {
    public var path: String
    public var message: String
    public init(path: String, message: String) { self.path = path; self.message = message }
}

/// Everything read from one folder of run files: the runs, the files that are not run files
/// (listed, not errors) and the files that failed (one bad file never stops the others).
public struct RunFolder: Sendable {
    public var runs: [RunSummary] = []
    public var ignored: [String] = []
    public var errors: [RunFileError] = []

    public init(runs: [RunSummary] = [], ignored: [String] = [], errors: [RunFileError] = []) {
        self.runs = runs; self.ignored = ignored; self.errors = errors
    }

    /// Reads every run file under `directory` (or the single file `directory` names).
    /// `zone` gives local dates to runs whose file carried no UTC offset.
    public static func read(
        _ directory: String, analyzer: RunAnalyzer = RunAnalyzer(), zone: TimeZone = .current
    ) throws -> RunFolder {
        var folder = RunFolder()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            throw ActivityError.unreadable(path: directory, reason: "no such file or directory")
        }
        let files: [(path: String, id: String)]
        if isDirectory.boolValue {
            let found = try RunLoader.discover(directory: directory)
            folder.ignored = found.ignored
            files = found.runs.map { ((directory as NSString).appendingPathComponent($0), $0) }
        } else {
            guard RunLoader.format(ofPath: directory) != nil else {
                folder.ignored = [directory]
                return folder
            }
            files = [(directory, (directory as NSString).lastPathComponent)]
        }
        for file in files {
            do {
                let runs = try RunLoader.load(path: file.path, id: file.id, analyzer: analyzer, zoneOffsetSeconds: 0)
                folder.runs.append(contentsOf: runs.map { localise($0, zone: zone) })
            } catch let error as ActivityError {
                folder.errors.append(RunFileError(path: file.id, message: error.description))
            } catch {
                folder.errors.append(RunFileError(path: file.id, message: "\(file.id): \(error)"))
            }
        }
        return folder
    }

    /// Gives a run its local date: from the file's own UTC offset when it had one, else from `zone`
    /// at that instant (so daylight saving is right).
    public static func localise(_ run: RunSummary, zone: TimeZone) -> RunSummary {
        guard let epoch = run.startEpochSeconds else { return run }
        var run = run
        let offset = run.utcOffsetSeconds ?? zone.secondsFromGMT(for: Date(timeIntervalSince1970: epoch))
        run.localDate = Timestamps.date(epoch, offsetSeconds: offset)
        return run
    }
}
