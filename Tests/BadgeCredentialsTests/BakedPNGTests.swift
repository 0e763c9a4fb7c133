import BadgeCredentials
import Foundation
import XCTest

/// Open Badges 3.0 PNG baking on a real PNG (docs/credentials-card.png, as Chromium rendered a card).
final class BakedPNGTests: XCTestCase {
    func card() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Fixtures.repository.appendingPathComponent("docs/credentials-card.png")))
    }

    func testBakeReadAndReplace() throws {
        let png = try card()
        XCTAssertTrue(BakedPNG.isPNG(png))
        XCTAssertThrowsError(try BakedPNG.credential(in: png)) { error in
            guard case CredentialError.badCard(let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("openbadgecredential"), reason)
        }
        let baked = try BakedPNG.bake(png, credential: "{\"name\":\"Ten K ✓\"}")
        XCTAssertEqual(try BakedPNG.credential(in: baked), "{\"name\":\"Ten K ✓\"}")
        // The chunk sits before IEND, the image's own chunks as they were.
        XCTAssertEqual(Array(baked.suffix(12)), Array(png.suffix(12)))
        XCTAssertEqual(Array(baked.prefix(png.count - 12)), Array(png.prefix(png.count - 12)))
        // Baking again replaces the credential: one chunk at most.
        let again = try BakedPNG.bake(baked, credential: "eyJ.b.c")
        XCTAssertEqual(try BakedPNG.credential(in: again), "eyJ.b.c")
        XCTAssertEqual(again.count, png.count + 12 + "openbadgecredential".utf8.count + 5 + 7)
    }

    func testDamagedPNGsAreNamed() throws {
        let baked = try BakedPNG.bake(try card(), credential: "{}")
        var flipped = baked
        flipped[flipped.count - 20] ^= 0x01  // inside the iTXt chunk: its CRC no longer matches
        XCTAssertThrowsError(try BakedPNG.credential(in: flipped)) { error in
            guard case CredentialError.badCard(let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("CRC"), reason)
        }
        XCTAssertThrowsError(try BakedPNG.credential(in: Array(baked.prefix(100))))
        XCTAssertThrowsError(try BakedPNG.bake(Array("not a png at all".utf8), credential: "{}"))
    }
}
