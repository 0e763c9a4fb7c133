import RunFixtures
import Foundation
@testable import RunFiles
import XCTest

/// The machine's zone (`ZoneNames.machine`): UTC by any of its names is the fixed zone with no lookup,
/// anything else is Foundation's current zone.
final class ZoneNamesTests: XCTestCase {
    func testTheMachineZoneNameComesFromTZThenTheLocaltimeLink() throws {
        let temporary = try TemporaryFolder()
        defer { withExtendedLifetime(temporary) {} }
        let folder = temporary.path
        let link = folder + "/localtime"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/usr/share/zoneinfo/Etc/UTC")
        XCTAssertEqual(ZoneNames.machineZoneName(tz: nil, localtime: link), "Etc/UTC")
        XCTAssertEqual(ZoneNames.machineZoneName(tz: "Europe/Paris", localtime: link), "Europe/Paris")
        XCTAssertEqual(ZoneNames.machineZoneName(tz: ":UTC", localtime: link), "UTC")
        XCTAssertEqual(ZoneNames.machineZoneName(tz: "/usr/share/zoneinfo/Zulu", localtime: link), "Zulu")
        // An empty TZ, a copied zone file, no file: not said (Foundation's own lookup decides).
        XCTAssertNil(ZoneNames.machineZoneName(tz: "", localtime: link))
        let copied = folder + "/copied"
        try Data("TZif".utf8).write(to: URL(fileURLWithPath: copied))
        XCTAssertNil(ZoneNames.machineZoneName(tz: nil, localtime: copied))
        XCTAssertNil(ZoneNames.machineZoneName(tz: nil, localtime: folder + "/missing"))
        let paris = folder + "/paris"
        try FileManager.default.createSymbolicLink(atPath: paris, withDestinationPath: "../usr/share/zoneinfo/Europe/Paris")
        XCTAssertEqual(ZoneNames.machineZoneName(tz: nil, localtime: paris), "Europe/Paris")
    }

    func testTheMachineZoneGivesTheOffsetsOfTheCurrentZone() {
        // Whatever this machine's zone is, `machine` agrees with Foundation's current zone on every
        // offset and on the name badgectl shows for it.
        let machine = ZoneNames.machine, current = TimeZone.current
        XCTAssertEqual(ZoneNames.name(of: machine), ZoneNames.name(of: current))
        for day in stride(from: 0, to: 365 * 3, by: 7) {
            let date = Date(timeIntervalSince1970: 1_700_000_000 + Double(day) * 86_400)
            XCTAssertEqual(machine.secondsFromGMT(for: date), current.secondsFromGMT(for: date), "\(date)")
        }
    }

    func testUTCByAnyOfItsNamesAndCaseIsTheFixedZoneNamedUTC() throws {
        let names = ["utc", "etc/utc", "uct", "etc/uct", "universal", "etc/universal", "zulu", "etc/zulu",
                     "gmt", "etc/gmt", "gmt0", "etc/gmt0", "gmt+0", "etc/gmt+0", "gmt-0", "etc/gmt-0", "greenwich", "etc/greenwich"]
        for name in names {
            for spelling in [name, name.uppercased(), name.prefix(1).uppercased() + name.dropFirst()] {
                XCTAssertTrue(ZoneNames.isUTC(spelling), spelling)
                XCTAssertEqual(ZoneNames.canonical(spelling), "UTC", spelling)
                let zone = try XCTUnwrap(ZoneNames.zone(named: spelling), spelling)
                XCTAssertEqual(zone.secondsFromGMT(for: Date(timeIntervalSince1970: 1_700_000_000)), 0, spelling)
                XCTAssertEqual(ZoneNames.name(of: zone), "UTC", spelling)
            }
        }
        for other in ["", "utc1", "etc/utc/", " utc", "gmt+1", "etc/gmt-2", "Europe/London", "Europe/Paris", "America/New_York"] {
            XCTAssertFalse(ZoneNames.isUTC(other), other)
            XCTAssertEqual(ZoneNames.canonical(other), other, other)
        }
        XCTAssertEqual(ZoneNames.zone(named: "Europe/Paris")?.secondsFromGMT(for: Date(timeIntervalSince1970: 1_700_000_000)), 3600)
    }
}
