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
    /// Per pack (index as in the session), the measures by name, and the names in order (for "did you mean").
    private(set) var entries: [[String: Entry]] = []
    private(set) var names: [[String]] = []

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
        }
    }

    /// The value of `name` in `run` for pack `pack`: the computed one, else (a run made by `t.run`, which
    /// sets measures by their declaration) the declared one.
    public func value(pack: Int, name: String, in run: RunSummary) -> MeasureValue? {
        guard pack >= 0, pack < entries.count, let entry = entries[pack][name] else { return nil }
        if let key = entry.resolvedKey, let value = run.measures[key] { return value }
        return run.measures[entry.declared.key]
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

    /// Pushes a measure's value as a new table of its fields (nil for none). A value from the cache is
    /// read field by field from its bytes, straight into the table.
    func push(measure value: MeasureValue?) {
        guard let value else { pushNil(); return }
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
