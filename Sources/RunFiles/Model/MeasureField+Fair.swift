// The fields of the fair measures' values (grade-adjusted pace, age grade): `MeasureDeclarations+Fair.swift`
// in RunAnalysis declares the kinds.
extension MeasureField {
    // age_grade.
    public static let percent = MeasureField("percent", unit: "%", doc: "the age grade: 100 × age standard ÷ time")
    public static let age = MeasureField("age", unit: "integer", doc: "the runner's age on the run's local date")
    public static let ageStandardSeconds = MeasureField("age_standard_s", unit: "s", doc: "the open standard ÷ the age factor, at this distance")
    public static let bestPercent = MeasureField("best_percent", unit: "%", doc: "the best age grade of the run and its efforts")
    public static let bestDistanceMeters = MeasureField("best_distance_m", unit: "m", doc: "the distance of the best age grade")
    // grade_adjusted.
    public static let equivalentDistanceMeters = MeasureField("equivalent_distance_m", unit: "m", doc: "the flat distance of the same energy cost (Minetti 2002)")
    public static let effortElapsedSeconds = MeasureField("effort_elapsed_s", unit: "s", doc: "the fastest stretch of distance_m flat-equivalent metres")
    public static let effortPaceSecondsPerKilometre = MeasureField("effort_pace_s_per_km", unit: "s/km", doc: "that stretch's grade-adjusted pace")
    public static let effortDistanceMeters = MeasureField("effort_distance_m", unit: "m", doc: "the ground that stretch covered")
    public static let effortStartElapsedSeconds = MeasureField("effort_start_elapsed_s", unit: "s", doc: "when that stretch starts, from the run's start")

    /// The fields of the fair-comparison measures (age grade, grade-adjusted pace): `declared` holds them.
    static let fair: [MeasureField] = [
        percent, age, ageStandardSeconds, bestPercent, bestDistanceMeters, equivalentDistanceMeters,
        effortElapsedSeconds, effortPaceSecondsPerKilometre, effortDistanceMeters, effortStartElapsedSeconds,
    ]
}
