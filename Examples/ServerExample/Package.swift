// swift-tools-version: 6.0
// What a Swift server does with BadgeKit when a runner's watch uploads a run: the run's points in
// memory -> a summary -> the badges it earns and the next ones. Depends on badgectl by path; CI builds
// and runs it (scripts/test). Linux and macOS: Lua 5.4 through pkg-config (liblua5.4-dev), GRDB.
import PackageDescription

let package = Package(
    name: "ServerExample",
    platforms: [.macOS(.v13)],
    dependencies: [.package(name: "badgectl", path: "../..")],
    targets: [
        .executableTarget(name: "ServerExample", dependencies: [.product(name: "BadgeKit", package: "badgectl")]),
    ]
)
