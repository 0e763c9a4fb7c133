#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// Two pieces of work on one run at once: a large file's CRC beside its decoding (`FITDecoder`), a
/// long run's efforts in two halves (`RunAnalyzer.bestEfforts`).
///
/// The calling thread runs the first piece while a helper thread is started for the second. The
/// second piece goes to whichever comes to it first: the helper, or the calling thread once done
/// with the first. So on a busy machine, where the helper may not get a core for a while, nothing
/// waits for it: the calling thread does both, as it would alone, and `run` returns without the
/// helper (which then finds nothing to do). A helper is started only when a core is idle right now
/// (`idleCore`), and at most one less than there are processors is out at a time in the process
/// (one on a two-core machine); otherwise (the other cores busy, another file's run holding the
/// helper, as in a folder read on every core by `RunFolder`, or no thread to be made) the two
/// pieces run one after the other on the calling thread. Both are done when `run` returns.
package enum SideBySide {
    /// Helper threads out now, and the most there may be.
    private static let helpers = Atomic<Int>(0)
    /// Helper threads out now (a helper whose piece the caller took still counts until it ends).
    package static var helpersOut: Int { helpers.load(ordering: .acquiring) }
    private static let maximumHelpers = max(0, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) - 1)

    /// Runs `first` and `second`, at once when a helper thread is free and gets a core in time, and
    /// returns when both have. They must not touch the same mutable state; each may write what the
    /// other never reads.
    package static func run(_ first: () -> Void, _ second: () -> Void) {
        guard take() else {
            first(); second()
            return
        }
        withoutActuallyEscaping(second) { second in
            let handoff = Handoff(second)
            let retained = Unmanaged.passRetained(handoff)
            var thread = pthread_t()
            var attributes = pthread_attr_t()
            pthread_attr_init(&attributes)
            pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
            let made = pthread_create(&thread, &attributes, { raw in
                guard let raw else { return nil }
                let handoff = Unmanaged<Handoff>.fromOpaque(raw).takeRetainedValue()
                handoff.runIfUnclaimed()
                SideBySide.helpers.subtract(1, ordering: .releasing)
                return nil
            }, retained.toOpaque())
            pthread_attr_destroy(&attributes)
            if made != 0 {
                retained.release()
                helpers.subtract(1, ordering: .releasing)
            }
            first()
            handoff.finish()
        }
    }

    /// Tests set it to start a helper whatever the machine is doing (`idleCore`), so that the
    /// two-thread paths are taken on a busy machine too.
    package static let ignoreBusyCores = Atomic<Bool>(false)

    /// A helper slot, when one is free and a core is idle now (`idleCore`).
    private static func take() -> Bool {
        var now = helpers.load(ordering: .relaxed)
        while now < maximumHelpers {
            let (exchanged, original) = helpers.compareExchange(expected: now, desired: now + 1, ordering: .acquiring)
            if exchanged {
                if ignoreBusyCores.load(ordering: .relaxed) || idleCore() { return true }
                helpers.subtract(1, ordering: .releasing)
                return false
            }
            now = original
        }
        return false
    }

    /// Whether fewer threads are runnable on the machine right now (this one included) than it has
    /// cores: the kernel's `procs_running` in /proc/stat. On a machine whose other cores are busy
    /// (other processes building, testing), a helper would get only a share of one and the
    /// caller would wait for it (measured: BENCHMARKS.md, issue F, fifth round). True where
    /// /proc/stat cannot be read.
    static func idleCore() -> Bool {
        #if os(Linux)
        let descriptor = open("/proc/stat", O_RDONLY)
        guard descriptor >= 0 else { return true }
        defer { close(descriptor) }
        let capacity = 1 << 16
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 1)
        defer { buffer.deallocate() }
        guard let base = buffer.baseAddress else { return true }
        var count = 0
        while count < capacity {
            let n = read(descriptor, base + count, capacity - count)
            if n <= 0 { break }
            count += n
        }
        return runnable(inProcStat: UnsafeRawBufferPointer(rebasing: buffer[0..<count])).map { $0 <= maximumHelpers } ?? true
        #else
        return true
        #endif
    }

    /// The number after `procs_running ` at the start of a line of /proc/stat's text, if any.
    static func runnable(inProcStat text: UnsafeRawBufferPointer) -> Int? {
        let key = Array("procs_running ".utf8)
        let count = text.count
        var i = 0
        while i + key.count <= count {
            if i == 0 || text[i - 1] == UInt8(ascii: "\n") {
                var matches = true
                for k in 0..<key.count where text[i + k] != key[k] { matches = false; break }
                if matches {
                    var value = 0, j = i + key.count
                    while j < count, text[j] >= 48, text[j] <= 57 { value = value * 10 + Int(text[j] - 48); j += 1 }
                    return j > i + key.count ? value : nil
                }
            }
            i += 1
        }
        return nil
    }

    /// The second piece, for whichever thread claims it first.
    private final class Handoff: @unchecked Sendable {
        /// Read and cleared only by the thread that claimed it (`claimed`), before `done` is signalled.
        private var work: (() -> Void)?
        private let claimed = Atomic<Bool>(false)
        private let done = DispatchSemaphore(value: 0)

        init(_ work: @escaping () -> Void) { self.work = work }

        /// On the helper: the work, unless the calling thread took it.
        func runIfUnclaimed() {
            guard claim() else { return }
            do {
                // Let go of the work before the signal: the caller's `withoutActuallyEscaping` checks it.
                let work = self.work
                self.work = nil
                work?()
            }
            done.signal()
        }

        /// On the calling thread: the work unless the helper took it, then the wait for the helper
        /// to finish it. When it returns, no reference to the work is left (it may not escape).
        func finish() {
            if claim() {
                let work = self.work
                self.work = nil
                work?()
            } else {
                done.wait()
            }
        }

        private func claim() -> Bool {
            claimed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        }
    }
}
