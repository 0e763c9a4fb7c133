import Foundation
import RunFiles
import RunFixtures
import XCTest

@testable import BadgeRules

/// The saved state's JSON (`SavedState`, `Award`, `SavedRun`, as `StateStore.encoder()` writes it) reads
/// back through `JSONTextDecoder`, the one JSON parser the state store reads with, as through
/// Foundation's `JSONDecoder` (what it read with before). Integers past 2^53 keep their digits, non-finite numbers come
/// back from "inf", "-inf" and "nan".
final class StateJSONDecodingTests: XCTestCase {
    var decoder: JSONTextDecoder {
        var decoder = JSONTextDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }

    /// Foundation's decoder set as the state files were read before they went through `JSONTextDecoder`
    /// (`StateStore.decoder()`): an independent reference.
    var foundation: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return decoder
    }

    /// `value` written by the state's encoder, read by both decoders: the same value, written again the same.
    func assertRoundTrip<T: Codable>(_ value: T, _ type: T.Type, file: StaticString = #filePath, line: UInt = #line) throws {
        let data = try StateStore.encoder().encode(value)
        let viaFoundation = try foundation.decode(type, from: data)
        let viaText = try decoder.decode(type, from: data, source: "state")
        XCTAssertEqual(try StateStore.encoder().encode(viaText), data, file: file, line: line)
        XCTAssertEqual(try StateStore.encoder().encode(viaFoundation), data, file: file, line: line)
    }

    func testSavedStateAwardsAndRunsRoundTrip() throws {
        let fixture = try PackFixture()
        try fixture.pack("values", files: ["all.lua": """
            return { id = "all", badge = "marathon", title = "t",
              init = function() return { n = 0 } end,
              on_run = function(state, run, award)
                state.n = state.n + 1
                state.float = 3.0
                state.half = 0.5
                state.big = math.maxinteger
                state.small = math.mininteger
                state.huge = math.huge
                state.list = { 1, "two", true, { deep = { run } } }
                state[7] = "seven"
                state[true] = false
                state.last = run
                award { run = run, detail = "run " .. state.n }
              end }
            """])
        let folder = try TemporaryFolder()
        let store = StateStore(directory: folder.path + "/state")
        let evaluator = IncrementalEvaluator(engine: fixture.engine(["values"]), store: store, zone: "UTC")
        let started = try evaluator.start([makeRun("a", day: 0, distance: 3000), makeRun("b", day: 1, distance: 42_500)])
        let update = try evaluator.add([makeRun("c", day: 2, distance: 5000)])
        XCTAssertEqual(update.evaluation.failures, [])

        let state = try store.loadState()
        XCTAssertTrue(try String(decoding: StateStore.encoder().encode(state), as: UTF8.self).contains("9223372036854775807"))
        try assertRoundTrip(state, SavedState.self)
        XCTAssertEqual(try decoder.decode(SavedState.self, from: StateStore.encoder().encode(state), source: "state"), state)
        XCTAssertFalse(started.evaluation.awards.isEmpty)
        try assertRoundTrip(started.evaluation.awards + update.evaluation.awards, [Award].self)

        // runs.jsonl: one SavedRun a line.
        let lines = try String(contentsOfFile: store.runsPath, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
        for line in lines {
            let data = Data(line.utf8)
            let viaText = try decoder.decode(SavedRun.self, from: data, source: "runs.jsonl")
            let viaFoundation = try foundation.decode(SavedRun.self, from: data)
            XCTAssertEqual(viaText.summary, viaFoundation.summary)
            XCTAssertEqual(try StateStore.encoder().encode(viaText), try StateStore.encoder().encode(viaFoundation))
        }
        withExtendedLifetime(folder) {}
    }

    /// Non-finite numbers, written as strings by the state's encoder, are read back when the decoder
    /// is told so, and named with their path when not.
    func testNonFiniteNumbersAsTheStateWritesThem() throws {
        var stamp = RunStamp(makeRun("a", day: 0, distance: 3000))
        stamp.startSeconds = .infinity
        var state = SavedState(format: StateStore.format, zone: "UTC", folder: nil, packs: [], runCount: 1, lastRun: stamp,
                               runsBytes: 0, indexBytes: 0, rules: [])
        try assertRoundTrip(state, SavedState.self)
        state.lastRun?.startSeconds = -.infinity
        try assertRoundTrip(state, SavedState.self)
        state.lastRun?.startSeconds = .nan
        let data = try StateStore.encoder().encode(state)
        XCTAssertEqual(try decoder.decode(SavedState.self, from: data, source: "state").lastRun?.startSeconds?.isNaN, true)
        XCTAssertThrowsError(try JSONTextDecoder().decode(SavedState.self, from: data, source: "state")) { error in
            guard case .malformed("state", nil, let offset?, let reason)? = error as? ActivityError else { return XCTFail("\(error)") }
            XCTAssertEqual(reason, "at .last_run.start_s: expected a number, found a string")
            XCTAssertEqual(data[offset], UInt8(ascii: "\""))
        }
    }
}
