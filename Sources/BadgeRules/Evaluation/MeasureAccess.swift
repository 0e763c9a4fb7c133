import RunAnalysis
import RunFiles

/// What each pack's measure names stand for in one evaluation: the definition the analyzer computed
/// (`resolved`, its key into `RunSummary.measures`), or why it could not be (a heart-rate zone without an
/// athlete profile). Names are per pack: rules of one pack never see another pack's measures.
public struct PackMeasureTable: Sendable {
    struct Entry: Sendable {
        var declared: MeasureDefinition
        /// The key of the computed definition; nil when the measure is unavailable.
        var resolvedKey: String?
        var unavailable: String?
    }

    /// What a rule's read of a measure needs, found once per pack and name (`RunTable.measure`).
    struct Read: Sendable {
        /// The keys of the computed definition (nil when unavailable) and of the declared one.
        var resolvedKey: String?
        var declaredKey: String
        /// The index of the declared kind in `MeasureKind.all` (its values' metatable).
        var kindIndex: Int?

        /// The value in a run's measures: the computed one, else (a run made by `t.run`, which sets
        /// measures by their declaration) the declared one.
        func value(in measures: [String: MeasureValue]) -> MeasureValue? {
            if let key = resolvedKey, let value = measures[key] { return value }
            return measures[declaredKey]
        }
    }
    /// Per pack (index as in the session), the measures by name, and the names in order (for "did you mean").
    private(set) var entries: [[String: Entry]] = []
    private(set) var names: [[String]] = []
    /// Per pack, each measure's `Read`.
    private var reads: [[String: Read]] = []

    public init(packs: [RulePack], athlete: Athlete?) {
        for pack in packs {
            var table: [String: Entry] = [:]
            for measure in pack.measures {
                switch measure.definition.resolved(athlete: athlete) {
                case .success(let definition): table[measure.name] = Entry(declared: measure.definition, resolvedKey: definition.key)
                case .failure(let problem): table[measure.name] = Entry(declared: measure.definition, unavailable: problem.reason)
                }
            }
            entries.append(table)
            names.append(pack.measures.map(\.name))
            reads.append(table.mapValues { entry in
                Read(resolvedKey: entry.resolvedKey, declaredKey: entry.declared.key,
                     kindIndex: MeasureKind.all.firstIndex { $0.name == entry.declared.kind })
            })
        }
    }

    /// The value of `name` in `run` for pack `pack`: the computed one, else (a run made by `t.run`, which
    /// sets measures by their declaration) the declared one.
    public func value(pack: Int, name: String, in run: RunSummary) -> MeasureValue? {
        read(pack: pack, name: name)?.value(in: run.measures)
    }

    /// How to read measure `name` of pack `pack`, nil when the pack declares no such measure.
    func read(pack: Int, name: String) -> Read? {
        guard pack >= 0, pack < reads.count else { return nil }
        return reads[pack][name]
    }

    /// The kind of measure `name` of pack `pack` (empty when there is no such measure).
    public func kind(pack: Int, name: String) -> String {
        guard pack >= 0, pack < entries.count, let entry = entries[pack][name] else { return "" }
        return entry.declared.kind
    }

    /// Why `name` of pack `pack` is nil in every run of this evaluation (no athlete profile), if it is.
    public func unavailable(pack: Int, name: String) -> String? {
        guard pack >= 0, pack < entries.count else { return nil }
        return entries[pack][name]?.unavailable
    }

    /// Every measure the packs need computed (each distinct definition once, in a stable order).
    public static func definitions(of packs: [RulePack], athlete: Athlete?) -> [MeasureDefinition] {
        var seen: Set<String> = []
        var result: [MeasureDefinition] = []
        for pack in packs {
            for measure in pack.measures {
                guard case .success(let definition) = measure.definition.resolved(athlete: athlete),
                      seen.insert(definition.key).inserted else { continue }
                result.append(definition)
            }
        }
        return result
    }
}

extension LuaState {
    /// Pushes `run.measures` of the `runIndex`-th run: an empty read-only table whose reads go to the
    /// host (`HostFunction.measure`), which answers for the pack of the rule reading it.
    func pushMeasures(run runIndex: Int) {
        newTable()
        newTable(record: 4)
        pushHostFunction(.measure, token: runIndex)
        setField(-2, "__index")
        pushHostFunction(.measureWrite, token: runIndex)
        setField(-2, "__newindex")
        push("measures")
        setField(-2, "__metatable")
        push("measures")
        setField(-2, "__name")
        setMetatable(-2)
    }

    /// Pushes a measure's value (nil for none) as a strict table: reading a field the kind `kind`
    /// does not have is an error with a suggestion (`m.pased` never reads as a silent nil); a field
    /// of the kind that this value lacks (`first_elapsed_s` of a place never passed) reads as nil.
    func push(measure value: MeasureValue?, kind: String) {
        push(measure: value, kindIndex: MeasureKind.all.firstIndex { $0.name == kind })
    }

    /// `push(measure:kind:)` with the kind as its index in `MeasureKind.all` (nil: no metatable).
    func push(measure value: MeasureValue?, kindIndex: Int?) {
        push(measure: value)
        guard value != nil, let index = kindIndex else { return }
        pushMeasureMetatable(index)
        setMetatable(-2)
    }

    /// Pushes the metatable of measure values of kind `MeasureKind.all[index]`, made on first use.
    func pushMeasureMetatable(_ index: Int) {
        if let ref = measureMetatables[index] {
            push(ref: ref)
        } else {
            newTable(record: 3)
            pushHostFunction(.measureField, token: index)
            setField(-2, "__index")
            push("measure value")
            setField(-2, "__name")
            pushCopy(of: -1)
            measureMetatables[index] = ref()
        }
    }

    /// Makes every measure kind's metatable now (a state reused between evaluations holds them
    /// from its mark on, so no evaluation adds one).
    func makeMeasureMetatables() {
        for index in MeasureKind.all.indices {
            pushMeasureMetatable(index)
            pop()
        }
    }

    /// The `__index` of a measure value of kind `MeasureKind.all[kindIndex]` (arguments: the table, the
    /// key): nil for a field of the kind, else an error naming the field, the kind's fields and the
    /// closest one. Returns the number of results, or -1 with the message pushed.
    func measureField(kindIndex: Int, location: String) -> Int32 {
        guard kindIndex >= 0, kindIndex < MeasureKind.all.count else { pushNil(); return 1 }
        let kind = MeasureKind.all[kindIndex]
        guard let key = string(at: 2), type(at: 2) == .string else { pushNil(); return 1 }
        if kind.fields.contains(key) { pushNil(); return 1 }
        let hint = Suggestion.closest(to: key, in: kind.fields).map { "; did you mean '\($0)'?" } ?? ""
        let article = "aeiou".contains(kind.name.first ?? "x") ? "an" : "a"
        push(location + "\(article) \(kind.name) measure has no field '\(key)' (fields: \(kind.fields.joined(separator: ", ")))\(hint)")
        return -1
    }

    /// Pushes a measure's value as a new table of its fields (nil for none). A value from the cache is
    /// read field by field from its bytes, straight into the table.
    func push(measure value: MeasureValue?) {
        guard let value else { pushNil(); return }
        // Straight from the cache's bytes into Lua tables: no boxed scalar, array or string per field.
        let base = top
        var pusher = MeasurePusher(lua: self)
        if value.visit(&pusher), top == base + 1 { return }
        setTop(base)  // bytes that stop short (never, as checked when read): the fields as decoded
        pushDecoded(measure: value)
    }

    /// `push(measure:)` through the value's decoded fields.
    private func pushDecoded(measure value: MeasureValue) {
        newTable(record: Int32(min(value.fieldCount, Int(Int32.max))))
        value.forEachField { name, field in
            push(measureField: field)
            setField(-2, utf8: name)
        }
    }

    /// A float, an integer, a boolean, a string, or an array of them (a new table).
    func push(measureField field: MeasureScalar) {
        switch field {
        case .float(let number): push(number)
        case .integer(let number): push(integer: number)
        case .boolean(let flag): push(boolean: flag)
        case .string(let text): push(text)
        case .list(let values):
            ensureStack()
            newTable(array: Int32(min(values.count, Int(Int32.max))))
            for (i, value) in values.enumerated() {
                push(measureField: value)
                setIndex(-2, i + 1)
            }
        case .record(let fields):
            ensureStack()
            newTable(record: Int32(min(fields.count, 64)))
            for (name, value) in fields {
                push(measureField: value)
                setField(-2, name)
            }
        }
    }

    /// The message for a measure name a pack does not declare.
    static func unknownMeasure(_ name: String, pack: String, known: [String]) -> String {
        let hint = Suggestion.closest(to: name, in: known).map { "; did you mean '\($0)'?" } ?? ""
        let list = known.isEmpty ? "it declares none: add measures = { \(name) = { kind = ... } } to its pack.lua" : "declared: \(known.joined(separator: ", "))"
        return "no measure '\(name)' in pack '\(pack)' (\(list))\(hint)"
    }
}

/// Builds a measure's Lua table as the value is read (`MeasureValue.visit`): the tables
/// `push(measureField:)` makes, a record's fields set as they come, a list's in order.
struct MeasurePusher: MeasureVisitor {
    let lua: LuaState
    /// Per open table: the next list index, or 0 for a record (its field's name is on the stack).
    private var open: [Int] = []
    init(lua: LuaState) { self.lua = lua; open.reserveCapacity(4) }

    mutating func beginRecord(count: Int) {
        lua.ensureStack()
        // The value itself is sized for all its fields; a record inside for at most 64, as before.
        lua.newTable(record: Int32(open.isEmpty ? min(count, Int(Int32.max)) : min(count, 64)))
        open.append(0)
    }
    mutating func beginList(count: Int) {
        lua.ensureStack()
        lua.newTable(array: Int32(min(count, Int(Int32.max))))
        open.append(1)
    }
    mutating func end() {
        open.removeLast()
        placed()
    }
    mutating func name(_ utf8: UnsafeRawBufferPointer) { lua.push(bytes: utf8) }
    mutating func float(_ value: Double) { lua.push(value); placed() }
    mutating func integer(_ value: Int) { lua.push(integer: value); placed() }
    mutating func boolean(_ value: Bool) { lua.push(boolean: value); placed() }
    mutating func string(_ utf8: UnsafeRawBufferPointer) { lua.push(bytes: utf8); placed() }

    /// The value on top goes into the table it belongs to: under its name, or at the list's next index.
    private mutating func placed() {
        guard let last = open.last else { return }
        if last == 0 {
            lua.rawSet(-3)
        } else {
            lua.setIndex(-2, last)
            open[open.count - 1] = last + 1
        }
    }
}
