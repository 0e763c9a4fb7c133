import Activities
import CLuaShims

/// The kinds of read-only values rules are given, numbered for the C shim and named from
/// `RunSchema` (the shim spells no field name). Built once per process; every state defines them.
struct LuaKinds {
    static let shared = LuaKinds()

    /// Kinds the host makes by hand (`bclua_make_proxy`).
    static let run: Int32 = 0
    static let fastest: Int32 = 1
    static let ctx: Int32 = 2
    static let catalogueBadge: Int32 = 3
    static let catalogue: Int32 = 4
    static let packInfo: Int32 = 5
    static let ruleInfo: Int32 = 6

    /// Every kind, as the shim takes them (names and types as Swift strings until `define`).
    struct Spec {
        var kind: Int32
        var shape: Int32
        var name: String
        var fields: [String]?
        var types: String = ""
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
            Spec(kind: Self.run, shape: Int32(BCLUA_SHAPE_PROXY), name: "run", fields: fields.map(\.name), lazy: lazy,
                 labelField: Int32(RunSchema.labelField + 1)),
            Spec(kind: Self.fastest, shape: Int32(BCLUA_SHAPE_PROXY), name: "fastest", fields: RunAnalyzer.effortDistances.map(\.name)),
            Spec(kind: Self.ctx, shape: Int32(BCLUA_SHAPE_PROXY), name: "ctx", fields: ["catalogue", "pack", "note", "rule"]),
            Spec(kind: Self.catalogueBadge, shape: Int32(BCLUA_SHAPE_PROXY), name: "catalogue badge",
                 fields: ["id", "name", "information", "image", "distance_m"]),
            Spec(kind: Self.catalogue, shape: Int32(BCLUA_SHAPE_PROXY), name: "catalogue", fields: nil),
            Spec(kind: Self.packInfo, shape: Int32(BCLUA_SHAPE_PROXY), name: "pack", fields: ["name", "version"]),
            Spec(kind: Self.ruleInfo, shape: Int32(BCLUA_SHAPE_PROXY), name: "rule", fields: ["id", "title", "badge"]),
        ]
        var elementKinds: [String: Int32] = [:]
        func add(_ spec: Spec) -> Int32 {
            var spec = spec
            spec.kind = Int32(specs.count)
            specs.append(spec)
            return spec.kind
        }
        func recordSpec(_ schema: RecordSchema, name: String) -> Spec {
            let types = schema.fields.map { field -> Character in
                switch field.kind {
                case .float: return Character(UnicodeScalar(UInt8(BCLUA_FIELD_FLOAT)))
                case .integer: return Character(UnicodeScalar(UInt8(BCLUA_FIELD_INTEGER)))
                case .boolean: return Character(UnicodeScalar(UInt8(BCLUA_FIELD_BOOLEAN)))
                case .string: return Character(UnicodeScalar(UInt8(BCLUA_FIELD_STRING)))
                }
            }
            return Spec(kind: 0, shape: Int32(BCLUA_SHAPE_RECORD), name: name, fields: schema.fields.map(\.name), types: String(types))
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
                array = add(Spec(kind: 0, shape: Int32(BCLUA_SHAPE_RECORD_ARRAY), name: field.name, fields: nil))
            }
            if record >= 0, recordKind.contains(record) { sharedKinds.insert(record) }
            recordKind.append(record)
            arrayKind.append(array)
        }
    }

    /// Fields of records (arrays, fastest, elevation) are built the first time a rule reads them;
    /// scalars come with the run.
    static func isLazy(_ field: RunField) -> Bool { field.element != nil }

    /// Defines every kind in `state`. False when the shim refused a spec.
    func define(in state: OpaquePointer) -> Bool {
        var storage: [UnsafeMutablePointer<CChar>] = []
        defer { storage.forEach { $0.deallocate() } }
        func copy(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (i, byte) in bytes.enumerated() { pointer[i] = CChar(bitPattern: byte) }
            pointer[bytes.count] = 0
            storage.append(pointer)
            return pointer
        }
        let kinds = specs.map { spec -> bclua_kind in
            var kind = bclua_kind()
            kind.kind = spec.kind
            kind.shape = spec.shape
            kind.name = UnsafePointer(copy(Array(spec.name.utf8)))
            if let fields = spec.fields {
                kind.fields = UnsafePointer(copy(fields.flatMap { Array($0.utf8) + [0] }))
                kind.field_count = Int32(fields.count)
            }
            if !spec.types.isEmpty { kind.types = UnsafePointer(copy(Array(spec.types.utf8))) }
            kind.lazy = spec.lazy
            kind.label_field = spec.labelField
            return kind
        }
        return kinds.withUnsafeBufferPointer { bclua_define_kinds(state, $0.baseAddress, Int32($0.count)) } != 0
    }
}
