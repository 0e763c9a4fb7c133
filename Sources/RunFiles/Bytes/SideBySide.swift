import Dispatch

/// Two pieces of work on one run at once: a large file's CRC beside its decoding (`FITDecoder`), a
/// long run's efforts in two halves (`RunAnalyzer.bestEfforts`).
///
/// Dispatch's `concurrentPerform` runs them: the calling thread takes one and a thread of Dispatch's
/// pool the other, and it returns when both are done. Called from a thread that is itself one of a
/// `concurrentPerform` over many files (a folder read on every core), Dispatch gives the nested call
/// only the threads left (none when the files fill the cores): the two then run one after the other
/// on the calling thread, so there is no deadlock and no more threads than cores.
package enum SideBySide {
    /// Runs `first` and `second`, at once when a second thread is free, and returns when both have.
    /// They must not touch the same mutable state; each may write what the other never reads.
    package static func run(_ first: () -> Void, _ second: () -> Void) {
        withoutActuallyEscaping(first) { first in
            withoutActuallyEscaping(second) { second in
                // The closures outlive neither this call nor the wait for both: Dispatch's `@Sendable`
                // requirement is met by that wait, which the compiler cannot see.
                let work = Pair(first: first, second: second)
                DispatchQueue.concurrentPerform(iterations: 2) { side in
                    if side == 0 { work.first() } else { work.second() }
                }
            }
        }
    }

    private struct Pair: @unchecked Sendable {
        let first: () -> Void
        let second: () -> Void
    }
}
