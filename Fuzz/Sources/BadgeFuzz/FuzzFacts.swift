import BadgeCommands

/// Bytes as `badgectl league --from-facts` reads its stdin (another shard's facts, not trusted):
/// `Entrances.leagueFacts` (the line reader, each fact's group key and record, the bounded sort with
/// its spills, the reduce by sex and team with a club goal).
func fuzzFacts(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    _ = Entrances.leagueFacts(Array(UnsafeBufferPointer(start: data, count: size)), packs: ["rules/places"])
    return 0
}
