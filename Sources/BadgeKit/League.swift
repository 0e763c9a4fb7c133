import BadgeLeague
import BadgePipeline
import BadgeRules
import RunAnalysis

/// One athlete for `BadgeEngine.league`: their name, what their worker line would say of them
/// (sex, birth date `YYYY-MM-DD`, team), their own profile when they have one, and their runs (any order).
public struct LeagueAthlete: Sendable {
    /// Their name in the lines (unique among the athletes of one league).
    public var name: String
    /// What their league line says of them: sex, birth date, team (the categories and clubs).
    public var profile: LeagueProfile
    /// Their profile (heart rates, zones, birth date, sex), as a worker line gives it: their measures
    /// and rules use it (`ctx.athlete`, zones, age grade); nil: the engine's. Read their runs with
    /// `engine.with(athlete:)` of the same profile, so that the runs carry the measures it resolves.
    /// Their categories take its sex and birth date where `profile` gives none.
    public var athlete: Athlete?
    /// Their runs, any order; selected as `BadgeEngine.evaluate` selects a history.
    public var runs: [RunSummary]

    public init(name: String, profile: LeagueProfile = LeagueProfile(), athlete: Athlete? = nil, runs: [RunSummary]) {
        self.name = name; self.profile = profile; self.athlete = athlete; self.runs = runs
    }
}

/// What `BadgeEngine.league` gives: the lines (`badgectl league`'s, as values) and the packs'
/// league hooks that failed to load or failed on a group (file:line and the reason).
public struct LeagueOutcome: Sendable {
    /// The lines, in `badgectl league`'s order.
    public var lines: [LeagueLine]
    /// What failed (a pack's league hook, a repeated athlete), each naming the file and line or the athlete.
    public var failures: [String]
}

extension BadgeEngine {
    /// The cross-athlete stage of `badgectl league` (docs/league.md): each athlete evaluated as the
    /// worker evaluates them (this engine's selection, then its packs), then crowns, leaderboards,
    /// Local Legends, club challenges, rarity and the packs' `league.lua` awards, through the same
    /// `League` the command runs. Athletes' names must differ (a repeated one is left out and named
    /// in `failures`).
    public func league(_ athletes: [LeagueAthlete], options: LeagueOptions = LeagueOptions()) -> LeagueOutcome {
        let rules = pipeline.engine
        let league = League(packs: rules.packs, options: options)
        var failures = league.loadHooks(of: rules.packs, limits: rules.limits)
        // As the worker evaluates them: one loaded Lua state over every athlete.
        let evaluator = AthleteEvaluator(pipeline: pipeline, kind: .reused)
        var seen: Set<String> = []
        for athlete in athletes {
            guard seen.insert(athlete.name).inserted else {
                failures.append("athlete \(athlete.name) given twice: left out the second time")
                continue
            }
            let outcome = evaluator.evaluate(athlete.runs, profile: athlete.athlete)
            var profile = athlete.profile
            profile.sex = profile.sex ?? athlete.athlete?.sex
            profile.birthDate = profile.birthDate ?? athlete.athlete?.birthDate
            league.add(athlete: athlete.name, profile: profile, runs: outcome.selection.selected, evaluation: outcome.evaluation)
        }
        let lines = league.lines()
        return LeagueOutcome(lines: lines, failures: failures + league.failures)
    }
}
