import RunFixtures
import Foundation
import XCTest

/// The test example of docs/rules.md ("Testing rule packs") passes against the shipped MoonRunner rules.
final class GuideTestExampleTests: XCTestCase {
    func testGuideExamplePasses() throws {
        let guide = try String(contentsOf: CLI.repository.appendingPathComponent("docs/rules.md"), encoding: .utf8)
        let section = try XCTUnwrap(guide.range(of: "## Testing rule packs"))
        let open = try XCTUnwrap(guide[section.upperBound...].range(of: "```lua\n"))
        let close = try XCTUnwrap(guide[open.upperBound...].range(of: "```"))
        let example = String(guide[open.upperBound..<close.lowerBound])
        XCTAssertTrue(example.contains("t.expect_awards"))

        let folder = try TemporaryFolder()
        for file in ["pack.lua", "distance.lua"] {
            let text = try String(contentsOf: CLI.repository.appendingPathComponent("rules/checkpoints/\(file)"), encoding: .utf8)
            try folder.write("rules/checkpoints/\(file)", text)
        }
        try folder.write("rules/checkpoints/checkpoints_test.lua", example)
        let output = try CLI.run(["test", "rules/checkpoints"], in: folder.url)
        XCTAssertEqual(output.lastLine, "1 passed, 0 failed, 1 skipped", output.stdout)
        XCTAssertEqual(output.status, 0)
    }
}
