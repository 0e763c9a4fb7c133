public struct RunDuplicate: Codable, Sendable, Equatable {
    public enum Reason: String, Codable, Sendable { case sameFile = "same file", sameActivity = "same activity" }
    public var id: String        // the run left out
    public var sameAs: String    // the run kept (JSON key "same_as")
    public var reason: Reason
}
