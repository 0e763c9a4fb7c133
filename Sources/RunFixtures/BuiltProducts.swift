import Foundation

/// Where the package's built executables are, for tests that run them (the test targets depend on
/// `badgectl`, so it is built beside the test bundle).
public enum BuiltProducts {
    /// The built executable `name` (`badgectl`).
    public static func executable(_ name: String = "badgectl") -> URL {
        #if os(macOS)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name)
        }
        #endif
        return Bundle.main.bundleURL.appendingPathComponent(name)
    }
}
