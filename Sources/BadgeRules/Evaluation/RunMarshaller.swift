import RunFiles

/// Turns runs into the read-only values rules read, field by field from `RunSchema`: a run proxy
/// (scalars and single records such as elevation come with it; arrays and `fastest` are built the
/// first time a rule reads them) whose records are light records in host memory (`bclua_records`):
/// no Lua allocation per record, and the same record is the same value for every rule.
final class RunMarshaller {
    let lua: LuaState
    let kinds = LuaKinds.shared
    /// The schema's accessors, read through a buffer pointer: no copy of a `RunField` per run and
    /// field, and no reabstraction thunk (which an array of bare closures needs, copying the run).
    private struct Accessor { let value: @Sendable (RunSummary) -> RunFieldValue }
    private let accessors: [Accessor]
    private let recordKind: [Int32]
    /// Fields built on first read: `pushRun` does not even ask for their value.
    private let lazy: [Bool]
    /// Ids of the light records' strings, and a cache by place (see `recordString`).
    private var recordStrings: [String: Int32] = [:]
    private var recordStringSlots: [(text: String, id: Int32)] = []
    /// Records of a kind two fields share (efforts serve `efforts` and `fastest`), per run.
    private var sharedRecords: [Int: UnsafeMutableRawPointer?] = [:]
    /// Reused for every run: one value per field, the bytes of its strings and where they are.
    private var values: [LuaState.FieldValue]
    private var bytes: [UInt8] = []
    private var offsets: [(field: Int, offset: Int, length: Int)] = []

    init(lua: LuaState) {
        self.lua = lua
        self.values = Array(repeating: LuaState.FieldValue(), count: RunSchema.fields.count)
        self.accessors = RunSchema.fields.map { Accessor(value: $0.value) }
        self.recordKind = LuaKinds.shared.recordKind
        self.lazy = RunSchema.fields.map(LuaKinds.isLazy)
        let kinds = LuaKinds.shared
        self.strides = kinds.specs.map { 8 + 8 * ($0.shape == .record ? $0.fields?.count ?? 0 : 0) }
        self.shared = kinds.specs.map { kinds.sharedKinds.contains($0.kind) }
        bytes.reserveCapacity(256)
    }

    /// Forgets the light records' strings and records made so far (`LuaState.reuseReset` drops
    /// those made after the mark; the loaded rules' own hold their ids).
    func forgetRecords() {
        recordStrings.removeAll()
        recordStringSlots.removeAll()
        sharedRecords.removeAll()
    }

    /// Pushes the proxy of `run`, the `index`-th run (1-based) of the evaluation. `borrowing`: no
    /// copy inside (every field's accessor reads the caller's run); the callers still pay one copy
    /// of the summary per call (BENCHMARKS.md, issue F item 2, third round).
    func pushRun(_ run: borrowing RunSummary, index: Int) {
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        accessors.withUnsafeBufferPointer { accessors in
            for i in 0..<accessors.count {
                var value = LuaState.FieldValue()
                if lazy[i] { values[i] = value; continue }
                switch accessors[i].value(run) {
                case .string(let text?):
                    let offset = bytes.count
                    bytes.append(contentsOf: text.utf8)
                    offsets.append((i, offset, bytes.count - offset))
                    value = LuaState.fieldValue(string: bytes.count - offset)
                case .integer(let number?):
                    value = LuaState.fieldValue(integer: Int64(number))
                case .float(let number?):
                    value = LuaState.fieldValue(float: number)
                case .boolean(let flag?):
                    value = LuaState.fieldValue(boolean: flag)
                case .position:
                    value = LuaState.fieldValue(integer: Int64(index))
                case .record(let list?):
                    if let record = writeRecords(list, kind: recordKind[i]) { value = LuaState.fieldValue(record: record) }
                default:
                    break
                }
                values[i] = value
            }
        }
        bytes.append(0)
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                guard let base = chars.baseAddress else { return }
                for slice in offsets {
                    values[slice.field].text = base + slice.offset
                }
                values.withUnsafeBufferPointer { valueBuffer in
                    lua.pushRun(kind: LuaKinds.run, values: valueBuffer, index: index)
                }
            }
        }
    }

    /// Builds field `key` of `run` (the `index`-th run) the first time a rule reads it (host function 0).
    /// The run proxy keeps it, so every later read by any rule gets the same read-only object.
    func pushLazyField(of run: borrowing RunSummary, run index: Int, key: String) {
        guard let position = kinds.positionByName[key] else { lua.pushNil(); return }
        let recordKind = self.recordKind[position]
        switch accessors[position].value(run) {
        case .record(let list?):
            if let record = writeRecords(list, kind: recordKind) { lua.push(lightUserdata: record) } else { lua.pushNil() }
        case .records(let list):
            let first = records(list, kind: recordKind, run: index)
            let stride = strides[Int(recordKind)]
            lua.pushRecordArray(first.map { UnsafeRawPointer($0) }, stride: stride, count: first == nil ? 0 : list.count, kind: kinds.arrayKind[position])
        case .keyed(let list):
            // A light record whose fields are the effort names, each pointing at that effort's record.
            let names = RunSchema.effortNames
            guard let fastest = lua.newRecords(kind: LuaKinds.fastest, fields: names.count) else { lua.pushNil(); return }
            if let first = records(list, kind: recordKind, run: index) {
                let stride = strides[Int(recordKind)]
                for i in 0..<list.count {
                    guard case .string(let name) = list.value(record: i, field: 0), let field = names.firstIndex(of: name),
                          (fastest + 4).load(as: UInt32.self) & (1 << UInt32(field)) == 0 else { continue }
                    LuaState.setSlot(fastest, field, record: UnsafeRawPointer(first + i * stride))
                }
            }
            lua.push(lightUserdata: fastest)
        default:
            lua.pushNil()
        }
    }

    /// `stride` of each record kind (index: kind), computed once.
    private let strides: [Int]
    /// Record kinds two fields share (index: kind).
    private let shared: [Bool]

    /// The records of `list` for `run`; those of a kind two fields share are built once per run.
    private func records(_ list: RecordList, kind: Int32, run: Int) -> UnsafeMutableRawPointer? {
        guard shared[Int(kind)] else { return writeRecords(list, kind: kind) }
        let key = run &* 64 &+ Int(kind)
        if let built = sharedRecords[key] { return built }
        let records = writeRecords(list, kind: kind)
        sharedRecords[key] = records
        return records
    }

    /// Writes `list` as light records of `kind` in host memory (nil when memory ran out).
    private func writeRecords(_ list: RecordList, kind: Int32) -> UnsafeMutableRawPointer? {
        let stride = strides[Int(kind)]
        guard let base = lua.records(bytes: stride * max(list.count, 1)) else { return nil }
        list.writeFlat(to: base, stride: stride, kind: kind) { text, slot in Int64(recordString(text, slot: slot)) }
        return base
    }

    /// The id of `text` among the light records' strings (each distinct string is kept once).
    /// `slot` names a place that tends to see the same string run after run (a checkpoint's badge):
    /// a repeat there is found by one comparison instead of a hash lookup.
    func recordString(_ text: String, slot: Int = 64) -> Int32 {
        if slot < recordStringSlots.count, recordStringSlots[slot].text == text { return recordStringSlots[slot].id }
        let id = internRecordString(text)
        if slot < 64 {
            while recordStringSlots.count <= slot { recordStringSlots.append(("", 0)) }
            recordStringSlots[slot] = (text, id)
        }
        return id
    }

    private func internRecordString(_ text: String) -> Int32 {
        if let id = recordStrings[text] { return id }
        var text = text
        let id = text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { lua.addRecordString($0) }
        }
        recordStrings[text] = id
        return id
    }
}
