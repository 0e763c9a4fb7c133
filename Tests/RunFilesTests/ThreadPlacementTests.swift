import CThreadShims
import RunFiles
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// A thread made with `badge_thread_attr_start_elsewhere` (the split GPX read's second thread, see
/// `GPXSplitWorker.launch`) starts on a CPU other than its creator's, and once it has widened its
/// mask with `badge_thread_allow` it may run on every CPU the process may.
final class ThreadPlacementTests: XCTestCase {
    final class Seen {
        var allowed = badge_cpus()
        var cpu: Int32 = -1
        var widened = false
    }

    func testASecondThreadStartsOnAnotherCPUThenMayRunAnywhere() throws {
        var allowed = badge_cpus()
        guard badge_cpus_of_caller(&allowed) == 0 else { throw XCTSkip("no CPU affinity here") }
        guard badge_cpus_count(&allowed) >= 2 else { throw XCTSkip("one CPU: nowhere else to start") }
        for _ in 0..<50 {
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            defer { pthread_attr_destroy(&attributes) }
            let avoided = badge_thread_attr_start_elsewhere(&attributes, &allowed)
            XCTAssertGreaterThanOrEqual(avoided, 0, "placed")
            let seen = Seen()
            seen.allowed = allowed
            var thread = pthread_t()
            let context = Unmanaged.passRetained(seen).toOpaque()
            let made = pthread_create(&thread, &attributes, { raw in
                guard let raw else { return nil }
                let seen = Unmanaged<Seen>.fromOpaque(raw).takeRetainedValue()
                seen.cpu = badge_current_cpu()
                var now = badge_cpus()
                seen.widened = badge_thread_allow(&seen.allowed) == 0 && badge_cpus_of_caller(&now) == 0
                    && badge_cpus_equal(&now, &seen.allowed) == 1
                return nil
            }, context)
            XCTAssertEqual(made, 0)
            guard made == 0 else {
                Unmanaged<Seen>.fromOpaque(context).release()
                return
            }
            pthread_join(thread, nil)
            XCTAssertGreaterThanOrEqual(seen.cpu, 0)
            XCTAssertNotEqual(seen.cpu, avoided, "it started on another CPU than its creator's")
            XCTAssertTrue(seen.widened, "then it may run on every CPU the process may")
        }
    }

    func testWithOneCPUAllowedNothingIsPlaced() throws {
        var allowed = badge_cpus()
        guard badge_cpus_of_caller(&allowed) == 0 else { throw XCTSkip("no CPU affinity here") }
        // Only the caller's CPU allowed: nowhere else to start, so nothing is placed.
        let here = badge_current_cpu()
        var only = badge_cpus()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        withUnsafeMutableBytes(of: &only) { bytes in
            let byte = Int(here) / 8
            guard here >= 0, byte < bytes.count else { return }
            bytes[byte] = UInt8(1 << (Int(here) % 8))
        }
        guard here >= 0, badge_cpus_count(&only) == 1 else { throw XCTSkip("the CPU is not known") }
        XCTAssertEqual(badge_thread_attr_start_elsewhere(&attributes, &only), -1)
    }
}

/// `PlacedThread.run`: the side work runs on a thread of its own, both are done when it returns,
/// and what the side wrote is there to read.
final class PlacedThreadTests: XCTestCase {
    func testSideWorkRunsOnAnotherThreadAndIsDoneOnReturn() {
        for round in 0..<20 {
            var sideThread = pthread_self(), sideSum = 0, hereSum = 0
            let here = pthread_self()
            PlacedThread.run({
                sideThread = pthread_self()
                for k in 0..<10_000 { sideSum &+= k * round }
            }, alongside: {
                for k in 0..<10_000 { hereSum &+= k }
            })
            XCTAssertEqual(pthread_equal(sideThread, here), 0, "the side work ran on a thread of its own")
            XCTAssertEqual(sideSum, 49_995_000 * round)
            XCTAssertEqual(hereSum, 49_995_000)
        }
    }

    func testAPlacedThreadWidensItsMaskOnceStarted() throws {
        var allowed = badge_cpus()
        guard badge_cpus_of_caller(&allowed) == 0, badge_cpus_count(&allowed) >= 2 else { throw XCTSkip("one CPU or no affinity here") }
        var now = badge_cpus(), same = false
        guard let placed = PlacedThread({ same = badge_cpus_of_caller(&now) == 0 && badge_cpus_equal(&now, &allowed) == 1 }) else {
            return XCTFail("no thread made")
        }
        placed.join()
        XCTAssertGreaterThanOrEqual(placed.avoidedCPU, 0, "placed")
        XCTAssertNotEqual(placed.startCPU, placed.avoidedCPU, "started elsewhere")
        XCTAssertTrue(placed.widened)
        XCTAssertTrue(same, "then it may run on every CPU the process may")
    }
}
