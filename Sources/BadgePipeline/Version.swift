/// badgectl's version: what `badgectl --version` prints and the `badgectl` field of `evaluate`'s
/// header and the worker's (BadgeKit's worker stream writes the same header).
package enum Version {
    package static let badgectl = "0.1.0"
}
