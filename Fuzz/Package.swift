// swift-tools-version: 6.0
// libFuzzer targets, one per entrance a user takes (run files by name, worker lines, a saved state,
// a pack): each calls `Entrances` in BadgeCommands, the functions the commands themselves call.
//
// A package of its own (depending on badgectl's by path) so that the root package's
// `swift build` / `swift test` never see a target without a `main`: a fuzz target's `main` is
// libFuzzer's, linked in only by `--sanitize=fuzzer`. Build and run them with scripts/fuzz.
import PackageDescription

let targets = ["FuzzGPX", "FuzzTCX", "FuzzFIT", "FuzzJSON", "FuzzGzip", "FuzzZip", "FuzzWorker", "FuzzState", "FuzzPack"]

let package = Package(
    name: "badgectl-fuzz",
    platforms: [.macOS(.v13)],
    products: targets.map { .executable(name: $0, targets: [$0]) },
    dependencies: [.package(name: "badgectl", path: "..")],
    targets: targets.map {
        .executableTarget(
            name: $0,
            dependencies: [.product(name: "BadgeCommands", package: "badgectl"), .product(name: "RunFiles", package: "badgectl")],
            // No top-level code: LLVMFuzzerTestOneInput is the entry point, libFuzzer has the main.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    }
)
