import BadgeCommands

/// A cache row's summaries as a warm `evaluate` reads them: `Entrances.cacheBlob` (the row's blob
/// replaced by the input, then the folder read through the pipeline and that cache: the lookup, the
/// decoding, and the file read again when the blob is refused).
func fuzzCache(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    _ = Entrances.cacheBlob(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
