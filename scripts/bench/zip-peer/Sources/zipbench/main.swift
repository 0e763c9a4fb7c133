import Foundation
import ZIPFoundation
// Reads every entry of a zip into memory with ZIPFoundation (what a run reader would need), prints total bytes.
let url = URL(fileURLWithPath: CommandLine.arguments[1])
let archive = try Archive(url: url, accessMode: .read)
var total = 0
var entries = 0
for entry in archive where entry.type == .file {
    var data = Data(capacity: Int(entry.uncompressedSize))
    _ = try archive.extract(entry, skipCRC32: false) { data.append($0) }
    total += data.count
    entries += 1
}
print(entries, total)
