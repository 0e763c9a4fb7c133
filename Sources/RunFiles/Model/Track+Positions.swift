// Shared by the TCX and FIT readers: what to do with records that carry no position.

extension Track {
    /// Keeps only points with a valid position and counts the others under `"no position"`; when
    /// no point has one (treadmill, indoor), keeps every point with `.nan` positions and sets
    /// `hasPositions` to false so that the device distance carries the run. Segment starts follow.
    mutating func settlePositions() {
        let n = count
        var valid = 0
        for i in 0..<n where Geodesy.isValid(latitude: latitudes[i], longitude: longitudes[i]) { valid += 1 }
        if valid == n { return }
        if valid == 0 {
            hasPositions = false
            for i in 0..<n {
                latitudes[i] = .nan
                longitudes[i] = .nan
            }
            return
        }
        for t in times where t.isFinite {
            recordedFirstTime = min(recordedFirstTime ?? t, t)
            recordedLastTime = max(recordedLastTime ?? t, t)
        }
        var kept = 0
        var newStarts: [Int] = []
        var nextSegment = 0
        let starts = segmentStarts
        for i in 0..<n {
            while nextSegment < starts.count, starts[nextSegment] <= i {
                if newStarts.last != kept { newStarts.append(kept) }
                nextSegment += 1
            }
            guard Geodesy.isValid(latitude: latitudes[i], longitude: longitudes[i]) else { continue }
            if kept != i {
                latitudes[kept] = latitudes[i]; longitudes[kept] = longitudes[i]; elevations[kept] = elevations[i]
                times[kept] = times[i]
                if !heartRates.isEmpty { heartRates[kept] = heartRates[i] }
                if !cadences.isEmpty { cadences[kept] = cadences[i] }
                if !deviceDistances.isEmpty { deviceDistances[kept] = deviceDistances[i] }
            }
            kept += 1
        }
        // A segment whose points were all dropped leaves a start equal to `kept` at the end.
        while let last = newStarts.last, last >= kept { newStarts.removeLast() }
        let removed = n - kept
        latitudes.removeLast(removed); longitudes.removeLast(removed); elevations.removeLast(removed)
        times.removeLast(removed)
        if !heartRates.isEmpty { heartRates.removeLast(removed) }
        if !cadences.isEmpty { cadences.removeLast(removed) }
        if !deviceDistances.isEmpty { deviceDistances.removeLast(removed) }
        segmentStarts = newStarts
        drop("no position", count: removed)
    }
}
