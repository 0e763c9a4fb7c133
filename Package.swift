// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "badgectl",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "badgectl", targets: ["badgectl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The run-summary cache's SQLite access. GRDB links the system libsqlite3 (libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        // Lua 5.4 from Debian's liblua5.4-dev, found with pkg-config. Never vendored.
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        // The only C we write, one file per concern: sandbox.c (capped allocator, count hook),
        // call.c (pcall, message handler, trampolines that raise Lua errors from C only),
        // pairs.c (deterministic pairs), proxies.c (runs, the catalogue), records.c (light records);
        // macros as static inline. It spells no field name: Swift hands every kind in.
        .target(name: "CLuaShims", dependencies: ["CLua"]),
        // zlib for .gz run files.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Pure Swift: readers, geodesy, run summaries and analytics (and the summary cache, on GRDB).
        // Knows nothing of Lua.
        .target(
            name: "Activities",
            dependencies: ["CZlib", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // Lua sandbox, rule packs, catalogue, evaluator. Only LuaState.swift imports the C modules.
        // The preludes are real .lua files, embedded at build time (PackageResources.<name>_lua).
        .target(
            name: "BadgeRules",
            dependencies: ["Activities", "CLua", "CLuaShims"],
            resources: [.embedInCode("Lua/prelude.lua"), .embedInCode("Lua/test_prelude.lua")]
        ),
        // swift-argument-parser commands and output formatting.
        .target(
            name: "BadgeCommands",
            dependencies: [
                "Activities", "BadgeRules", "BadgeReport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The HTML report: badge wall and speed-coloured routes. Depends on Activities only.
        .target(name: "BadgeReport", dependencies: ["Activities"]),
        .executableTarget(name: "badgectl", dependencies: ["BadgeCommands"]),
        // Benchmarks (scripts/bench.sh builds it with -c release). Not part of `swift test`.
        .executableTarget(name: "BadgeBench", dependencies: ["Activities", "BadgeRules"]),
        .testTarget(
            name: "ActivitiesTests",
            dependencies: ["Activities", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(name: "BadgeRulesTests", dependencies: ["BadgeRules", "Activities"]),
        .testTarget(name: "BadgeReportTests", dependencies: ["BadgeReport", "Activities"]),
        .testTarget(name: "BadgeCommandsTests", dependencies: ["BadgeCommands", "badgectl"], exclude: ["Golden"]),
    ]
)
