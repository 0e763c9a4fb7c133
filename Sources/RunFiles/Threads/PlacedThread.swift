import CThreadShims
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A thread of its own for a share of one large run's work (the split GPX read's second half, half
/// the profile's steps, most of the effort search), started on a CPU other than its creator's, then
/// free to run on any CPU its creator may.
///
/// Left to itself, Linux queued such a thread behind its creator on the same CPU in 3 of 4 traced
/// runs of a 100k-point file, and in 2 of them it first ran 3 ms later, at the next balancing tick,
/// with the other CPU idle (BENCHMARKS.md, issue F, seventh round): `badge_thread_attr_start_elsewhere`
/// asks glibc to apply a mask without the creator's CPU before the thread runs, and the thread's
/// first act widens it back (`badge_thread_allow`).
///
/// Kept by issue T's rule (code for speed stays where it moves a figure a user sees by 10% or more),
/// measured 2026-12-07 with scripts/bench/pair.sh, whole processes, paired medians of 30-40 rounds:
/// without the second thread of a large run's analysis (profile steps, effort search, FIT CRC),
/// `summarize --no-cache` of the 100k-record FIT 9.0 -> 11.7 ms (+30%), of the 100k-point GPX 20.9 -> 22.7 ms.
package final class PlacedThread {
    /// The CPU the thread was asked not to start on (its creator's), -1 when it was not placed.
    package private(set) var avoidedCPU: Int32 = -1
    /// The CPU the thread started on, -1 when not known (tests compare it with `avoidedCPU`).
    package private(set) var startCPU: Int32 = -1
    /// The thread widened its mask back to its creator's CPUs (tests check it is not left pinned).
    package private(set) var widened = false

    /// The creating thread's CPUs (what a new thread would inherit), for the thread to widen its
    /// mask back to once started.
    private var allowed = badge_cpus()
    private var thread = pthread_t()
    private var running = false
    /// What the thread runs; dropped at `join()`, so that nothing it captured outlives the work.
    private var body: (() -> Void)?

    /// Starts a thread running `body`; nil when none could be made (the caller does the work itself).
    /// Whatever `body` writes is the caller's to read after `join()`, which the caller must call.
    package init?(_ body: @escaping () -> Void) {
        self.body = body
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        avoidedCPU = badge_cpus_of_caller(&allowed) == 0 ? badge_thread_attr_start_elsewhere(&attributes, &allowed) : -1
        let context = Unmanaged.passRetained(self).toOpaque()
        let start: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
            guard let raw else { return nil }
            let placed = Unmanaged<PlacedThread>.fromOpaque(raw).takeRetainedValue()
            placed.startCPU = badge_current_cpu()
            if placed.avoidedCPU >= 0 { placed.widened = badge_thread_allow(&placed.allowed) == 0 }
            placed.body?()
            return nil
        }
        var made = pthread_create(&thread, &attributes, start, context)
        if made != 0, avoidedCPU >= 0 {
            // Placement refused (a CPU gone since): start it anywhere.
            avoidedCPU = -1
            made = pthread_create(&thread, nil, start, context)
        }
        guard made == 0 else {
            Unmanaged<PlacedThread>.fromOpaque(context).release()
            return nil
        }
        running = true
    }

    /// Waits for the thread to end (at once when it has, or was joined before).
    package func join() {
        guard running else { return }
        running = false
        pthread_join(thread, nil)
        body = nil
    }

    /// Runs `side` on a placed thread while this one runs `here`, and returns when both are done
    /// (`side` runs here, after `here`, when no thread could be made). Neither closure escapes.
    package static func run(_ side: () -> Void, alongside here: () -> Void) {
        withoutActuallyEscaping(side) { side in
            let placed = PlacedThread(side)
            here()
            if let placed { placed.join() } else { side() }
        }
    }
}
