import Foundation

/// ExifTool, the second reader of the metadata reencode writes (scripts/exiftool.sh installs
/// Debian's libimage-exiftool-perl where it is missing): nil, with the reason printed, only where
/// it cannot be installed (not root, no apt).
enum ExifTool {
    static let script = BatchFixture.repo.appendingPathComponent("scripts/exiftool.sh").path

    /// The file's tags as `Group:Name` → value (`-a -G1 -s -j`; `-n`: numbers as numbers).
    static func tags(_ file: String, suite: String, _ extra: [String] = []) throws -> [String: String]? {
        let r = try BatchFixture.daemonShell([script, "-j", "-a", "-G1", "-s"] + extra + [file])
        if r.status == 77 { print("\(suite) skipped: \(r.stderr)"); return nil }
        guard r.status == 0, let list = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]], let o = list.first else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "exiftool \(file): \(r.status) \(r.stderr)"])
        }
        var out: [String: String] = [:]
        for (k, v) in o where !k.hasPrefix("System:") && !k.hasPrefix("ExifTool:") && !k.hasPrefix("File:") && k != "SourceFile" { out[k] = "\(v)" }
        return out
    }

    /// The tags that tell where a file was made, by what device, for whom: GPS of any group
    /// (`GPSCoordinates`, Composite `GPSLatitude` …), location, make, model, serial numbers, owner.
    static func personal(_ tags: [String: String]) -> [String: String] {
        tags.filter { k, _ in
            let name = k.split(separator: ":").last.map { $0.lowercased() } ?? ""
            return name.hasPrefix("gps") || name.contains("location") || name == "make" || name == "model"
                || name.contains("serial") || name.contains("owner") || name == "author"
        }
    }
}
