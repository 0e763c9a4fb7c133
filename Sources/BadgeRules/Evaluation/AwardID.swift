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
        // One buffer hashed at once: the worker makes an id per award line, and hashing each field
        // from an array of its own (ten small allocations) was 3 % of its work.
        var message: [UInt8] = []
        message.reserveCapacity(pack.utf8.count + athlete.utf8.count + badge.utf8.count + tier.utf8.count + run.utf8.count + 8)
        for field in [pack, athlete, badge, tier, run] {
            message.append(contentsOf: field.utf8)
            message.append(0)
        }
        if occurrence > 1 { message.append(contentsOf: String(occurrence).utf8) }
        return PackFingerprint.hex(SHA256.hash(data: message).prefix(16))
    }
}
