import BadgeLeague
import BadgePipeline
import BadgeRules
import RunAnalysis
import RunFiles

// The types BadgeKit's API speaks in that are made in the modules below it, named here so that a
// client needs only `import BadgeKit`. Named, not wrapped: each is a value the command line's JSON
// writes field for field (a run summary has some hundred fields, an evaluation its awards, statuses
// and failures), and a copy of each would be a second definition to keep in step. The modules
// themselves are not re-exported: their other types (the Lua host, the cache, the readers, the
// pipeline's parts) are not BadgeKit's API. `BadgeEngine.Selection`, `.Selected`, `.Limits` are
// named on the engine.

/// One run as the rules see it: distance, times, pace, splits, fastest efforts, checkpoints, elevation,
/// heart rate, local dates and the measures the packs declared (`BadgeEngine.summaries`, `summary(samples:)`).
public typealias RunSummary = RunFiles.RunSummary

/// A runner's profile (heart rates and zones, birth date and sex, goals): read from a JSON file with
/// `Athlete.read(path:)` or parsed with `Athlete.parse(_:source:)`; `BadgeEngine.with(athlete:)` uses it.
public typealias Athlete = RunAnalysis.Athlete

/// What evaluating a history gives (`BadgeEngine.evaluate`): the awards, each rule's status ("why not
/// yet", progress), the next badge, the runs the packs leave out and any rule failures.
public typealias Evaluation = BadgeRules.Evaluation

/// One award: the badge, tier, run, rule and pack (with its version and fingerprint), the rule's detail,
/// and the measures and evidence behind it.
public typealias Award = BadgeRules.Award

/// A pack or rule that failed to load or to run: file and line, and what is wrong.
public typealias RuleFailure = BadgeRules.RuleFailure

/// What saving a state or adding runs to it gives (`BadgeEngine.saveState`, `add`): the awards added and
/// withdrawn, the number held, whether (and why) the history was replayed.
public typealias StateUpdate = BadgeRules.StateUpdate

/// An award a saved state took back, when and why (`BadgeExplanation.withdrawn`).
public typealias Withdrawal = BadgeRules.Withdrawal

/// A run to imagine (`BadgeEngine.whatIf`): distance, time, start, UTC offset, climb.
public typealias WhatIfRun = WhatIf.Run

/// What an imagined run would earn and change (`BadgeEngine.whatIf`).
public typealias WhatIfOutcome = WhatIf.Outcome

/// One badge explained (`BadgeEngine.explain`): its awards with their runs' numbers, or what would earn it.
public typealias BadgeExplanation = BadgePipeline.BadgeExplanation

/// What an athlete's league line says of them (sex, birth date, team): `LeagueAthlete.profile`.
public typealias LeagueProfile = League.Profile

/// What the league computes beside the leaderboards (`BadgeEngine.league`): categories, club goals,
/// windows, the as-of instant.
public typealias LeagueOptions = League.Options

/// One line of the league's outcome (a rank, crown, legend, club, rarity or pack award), as
/// `badgectl league` writes it.
public typealias LeagueLine = BadgeLeague.LeagueLine
