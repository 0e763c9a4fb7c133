import Foundation
import RunFiles
import RunLibrary

/// What every command that evaluates does between reading a folder and running the rules: a Strava
/// export's names and sports from its `activities.csv`, then the sport filter and the plausibility check.
enum Selection {
    /// Returns the folder with its runs annotated, and the runs the rules should see.
    static func prepare(_ folder: RunFolder, directory: String, sport: String) -> (folder: RunFolder, selected: [RunSummary], excluded: [ExcludedRun]) {
        var folder = folder
        do {
            folder.runs = try StravaExport.annotate(folder.runs, directory: directory)
        } catch {
            folder.errors.append(RunFileError(path: "activities.csv", message: "\(error)"))
        }
        let (selected, excluded) = RunSelection(option: sport).apply(folder.runs)
        return (folder, selected, excluded)
    }
}
