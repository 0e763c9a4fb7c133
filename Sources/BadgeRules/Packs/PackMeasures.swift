import Crypto
import Foundation
import RunAnalysis
import RunFiles

/// A measure a pack declared in `pack.lua` (`measures = { best3k = { kind = "effort", distance_m = 3000 } }`):
/// its name (scoped to the pack: `run.measures.best3k` in one pack is never another pack's `best3k`) and
/// what it measures.
public struct PackMeasure: Sendable, Equatable {
    public var name: String
    public var definition: MeasureDefinition
    public init(name: String, definition: MeasureDefinition) { self.name = name; self.definition = definition }
}

extension PackManifest {
    /// The optional `measures` table of `pack.lua`, checked against `MeasureKind`: a known kind, known
    /// parameters of the right type (a misspelt one gets a suggestion), the kind's own checks. Messages
    /// name pack.lua and the line of the measure's name.
    func readMeasures(_ table: Int32, packFile: String) throws -> [PackMeasure] {
        let type = lua.getField(table, "measures")
        defer { lua.pop() }
        if type == .nil { return [] }
        let source = (try? String(contentsOfFile: packFile, encoding: .utf8)) ?? ""
        func fail(_ name: String?, _ reason: String) -> RulesError {
            .pack(file: packFile, line: name.flatMap { PackManifest.line(of: $0, in: source) } ?? PackManifest.line(of: "measures", in: source),
                  reason: name.map { "measure '\($0)': \(reason)" } ?? reason)
        }
        guard type == .table else {
            throw fail(nil, "field 'measures' must be a table { <name> = { kind = \"effort\", distance_m = 3000 }, ... }, got \(lua.typeName(at: -1))")
        }
        let measures = lua.top
        var result: [PackMeasure] = []
        lua.pushNil()
        while lua.next(measures) {
            defer { lua.pop() }
            guard lua.type(at: -2) == .string, let name = lua.string(at: -2) else {
                throw fail(nil, "measures: keys must be names (strings), as in measures = { best3k = { ... } }")
            }
            guard PackManifest.isName(name) else { throw fail(name, "a measure's name must be letters, digits and '_', not starting with a digit") }
            guard lua.type(at: -1) == .table else {
                throw fail(name, "expected a table { kind = \"...\", ... }, got \(lua.typeName(at: -1))")
            }
            var definition = try readDefinition(at: lua.top, fail: { fail(name, $0) })
            if definition.kind == MeasureKind.segment.name {
                definition = try PackManifest.loadSegment(definition, folder: (packFile as NSString).deletingLastPathComponent,
                                                          fail: { fail(name, $0) })
            }
            result.append(PackMeasure(name: name, definition: definition))
        }
        return result.sorted { Array($0.name.utf8).lexicographicallyPrecedes(Array($1.name.utf8)) }
    }

    private func readDefinition(at entry: Int32, fail: (String) -> RulesError) throws -> MeasureDefinition {
        let kinds = MeasureKind.all.map(\.name)
        guard lua.getField(entry, "kind") == .string, let kindName = lua.string(at: -1) else {
            lua.pop()
            throw fail("missing required field 'kind' (one of \(kinds.joined(separator: ", ")))")
        }
        lua.pop()
        guard let kind = MeasureKind.named(kindName) else {
            let hint = Suggestion.closest(to: kindName, in: kinds).map { "; did you mean '\($0)'?" } ?? ""
            throw fail("unknown kind '\(kindName)' (known: \(kinds.joined(separator: ", ")))\(hint)")
        }
        var parameters: [String: MeasureDefinition.Parameter] = [:]
        lua.pushNil()
        while lua.next(entry) {
            defer { lua.pop() }
            guard lua.type(at: -2) == .string, let key = lua.string(at: -2) else { throw fail("parameters are named (strings)") }
            if key == "kind" { continue }
            guard let spec = kind.parameters.first(where: { $0.name == key }) else {
                let known = kind.parameters.map(\.name)
                let hint = Suggestion.closest(to: key, in: known).map { "; did you mean '\($0)'?" } ?? ""
                let list = known.isEmpty ? "it takes none" : "known: \(known.joined(separator: ", "))"
                throw fail("unknown parameter '\(key)' for kind '\(kind.name)' (\(list))\(hint)")
            }
            parameters[key] = try readParameter(at: lua.top, type: spec.type, label: "'\(key)'", doc: spec.doc, fail: fail)
        }
        let definition = MeasureDefinition(kind: kind.name, parameters: parameters)
        if let problem = kind.check(definition) { throw fail(problem) }
        return definition
    }

    /// The value at `index` as a parameter of `type` (`label` names it in messages: `'distance_m'`,
    /// `'points'[2]`).
    private func readParameter(at index: Int32, type: MeasureKind.ParameterType, label: String, doc: String,
                               fail: (String) -> RulesError) throws -> MeasureDefinition.Parameter {
        switch type {
        case .number(let minimum, let integer):
            guard lua.type(at: index) == .number, let value = lua.number(at: index) else {
                throw fail("\(label) must be a number (\(doc)), got \(lua.typeName(at: index))")
            }
            // `math.huge` or `0/0`: a number, but none a measure can use.
            guard value.isFinite else { throw fail("\(label) must be a finite number (\(doc)), got \(lua.numberText(at: index))") }
            guard value >= minimum else { throw fail("\(label) must be at least \(MeasureScalar.float(minimum).text), got \(lua.numberText(at: index))") }
            if integer, value != value.rounded() { throw fail("\(label) must be a whole number, got \(lua.numberText(at: index))") }
            return .number(value)
        case .word(let words):
            guard lua.type(at: index) == .string, let value = lua.string(at: index) else {
                throw fail("\(label) must be one of \(words.joined(separator: ", ")), got \(lua.typeName(at: index))")
            }
            guard words.contains(value) else {
                let hint = Suggestion.closest(to: value, in: words).map { "; did you mean '\($0)'?" } ?? ""
                throw fail("\(label) must be one of \(words.joined(separator: ", ")), got '\(value)'\(hint)")
            }
            return .text(value)
        case .text:
            guard lua.type(at: index) == .string, let value = lua.string(at: index), !value.isEmpty, value.utf8.count <= 200 else {
                throw fail("\(label) must be a short non-empty string (\(doc)), got \(lua.typeName(at: index))")
            }
            return .text(value)
        case .list(let element, let count):
            let shape = count.map { "a list of \($0)" } ?? "a non-empty list"
            guard lua.type(at: index) == .table else { throw fail("\(label) must be \(shape) (\(doc)), got \(lua.typeName(at: index))") }
            let length = lua.rawLength(at: index)
            var keys = 0
            lua.pushNil()
            while lua.next(index) { keys += 1; lua.pop() }
            guard length > 0, keys == length, count.map({ $0 == length }) ?? true, length <= 10_000 else {
                throw fail("\(label) must be \(shape) (an array, without other keys; \(doc))")
            }
            var values: [MeasureDefinition.Parameter] = []
            for i in 1...length {
                lua.getIndex(index, i)
                defer { lua.pop() }
                values.append(try readParameter(at: lua.top, type: element, label: "\(label)[\(i)]", doc: doc, fail: fail))
            }
            return .list(values)
        }
    }

    /// The largest segment file a pack may ship.
    static let maximumSegmentBytes = 16 << 20

    /// A segment measure with its path read from the pack's file (`segments/<name>.gpx`: its track or
    /// route points, in order) and the file's SHA-256 added as the `sha256` parameter, so the measure's
    /// key (and the cache's rows) change when the file does. Errors name the file and what is wrong.
    static func loadSegment(_ definition: MeasureDefinition, folder: String, fail: (String) -> RulesError) throws -> MeasureDefinition {
        guard let file = definition.text("file") else { return definition }
        let path = folder.isEmpty ? file : folder + "/" + file
        let real: String
        switch PackFiles.resolve(path, folder: folder.isEmpty ? "." : folder) {
        case .success(let resolved): real = resolved
        case .failure(let refusal): throw fail("\(file): \(refusal)")
        }
        if let kind = notAFile(real) {
            throw fail(kind == nil ? "no segment file \(path) (a GPX route or track drawn in any GPX editor)" + missingFileHint(file, folder: folder)
                       : "\(path) is \(kind ?? ""), not a segment file (a GPX route or track drawn in any GPX editor)")
        }
        // Size checked before a byte is read (a 300 MB file is refused, not read whole).
        let data: Data
        do {
            data = Data(try FileBytes.read(path: real, maximumBytes: maximumSegmentBytes))
        } catch ActivityError.tooLarge {
            throw fail("\(path): over \(maximumSegmentBytes >> 20) MiB, too large for a segment")
        } catch let error as ActivityError {
            throw fail("cannot read the segment file \(path): \(error.reason)")
        }
        var latitudes: [Double] = [], longitudes: [Double] = []
        do {
            let track = try data.withUnsafeBytes { try GPXReader.read(bytes: $0, source: path) }
            if track.hasPositions { latitudes = track.latitudes; longitudes = track.longitudes }
        } catch {
            // A route (<rte><rtept>), as route planners write it: the run readers refuse those.
            guard let route = try routePoints(Array(data), path: path, fail: fail), !route.isEmpty else { throw fail("segment file \(error)") }
            latitudes = route.map(\.0); longitudes = route.map(\.1)
        }
        for i in latitudes.indices where !Geodesy.isValid(latitude: latitudes[i], longitude: longitudes[i]) {
            throw fail("\(path): point \(i + 1) has no valid latitude and longitude")
        }
        let tolerance = definition.number("tolerance_m") ?? SegmentPath.defaultTolerance
        guard let segment = SegmentPath(latitudes: latitudes, longitudes: longitudes, tolerance: tolerance) else {
            throw fail("\(path): a segment needs at least two distinct points (<trkpt> or <rtept> with lat and lon)")
        }
        guard segment.length > 2 * tolerance else {
            throw fail("\(path): the segment is \(Int(segment.length)) m long, not longer than twice tolerance_m (\(Int(tolerance)) m)")
        }
        var parameters = definition.parameters
        parameters["sha256"] = .text(SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined())
        var made = MeasureDefinition(kind: definition.kind, parameters: parameters)
        made.path = segment
        return made
    }

    /// What `path` is when it is not a regular file (links followed): `.some(nil)` when there is nothing
    /// there, else what there is ("a folder", "a named pipe (FIFO)", ...); nil for a regular file.
    static func notAFile(_ path: String) -> String?? {
        var info = stat()
        guard stat(path, &info) == 0 else { return .some(nil) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return nil
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a named pipe (FIFO)"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "neither a file nor a folder"
        }
    }

    /// "; did you mean 'segments/bridge-span.gpx'?" when the folder `file` names holds a file whose
    /// name is close to `file`'s (a typo), else "".
    static func missingFileHint(_ file: String, folder: String) -> String {
        let relativeFolder = (file as NSString).deletingLastPathComponent
        let directory = [folder, relativeFolder].filter { !$0.isEmpty }.joined(separator: "/")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? [])
            .filter { !$0.hasPrefix(".") }.sorted()
        guard let closest = Suggestion.closest(to: (file as NSString).lastPathComponent, in: names) else { return "" }
        return "; did you mean '\(relativeFolder.isEmpty ? closest : relativeFolder + "/" + closest)'?"
    }

    /// The `<rtept lat=".." lon="..">` points of a GPX route, in order (nil when there are none). A point
    /// without a readable lat and lon is an error naming it.
    static func routePoints(_ bytes: [UInt8], path: String, fail: (String) -> RulesError) throws -> [(Double, Double)]? {
        // One pass over the bytes (a search that restarts from each match over the text made a
        // 15 MiB route take minutes to load).
        var points: [(Double, Double)] = []
        let needle = Array("rtept".utf8)
        let count = bytes.count
        var i = 1
        while i + needle.count < count {
            guard bytes[i] == needle[0], bytes[i + 1] == needle[1], bytes[i + 2] == needle[2], bytes[i + 3] == needle[3],
                  bytes[i + 4] == needle[4] else { i += 1; continue }
            let before = bytes[i - 1], next = bytes[i + needle.count]
            i += needle.count
            guard before == UInt8(ascii: "<") || before == UInt8(ascii: ":"),
                  next == UInt8(ascii: " ") || next == UInt8(ascii: "\t") || next == UInt8(ascii: "\n") || next == UInt8(ascii: "\r")
                    || next == UInt8(ascii: ">") || next == UInt8(ascii: "/") else { continue }
            var end = i
            while end < count && bytes[end] != UInt8(ascii: ">") { end += 1 }
            let tag = bytes[i..<end]
            i = end
            guard let lat = attribute(Array("lat".utf8), in: tag), let lon = attribute(Array("lon".utf8), in: tag) else {
                throw fail("\(path): route point \(points.count + 1) has no readable lat and lon attributes")
            }
            points.append((lat, lon))
        }
        return points.isEmpty ? nil : points
    }

    /// The number of attribute `name` (`lat`, `lon`) inside a tag's bytes: `name="…"` or `name = '…'`,
    /// the name preceded by white space; digits, a sign, a point and an exponent only (Swift's `Double`
    /// would also take hex and "nan").
    static func attribute(_ name: [UInt8], in tag: ArraySlice<UInt8>) -> Double? {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var k = tag.startIndex
        while k + name.count <= tag.endIndex {
            guard k > tag.startIndex, isSpace(tag[k - 1]), tag[k..<(k + name.count)].elementsEqual(name) else { k += 1; continue }
            var v = k + name.count
            while v < tag.endIndex && isSpace(tag[v]) { v += 1 }
            guard v < tag.endIndex, tag[v] == UInt8(ascii: "=") else { k += 1; continue }
            v += 1
            while v < tag.endIndex && isSpace(tag[v]) { v += 1 }
            guard v < tag.endIndex, tag[v] == UInt8(ascii: "\"") || tag[v] == UInt8(ascii: "'") else { return nil }
            let quote = tag[v]
            var e = v + 1
            while e < tag.endIndex && tag[e] != quote { e += 1 }
            let body = tag[(v + 1)..<e].filter { !isSpace($0) }
            guard !body.isEmpty, body.allSatisfy({ ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: ".")
                || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) else { return nil }
            return Double(String(decoding: body, as: UTF8.self))
        }
        return nil
    }

    static func isName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !(first >= "0" && first <= "9"), name.utf8.count <= 64 else { return false }
        return name.unicodeScalars.allSatisfy { ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "_" }
    }

    /// The 1-based line where `name = ` first appears in `source` (the measure's entry), nil if nowhere.
    static func line(of name: String, in source: String) -> Int? {
        for (index, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var rest = Substring(line)
            while let range = rest.range(of: name) {
                let before = rest[rest.startIndex..<range.lowerBound].last
                let after = rest[range.upperBound...].drop { $0 == " " || $0 == "\t" }
                let boundary = before.map { !($0.isLetter || $0.isNumber || $0 == "_") } ?? true
                if boundary, after.hasPrefix("="), !after.hasPrefix("==") { return index + 1 }
                rest = rest[range.upperBound...]
            }
        }
        return nil
    }
}
