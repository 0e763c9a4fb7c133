import Foundation
import RunFiles
import RunLibrary

/// What every command that evaluates does between reading a folder and running the rules: a Strava
/// export's names and sports from its `activities.csv`, then duplicates, then the sport filter and the plausibility check.
enum Selection {
    /// Returns the folder with its runs annotated, and the runs the rules should see.
    /// Unless `keepDuplicates`, runs that are the same activity as another are left out of the
    /// folder's runs and listed in its `duplicates` (`Duplicates.removeSameActivity`).
    static func prepare(_ folder: RunFolder, directory: String, sport: String, keepDuplicates: Bool = false) -> (folder: RunFolder, selected: [RunSummary], excluded: [ExcludedRun]) {
        var folder = folder
        do {
            folder.runs = try StravaExport.annotate(folder.runs, directory: directory)
        } catch {
            folder.errors.append(RunFileError(path: "activities.csv", message: "\(error)"))
        }
        if !keepDuplicates {
            let (kept, duplicates) = Duplicates.removeSameActivity(from: folder.runs)
            folder.runs = kept
            folder.duplicates += duplicates
        }
        let (selected, excluded) = RunSelection(option: sport).apply(folder.runs)
        return (folder, selected, excluded)
    }
}
