import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Transparent huge pages for the columns of a large run.
///
/// Where the system gives huge pages only to memory that asks for them
/// (`/sys/kernel/mm/transparent_hugepage/enabled` set to `madvise`, as on Debian and this machine),
/// every 4 KiB page of a run's columns is a page fault, zero-filled on first touch: 100,000 FIT
/// records took 2,465 faults and 19.6 ms of CPU in `summarize`; with the heap advised, 625 faults
/// and 16.4 ms (BENCHMARKS.md, issue F, fifth round). glibc does the same for all its memory when
/// `GLIBC_TUNABLES=glibc.malloc.hugetlb=1` is set, but that is read before `main`, so not ours to set.
///
/// Only a run large enough to pay asks (`prepare(points:)`, from `Track.reserveCapacity`, and
/// `prepare(fileBytes:)`, from `FileBytes.read`), once per process: a huge page is 2 MiB of memory zero-filled at its first touch, which a small run or
/// `--version` would pay for nothing (0.5 ms and 2 MB). The heap is grown once by a block allocated
/// and freed (the room stays: badgectl's trim threshold, `ProcessSetup.tuneAllocator`), then
/// advised from where that block began; memory is still backed only where touched. The columns, reserved right after, and what
/// the analysis allocates next come from that room. Growth past it gets ordinary pages. With huge
/// pages `always` or `never`, or when `madvise` fails, nothing changes but the advice.
///
/// Kept by issue T's rule (code for speed stays where it moves a figure a user sees by 10% or more),
/// measured 2026-12-07 with scripts/bench/pair.sh, whole processes, paired medians of 30-40 rounds:
/// without it and `ProcessSetup.tuneAllocator`, `summarize --no-cache` of the 100k-record FIT 12.3 -> 15.4 ms
/// (+25%), 542 -> 3,031 page faults.
package enum HugePages {
    /// On in badgectl's process (after its allocator tuning keeps the heap's room); off in a
    /// library, whose host's allocator is its own business.
    nonisolated(unsafe) package static var enabled = false

    /// The fewest points for which a track's columns ask (50,000 points: 400 kB a column).
    package static let minimumPoints = 50_000

    /// The heap room advised (under glibc's 32 MiB, above which blocks are mmapped).
    static let roomBytes = 30 << 20

    /// Blocks under this size come from badgectl's heap and stay there when freed (the mmap
    /// threshold `ProcessSetup.tuneAllocator` sets, with its trim threshold); larger ones are
    /// mmapped and given back.
    package static let heapBlockLimit = 32 << 20

    /// The heap's top pad `ProcessSetup.tuneAllocator` sets: how much more than asked it grows by.
    package static let heapTopPad = 16 << 20

    /// The most the heap may have grown for the room: the room and the top pad.
    static let mostGrowth = roomBytes + heapTopPad

    /// The fewest bytes of a file read whole (`FileBytes.read`: a FIT file) for which its buffer asks,
    /// before it is allocated (1 MiB: some 45,000 FIT records, whose columns come next).
    package static let minimumFileBytes = 1 << 20

    /// Asks, once per process, when `points` is at least `minimumPoints` and the process enabled it.
    /// Only the process's main thread asks: glibc serves other threads from arenas of their own,
    /// outside the heap, so a run read on one (a folder's worker, the GPX split read's second
    /// thread) would use up the one ask for nothing.
    package static func prepare(points: Int) {
        guard enabled, points >= minimumPoints, isMainThread else { return }
        asked = true
        _ = advised
    }

    private static var isMainThread: Bool { Thread.isMainThread }

    /// Asks, as `prepare(points:)`, for a file of `fileBytes` about to be read whole.
    package static func prepare(fileBytes: Int) {
        guard fileBytes >= minimumFileBytes else { return }
        prepare(points: minimumPoints)
    }

    /// Whether `prepare` has asked in this process (for tests).
    nonisolated(unsafe) package private(set) static var asked = false

    /// Whether the heap's room was advised (computed once, thread-safely, at the first large run).
    package static let advised: Bool = adviseHeap()

    /// Kept in a global while allocated, so that the optimizer cannot drop the pair (an unused
    /// malloc and free are removable).
    nonisolated(unsafe) private static var room: UnsafeMutableRawPointer?

    private static func adviseHeap() -> Bool {
        #if canImport(Glibc)
        let hugePage = 2 << 20
        // The block comes from the start of the heap's free top (grown as needed), which is where
        // the next blocks come from once it is freed: advise from there to the heap's end.
        room = malloc(roomBytes)
        guard let block = room else { return false }
        free(block)
        room = nil
        // The block must lie in the heap, just below its end (not in an mmapped region the main
        // arena fell back to): advise only that room, never beyond.
        guard let end = sbrk(0), end > block, end - block <= mostGrowth + hugePage else { return false }
        let from = (Int(bitPattern: block) + hugePage - 1) & ~(hugePage - 1)
        let to = Int(bitPattern: end) & ~(hugePage - 1)
        guard to > from, let base = UnsafeMutableRawPointer(bitPattern: from) else { return false }
        return madvise(base, to - from, MADV_HUGEPAGE) == 0
        #else
        return false
        #endif
    }
}
