import BadgeCommands

/// Bytes as `badgectl worker`'s stdin: `Entrances.workerLines` (`WorkerCommand.feed`: the
/// LineReader and `Worker.take`, the JSON reader of lines, athletes, zones, summaries).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWorker(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    _ = Entrances.workerLines(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
