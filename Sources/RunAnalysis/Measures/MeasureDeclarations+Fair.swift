import Foundation
import RunFiles

extension MeasureKind {
    /// `{ kind = "age_grade" }`: the run's age-graded percentage and its best efforts', from the road-running
    /// age standards (`RunAnalysis.AgeGradeTables`) and the athlete profile's `birth_date` and `sex`.
    public static let ageGrade = MeasureKind(
        name: "age_grade",
        parameters: [
            ParameterSpec(name: "table", type: .word(ageGradeTables), doc: "the tables' edition: \"2025\" (default) or \"2020\""),
            ParameterSpec(name: "birth_date", type: .text, doc: "set by badgectl: the athlete profile's birth_date"),
            ParameterSpec(name: "sex", type: .word(["male", "female"]), doc: "set by badgectl: the athlete profile's sex"),
        ],
        fields: [.percent, .age, .ageStandardSeconds, .distanceMeters, .elapsedSeconds, .bestPercent, .bestDistanceMeters, .bestElapsedSeconds,
                 .efforts],
        doc: "the age-graded percentage of the run and of its best efforts at the tables' distances",
        check: { _ in nil })

    /// The editions of the age-grading tables shipped (`table = "2025"`, the default).
    public static let ageGradeTables = ["2025", "2020"]
}

extension MeasureDefinition {
    /// An `age_grade` measure with the athlete's birth date and sex as parameters (so that the cache keeps
    /// one value per profile), or why it cannot be computed.
    func resolvedAgeGrade(athlete: Athlete?) -> Result<MeasureDefinition, MeasureUnavailable> {
        guard let athlete else {
            return .failure(MeasureUnavailable(reason: "an age grade needs the runner's birth_date and sex: give an athlete profile with --athlete FILE"))
        }
        guard let birth = athlete.birthDate else {
            return .failure(MeasureUnavailable(reason: "the athlete profile \(athlete.source) gives no birth_date (an age grade needs the runner's age)"))
        }
        guard let sex = Athlete.tableSex(athlete.sex) else {
            let given = athlete.sex.map { "sex \"\($0)\"" } ?? "no sex"
            return .failure(MeasureUnavailable(reason: "the athlete profile \(athlete.source) gives \(given): the age-grading tables are for \"male\" and \"female\""))
        }
        var parameters = self.parameters
        parameters["birth_date"] = .text(birth)
        parameters["sex"] = .text(sex)
        return .success(MeasureDefinition(kind: kind, parameters: parameters))
    }
}

extension Athlete {
    /// What a profile's `sex` may be: the words of the age tables.
    static let sexWords = "must be \"male\" or \"female\" (or M, F; any case)"

    /// Why `text` is not a sex the profile takes (`sexWords`), with the word meant for a common other one
    /// (`woman`: did you mean 'female'?); nil when it is one.
    static func sexProblem(_ text: String) -> String? {
        if tableSex(text) != nil { return nil }
        let shown = text.utf8.count <= 40 ? "'\(text)'" : "a text of \(text.utf8.count) bytes"
        let meant: String?
        switch text.lowercased().trimmingCharacters(in: .whitespaces) {
        case "woman", "women", "w", "girl", "lady", "femme", "fem", "femal", "feamle", "femail", "femle": meant = "female"
        case "man", "men", "boy", "mal", "mael", "masculine", "mle": meant = "male"
        default: meant = nil
        }
        return "\(sexWords), got \(shown)" + (meant.map { "; did you mean '\($0)'?" } ?? "")
    }

    /// `male` or `female` for a profile's `sex` (`m`, `f` too, in any case), nil otherwise.
    public static func tableSex(_ sex: String?) -> String? {
        switch sex?.lowercased() {
        case "male", "m": return "male"
        case "female", "f": return "female"
        default: return nil
        }
    }
}

extension MeasureKind {
    /// `{ kind = "grade_adjusted", smoothing_m = 50, distance_m = 1000 }`: the pace on flat ground that costs
    /// the same energy (Minetti et al. 2002), for the whole run and, with `distance_m`, its fastest stretch.
    public static let gradeAdjusted = MeasureKind(
        name: "grade_adjusted",
        parameters: [
            ParameterSpec(name: "smoothing_m", type: .number(minimum: 1, integer: false),
                          doc: "the distance each gradient is taken over, centred on the step, metres (default 50)"),
            ParameterSpec(name: "distance_m", type: .number(minimum: 1, integer: false),
                          doc: "also the fastest stretch of this flat-equivalent distance"),
            ParameterSpec(name: "max_stop_s", type: .number(minimum: 1, integer: false),
                          doc: "the longest stop that stretch may span (default 120)"),
        ],
        fields: [.paceSecondsPerKilometre, .elapsedSeconds, .distanceMeters, .equivalentDistanceMeters,
                 .effortElapsedSeconds, .effortPaceSecondsPerKilometre, .effortDistanceMeters, .effortStartElapsedSeconds],
        doc: "grade-adjusted pace: the flat pace of the same energy cost, from the elevation profile",
        check: { d in
            if let smoothing = d.number("smoothing_m"), smoothing > 1000 { return "smoothing_m must be at most 1000 (metres)" }
            if d.number("max_stop_s") != nil, d.number("distance_m") == nil { return "max_stop_s applies to the stretch of distance_m: give distance_m too" }
            return nil
        })
}
