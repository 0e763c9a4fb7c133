import Foundation

/// Open Badges 3.0 baking for PNG (section 5.3.1): an `iTXt` chunk with the keyword
/// `openbadgecredential`, uncompressed, no language tag, holding the credential (its JSON with the
/// embedded proof, or a VC-JWT), placed before `IEND`; one such chunk at most.
public enum BakedPNG {
    public static let keyword = "openbadgecredential"
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Whether `bytes` start like a PNG.
    public static func isPNG(_ bytes: [UInt8]) -> Bool { bytes.count >= 8 && Array(bytes.prefix(8)) == signature }

    /// `png` with `credential` baked in (an `openbadgecredential` chunk already there is replaced).
    /// - Throws: `CredentialError.badCard` when `png` is not a whole PNG.
    public static func bake(_ png: [UInt8], credential: String) throws -> [UInt8] {
        var out = signature
        var sawEnd = false
        for chunk in try chunks(png) {
            if chunk.type == "iTXt", isCredential(chunk.data) { continue }
            if chunk.type == "IEND" {
                let text = Array(keyword.utf8) + [0, 0, 0, 0, 0] + Array(credential.utf8)  // keyword, NUL, flag, method, language NUL, translated NUL
                out += encode(type: "iTXt", data: text)
                sawEnd = true
            }
            out += encode(type: chunk.type, data: chunk.data)
        }
        guard sawEnd else { throw CredentialError.badCard(reason: "the PNG has no IEND chunk") }
        return out
    }

    /// The credential baked in `png`.
    /// - Throws: `CredentialError.badCard` when it is not a PNG or holds no uncompressed `openbadgecredential` chunk.
    public static func credential(in png: [UInt8]) throws -> String {
        for chunk in try chunks(png) where chunk.type == "iTXt" && isCredential(chunk.data) {
            let rest = chunk.data.dropFirst(keyword.utf8.count + 1)
            guard rest.count >= 2, rest[rest.startIndex] == 0 else {
                throw CredentialError.badCard(reason: "the openbadgecredential chunk is compressed (badgectl reads it uncompressed)")
            }
            var fields = rest.dropFirst(2).split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { throw CredentialError.badCard(reason: "the openbadgecredential chunk is not iTXt") }
            let text = fields.removeLast()
            guard let credential = String(validatingUTF8CString: ArraySlice(text)) else {
                throw CredentialError.badCard(reason: "the openbadgecredential chunk is not UTF-8")
            }
            return credential
        }
        throw CredentialError.badCard(reason: "no iTXt chunk 'openbadgecredential' (Open Badges 3.0 PNG baking)")
    }

    static func isCredential(_ data: [UInt8]) -> Bool {
        let name = Array(keyword.utf8)
        return data.count > name.count && Array(data.prefix(name.count)) == name && data[name.count] == 0
    }

    static func chunks(_ png: [UInt8]) throws -> [(type: String, data: [UInt8])] {
        guard isPNG(png) else { throw CredentialError.badCard(reason: "not a PNG (its first 8 bytes are not PNG's signature)") }
        var result: [(type: String, data: [UInt8])] = []
        var offset = 8
        while offset < png.count {
            guard offset + 12 <= png.count else { throw CredentialError.badCard(reason: "a chunk at byte \(offset) is cut short") }
            let length = Int(png[offset]) << 24 | Int(png[offset + 1]) << 16 | Int(png[offset + 2]) << 8 | Int(png[offset + 3])
            guard length <= png.count - offset - 12 else { throw CredentialError.badCard(reason: "a chunk at byte \(offset) runs past the end") }
            let type = String(decoding: png[offset + 4..<offset + 8], as: UTF8.self)
            let data = Array(png[offset + 8..<offset + 8 + length])
            let stored = png[offset + 8 + length..<offset + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard stored == crc32(Array(png[offset + 4..<offset + 8 + length])) else {
                throw CredentialError.badCard(reason: "the \(type) chunk at byte \(offset) fails its CRC")
            }
            result.append((type, data))
            offset += 12 + length
            if type == "IEND" { break }
        }
        return result
    }

    static func encode(type: String, data: [UInt8]) -> [UInt8] {
        let length = UInt32(data.count)
        let body = Array(type.utf8) + data
        let crc = crc32(body)
        return [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)] + body
            + [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
    }

    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 as PNG computes it (ISO 3309; the same as zlib's), over a chunk's type and data.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
