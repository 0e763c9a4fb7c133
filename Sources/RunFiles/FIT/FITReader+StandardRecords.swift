import Foundation

// Standard records (position, time, altitude, distance, heart rate, cadence at their profile's
// types and sizes): decoded without `number`'s dispatch into a chunk of columns, appended to the
// track whole.

/// Standard records decoded but not yet appended to the track: a column each of `capacity` values
/// (latitude, longitude, elevation, time, heart rate, cadence, device distance), appended whole by
/// `FITDecoder.flushRecords`. Seven array appends per record (each a uniqueness and a capacity
/// check, and the optional columns' bookkeeping) were a third of decoding a record.
final class FITRecordChunk {
    static let capacity = 512
    /// Column `c`'s value `k` is at `values[c * capacity + k]`.
    let values = UnsafeMutablePointer<Double>.allocate(capacity: 7 * FITRecordChunk.capacity)
    var count = 0

    deinit { values.deallocate() }
}

extension FITDecoder {
    /// Whether record slot `slot` (0...7) is absent or has its profile's base type and size: uint32
    /// timestamp, sint32 positions, uint16 altitude, uint32 enhanced altitude and distance, uint8 heart
    /// rate and cadence.
    static func isStandardRecordField(slot: Int, _ ref: FITFieldRef) -> Bool {
        guard ref.offset >= 0 else { return true }
        let type = ref.baseType & 0x1F
        switch slot {
        case 1, 2: return type == 5 && ref.size == 4
        case 3: return type == 4 && ref.size == 2
        case 0, 4, 7: return type == 6 && ref.size == 4
        case 5, 6: return type == 2 && ref.size == 1
        default: return false
        }
    }

    /// `number` for a field of a standard record (`isStandardRecordField`), little-endian: the same
    /// value, read without dispatching on the base type. `T` is the field's type, `invalid` its
    /// invalid value.
    @inline(__always)
    static func standardField<T: FixedWidthInteger>(_ m: UnsafeRawPointer, _ ref: FITFieldRef, _: T.Type, invalid: T) -> Double {
        guard ref.offset >= 0 else { return .nan }
        let v = T(littleEndian: m.loadUnaligned(fromByteOffset: Int(ref.offset), as: T.self))
        return v == invalid ? .nan : Double(v)
    }

    /// A standard record's point (see `FITDefinition.standardRecord`), as the general path reads it.
    @inline(__always)
    mutating func standardRecord(_ m: UnsafeRawPointer, slotBase: Int, time: Double) {
        let semicircle = FITProfile.degreesPerSemicircle
        let lat = FITDecoder.standardField(m, refs[slotBase + 1], Int32.self, invalid: 0x7FFF_FFFF) * semicircle
        let lon = FITDecoder.standardField(m, refs[slotBase + 2], Int32.self, invalid: 0x7FFF_FFFF) * semicircle
        var elevation = FITDecoder.standardField(m, refs[slotBase + 4], UInt32.self, invalid: 0xFFFF_FFFF)
        if elevation.isNaN { elevation = FITDecoder.standardField(m, refs[slotBase + 3], UInt16.self, invalid: 0xFFFF) }
        elevation = (elevation - 2500) / 5
        let distance = FITDecoder.standardField(m, refs[slotBase + 7], UInt32.self, invalid: 0xFFFF_FFFF) / 100
        if distance.isFinite { lastRecordDistance = distance }
        let k = chunk.count, v = chunk.values, n = FITRecordChunk.capacity
        v[k] = lat
        v[n + k] = lon
        v[2 * n + k] = elevation
        v[3 * n + k] = time
        v[4 * n + k] = FITDecoder.standardField(m, refs[slotBase + 5], UInt8.self, invalid: 0xFF)
        v[5 * n + k] = FITDecoder.standardField(m, refs[slotBase + 6], UInt8.self, invalid: 0xFF)
        v[6 * n + k] = distance
        chunk.count = k + 1
        if k + 1 == n { flushRecords() }
        recordCount += 1
    }

    /// Appends the chunk's records to the track, as `Track.append` would one by one: the first
    /// segment opened, an optional column left empty until its first value and then padded with
    /// `.nan` before it. Called before anything else touches the track (a record the general way,
    /// a definition) and at the end of the data.
    mutating func flushRecords() {
        let k = chunk.count
        guard k > 0 else { return }
        chunk.count = 0
        let v = chunk.values, n = FITRecordChunk.capacity
        if track.segmentStarts.isEmpty { track.segmentStarts.append(0) }
        let index = track.latitudes.count, capacity = track.latitudes.capacity
        FITDecoder.put(v + 4 * n, k, in: &track.heartRates, at: index, capacity: capacity)
        FITDecoder.put(v + 5 * n, k, in: &track.cadences, at: index, capacity: capacity)
        FITDecoder.put(v + 6 * n, k, in: &track.deviceDistances, at: index, capacity: capacity)
        track.latitudes.append(contentsOf: UnsafeBufferPointer(start: v, count: k))
        track.longitudes.append(contentsOf: UnsafeBufferPointer(start: v + n, count: k))
        track.elevations.append(contentsOf: UnsafeBufferPointer(start: v + 2 * n, count: k))
        track.times.append(contentsOf: UnsafeBufferPointer(start: v + 3 * n, count: k))
    }

    /// `Track.put` for `count` values at once from point `index` on: nothing while the column is empty
    /// and the values are all `.nan`; at the first value, `.nan` for every point before it.
    static func put(_ values: UnsafePointer<Double>, _ count: Int, in column: inout [Double], at index: Int, capacity: Int) {
        if column.isEmpty {
            var first = 0
            while first < count, values[first].isNaN { first += 1 }
            guard first < count else { return }
            column.reserveCapacity(max(capacity, index + count))
            column.append(contentsOf: repeatElement(Double.nan, count: index + first))
            column.append(contentsOf: UnsafeBufferPointer(start: values + first, count: count - first))
        } else {
            column.append(contentsOf: UnsafeBufferPointer(start: values, count: count))
        }
    }
}
