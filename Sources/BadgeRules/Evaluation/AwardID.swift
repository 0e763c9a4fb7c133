import Crypto
import Foundation

/// A stable id for an award, the same wherever and however often it is made: a retried shard of
/// `badgectl worker` writes the same ids, and editing a pack does not re-id the awards it still makes
/// (the pack's fingerprint is not part of it, only its name).
///
/// The id is the first 32 hex digits (128 bits) of SHA-256 over the pack name, the athlete, the
/// badge, the tier and the run id, each followed by a 0 byte (so that no two lists of fields run
/// together alike). When one athlete's evaluation makes the same award (pack, badge, tier, run)
/// more than once, the second is hashed with `occurrence` 2, and so on: ids stay unique and stable.
public enum AwardID {
    /// The id of `award` made for `athlete` (`occurrence`: 1 for the first such award).
    public static func make(pack: String, athlete: String, badge: String, tier: String, run: String, occurrence: Int = 1) -> String {
        var hasher = SHA256()
        for field in [pack, athlete, badge, tier, run] {
            hasher.update(data: Array(field.utf8))
            hasher.update(data: [0])
        }
        if occurrence > 1 { hasher.update(data: Array(String(occurrence).utf8)) }
        let digest = hasher.finalize()
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(32)
        for byte in digest.prefix(16) {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
