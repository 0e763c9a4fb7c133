import BadgeCommands

/// A rule pack as `evaluate --rules` loads and runs it: `Entrances.pack` (RuleEngine over the
/// folder: pack.lua, its measures and their segment files, the rules and the modules they
/// require), evaluated on one generated run. The input is the pack's files separated by lines
/// holding only `%%`: `pack.lua`, `rule.lua`, `lib/util.lua`, `segments/route.gpx`.
func fuzzPack(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let parts = Entrances.split(Array(UnsafeBufferPointer(start: data, count: size)))
    _ = Entrances.pack(Entrances.packFiles(parts), runs: Entrances.sampleRuns)
    return 0
}
