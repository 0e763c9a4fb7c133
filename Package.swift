// swift-tools-version: 6.0
import Foundation
import PackageDescription

/// BADGECTL_UBSAN=1 also puts the C shim under UndefinedBehaviorSanitizer (the toolchain refuses
/// UBSan for Swift code). Only together with `--sanitize=address`, whose runtime carries the UBSan
/// handlers; scripts/test does both when CI=true. Any undefined behaviour aborts the test run.
let ubsanShim = ProcessInfo.processInfo.environment["BADGECTL_UBSAN"].map { !$0.isEmpty && $0 != "0" } ?? false

let package = Package(
    name: "badgectl",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "badgectl", targets: ["badgectl"]),
        // The file readers alone, for the fuzz targets (Fuzz/Package.swift depends on it by path).
        .library(name: "RunFiles", targets: ["RunFiles"]),
        // The commands as a library, for the fuzz targets: they call its `Entrances`, the functions
        // the commands call for a run file, the worker's lines, a saved state and a pack.
        .library(name: "BadgeCommands", targets: ["BadgeCommands"]),
        // badgectl as a library for Swift servers and apps (Linux and macOS: Lua through pkg-config, GRDB).
        .library(name: "BadgeKit", targets: ["BadgeKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The run-summary cache's SQLite access. GRDB links the system libsqlite3 (libsqlite3-dev).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // SHA-256 for the packs' content fingerprints (BoringSSL's, through swift-crypto on Linux).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // Lua 5.4 from Debian's liblua5.4-dev, found with pkg-config. Never vendored.
        .systemLibrary(
            name: "CLua",
            pkgConfig: "lua5.4",
            providers: [.apt(["liblua5.4-dev"])]
        ),
        // The C for Lua, one file per concern: sandbox.c (capped allocator, count hook),
        // call.c (pcall, message handler, trampolines that raise Lua errors from C only),
        // pairs.c (deterministic pairs), proxies.c (runs, the catalogue), records.c (light records);
        // macros as static inline. It spells no field name: Swift hands every kind in.
        .target(
            name: "CLuaShims",
            dependencies: ["CLua"],
            cSettings: ubsanShim ? [.unsafeFlags(["-fsanitize=undefined", "-fno-sanitize-recover=undefined"])] : []
        ),
        // Where a new thread starts (RunFiles' split GPX read): the GNU affinity calls Swift's Glibc
        // module does not import, one prefixed wrapper each (include/CThreadShims.h says why).
        .target(name: "CThreadShims"),
        // zlib for .gz run files.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // The pipeline of a run, one module per stage (pure Swift, none knows anything of Lua):
        // RunFiles reads a file into a Track (or a JSON summary): the run model (RunSummary, Track,
        // Sport, Timestamps, Geodesy, units, the measures' values and their fields with units and docs),
        // one folder per format (GPX, TCX, FIT, JSON) and the
        // shared byte scanning, number parsing, chunked reading, gzip and content hash. Links
        // neither GRDB nor anything of the rules, so fuzz targets and libraries can build on it alone.
        .target(name: "RunFiles", dependencies: ["CZlib", "CThreadShims"]),
        // RunAnalysis turns a Track into a RunSummary: cleaning (the Profile), splits, efforts,
        // checkpoints, elevation, sensors, the drawn route, the measures (Measures/: what a pack may
        // declare, MeasureKind and MeasureDefinition, the athlete profile some kinds need, and their computation).
        // The age-grading tables (AgeGrade/*.csv, CC0) are embedded as published, parsed once when used.
        .target(
            name: "RunAnalysis",
            dependencies: ["RunFiles"],
            exclude: ["AgeGrade/LICENSE.md"],
            resources: [
                .embedInCode("AgeGrade/MaleRoadStd2025.csv"), .embedInCode("AgeGrade/FemaleRoadStd2025.csv"),
                .embedInCode("AgeGrade/MaleRoadStd2020.csv"), .embedInCode("AgeGrade/FemaleRoadStd2020.csv"),
            ]
        ),
        // RunLibrary: a folder of runs (or given files): RunLoader (a file through its reader and the
        // analyzer; what a folder holds, `RunLoader.discover`), parallel reading, the summary cache
        // (GRDB, as the rules host's saved state does), Strava exports, duplicates and the sport and plausibility
        // rules (RunSelection, applied by BadgePipeline's RunPipeline.select).
        .target(
            name: "RunLibrary",
            dependencies: ["RunFiles", "RunAnalysis", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        // SyntheticRuns: made-up runs for `badgectl generate`, what-if (BadgePipeline's WhatIf) and
        // the tests: the run generator (RunGenerator) with its GPX and JSON summary text, the FIT
        // writer (`generate` writes .fit runs), the league population (`generate --league`) and the
        // one random source (SplitMix64).
        .target(name: "SyntheticRuns", dependencies: ["RunFiles"]),
        // RunFixtures: what only tests and benchmarks need (no shipped product links it): the TCX,
        // zip, Apple Health and device-log writers, where the built badgectl is, and the helpers of
        // every test target (the repository root, TemporaryFolder, ChildProcess).
        .target(name: "RunFixtures", dependencies: ["RunFiles", "SyntheticRuns", "CZlib"]),
        // The rules host, one type per job: the Lua state (LuaState.swift, the only importer of the C
        // modules), pack reading, rule loading, the rule runner, the one host-function dispatch, fold
        // state (the state database `state.sqlite` through GRDB), `badgectl test` (whose run files
        // RunLibrary's RunLoader reads); RuleEngine is its entry.
        // The preludes are real .lua files, embedded at build time (PackageResources.<name>_lua).
        .target(
            name: "BadgeRules",
            dependencies: ["RunFiles", "RunAnalysis", "RunLibrary", "CLua", "CLuaShims", .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "GRDB", package: "GRDB.swift")],
            resources: [.embedInCode("Lua/prelude.lua"), .embedInCode("Lua/test_prelude.lua")]
        ),
        // BadgePipeline: the one way runs reach the rules (`RunPipeline`): read from any source (a
        // folder, files, bytes, an app's track, a JSON summary) through the cache with the one analyzer,
        // localise, select (sport, plausibility, duplicates, as-of: `RunPipeline.select`) and hand on to
        // the rules in one place, `AthleteEvaluator` (an athlete's runs, fresh, in one reused Lua state or
        // through a saved state), or to a what-if. Every command, the worker and BadgeKit call it.
        // BadgeExplanation: one badge explained (`badgectl explain`, BadgeKit's `explain`).
        // Worker/: the worker's stream engine (lines in, grouped by athlete, evaluated; header, award,
        // status and error lines out, each written one way), for `badgectl worker`, `league` and
        // BadgeKit's `WorkerStream`; it prints nothing itself (the command says its errors on stderr).
        // SyntheticRuns: the generator makes what-if runs (WhatIf.swift), so the rules host need not.
        .target(name: "BadgePipeline", dependencies: ["RunFiles", "RunAnalysis", "RunLibrary", "SyntheticRuns", "BadgeRules"]),
        // BadgeLeague: the cross-athlete stage (`League`, docs/league.md): each evaluated athlete's
        // facts (LeagueFacts), sorted by group in bounded memory (FactsSorter), reduced to crowns,
        // leaderboards, Local Legends, club challenges, rarity and the packs' league.lua awards.
        // `badgectl league` and BadgeKit's `BadgeEngine.league` run it over what the pipeline evaluated.
        .target(name: "BadgeLeague", dependencies: ["RunFiles", "RunAnalysis", "BadgeRules"]),
        // swift-argument-parser commands and output formatting, over BadgePipeline.
        .target(
            name: "BadgeCommands",
            dependencies: [
                "RunFiles", "RunAnalysis", "RunLibrary", "SyntheticRuns", "BadgeRules", "BadgePipeline", "BadgeLeague", "BadgeReport",
                "BadgeCredentials", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The HTML report: badge wall and speed-coloured routes. Depends on RunFiles only (no rules).
        .target(name: "BadgeReport", dependencies: ["RunFiles"]),
        // BadgeCredentials: Open Badges 3.0 credentials for awards (issue #50), from BadgeRules' `Award`s
        // and the runs (`CredentialIssuer`: the one way to issue, for the command and a library): JCS (RFC 8785), the
        // eddsa-jcs-2022 Data Integrity proof, did:key, VC-JWT and the baked SVG card (the report's
        // medallion), the Bitstring Status List (GZIP: RunFiles' Gzip). The VC 2.0 and OB 3.0 JSON-LD
        // contexts are embedded, so nothing is fetched.
        .target(
            name: "BadgeCredentials",
            dependencies: ["RunFiles", "BadgeRules", "BadgeReport", .product(name: "Crypto", package: "swift-crypto")],
            exclude: ["Contexts/LICENSE-w3c.md"],
            resources: [.embedInCode("Contexts/credentials-v2.jsonld"), .embedInCode("Contexts/ob-v3p0-context-3.0.3.json")]
        ),
        // BadgeKit: the library's deliberate public API over BadgePipeline and BadgeLeague (no
        // ArgumentParser, no `@_exported import`): BadgeEngine (read runs, evaluate, state + add,
        // what-if, explain, league, credentials, the worker's stream), RunSamples, BadgeKitError, and the lower modules' types its API
        // speaks in, named by typealias (Vocabulary.swift); the DocC catalogue BadgeKit.docc. The same
        // runs earn the same awards as through the command line.
        .target(name: "BadgeKit", dependencies: ["RunFiles", "RunAnalysis", "RunLibrary", "BadgeRules", "BadgePipeline", "BadgeLeague", "BadgeCredentials"]),
        .executableTarget(name: "badgectl", dependencies: ["BadgeCommands"]),
        // The library example (Examples/ServerExample, also a package of its own for an app to copy),
        // built here too so that scripts/test builds and runs it in the one debug tree.
        .executableTarget(name: "ServerExample", dependencies: ["BadgeKit"], path: "Examples/ServerExample/Sources/ServerExample"),
        // Benchmarks (scripts/bench.sh builds it with -c release). Not part of `swift test`.
        .executableTarget(name: "BadgeBench", dependencies: ["RunFiles", "RunAnalysis", "RunLibrary", "RunFixtures", "SyntheticRuns", "BadgeRules"]),
        // BadgeKit as a client sees it (`import BadgeKit` and test fixtures), and one look below the
        // face (WhatIfMeasuresTests, through BadgePipeline); the worker stream against the built badgectl.
        .testTarget(name: "BadgeKitTests", dependencies: ["BadgeKit", "badgectl", "BadgePipeline", "RunFixtures", "SyntheticRuns"]),
        // Every entry point gives the same awards: random histories through `evaluate`, BadgeKit, the
        // worker, `evaluate --state` + `add` and `--as-of` (the built binary and the library).
        .testTarget(name: "EntryPointsTests", dependencies: ["BadgeKit", "badgectl", "RunFiles", "RunFixtures", "SyntheticRuns"]),
        .testTarget(name: "RunFilesTests", dependencies: ["RunFiles", "RunAnalysis", "RunLibrary", "RunFixtures", "SyntheticRuns"]),
        .testTarget(name: "RunAnalysisTests", dependencies: ["RunAnalysis", "RunFiles", "RunFixtures", "SyntheticRuns"]),
        .testTarget(
            name: "RunLibraryTests",
            dependencies: ["RunLibrary", "RunAnalysis", "RunFiles", "RunFixtures", "SyntheticRuns", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(name: "BadgeCredentialsTests", dependencies: ["BadgeCredentials", "BadgeKit", "badgectl", "RunFixtures", .product(name: "Crypto", package: "swift-crypto")], exclude: ["Fixtures"]),
        // The generator's tests, and the TCX writer's round trip (RunFixtures), checked as the generator's GPX is.
        .testTarget(name: "SyntheticRunsTests", dependencies: ["SyntheticRuns", "RunFixtures", "RunAnalysis", "RunFiles"]),
        .testTarget(name: "BadgeRulesTests", dependencies: ["BadgeRules", "RunFiles", "RunAnalysis", "RunLibrary", "SyntheticRuns", "RunFixtures", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "BadgePipelineTests", dependencies: ["BadgePipeline", "BadgeRules", "RunFiles", "RunAnalysis", "SyntheticRuns", "RunFixtures"]),
        .testTarget(name: "BadgeLeagueTests", dependencies: ["BadgeLeague"]),
        .testTarget(name: "BadgeReportTests", dependencies: ["BadgeReport", "RunFiles", "RunAnalysis", "RunLibrary", "RunFixtures"]),
        .testTarget(
            name: "BadgeCommandsTests",
            dependencies: ["BadgeCommands", "badgectl", .product(name: "ArgumentParser", package: "swift-argument-parser"), "BadgePipeline", "RunAnalysis", "RunLibrary", "RunFixtures", "SyntheticRuns", .product(name: "GRDB", package: "GRDB.swift")],
            exclude: ["Golden", "Snapshots"]
        ),
    ]
)
