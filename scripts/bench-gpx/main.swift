// Throughput of GPXReader (+ RunAnalyzer.summarize) against Foundation's XMLParser, and an
// accuracy table against a reference.json. Built by scripts/bench-gpx.sh with -O -wmo together
// with Sources/Activities (so it can reach internal helpers); not part of the package.
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
#if canImport(Glibc)
import Glibc
#endif

final class EmptyDelegate: NSObject, XMLParserDelegate {}

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) * 1e-9
}

func best(_ runs: Int, _ body: () throws -> Void) rethrows -> Double {
    var b = Double.infinity
    for _ in 0..<runs {
        let t0 = now()
        try body()
        b = min(b, now() - t0)
    }
    return b
}

func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0
}

func maxRSSMegabytes() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

func bench(_ path: String, runs: Int) throws {
    let size = Double(fileSize(path))
    var points = 0
    var distance = 0.0
    let ours = try best(runs) {
        let track = try GPXReader.read(path: path)
        let summary = RunAnalyzer().summarize(track, id: path)
        points = track.count
        distance = summary.distanceMeters
    }
    let readOnly = try best(runs) { _ = try GPXReader.read(path: path) }
    let xml = best(max(1, runs / 3)) {
        let parser = XMLParser(contentsOf: URL(fileURLWithPath: path))!
        let delegate = EmptyDelegate()
        parser.delegate = delegate
        _ = parser.parse()
    }
    // The floor: read(2) in the same chunks and find every '<' with memchr, nothing else.
    var tags = 0
    let floor = try best(runs) {
        let reader = try ChunkedFileReader(path: path, chunkSize: GPXReader.defaultChunkSize)
        tags = 0
        var used = 0
        while let w = try reader.next(consumed: used) {
            var k = XMLBytes.find(XMLBytes.lessThan, in: w.bytes, from: 0, to: w.count)
            while k >= 0 {
                tags += 1
                k = XMLBytes.find(XMLBytes.lessThan, in: w.bytes, from: k + 1, to: w.count)
            }
            used = w.count
        }
    }
    let mb = size / 1e6
    print("file: \(path)")
    print(String(format: "  %.1f MB, %d points, %.0f bytes/point, distance %.1f m", mb, points, size / Double(max(points, 1)), distance))
    print(String(format: "  GPXReader.read + summarize: %8.1f ms  %7.1f MB/s", ours * 1000, mb / ours))
    print(String(format: "  GPXReader.read only:        %8.1f ms  %7.1f MB/s", readOnly * 1000, mb / readOnly))
    print(String(format: "  XMLParser, empty delegate:  %8.1f ms  %7.1f MB/s", xml * 1000, mb / xml))
    print(String(format: "  floor (read(2) + memchr '<', %d tags): %.1f ms  %.1f MB/s", tags, floor * 1000, mb / floor))
    print(String(format: "  ratio (read+summarize vs XMLParser): %.1fx", xml / ours))
}

func generate(points: Int, path: String, compact: Bool) throws {
    var g = RunGenerator(seed: 42, distanceMeters: Double(points) * 1000 / 330, paceSecondsPerKilometre: 330)
    if compact { g.style = .compact }
    try g.writeGPX(to: path)
}

func check(_ directory: String) throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: directory + "/reference.json"))
    guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
        let files = root["files"] as? [String: Any]
    else { print("no files in reference.json"); return }
    print("| file | points | ours m | gpxpy 2d m | diff | geographiclib m | elapsed s | last-first s | dropped |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name in files.keys.sorted() where name.hasSuffix(".gpx") {
        let entry = files[name] as? [String: Any]
        let peer = entry?["peer"] as? [String: Any]
        let gpxpy = peer?["gpxpy"] as? [String: Any]
        var refLength = gpxpy?["length_2d_m"] as? Double
        var geo = peer?["geographiclib_wgs84_geodesic_length_m"] as? Double
        if refLength == nil, let own = (entry?["own"] as? [String: Any])?["lenient_regex_extraction"] as? [String: Any] {
            refLength = (own["gpxpy_formulas_on_extracted_points"] as? [String: Any])?["length_2d_m"] as? Double
            geo = own["geographiclib_wgs84_geodesic_length_m"] as? Double
        }
        do {
            let track = try GPXReader.read(path: directory + "/" + name)
            let profile = RunAnalyzer.profile(of: track)
            let times = track.times.filter { $0.isFinite }
            let span = (times.last ?? .nan) - (times.first ?? .nan)
            let (elapsed, _, _) = RunAnalyzer.times(of: profile)
            let d = profile.totalDistance
            let diff = refLength.map { String(format: "%+.3f%%", (d - $0) / $0 * 100) } ?? "-"
            let dropped = profile.dropped.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
            print("| \(name) | \(profile.count) | \(String(format: "%.1f", d)) | \(refLength.map { String(format: "%.1f", $0) } ?? "-") | \(diff) | \(geo.map { String(format: "%.1f", $0) } ?? "-") | \(elapsed.map { String(format: "%.3f", $0) } ?? "nil") | \(span.isFinite ? String(format: "%.3f", span) : "nil") | \(dropped) |")
        } catch {
            print("| \(name) | error: \(error) |")
        }
    }
}

let args = Array(CommandLine.arguments.dropFirst())
do {
    switch args.first {
    case "generate":
        // generate POINTS PATH [compact]
        try generate(points: Int(args[1]) ?? 100_000, path: args[2], compact: args.count > 3)
    case "bench":
        for path in args.dropFirst() { try bench(path, runs: 15) }
    case "rss":
        // rss PATH: read (and summarise) once, print the peak resident set size
        let track = try GPXReader.read(path: args[1])
        print(String(format: "read %d points: max RSS %.1f MB", track.count, maxRSSMegabytes()))
        let s = RunAnalyzer().summarize(track, id: args[1])
        print(String(format: "after summarize (%.0f m): max RSS %.1f MB", s.distanceMeters, maxRSSMegabytes()))
    case "loop":
        // loop FILE N: read N times (for a profiler)
        for _ in 0..<(Int(args[2]) ?? 10) { _ = try GPXReader.read(path: args[1]) }
    case "check":
        try check(args[1])
    default:
        print("usage: bench-gpx generate POINTS PATH [compact] | bench FILE... | rss FILE | check REALDATA_DIR")
    }
} catch {
    print("error: \(error)")
    exit(1)
}
