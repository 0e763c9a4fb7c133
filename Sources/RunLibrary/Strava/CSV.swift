import RunFiles

/// RFC 4180 CSV: comma-separated fields, CRLF or LF line ends, fields in double quotes may hold
/// commas, quotes (doubled) and line breaks. A UTF-8 BOM is skipped. A quote inside an unquoted
/// field is kept as text (lenient, as spreadsheet exports need); an unterminated quoted field is
/// an error naming the line where it opened.
public enum CSV {
    /// A record and the 1-based line it starts on.
    public struct Row: Sendable, Equatable {
        public var fields: [String]
        public var line: Int
    }

    public static func parse(_ bytes: [UInt8], source: String) throws -> [Row] {
        var rows: [Row] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var i = 0
        let n = bytes.count
        if n >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        var line = 1
        var rowLine = 1
        var atFieldStart = true
        var rowHasContent = false

        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
            atFieldStart = true
        }
        func endRow() {
            endField()
            // A blank line is no record.
            if rowHasContent || fields.count > 1 { rows.append(Row(fields: fields, line: rowLine)) }
            fields = []
            rowHasContent = false
        }

        while i < n {
            let c = bytes[i]
            if atFieldStart && c == 0x22 {
                // Quoted field.
                let openLine = line
                i += 1
                var closed = false
                while i < n {
                    let q = bytes[i]
                    if q == 0x22 {
                        if i + 1 < n, bytes[i + 1] == 0x22 {
                            field.append(0x22)
                            i += 2
                            continue
                        }
                        i += 1
                        closed = true
                        break
                    }
                    if q == 0x0A { line += 1 }
                    field.append(q)
                    i += 1
                }
                guard closed else {
                    throw ActivityError.malformed(
                        path: source, line: openLine, offset: nil, reason: "a quoted field opened on this line is never closed")
                }
                atFieldStart = false
                rowHasContent = true
                continue
            }
            switch c {
            case 0x2C:
                endField()
                rowHasContent = true
            case 0x0D where i + 1 < n && bytes[i + 1] == 0x0A:
                i += 1
                line += 1
                endRow()
                rowLine = line
            case 0x0A:
                line += 1
                endRow()
                rowLine = line
            default:
                field.append(c)
                atFieldStart = false
                rowHasContent = true
            }
            i += 1
        }
        if rowHasContent || !field.isEmpty || !fields.isEmpty { endRow() }
        return rows
    }
}
