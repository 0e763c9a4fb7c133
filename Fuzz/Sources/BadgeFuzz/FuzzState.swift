import BadgeCommands

/// A saved state as `badgectl add` reads it: `Entrances.state` (StateStore.loadState, then
/// IncrementalEvaluator.add: the index and the summaries). The input is the folder's three files,
/// `state.json`, `runs.index` and `runs.jsonl`, separated by lines holding only `%%` (a missing
/// part: no such file).
func fuzzState(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let parts = Entrances.split(Array(UnsafeBufferPointer(start: data, count: size)))
    _ = Entrances.state(stateJSON: parts.count > 0 ? parts[0] : nil, index: parts.count > 1 ? parts[1] : nil,
                        runs: parts.count > 2 ? parts[2] : nil)
    return 0
}
