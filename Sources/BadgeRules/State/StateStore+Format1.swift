import Foundation
import RunFiles

/// Format 1 of a state folder, read once to move it to the database (`StateStore.database`):
/// `state.json` (the header and every rule's state) and `runs.index` (a line a run:
/// start, elapsed, distance, offset and length in `runs.jsonl`, and the id, tab-separated).
extension StateStore {
    /// Moves a format-1 folder (`state.json`, `runs.index`) to the database: read once as before,
    /// written in one transaction to a new file renamed into place, then the old files renamed
    /// `state.json.old` and `runs.index.old`.
    func migrate() throws {
        let legacy = try loadLegacyState()
        let index = try loadIndex(legacy)
        var state = legacy
        state.format = StateStore.format
        state.indexBytes = 0
        try writeDatabase(state, index: index)
        for path in [legacyStatePath, indexPath] { _ = rename(path, path + ".old") }
    }

    /// Reads a format-1 `state.json`. Throws `RulesError.state` naming the file.
    func loadLegacyState() throws -> SavedState {
        let statePath = legacyStatePath
        try StateStore.requireRegularFile(statePath)
        let data = try StateStore.contents(statePath, advice: " (no saved state here? `badgectl evaluate DIR --state \(directory)` makes one)")
        // The rules' states first, through the one JSON parser: a repeated key or invalid UTF-8 anywhere
        // in the file is refused here, at its byte, as in every JSON badgectl reads.
        let states: [StateValue?]
        do {
            states = try StateJSON.ruleStates(in: data, source: statePath)
        } catch let error as ActivityError {
            if case .malformed(_, _, let offset?, let reason) = error {
                throw RulesError.state(path: statePath, reason: "not a saved state: byte \(offset): \(reason)")
            }
            throw RulesError.state(path: statePath, reason: "not a saved state: \(error.reason)")
        }
        var state: SavedState
        do {
            state = try StateStore.decoder().decode(SavedState.self, from: data, source: statePath)
        } catch {
            throw RulesError.state(path: statePath, reason: "not a saved state: \(StateStore.describe(error))")
        }
        guard states.count == state.rules.count else {
            throw RulesError.state(path: statePath, reason: "byte 0: \(states.count) states for \(state.rules.count) rules")
        }
        for (index, value) in states.enumerated() { state.rules[index].state = value }
        guard state.format == StateStore.legacyFormat else {
            throw RulesError.state(path: statePath, reason: "format \(state.format); this badgectl reads format \(StateStore.legacyFormat) (evaluate with --state again)")
        }
        // Counts and sizes a tampered file could make absurd: each index line takes at least 12 bytes.
        for (field, value) in [("run_count", state.runCount), ("runs_bytes", state.runsBytes), ("index_bytes", state.indexBytes)] where value < 0 {
            throw RulesError.state(path: statePath, reason: "field '\(field)': \(value) is negative: damaged (evaluate with --state again)")
        }
        guard state.runCount <= state.indexBytes / 12 + 1 else {
            throw RulesError.state(path: statePath, reason: "field 'run_count': \(state.runCount) runs cannot fit in \(state.indexBytes) bytes of index: damaged (evaluate with --state again)")
        }
        return state
    }

    /// Reads a format-1 `runs.index` up to `state.indexBytes`.
    public func loadIndex(_ state: SavedState) throws -> [IndexEntry] {
        try StateStore.requireRegularFile(indexPath)
        let data = try StateStore.contents(indexPath, advice: " (at most \(StateStore.maximumFileBytes >> 20) MiB)")
        guard data.count >= state.indexBytes else {
            throw RulesError.state(path: indexPath, reason: "\(data.count) bytes, the state says \(state.indexBytes): damaged (evaluate with --state again)")
        }
        var entries: [IndexEntry] = []
        entries.reserveCapacity(state.runCount)
        var lineNumber = 0
        var failure: RulesError?
        data.prefix(state.indexBytes).withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var lineStart = 0
            for i in 0..<bytes.count where bytes[i] == 0x0A {
                lineNumber += 1
                let line = UnsafeBufferPointer(rebasing: bytes[lineStart..<i])
                lineStart = i + 1
                guard let entry = StateStore.parseIndexLine(line) else {
                    failure = RulesError.state(path: indexPath, reason: "line \(lineNumber): not 'start<TAB>elapsed<TAB>distance<TAB>offset<TAB>length<TAB>id'")
                    return
                }
                guard entry.offset >= 0, entry.length >= 0, entry.offset <= state.runsBytes, entry.length <= state.runsBytes - entry.offset else {
                    failure = RulesError.state(path: indexPath, reason: "line \(lineNumber): bytes \(entry.offset)+\(entry.length) are outside runs.jsonl's \(state.runsBytes): damaged (evaluate with --state again)")
                    return
                }
                var positioned = entry
                positioned.position = entries.count
                entries.append(positioned)
            }
        }
        if let failure { throw failure }
        guard entries.count == state.runCount else {
            throw RulesError.state(path: indexPath, reason: "\(entries.count) runs, the state says \(state.runCount): damaged (evaluate with --state again)")
        }
        return entries
    }

    /// An id in the index: backslash, tab and newline escaped.
    static func escape(_ id: String) -> String {
        guard id.contains(where: { $0 == "\\" || $0 == "\t" || $0 == "\n" || $0 == "\r" }) else { return id }
        return id.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }

    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var out = ""
        var escaped = false
        for character in text {
            if escaped {
                switch character {
                case "t": out.append("\t")
                case "n": out.append("\n")
                case "r": out.append("\r")
                default: out.append(character)
                }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    static func parseIndexLine(_ line: UnsafeBufferPointer<UInt8>) -> IndexEntry? {
        // Five fields split at tabs by hand (10,000 lines per addition), the id is the rest.
        var fields: [UnsafeBufferPointer<UInt8>] = []
        fields.reserveCapacity(6)
        var start = 0
        for i in 0..<line.count where line[i] == 0x09 && fields.count < 5 {
            fields.append(UnsafeBufferPointer(rebasing: line[start..<i]))
            start = i + 1
        }
        guard fields.count == 5 else { return nil }
        let id = UnsafeBufferPointer(rebasing: line[start...])
        func number(_ field: UnsafeBufferPointer<UInt8>) -> Double?? {
            if field.count == 1, field[0] == UInt8(ascii: "-") { return .some(nil) }
            // strtod stops at the tab after the field (the id always follows): no String per number.
            guard let base = field.baseAddress, !field.isEmpty else { return nil }
            var end: UnsafeMutablePointer<CChar>? = nil
            let value = base.withMemoryRebound(to: CChar.self, capacity: field.count) { strtod($0, &end) }
            let consumed = end.map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? -1
            guard consumed == field.count else { return nil }
            return .some(value)
        }
        func integer(_ field: UnsafeBufferPointer<UInt8>) -> Int? {
            guard !field.isEmpty, field.count < 19 else { return nil }
            var value = 0
            for byte in field {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let start = number(fields[0]), let elapsed = number(fields[1]), let distance = number(fields[2]) ?? nil,
              let offset = integer(fields[3]), let length = integer(fields[4]) else { return nil }
        let text = String(decoding: id, as: UTF8.self)
        return IndexEntry(id: id.contains(UInt8(ascii: "\\")) ? unescape(text) : text, startSeconds: start, elapsedSeconds: elapsed,
                          distanceMeters: distance, offset: offset, length: length)
    }
}
