import BadgeCommands
import Foundation

/// Bytes as `badgectl worker`'s stdin: `Entrances.workerLines` (`WorkerCommand.feed`: the
/// LineReader and `Worker.take`, the JSON reader of lines, athletes, zones, summaries), with
/// `--root` the folder it runs in (scripts/fuzz runs in the checkout, so the seeds' `runs/…` paths
/// are read, and every other path goes through the confinement of `worker --root`).
func fuzzWorker(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    _ = Entrances.workerLines(Array(UnsafeBufferPointer(start: data, count: size)), root: fuzzRoot)
    return 0
}

/// The folder the fuzzer runs in.
let fuzzRoot = FileManager.default.currentDirectoryPath
