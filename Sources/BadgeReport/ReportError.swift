/// Why a report could not be rendered. `description` names the file and what is wrong.
public enum ReportError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The images folder given does not exist or is not a folder.
    case imagesDirectoryNotFound(path: String)
    /// A badge image exists but could not be read.
    case imageUnreadable(path: String, reason: String)
    /// A badge image is larger than `HTMLReport.maxImageBytes`, too big to embed in one HTML file.
    case imageTooLarge(path: String, bytes: Int)
    /// A badge image (`path`, a link in the images folder `folder`) leads outside that folder:
    /// refused unread, so nothing outside the folder given ends up in the page.
    case imageOutsideFolder(path: String, folder: String)
    /// The report file could not be written.
    case unwritable(path: String, reason: String)
    /// The league file (`--league`) could not be read.
    case leagueUnreadable(path: String, reason: String)
    /// A line of the league file is not one of `badgectl league`'s JSON lines.
    case leagueLine(path: String, line: Int, reason: String)

    static let notLeagueLine = "not a JSON object with a string \"kind\" (write it with badgectl league, format json)"
    static let rarityFields = "a rarity line needs string \"badge\" and \"tier\" and numbers \"holders\" and \"athletes\" (more than 0)"

    public var description: String {
        switch self {
        case .imagesDirectoryNotFound(let path):
            return "\(path): images folder not found (or not a folder)"
        case .imageUnreadable(let path, let reason):
            return "\(path): cannot read badge image: \(reason)"
        case .imageTooLarge(let path, let bytes):
            return "\(path): badge image is \(bytes) bytes, more than \(HTMLReport.maxImageBytes) bytes; shrink it to embed it in the report"
        case .imageOutsideFolder(let path, let folder):
            return "\(path): a link leading outside the images folder \(folder): refused (badge images are read only inside --images)"
        case .unwritable(let path, let reason):
            return "\(path): cannot write the report: \(reason)"
        case .leagueUnreadable(let path, let reason):
            return "\(path): cannot read the league lines: \(reason)"
        case .leagueLine(let path, let line, let reason):
            return "\(path):\(line): \(reason)"
        }
    }
}
