@testable import BadgeCommands
import Foundation
import RunFiles
import XCTest

/// A large run asks for transparent huge pages for its columns, once, only in badgectl's process
/// (after its allocator tuning), and a small run never does.
final class HugePagesTests: XCTestCase {
    func testOnlyALargeRunInATunedProcessAsks() throws {
        // One test, in this order: `asked` and the advice are once per process.
        try XCTSkipIf(HugePages.asked, "another test of this process asked already")
        // Under AddressSanitizer (scripts/sanitize) malloc is the sanitizer's, with no heap to advise.
        try XCTSkipIf(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil, "malloc is AddressSanitizer's")
        var small = Track(source: "small")
        small.reserveCapacity(1_000_000)
        XCTAssertFalse(HugePages.asked, "a library (not enabled) never asks")

        ProcessSetup.tuneAllocator()
        XCTAssertTrue(HugePages.enabled)
        small.reserveCapacity(HugePages.minimumPoints - 1)
        XCTAssertFalse(HugePages.asked, "a run under \(HugePages.minimumPoints) points does not ask")

        var large = Track(source: "large")
        large.reserveCapacity(HugePages.minimumPoints)
        XCTAssertTrue(HugePages.asked)
        // Where the kernel has transparent huge pages, the heap's room is advised: a mapping of this
        // process carries the advice ("hg" in its VmFlags).
        guard FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled") else { return }
        // Read to the end (a /proc file has no size: a sized read would stop at the first page).
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: "/proc/self/smaps"))
        let smaps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        try handle.close()
        let flags = smaps.split(separator: "\n").filter { $0.hasPrefix("VmFlags:") }
        XCTAssertTrue(flags.contains { $0.split(separator: " ").contains("hg") }, "no mapping advised for huge pages")
        XCTAssertTrue(HugePages.advised, "madvise(MADV_HUGEPAGE) on the heap's room")
    }
}
