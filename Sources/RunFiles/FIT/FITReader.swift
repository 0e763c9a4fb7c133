/// Reads Garmin FIT activity files: our own decoder of the public FIT protocol.
///
/// What it does, in protocol terms:
/// - File header of 12 or 14 bytes (`.FIT` signature, little-endian data size); a non-zero header
///   CRC is checked. Chained FIT files (several files back to back, as some devices write) are read
///   one after the other into the same activity; zero padding after the last CRC is ignored,
///   anything else there is an error.
/// - Normal record headers (bit 6 definition, bit 5 developer fields, bits 0–3 local type) and
///   compressed-timestamp headers (bit 7; local type in bits 5–6, a 5-bit time offset that rolls
///   over against the last full timestamp seen in any message).
/// - Definition messages in either byte order; developer fields are skipped by their size.
///   For the few fields badgectl uses, each definition precomputes the byte offset of the field,
///   so decoding a data message is a handful of unaligned loads with no allocation.
/// - Invalid values (all ones, `0x7F…` for signed types, zero for the `z` types) are absent (`.nan`).
///
/// Messages used: `record` (positions in semicircles, altitude or enhanced altitude, heart rate,
/// cadence, distance), `session` (sport, start, elapsed, timer, distance, pool length, and the device's
/// own totals: ascent, descent, heart-rate average and maximum, moving time, number of laps: one `Track`
/// per session), `lap` (start, elapsed, timer, distance, heart-rate average and maximum, trigger, intensity), `length` (a pool swim's lengths: its distance, see `FITDecoder.swim`),
/// `event` (timer stop → start becomes a `Pause`), `sport`, `activity` (the local time offset). Records without a position are dropped and counted under `"no position"`, unless no
/// record of the file has one (treadmill, indoor): then every record is kept with `.nan`
/// positions, `hasPositions` is false and the device distance carries the run.
///
/// CRC policy: a file CRC or non-zero header CRC that does not match is an error by default (as
/// the FIT SDK and fitdecode do): a file whose bytes changed cannot be trusted field by field.
/// `checkCRC: false` reads such a file anyway. A truncated file is always an error naming the byte
/// offset of the message that breaks off.
public enum FITReader {
    /// Reads a FIT file (or a gzip-compressed one) from disk. One `Track` per session.
    public static func read(path: String, checkCRC: Bool = true) throws -> [Track] {
        var bytes = try FileBytes.read(path: path)
        if Gzip.isGzip(bytes) { bytes = try Gzip.decompress(bytes, source: path) }
        return try read(bytes: bytes, source: path, checkCRC: checkCRC)
    }

    /// Decodes FIT bytes; `source` names the file in errors. One `Track` per session.
    public static func read(bytes: [UInt8], source: String, checkCRC: Bool = true) throws -> [Track] {
        var decoder = FITDecoder(source: source, checkCRC: checkCRC)
        try bytes.withUnsafeBytes { try decoder.decode($0) }
        return try decoder.tracks()
    }
}

/// A field's place inside a data message: byte offset (−1 when the definition lacks the field),
/// size in bytes and base type.
struct FITFieldRef {
    var offset: Int32 = -1
    var size: UInt8 = 0
    var baseType: UInt8 = 0
}

/// One local message type's current definition.
struct FITDefinition {
    /// Global message number, −1 while the local type is undefined.
    var global: Int32 = -1
    var bigEndian = false
    /// Bytes of one data message after its header, developer fields included.
    var size = 0
    /// A little-endian record whose fields badgectl reads all have their profile's base type and
    /// size (or are absent): decoded by `FITDecoder.standardRecord`, without `number`'s dispatch.
    var standardRecord = false
}

struct FITDecoder {
    let source: String
    let checkCRC: Bool

    /// Slot 0 and the most fields read from one message (a session's 12).
    static let slotsPerDefinition = 16
    var definitions = [FITDefinition](repeating: FITDefinition(), count: 16)
    var refs = [FITFieldRef](repeating: FITFieldRef(), count: 16 * slotsPerDefinition)
    /// The last full timestamp (FIT seconds), for compressed-timestamp headers.
    var lastTimestamp: UInt32?

    // Record columns, positions possibly `.nan`.
    var track: Track
    var sessions: [FITSession] = []
    var laps: [Lap] = []
    var lengths: [FITLength] = []
    var pauses: [Pause] = []
    var stoppedAt: Double?
    var sportMessageSport: UInt8?
    var sportMessageName: String?
    var sportMessageSubSport: UInt8?
    /// file_id's `manufacturer` and `product_name` (the device, `Track.device`).
    var manufacturer: UInt16?
    var productName: String?
    var utcOffsetSeconds: Int?
    var lastRecordDistance = Double.nan
    var recordCount = 0
    /// Standard records not yet in `track` (`flushRecords`).
    let chunk = FITRecordChunk()

    init(source: String, checkCRC: Bool) {
        self.source = source
        self.checkCRC = checkCRC
        track = Track(source: source)
        track.format = .fit
    }

    /// Slot of a field within a definition for the messages badgectl reads; −1 for fields it ignores.
    /// Slot 0 is the timestamp in every message (it drives compressed timestamps).
    @inline(__always)
    static func slot(global: Int32, field: UInt8) -> Int {
        if field == FITProfile.timestampField { return 0 }
        switch global {
        case 20:  // record
            switch field {
            case 0: return 1  // position_lat
            case 1: return 2  // position_long
            case 2: return 3  // altitude
            case 78: return 4  // enhanced_altitude
            case 3: return 5  // heart_rate
            case 4: return 6  // cadence
            case 5: return 7  // distance
            default: return -1
            }
        case 18:  // session
            switch field {
            case 2: return 1  // start_time
            case 5: return 2  // sport
            case 7: return 3  // total_elapsed_time
            case 8: return 4  // total_timer_time
            case 9: return 5  // total_distance
            case 44: return 6  // pool_length
            case 22: return 7  // total_ascent
            case 23: return 8  // total_descent
            case 16: return 9  // avg_heart_rate
            case 17: return 10  // max_heart_rate
            case 59: return 11  // total_moving_time
            case 26: return 12  // num_laps
            case 6: return 13  // sub_sport
            default: return -1
            }
        case 19:  // lap
            switch field {
            case 2: return 1  // start_time
            case 7: return 3  // total_elapsed_time
            case 8: return 4  // total_timer_time
            case 9: return 5  // total_distance
            case 15: return 9  // avg_heart_rate
            case 16: return 10  // max_heart_rate
            case 24: return 12  // lap_trigger
            case 23: return 13  // intensity
            default: return -1
            }
        case 101:  // length (pool swims)
            switch field {
            case 2: return 1  // start_time
            case 3: return 2  // total_elapsed_time
            case 4: return 3  // total_timer_time
            case 12: return 4  // length_type
            default: return -1
            }
        case 21:  // event
            switch field {
            case 0: return 1  // event
            case 1: return 2  // event_type
            default: return -1
            }
        case 12:  // sport
            switch field {
            case 0: return 1  // sport
            case 3: return 2  // name
            case 1: return 3  // sub_sport
            default: return -1
            }
        case 34:  // activity
            return field == 5 ? 1 : -1  // local_timestamp
        case 0:  // file_id
            switch field {
            case 0: return 1  // type
            case 1: return 2  // manufacturer
            case 8: return 3  // product_name
            default: return -1
            }
        default:
            return -1
        }
    }

    func malformed(_ offset: Int, _ reason: String) -> ActivityError {
        .malformed(path: source, line: nil, offset: offset, reason: reason)
    }

    mutating func decode(_ p: UnsafeRawBufferPointer) throws {
        let count = p.count
        var pos = 0
        var files = 0
        while pos < count {
            if files > 0 {
                // After a file's CRC: another chained FIT file, zero padding, or garbage.
                var allZero = true
                for i in pos..<count where p[i] != 0 { allZero = false; break }
                if allZero { return }
                guard count - pos >= 12, p[pos + 8] == 0x2E, p[pos + 9] == 0x46, p[pos + 10] == 0x49, p[pos + 11] == 0x54
                else {
                    throw malformed(pos, "\(count - pos) unexpected bytes after the FIT file's CRC (not a chained FIT file)")
                }
            }
            pos = try decodeFile(p, at: pos)
            files += 1
        }
        if files == 0 { throw ActivityError.notFormat(path: source, format: "FIT", reason: "the file is empty") }
    }

    /// Decodes one FIT file starting at `start`; returns the offset just past its CRC.
    mutating func decodeFile(_ p: UnsafeRawBufferPointer, at start: Int) throws -> Int {
        let count = p.count
        guard count - start >= 12 else {
            throw ActivityError.notFormat(path: source, format: "FIT", reason: "\(count - start) bytes, shorter than a 12-byte FIT header")
        }
        let headerSize = Int(p[start])
        guard headerSize >= 12 else {
            throw ActivityError.notFormat(path: source, format: "FIT", reason: "header size \(headerSize) at byte \(start), expected 12 or 14")
        }
        guard p[start + 8] == 0x2E, p[start + 9] == 0x46, p[start + 10] == 0x49, p[start + 11] == 0x54 else {
            throw ActivityError.notFormat(path: source, format: "FIT", reason: "no \".FIT\" signature at byte \(start + 8)")
        }
        guard count - start >= headerSize else {
            throw malformed(count, "the file ends inside its \(headerSize)-byte header")
        }
        let dataSize = Int(UInt32(p[start + 4]) | UInt32(p[start + 5]) << 8 | UInt32(p[start + 6]) << 16 | UInt32(p[start + 7]) << 24)
        if headerSize >= 14 {
            let stored = UInt16(p[start + 12]) | UInt16(p[start + 13]) << 8
            if stored != 0, checkCRC {
                let computed = FITProfile.crc16(p, from: start, to: start + 12)
                if computed != stored {
                    throw malformed(start + 12, "header CRC is 0x\(hex(stored)), the header's bytes give 0x\(hex(computed))")
                }
            }
        }
        let dataStart = start + headerSize
        let dataEnd = dataStart + dataSize
        // A header whose data size runs past the file is named first, whatever the bytes after it:
        // decoding them would name whichever message the end of the file happened to cut (a header
        // claiming 2 GB on a 35 KB file was reported as a lap message needing 21 bytes).
        if dataEnd > count {
            throw malformed(
                count, "unexpected end of file: the header (byte \(start + 4)) says \(dataSize) data bytes follow it, the file has only "
                    + "\(count - dataStart): the file was cut short (copy it from the device again) or its header is damaged")
        }
        let complete = dataEnd + 2 <= count
        // New file: local definitions start afresh.
        for i in 0..<definitions.count { definitions[i] = FITDefinition() }
        if complete, checkCRC {
            // A CRC that does not match is the error, whatever decoding the bytes would say; on a
            // large file the CRC is computed on a second thread while this one decodes (the same
            // errors in the same order: the decoder's state is dropped with any error).
            let stored = UInt16(p[dataEnd]) | UInt16(p[dataEnd + 1]) << 8
            var computed: UInt16 = 0
            var decodeError: Error?
            if dataEnd - start >= Self.parallelCRCBytes {
                PlacedThread.run({ computed = FITProfile.crc16(p, from: start, to: dataEnd) },
                                 alongside: {
                                     do { try decodeMessages(p, from: dataStart, to: dataEnd) } catch { decodeError = error }
                                 })
            } else {
                computed = FITProfile.crc16(p, from: start, to: dataEnd)
                if stored == computed { try decodeMessages(p, from: dataStart, to: dataEnd) }
            }
            if stored != computed {
                throw malformed(dataEnd, "file CRC is 0x\(hex(stored)), the bytes give 0x\(hex(computed)) (corrupt file)")
            }
            if let decodeError { throw decodeError }
        } else {
            // A cut inside a message is named by that message; a missing CRC is named here.
            try decodeMessages(p, from: dataStart, to: dataEnd)
        }
        guard complete else {
            throw malformed(count, "unexpected end of file: the 2-byte file CRC is missing")
        }
        return dataEnd + 2
    }

    /// Files of at least this many bytes have their CRC computed on a second thread beside the
    /// decoding: 2.3 MB took 0.6 ms (3.5 % of a 100k-record `summarize --no-cache`, BENCHMARKS.md,
    /// issue F, ninth round), and a thread costs some 0.1 ms to start.
    static let parallelCRCBytes = 512 * 1024

    func hex(_ v: UInt16) -> String {
        let s = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - s.count) + s
    }

    mutating func decodeMessages(_ p: UnsafeRawBufferPointer, from: Int, to end: Int) throws {
        guard let base = p.baseAddress else { return }
        defer { flushRecords() }
        var pos = from
        while pos < end {
            let header = p[pos]
            if header & 0x80 != 0 {
                // Compressed timestamp data message.
                let local = Int((header >> 5) & 0x03)
                let offset = UInt32(header & 0x1F)
                guard let last = lastTimestamp else {
                    throw malformed(pos, "compressed-timestamp header before any full timestamp")
                }
                var ts = (last & 0xFFFF_FFE0) + offset
                if offset < (last & 0x1F) { ts &+= 0x20 }
                lastTimestamp = ts
                pos = try dataMessage(base, p.count, at: pos, end: end, local: local, compressedTimestamp: ts)
            } else if header & 0x40 != 0 {
                pos = try definitionMessage(p, at: pos, end: end, local: Int(header & 0x0F), developer: header & 0x20 != 0)
            } else {
                pos = try dataMessage(base, p.count, at: pos, end: end, local: Int(header & 0x0F), compressedTimestamp: nil)
            }
        }
    }

    mutating func definitionMessage(_ p: UnsafeRawBufferPointer, at pos: Int, end: Int, local: Int, developer: Bool) throws -> Int {
        flushRecords()
        guard pos + 6 <= end else { throw truncated(at: pos, what: "definition message", end: end) }
        let architecture = p[pos + 2]
        guard architecture <= 1 else {
            throw malformed(pos + 2, "definition message with architecture byte \(architecture), expected 0 (little endian) or 1 (big endian)")
        }
        let big = architecture == 1
        let global = big ? (UInt16(p[pos + 3]) << 8 | UInt16(p[pos + 4])) : (UInt16(p[pos + 3]) | UInt16(p[pos + 4]) << 8)
        let fieldCount = Int(p[pos + 5])
        var q = pos + 6
        guard q + 3 * fieldCount <= end else { throw truncated(at: pos, what: "definition message", end: end) }
        let g = Int32(global)
        let slotBase = local * FITDecoder.slotsPerDefinition
        for s in 0..<FITDecoder.slotsPerDefinition { refs[slotBase + s] = FITFieldRef() }
        var size = 0
        for _ in 0..<fieldCount {
            let number = p[q], fieldSize = p[q + 1], baseType = p[q + 2]
            let s = FITDecoder.slot(global: g, field: number)
            if s >= 0, fieldSize > 0 {
                refs[slotBase + s] = FITFieldRef(offset: Int32(size), size: fieldSize, baseType: baseType)
            }
            size += Int(fieldSize)
            q += 3
        }
        if developer {
            guard q + 1 <= end else { throw truncated(at: pos, what: "definition message", end: end) }
            let devCount = Int(p[q])
            q += 1
            guard q + 3 * devCount <= end else { throw truncated(at: pos, what: "definition message", end: end) }
            for _ in 0..<devCount {
                size += Int(p[q + 1])
                q += 3
            }
        }
        var standard = g == 20 && !big
        for s in 0..<8 where standard { standard = FITDecoder.isStandardRecordField(slot: s, refs[slotBase + s]) }
        definitions[local] = FITDefinition(global: g, bigEndian: big, size: size, standardRecord: standard)
        if g == 20, track.latitudes.capacity == 0 { reserveRecords(bytes: end - q, messageSize: size + 1) }
        return q
    }

    /// At the first record definition: reserves the track's columns for as many records as the rest
    /// of the data could hold (every message a record of this size), so that they are not grown by
    /// doubling (each growth a copy and fresh pages: 8% of a 100k-record `summarize`). Room reserved
    /// but never written costs no memory; at most `reserveLimit` records are reserved ahead, beyond
    /// that the columns grow as before.
    mutating func reserveRecords(bytes: Int, messageSize: Int) {
        guard bytes > 0 else { return }
        track.reserveCapacity(min(bytes / max(messageSize, 8) + 1, FITDecoder.reserveLimit))
    }

    /// The most records reserved ahead (4 Mi: 32 MiB a column).
    static let reserveLimit = 1 << 22

    func truncated(at pos: Int, what: String, end: Int) -> ActivityError {
        malformed(pos, "\(what) starting at byte \(pos) runs past the end of the data at byte \(end) (truncated or corrupt file)")
    }

    /// Reads a numeric field; `.nan` when the definition lacks it or it holds the invalid value.
    @inline(__always)
    static func number(_ m: UnsafeRawPointer, _ ref: FITFieldRef, _ big: Bool) -> Double {
        guard ref.offset >= 0 else { return .nan }
        let o = Int(ref.offset)
        let size = Int(ref.size)
        switch ref.baseType & 0x1F {
        case 0, 2, 13:
            let v = m.load(fromByteOffset: o, as: UInt8.self)
            return v == 0xFF ? .nan : Double(v)
        case 10:
            let v = m.load(fromByteOffset: o, as: UInt8.self)
            return v == 0 ? .nan : Double(v)
        case 1:
            let v = m.load(fromByteOffset: o, as: Int8.self)
            return v == 0x7F ? .nan : Double(v)
        case 3, 4, 11:
            guard size >= 2 else { return .nan }
            var v = m.loadUnaligned(fromByteOffset: o, as: UInt16.self)
            if big { v = v.byteSwapped } else { v = UInt16(littleEndian: v) }
            switch ref.baseType & 0x1F {
            case 3: return v == 0x7FFF ? .nan : Double(Int16(bitPattern: v))
            case 4: return v == 0xFFFF ? .nan : Double(v)
            default: return v == 0 ? .nan : Double(v)
            }
        case 5, 6, 12:
            guard size >= 4 else { return .nan }
            var v = m.loadUnaligned(fromByteOffset: o, as: UInt32.self)
            if big { v = v.byteSwapped } else { v = UInt32(littleEndian: v) }
            switch ref.baseType & 0x1F {
            case 5: return v == 0x7FFF_FFFF ? .nan : Double(Int32(bitPattern: v))
            case 6: return v == 0xFFFF_FFFF ? .nan : Double(v)
            default: return v == 0 ? .nan : Double(v)
            }
        case 8:
            guard size >= 4 else { return .nan }
            var v = m.loadUnaligned(fromByteOffset: o, as: UInt32.self)
            if big { v = v.byteSwapped } else { v = UInt32(littleEndian: v) }
            if v == 0xFFFF_FFFF { return .nan }
            return Double(Float(bitPattern: v))
        case 9, 14, 15, 16:
            guard size >= 8 else { return .nan }
            var v = m.loadUnaligned(fromByteOffset: o, as: UInt64.self)
            if big { v = v.byteSwapped } else { v = UInt64(littleEndian: v) }
            switch ref.baseType & 0x1F {
            case 9: return v == UInt64.max ? .nan : Double(bitPattern: v)
            case 14: return v == 0x7FFF_FFFF_FFFF_FFFF ? .nan : Double(Int64(bitPattern: v))
            case 15: return v == UInt64.max ? .nan : Double(v)
            default: return v == 0 ? .nan : Double(v)
            }
        default:
            return .nan
        }
    }

    static func string(_ m: UnsafeRawPointer, _ ref: FITFieldRef) -> String? {
        guard ref.offset >= 0, ref.baseType & 0x1F == 7 else { return nil }
        let start = m + Int(ref.offset)
        var n = 0
        while n < Int(ref.size), start.load(fromByteOffset: n, as: UInt8.self) != 0 { n += 1 }
        guard n > 0 else { return nil }
        let text = String(decoding: UnsafeRawBufferPointer(start: start, count: n), as: UTF8.self)
        return text
    }

    mutating func dataMessage(
        _ base: UnsafeRawPointer, _ count: Int, at pos: Int, end: Int, local: Int, compressedTimestamp: UInt32?
    ) throws -> Int {
        let definition = definitions[local]
        guard definition.global >= 0 else {
            throw malformed(pos, "data message for local message type \(local), which no definition message has defined")
        }
        let next = pos + 1 + definition.size
        guard next <= end else {
            throw malformed(
                pos, "\(FITDecoder.messageName(definition.global)) data message starting at byte \(pos) needs \(definition.size + 1) bytes, the data ends at byte \(end) (truncated or corrupt file)")
        }
        let m = base + pos + 1
        let big = definition.bigEndian
        let slotBase = local * FITDecoder.slotsPerDefinition
        var time = Double.nan
        if let ts = compressedTimestamp {
            time = Double(ts) + FITProfile.epochOffset
        } else {
            let ref = refs[slotBase]
            if ref.offset >= 0 {
                let raw = definition.standardRecord
                    ? FITDecoder.standardField(m, ref, UInt32.self, invalid: 0xFFFF_FFFF) : FITDecoder.number(m, ref, big)
                // A timestamp declared with an odd base type may hold anything: keep only a uint32's range.
                if let seconds = UInt32(exactly: raw) {
                    lastTimestamp = seconds
                    time = raw + FITProfile.epochOffset
                }
            }
        }
        switch definition.global {
        case 20 where definition.standardRecord:
            standardRecord(m, slotBase: slotBase, time: time)
        case 20:
            flushRecords()
            let semicircle = FITProfile.degreesPerSemicircle
            let lat = FITDecoder.number(m, refs[slotBase + 1], big) * semicircle
            let lon = FITDecoder.number(m, refs[slotBase + 2], big) * semicircle
            var elevation = FITDecoder.number(m, refs[slotBase + 4], big)
            if elevation.isNaN { elevation = FITDecoder.number(m, refs[slotBase + 3], big) }
            elevation = (elevation - 2500) / 5
            let distance = FITDecoder.number(m, refs[slotBase + 7], big) / 100
            if distance.isFinite { lastRecordDistance = distance }
            track.append(
                latitude: lat, longitude: lon, elevation: elevation, time: time,
                heartRate: FITDecoder.number(m, refs[slotBase + 5], big),
                cadence: FITDecoder.number(m, refs[slotBase + 6], big),
                deviceDistance: distance)
            recordCount += 1
        case 18:
            var session = FITSession()
            session.start = FITDecoder.number(m, refs[slotBase + 1], big) + FITProfile.epochOffset
            session.end = time
            let sport = FITDecoder.number(m, refs[slotBase + 2], big)
            session.sport = UInt8(exactly: sport)
            session.elapsed = FITDecoder.number(m, refs[slotBase + 3], big) / 1000
            session.timer = FITDecoder.number(m, refs[slotBase + 4], big) / 1000
            session.distance = FITDecoder.number(m, refs[slotBase + 5], big) / 100
            session.poolLength = FITDecoder.number(m, refs[slotBase + 6], big) / 100
            session.ascent = FITDecoder.number(m, refs[slotBase + 7], big)
            session.descent = FITDecoder.number(m, refs[slotBase + 8], big)
            session.averageHeartRate = FITDecoder.number(m, refs[slotBase + 9], big)
            session.maximumHeartRate = FITDecoder.number(m, refs[slotBase + 10], big)
            session.moving = FITDecoder.number(m, refs[slotBase + 11], big) / 1000
            session.lapCount = FITDecoder.number(m, refs[slotBase + 12], big)
            session.subSport = UInt8(exactly: FITDecoder.number(m, refs[slotBase + 13], big))
            sessions.append(session)
        case 101:
            let start = FITDecoder.number(m, refs[slotBase + 1], big) + FITProfile.epochOffset
            let elapsed = FITDecoder.number(m, refs[slotBase + 2], big) / 1000
            let timer = FITDecoder.number(m, refs[slotBase + 3], big) / 1000
            let type = FITDecoder.number(m, refs[slotBase + 4], big)
            // A length without a start or a duration says nothing of when it was swum.
            if start.isFinite, elapsed.isFinite, elapsed >= 0 {
                lengths.append(FITLength(start: start, elapsed: elapsed, timer: timer.isFinite ? timer : elapsed, active: type != 0))
            }
        case 19:
            let start = FITDecoder.number(m, refs[slotBase + 1], big) + FITProfile.epochOffset
            let elapsed = FITDecoder.number(m, refs[slotBase + 3], big) / 1000
            let timer = FITDecoder.number(m, refs[slotBase + 4], big) / 1000
            let distance = FITDecoder.number(m, refs[slotBase + 5], big) / 100
            let average = FITDecoder.number(m, refs[slotBase + 9], big), maximum = FITDecoder.number(m, refs[slotBase + 10], big)
            let trigger = FITDecoder.number(m, refs[slotBase + 12], big), intensity = FITDecoder.number(m, refs[slotBase + 13], big)
            laps.append(Lap(
                start: start.isFinite ? start : nil, elapsedSeconds: elapsed.isFinite ? elapsed : nil,
                timerSeconds: timer.isFinite ? timer : nil, distanceMeters: distance.isFinite ? distance : nil,
                averageHeartRate: average.isFinite ? average : nil, maximumHeartRate: maximum.isFinite ? maximum : nil,
                trigger: UInt8(exactly: trigger).map { Lap.fitTriggers[$0] ?? String($0) },
                intensity: UInt8(exactly: intensity).map { Lap.fitIntensities[$0] ?? String($0) }))
        case 21:
            let event = FITDecoder.number(m, refs[slotBase + 1], big)
            let type = FITDecoder.number(m, refs[slotBase + 2], big)
            if event == Double(FITProfile.Event.timer), time.isFinite, let type = UInt8(exactly: type) {
                switch type {
                case FITProfile.Event.start:
                    if let from = stoppedAt, time > from { pauses.append(Pause(from: from, to: time)) }
                    stoppedAt = nil
                case FITProfile.Event.stop, FITProfile.Event.stopAll, FITProfile.Event.stopDisable, FITProfile.Event.stopDisableAll:
                    if stoppedAt == nil { stoppedAt = time }
                default:
                    break
                }
            }
        case 12:
            let sport = FITDecoder.number(m, refs[slotBase + 1], big)
            if let sport = UInt8(exactly: sport) { sportMessageSport = sport }
            if let name = FITDecoder.string(m, refs[slotBase + 2]) { sportMessageName = name }
            if let sub = UInt8(exactly: FITDecoder.number(m, refs[slotBase + 3], big)) { sportMessageSubSport = sub }
        case 0:
            let type = FITDecoder.number(m, refs[slotBase + 1], big)
            if let maker = UInt16(exactly: FITDecoder.number(m, refs[slotBase + 2], big)) { manufacturer = maker }
            if let name = FITDecoder.string(m, refs[slotBase + 3]), !name.isEmpty { productName = name }
            // Courses and segments carry records with positions, but they are routes, not runs.
            if type == 6 || type == 34 {
                throw ActivityError.notFormat(
                    path: source, format: "FIT activity",
                    reason: "file_id at byte \(pos) says this is a FIT \(type == 6 ? "course" : "segment") file (a route, not a recorded run)")
            }
        case 34:
            let local = FITDecoder.number(m, refs[slotBase + 1], big) + FITProfile.epochOffset
            if local.isFinite, time.isFinite {
                let offset = (local - time).rounded()
                if abs(offset) <= 14 * 3600 { utcOffsetSeconds = Int(offset) }
            }
        default:
            break
        }
        return next
    }

    static func messageName(_ global: Int32) -> String {
        switch global {
        case 0: return "file_id"
        case 12: return "sport"
        case 18: return "session"
        case 19: return "lap"
        case 20: return "record"
        case 21: return "event"
        case 34: return "activity"
        case 101: return "length"
        default: return "message \(global)"
        }
    }

}
