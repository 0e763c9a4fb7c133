// swift-tools-version: 6.0
// libFuzzer targets, one per entrance a user takes (run files by name, archives, worker lines, a saved
// state, a pack): each calls `Entrances` in BadgeCommands, the functions the commands themselves call.
// They are one executable (`BadgeFuzz`, the target chosen by BADGECTL_FUZZ_TARGET), so that one build
// and one link serve them all.
//
// A package of its own (depending on badgectl's by path) so that the root package's
// `swift build` / `swift test` never see a target without a `main`: a fuzz target's `main` is
// libFuzzer's, linked in only by `--sanitize=fuzzer`. Build and run them with scripts/fuzz.
import PackageDescription

let package = Package(
    name: "badgectl-fuzz",
    platforms: [.macOS(.v13)],
    products: [.executable(name: "BadgeFuzz", targets: ["BadgeFuzz"])],
    dependencies: [.package(name: "badgectl", path: "..")],
    targets: [
        .executableTarget(
            name: "BadgeFuzz",
            dependencies: [.product(name: "BadgeCommands", package: "badgectl"), .product(name: "RunFiles", package: "badgectl")],
            // No top-level code: LLVMFuzzerTestOneInput is the entry point, libFuzzer has the main.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    ]
)
