import BadgeCredentials
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `credentials issue --png`: each card rendered by a headless Chromium (or Chrome), the browser the
/// report's check already uses (scripts/browser-test.sh), then baked with its credential
/// (`BakedPNG`). badgectl has no SVG renderer of its own: a browser draws the card exactly as a
/// runner's browser shows the SVG, fonts included.
struct CardRenderer {
    /// The browser: `--browser PATH`, else the first of chromium, chromium-browser, google-chrome on PATH.
    let browser: String

    /// Finds the browser, or says which names were looked for.
    static func find(_ given: String?) throws -> CardRenderer {
        if let given {
            guard FileManager.default.isExecutableFile(atPath: given) else {
                throw CredentialError.io(path: given, reason: "--browser: not an executable file")
            }
            return CardRenderer(browser: given)
        }
        let names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":").map(String.init)
        for name in names {
            for folder in folders {
                let path = (folder as NSString).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: path) { return CardRenderer(browser: path) }
            }
        }
        throw CredentialError.io(path: "--png", reason: "no browser to render the cards: none of \(names.joined(separator: ", ")) on PATH (give --browser PATH)")
    }

    /// Renders the card at `svg` (240 x 300) into a PNG and returns its bytes.
    /// - Throws: `CredentialError.io` when the browser fails or writes nothing.
    func render(svg: String) throws -> [UInt8] {
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("badgectl-card-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let png = work.appendingPathComponent("card.png").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: browser)
        var arguments = ["--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--user-data-dir=\(work.path)/profile",
                         "--default-background-color=00000000", "--window-size=240,300", "--screenshot=\(png)",
                         URL(fileURLWithPath: svg).absoluteString]
        // Chromium refuses to run as root with its sandbox (CI runs as root).
        if getuid() == 0 { arguments.insert("--no-sandbox", at: 0) }
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { throw CredentialError.io(path: browser, reason: "cannot run the browser (\(error.localizedDescription))") }
        process.waitUntilExit()
        guard process.terminationStatus == 0, let data = FileManager.default.contents(atPath: png), BakedPNG.isPNG([UInt8](data.prefix(8))) else {
            throw CredentialError.io(path: svg, reason: "\(browser) did not render it (exit status \(process.terminationStatus))")
        }
        return [UInt8](data)
    }
}
