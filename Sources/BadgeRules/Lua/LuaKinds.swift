import RunFiles

/// The kinds of read-only values rules are given, numbered for the C shim and named from
/// `RunSchema` (the shim spells no field name). Built once per process; every state defines them
/// (`LuaState.defineKinds`).
struct LuaKinds {
    static let shared = LuaKinds()

    /// Kinds the host makes by hand: runs (`LuaState.pushRun`) and the light records of `fastest`,
    /// `ctx` and what it holds (`LuaState.newRecords`).
    static let run: Int32 = 0
    static let fastest: Int32 = 1
    static let ctx: Int32 = 2
    static let catalogueBadge: Int32 = 3
    static let catalogue: Int32 = 4
    static let packInfo: Int32 = 5
    static let ruleInfo: Int32 = 6
    /// `ctx.athlete` (`--athlete`), its `zones` array and each zone `{ min, max }`.
    static let athlete: Int32 = 7
    static let athleteZones: Int32 = 8
    static let athleteZone: Int32 = 9
    /// `ctx.athlete.goals` (the profile's `goals`) and each goal `{ id, measure, target, per }`.
    static let athleteGoals: Int32 = 10
    static let athleteGoal: Int32 = 11

    /// How a kind's values are made: a userdata over a table (runs: a present field is then a plain
    /// table read in the VM, the fastest for the fields rules read most; and the catalogue), a light
    /// record in host memory (everything else), an array of light records.
    enum Shape { case proxy, record, recordArray }
    /// What a light record's slot holds: a scalar, a value id (a string or a host function), or
    /// another light record.
    enum FieldType { case float, integer, boolean, string, value, record }

    struct Spec {
        var kind: Int32
        var shape: Shape
        var name: String
        var fields: [String]?
        var types: [FieldType] = []
        var lazy: UInt64 = 0
        var labelField: Int32 = 0
    }
    private(set) var specs: [Spec] = []
    /// Per run field (position in `RunSchema.fields`): the kind of its record (a single record such as
    /// elevation, or an array's element) and of its array, -1 when none.
    private(set) var recordKind: [Int32] = []
    private(set) var arrayKind: [Int32] = []
    /// Position in `RunSchema.fields` by name (lazy fields are asked for by name).
    private(set) var positionByName: [String: Int] = [:]
    /// Record kinds of more than one field (`efforts` and `fastest` share the effort records).
    private(set) var sharedKinds: Set<Int32> = []

    private init() {
        let fields = RunSchema.fields
        var lazy: UInt64 = 0
        for (i, field) in fields.enumerated() where Self.isLazy(field) { lazy |= 1 << UInt64(i) }
        specs = [
            Spec(kind: Self.run, shape: .proxy, name: "run", fields: fields.map(\.name), lazy: lazy,
                 labelField: Int32(RunSchema.labelField + 1)),
            Spec(kind: Self.fastest, shape: .record, name: "fastest", fields: RunSchema.effortNames,
                 types: RunSchema.effortNames.map { _ in .record }),
            Spec(kind: Self.ctx, shape: .record, name: "ctx", fields: ["catalogue", "pack", "note", "rule", "athlete", "zone"],
                 types: [.value, .record, .value, .record, .value, .string]),
            Spec(kind: Self.catalogueBadge, shape: .proxy, name: "catalogue badge",
                 fields: ["id", "name", "information", "image", "distance_m"]),
            Spec(kind: Self.catalogue, shape: .proxy, name: "catalogue", fields: nil),
            Spec(kind: Self.packInfo, shape: .record, name: "pack", fields: ["name", "version"], types: [.string, .string]),
            Spec(kind: Self.ruleInfo, shape: .record, name: "rule", fields: ["id", "title", "badge"], types: [.string, .string, .string]),
            Spec(kind: Self.athlete, shape: .proxy, name: "athlete", fields: ["max_hr", "resting_hr", "birth_date", "sex", "zones", "goals"]),
            Spec(kind: Self.athleteZones, shape: .proxy, name: "zones", fields: nil),
            Spec(kind: Self.athleteZone, shape: .proxy, name: "zone", fields: ["min", "max"]),
            Spec(kind: Self.athleteGoals, shape: .proxy, name: "goals", fields: nil),
            Spec(kind: Self.athleteGoal, shape: .proxy, name: "goal", fields: ["id", "measure", "target", "per"]),
        ]
        var elementKinds: [String: Int32] = [:]
        func add(_ spec: Spec) -> Int32 {
            var spec = spec
            spec.kind = Int32(specs.count)
            specs.append(spec)
            return spec.kind
        }
        func recordSpec(_ schema: RecordSchema, name: String) -> Spec {
            let types = schema.fields.map { field -> FieldType in
                switch field.kind {
                case .float: return .float
                case .integer: return .integer
                case .boolean: return .boolean
                case .string: return .string
                }
            }
            return Spec(kind: 0, shape: .record, name: name, fields: schema.fields.map(\.name), types: types)
        }
        for (i, field) in fields.enumerated() {
            positionByName[field.name] = i
            var record: Int32 = -1, array: Int32 = -1
            if let element = field.element {
                if field.kind == .array || field.kind == .table && !field.optional {
                    // Elements of arrays (and of fastest) are named by their schema: "split", "effort".
                    if let known = elementKinds[element.name] { record = known } else {
                        record = add(recordSpec(element, name: element.name))
                        elementKinds[element.name] = record
                    }
                } else {
                    // A single record is named by its field: "elevation", "heart_rate".
                    record = add(recordSpec(element, name: field.name))
                }
            }
            if field.kind == .array {
                array = add(Spec(kind: 0, shape: .recordArray, name: field.name, fields: nil))
            }
            if record >= 0, recordKind.contains(record) { sharedKinds.insert(record) }
            recordKind.append(record)
            arrayKind.append(array)
        }
    }

    /// Arrays and keyed tables (fastest) are built the first time a rule reads them; scalars and
    /// single records (elevation: a few bytes in the host's arena) come with the run.
    static func isLazy(_ field: RunField) -> Bool { field.kind == .array || (field.kind == .table && !field.optional) }
}
