/// A run left out because another run is the same: the same file reached twice, or the same
/// activity kept as several files (`Duplicates`).
public struct RunDuplicate: Codable, Sendable, Equatable {
    public enum Reason: String, Codable, Sendable { case sameFile = "same file", sameActivity = "same activity" }
    public var id: String        // the run left out
    public var sameAs: String    // the run kept (JSON key "same_as")
    public var reason: Reason

    public init(id: String, sameAs: String, reason: Reason) {
        self.id = id; self.sameAs = sameAs; self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case id
        case sameAs = "same_as"
        case reason
    }
}
