import RunFixtures
import Foundation
import XCTest

/// Nothing is read outside the folder badgectl was given (issue S, "Reading outside the folder it
/// was given"), through the built binary: a pack's links (`evaluate`, `worker`), `report --images`
/// and `worker --root`. Each refusal names the link and shows none of the target's bytes.
final class ConfinementEndToEndTests: XCTestCase {
    /// A secret as an app's `.env` holds it; longer than any quoted value may be (`ShownValue.limit`).
    static let secret = "sk-live-" + String(repeating: "0123456789abcdef", count: 4)
    static let shipped = ["--rules", "rules", "--badges", "badges.json", "--tz", "UTC"]

    func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], text)
    }

    func lines(_ output: String) throws -> [[String: Any]] {
        try output.split(separator: "\n").map { try json(String($0)) }
    }

    func awardKeys(_ list: Any?) -> [String] {
        (list as? [[String: Any]] ?? []).map { "\($0["pack"] ?? "")/\($0["badge"] ?? "")/\($0["tier"] ?? "")/\($0["run"] ?? "")" }
    }

    /// A pack requiring `lib/env.lua -> <outside>/app.env` (valid Lua: `key = "sk-live-…"`) and putting
    /// `key` in an award's detail, and a rule file linked to a passwd-like file. Before: the secret was
    /// in the award's detail (evaluate and worker), and passwd's first line in the failure.
    func testAPacksLinksOutsideLeakNothing() throws {
        let folder = try TemporaryFolder()
        try folder.write("app.env", "key = \"\(Self.secret)\"\n")
        try folder.write("passwd", "root:x:0:0:root:/root:/bin/bash\n")
        try folder.write("hostile/pack.lua", #"return { name = "hostile", version = "1" }"#)
        try folder.write("hostile/leak.lua", """
            require("lib.env")
            return { id = "leak", badge = "lace-up", earned = function(run) return { detail = tostring(key) } end }
            """)
        try FileManager.default.createDirectory(atPath: folder.path + "/hostile/lib", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/hostile/lib/env.lua", withDestinationPath: folder.path + "/app.env")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/hostile/passwd.lua", withDestinationPath: "../passwd")

        let reference = try CLI.run(["evaluate", "runs", "--format", "json", "--no-cache"] + Self.shipped)
        XCTAssertEqual(reference.status, 0, reference.stderr)
        let result = try CLI.run(["evaluate", "runs", "--format", "json", "--no-cache", "--rules", folder.path + "/hostile"] + Self.shipped)
        XCTAssertEqual(result.status, 2, result.stderr)
        for leaked in ["sk-live", "root:x"] {
            XCTAssertFalse(result.stdout.contains(leaked), result.stdout)
            XCTAssertFalse(result.stderr.contains(leaked), result.stderr)
        }
        XCTAssertTrue(result.stderr.contains("'lib/env.lua' is a link leading outside the pack: refused"), result.stderr)
        XCTAssertTrue(result.stderr.contains("'passwd.lua' is a link leading outside the pack: refused"), result.stderr)
        // The shipped packs' awards are untouched.
        XCTAssertEqual(awardKeys(try json(result.stdout)["awards"]), awardKeys(try json(reference.stdout)["awards"]))

        let line = #"{"athlete": "ana", "summary": {"start": "2026-01-03T07:00:00Z", "distance_m": 5200, "duration_s": 1620}}"#
        let worker = try CLI.run(["worker", "--rules", folder.path + "/hostile", "--badges", "badges.json", "--tz", "UTC"], stdin: line + "\n")
        XCTAssertEqual(worker.status, 2, worker.stderr)
        XCTAssertFalse(worker.stdout.contains("sk-live") || worker.stdout.contains("root:x"), worker.stdout)
        XCTAssertEqual(try lines(worker.stdout).filter { $0["type"] as? String == "award" }.count, 0, worker.stdout)
        XCTAssertTrue(worker.stdout.contains("'lib/env.lua' is a link leading outside the pack"), worker.stdout)
    }

    /// `badgectl test`: a test file and a test's run file (`t.run{ file = ... }`) are the pack's files
    /// too; linked from outside, they are refused by name and not read.
    func testAPacksTestsReadOnlyThePack() throws {
        let folder = try TemporaryFolder()
        try folder.write("passwd", "root:x:0:0:root:/root:/bin/bash\n")
        try folder.write("secret.gpx", "<gpx>\(Self.secret)</gpx>")
        try folder.write("p/pack.lua", #"return { name = "p", version = "1" }"#)
        try folder.write("p/r.lua", #"return { id = "r", badge = "lace-up", earned = function(run) return true end }"#)
        try folder.write("p/tests/run_test.lua", "test(\"a run file\", function(t)\n  t.run{ file = \"tests/run.gpx\" }\nend)\n")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/p/tests/run.gpx", withDestinationPath: folder.path + "/secret.gpx")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/p/tests/evil.lua", withDestinationPath: "../../passwd")
        let result = try CLI.run(["test", folder.path + "/p", "--badges", "badges.json"])
        XCTAssertEqual(result.status, 3, result.stdout + result.stderr)
        let text = result.stdout + result.stderr
        XCTAssertFalse(text.contains("root:x") || text.contains("sk-live"), text)
        XCTAssertTrue(text.contains("'tests/evil.lua' is a link leading outside the pack: refused"), text)
        XCTAssertTrue(text.contains("file 'tests/run.gpx': 'tests/run.gpx' is a link leading outside the pack: refused"), text)
    }

    /// `report --images imgs` with `imgs/lace-up.png -> <outside file>`: refused, naming the link; the
    /// file's bytes are not in a page (it was embedded whole as base64). A link inside the folder is fine.
    func testReportImagesStayInsideTheFolder() throws {
        let folder = try TemporaryFolder()
        let secret = "root:x:0:0:root:/root:/bin/bash\n" + Self.secret
        try folder.write("passwd", secret)
        try FileManager.default.createDirectory(atPath: folder.path + "/imgs/real", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/imgs/lace-up.png", withDestinationPath: folder.path + "/passwd")
        let page = folder.path + "/report.html"
        let arguments = ["report", "runs", "-o", page, "--images", folder.path + "/imgs", "--rules", "rules/checkpoints",
                         "--badges", "badges.json", "--no-cache", "--tz", "UTC"]
        let refused = try CLI.run(arguments)
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertTrue(refused.stderr.contains(folder.path + "/imgs/lace-up.png: a link leading outside the images folder"), refused.stderr)
        let encoded = Data(secret.utf8).base64EncodedString()
        let written = (try? String(contentsOfFile: page, encoding: .utf8)) ?? ""
        XCTAssertFalse(written.contains(encoded.prefix(24)), "the outside file is in the page")
        XCTAssertFalse(refused.stderr.contains("root:x") || refused.stderr.contains(encoded.prefix(24)), refused.stderr)

        // The same name linked to an image inside the folder is embedded.
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 7, 7, 7]
        try Data(png).write(to: URL(fileURLWithPath: folder.path + "/imgs/real/lace.png"))
        try FileManager.default.removeItem(atPath: folder.path + "/imgs/lace-up.png")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/imgs/lace-up.png", withDestinationPath: "real/lace.png")
        let inside = try CLI.run(arguments)
        XCTAssertEqual(inside.status, 0, inside.stderr)
        let html = try String(contentsOfFile: page, encoding: .utf8)
        XCTAssertTrue(html.contains("data:image/png;base64," + Data(png).base64EncodedString()))
    }

    /// `worker --root data`: relative paths are taken from the root; absolute paths, `..` and links
    /// must resolve inside it. An outside path is one error line that reads the same whether or not
    /// the file exists, and shows none of its content; the runs inside give the awards they give
    /// without --root. Without --root the worker still opens any path (docs/worker.md).
    func testWorkerRootConfinesPaths() throws {
        let folder = try TemporaryFolder()
        let data = folder.path + "/data"
        try FileManager.default.createDirectory(atPath: data + "/ana", withIntermediateDirectories: true)
        for name in ["2026-08-01-first-run.gpx", "2026-08-04-canal.gpx"] {
            try FileManager.default.copyItem(atPath: CLI.repository.path + "/runs/" + name, toPath: data + "/ana/" + name)
        }
        // A summary-shaped file outside (it became awards), and one holding a secret in a field.
        try folder.write("outside.json", #"{"start": "2026-09-01T07:00:00Z", "distance_m": 42195, "duration_s": 12000}"#)
        try folder.write("secret.json", #"{"start": "\#(Self.secret)", "distance_m": 5000, "duration_s": 1500}"#)
        try FileManager.default.createSymbolicLink(atPath: data + "/ana/link.json", withDestinationPath: "../../secret.json")
        func line(_ path: String) -> String { #"{"athlete": "ana", "tz": "UTC", "path": "\#(path)"}"# }
        let input = [
            line("ana/2026-08-01-first-run.gpx"),  // 1: relative to --root
            line(data + "/ana/2026-08-04-canal.gpx"),  // 2: absolute, inside
            line(folder.path + "/outside.json"),  // 3: absolute, outside, exists
            line(folder.path + "/missing.json"),  // 4: absolute, outside, missing
            line("../outside.json"),  // 5: '..' out
            line("ana/link.json"),  // 6: a link out
            line("ana/missing/../../../outside.json"),  // 7: '..' past a missing folder
            line("ana/nope.gpx"),  // 8: inside, missing: may say so
        ]
        let rules = ["--rules", "rules", "--badges", "badges.json", "--tz", "UTC"]
        let result = try CLI.run(["worker", "--root", data] + rules, stdin: input.joined(separator: "\n") + "\n")
        XCTAssertEqual(result.status, 2, result.stderr)
        let output = try lines(result.stdout)
        let errors = output.filter { $0["type"] as? String == "error" }
        XCTAssertEqual(errors.compactMap { $0["line"] as? Int }, [3, 4, 5, 6, 7, 8])
        func message(_ line: Int) -> String { errors.first { $0["line"] as? Int == line }?["message"] as? String ?? "" }
        // The same words for the file that exists and the one that does not.
        let outsideWords = ": the worker reads only files inside --root"
        XCTAssertEqual(message(3).replacingOccurrences(of: "outside.json", with: "X"), message(4).replacingOccurrences(of: "missing.json", with: "X"))
        for number in 3...7 {
            XCTAssertTrue(message(number).contains("leads outside --root") && message(number).hasSuffix(outsideWords), message(number))
            XCTAssertFalse(message(number).contains("No such file") || message(number).contains("sk-live"), message(number))
        }
        XCTAssertTrue(message(6).contains("through the link 'ana/link.json'"), message(6))
        XCTAssertTrue(message(8).contains("ana/nope.gpx") && message(8).contains("No such file"), message(8))
        XCTAssertFalse(result.stdout.contains("sk-live") || result.stderr.contains("sk-live"), result.stdout)

        // The awards are those of lines 1 and 2 alone.
        let clean = try CLI.run(["worker", "--root", data] + rules, stdin: input[0...1].joined(separator: "\n") + "\n")
        XCTAssertEqual(clean.status, 0, clean.stderr)
        let awards = { (text: String) throws -> [String] in
            try self.lines(text).filter { $0["type"] as? String == "award" }.compactMap { $0["award_id"] as? String }
        }
        XCTAssertFalse(try awards(clean.stdout).isEmpty)
        XCTAssertEqual(try awards(result.stdout), try awards(clean.stdout))

        // Without --root: today's behaviour (any path opens; the outside summary becomes a run), but
        // a quoted field value is capped: the secret's start only, never the whole of it.
        let open = try CLI.run(["worker"] + rules, stdin: [line(folder.path + "/outside.json"), line(folder.path + "/secret.json")].joined(separator: "\n") + "\n")
        XCTAssertEqual(open.status, 2, open.stderr)
        XCTAssertFalse(try awards(open.stdout).isEmpty, open.stdout)
        XCTAssertFalse(open.stdout.contains(Self.secret) || open.stderr.contains(Self.secret), open.stdout)
        XCTAssertTrue(open.stdout.contains("field 'start': '\(Self.secret.prefix(40))…' is not an ISO 8601 timestamp"), open.stdout)

        let noRoot = try CLI.run(["worker", "--root", folder.path + "/nope"] + rules, stdin: "")
        XCTAssertNotEqual(noRoot.status, 0)
        XCTAssertTrue(noRoot.stderr.contains("--root " + folder.path + "/nope: no such folder"), noRoot.stderr)
    }
}
