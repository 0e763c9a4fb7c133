extension RandomAccessCollection where Index == Int {
    /// The first index whose element satisfies `belongs`, in a collection partitioned by it (every
    /// element for which it is false comes first): a binary search, as swift-algorithms'
    /// `partitioningIndex(where:)`. With `{ $0.time > t }` over elements sorted by time it counts
    /// those at or before `t`. One copy for the readers and the analysis (FIT pool lengths,
    /// SportTracks heart-rate samples, clock-jump shifts), kept here rather than a dependency of the
    /// file-reading module for one function.
    @inlinable
    public func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = startIndex, high = endIndex
        while low < high {
            let mid = low + (high - low) / 2
            if belongs(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
