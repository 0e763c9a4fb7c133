import Foundation

/// Jobs run on threads of their own, their results taken back in the order the jobs were given:
/// `worker --state-dir`'s athletes, each applied to their own saved state (their folders are apart,
/// each locked while it changes), while the worker's thread reads the lines of the next ones.
///
/// Each thread makes its own context (`makeContext`, on that thread: a loaded Lua state is used by
/// the thread that made it, `ReusedEvaluator`) and runs every job it takes in it. At most `limit`
/// jobs wait or run at once: `submit` waits for a result to be taken before going past it, so that
/// memory holds a few athletes' runs, not the input's.
///
/// With `lane`, a job runs on the thread `lane(job) % threads` (`worker --state-dir`: the thread that
/// owns the athlete's shard, `AthleteStore`, so that no two threads wait for one shard's lock).
final class OrderedPool<Job: Sendable, Result: Sendable, Context>: @unchecked Sendable {
    private let condition = NSCondition()
    /// Jobs not started yet, with their numbers, first given first: one queue, or one a thread (`lane`).
    private var waiting: [[(number: Int, job: Job)]]
    private var waitingStart: [Int]
    private let lane: (@Sendable (Job) -> Int)?
    /// Results not taken yet, by job number.
    private var finished: [Int: Result] = [:]
    /// Numbers of the next job given and of the next result to take.
    private var given = 0, taken = 0
    private var closing = false
    private var threads: [Thread] = []
    /// Threads not ended yet (`close` waits for them: their contexts are let go when they end).
    private var running = 0
    private let limit: Int

    /// Starts `threads` threads, each making its context with `makeContext` and running jobs with `run`.
    init(threads count: Int, lane: (@Sendable (Job) -> Int)? = nil, makeContext: @escaping @Sendable () -> Context,
         run: @escaping @Sendable (inout Context, Job) -> Result) {
        let count = max(1, count)
        // (Lanes wait for their own jobs: more may be out at once.)
        limit = max(2, count * (lane == nil ? 2 : 4))
        self.lane = lane
        waiting = Array(repeating: [], count: lane == nil ? 1 : count)
        waitingStart = Array(repeating: 0, count: waiting.count)
        running = count
        for index in 0..<count {
            let queue = lane == nil ? 0 : index
            let thread = Thread { [self] in
                do {
                    var context = makeContext()
                    while let (number, job) = next(queue) {
                        let result = run(&context, job)
                        condition.lock()
                        finished[number] = result
                        condition.broadcast()
                        condition.unlock()
                    }
                }
                condition.lock()
                running -= 1
                condition.broadcast()
                condition.unlock()
            }
            // Lua and the rules run here as on the main thread: the same stack.
            thread.stackSize = 8 << 20
            thread.name = "badgectl-worker-\(index + 1)"
            threads.append(thread)
            thread.start()
        }
    }

    /// Jobs given and not taken back yet.
    var outstanding: Int {
        condition.lock()
        defer { condition.unlock() }
        return given - taken
    }

    /// The next job to run, nil once the pool is closed and no job waits.
    private func next(_ queue: Int) -> (Int, Job)? {
        condition.lock()
        defer { condition.unlock() }
        while waitingStart[queue] == waiting[queue].count && !closing { condition.wait() }
        guard waitingStart[queue] < waiting[queue].count else { return nil }
        let item = waiting[queue][waitingStart[queue]]
        waitingStart[queue] += 1
        if waitingStart[queue] > 64, waitingStart[queue] * 2 > waiting[queue].count {
            waiting[queue].removeFirst(waitingStart[queue])
            waitingStart[queue] = 0
        }
        return item
    }

    /// Gives `job`, after handing `deliver` the results ready in order while `limit` jobs are out.
    func submit(_ job: Job, deliver: (Result) -> Void) {
        while outstanding >= limit { deliver(takeNext(wait: true)!) }
        let queue = lane.map { $0(job) % waiting.count } ?? 0
        condition.lock()
        waiting[queue].append((given, job))
        given += 1
        condition.broadcast()
        condition.unlock()
    }

    /// The result of the oldest job not taken yet: waits for it when `wait`, else nil when it is not
    /// ready (or no job is out).
    func takeNext(wait: Bool) -> Result? {
        condition.lock()
        defer { condition.unlock() }
        while taken < given {
            if let result = finished.removeValue(forKey: taken) {
                taken += 1
                return result
            }
            guard wait else { return nil }
            condition.wait()
        }
        return nil
    }

    /// Hands `deliver` every result ready in order, without waiting.
    func deliverReady(_ deliver: (Result) -> Void) {
        while let result = takeNext(wait: false) { deliver(result) }
    }

    /// Hands `deliver` every result still out, in order, waiting for each.
    func drain(_ deliver: (Result) -> Void) {
        while let result = takeNext(wait: true) { deliver(result) }
    }

    /// Lets the threads end once no job waits, and waits for them to end (their contexts let go: a
    /// thread's connections to the store closed). The threads hold the pool until then: whoever made
    /// it closes it (`Worker.finish`).
    func close() {
        condition.lock()
        closing = true
        condition.broadcast()
        while running > 0 { condition.wait() }
        condition.unlock()
    }
}
