import BadgeReport
import BadgeRules
import Foundation

/// `badgectl test --format junit`: JUnit XML (one `<testsuite>` per pack, one `<testcase>` per test),
/// the format CI systems read. Every text is escaped; control characters XML 1.0 forbids are dropped.
enum JUnitReport {
    static func xml(_ reports: [PackTestReport]) -> String {
        let tests = reports.reduce(0) { $0 + $1.results.count }
        let failures = reports.reduce(0) { $0 + $1.failed }
        let skipped = reports.reduce(0) { $0 + $1.skipped }
        var out = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>"]
        out.append("<testsuites name=\"badgectl test\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" skipped=\"\(skipped)\">")
        for report in reports {
            out.append("  <testsuite name=\"\(escape(report.pack))\" tests=\"\(report.results.count)\" failures=\"\(report.failed)\" errors=\"0\" skipped=\"\(report.skipped)\">")
            for result in report.results {
                let attributes = "classname=\"\(escape(report.pack))\" name=\"\(escape(result.name))\" file=\"\(escape(result.file))\"" + (result.line.map { " line=\"\($0)\"" } ?? "")
                switch result.outcome {
                case .passed:
                    out.append("    <testcase \(attributes)/>")
                case .skipped:
                    out.append("    <testcase \(attributes)><skipped/></testcase>")
                case .failed:
                    out.append("    <testcase \(attributes)>")
                    for failure in result.failures {
                        var body = "\(failure.place): \(failure.message)"
                        if let expected = failure.expected { body += "\nexpected: \(expected)" }
                        if let got = failure.got { body += "\ngot: \(got)" }
                        if let traceback = failure.traceback { body += "\n\(traceback)" }
                        out.append("      <failure message=\"\(escape(failure.description))\">\(escape(body))</failure>")
                    }
                    out.append("    </testcase>")
                }
            }
            out.append("  </testsuite>")
        }
        out.append("</testsuites>")
        return out.joined(separator: "\n")
    }

    /// Escapes `& < > " '` and drops characters XML 1.0 cannot hold (C0 controls but tab, LF, CR).
    static func escape(_ text: String) -> String {
        ReportFormat.escape(text, apostrophe: "&apos;", droppingInvalidXML: true)
    }
}
