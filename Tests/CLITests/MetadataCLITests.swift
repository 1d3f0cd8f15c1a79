import Foundation
import Testing

/// A recipe's `metadata:` sets the file's metadata, read back by ffprobe and by ExifTool (a
/// second, independent reader); bad values are refused at their line, nothing written.
@Suite("Metadata: a recipe's metadata: written, read back by ffprobe and ExifTool, refused when malformed")
struct MetadataCLITests {
    static let items = """
        title: Harbour at dawn
            artist: Ana
            comment: take 3
            description: The harbour
            copyright: © 2024 Ana
            keywords: [harbour, dawn]
            creation-date: 2024-05-01T10:00:00+02:00
            location: +48.8577+002.2950/
        """

    /// A passthrough recipe writing `out` with `metadata` (indented under `metadata:`).
    static func recipe(_ dir: Scratch, out: String, metadata: String) throws -> String {
        let text = """
            recipe: 1
            output:
              path: \(out)
              metadata:
                \(metadata)
            reader: { outputs: { picture: { track: video, decode: false }, sound: { track: audio, decode: false, optional: true } } }
            writer: { inputs: [ { source: picture }, { source: sound } ] }
            """
        let path = dir.file("m.yaml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The file's tags as ffprobe reads them, keys in lower case (Matroska writes capitals).
    static func probed(_ f: String) throws -> [String: String] {
        Dictionary(try KeptCorpusTests.tags(f).map { ($0.key.lowercased(), $0.value) }) { a, _ in a }
    }

    static let exifGPS = ["Composite:GPSLatitude": "48 deg 51' 27.72\" N", "Composite:GPSLongitude": "2 deg 17' 42.00\" E"]
    /// What ExifTool reads, by the form each container holds the items in.
    static let exifITunes = ["ItemList:Title": "Harbour at dawn", "ItemList:Artist": "Ana", "ItemList:Comment": "take 3",
                             "ItemList:Description": "The harbour", "ItemList:Copyright": "© 2024 Ana", "ItemList:Keyword": "harbour, dawn",
                             "ItemList:ContentCreateDate": "2024:05:01 08:00:00Z", "QuickTime:CreateDate": "2024:05:01 08:00:00"].merging(exifGPS) { a, _ in a }
    static let exifKeys = ["Keys:Title": "Harbour at dawn", "Keys:Artist": "Ana", "Keys:Comment": "take 3", "Keys:Description": "The harbour",
                           "Keys:Copyright": "© 2024 Ana", "Keys:Keywords": "harbour, dawn", "Keys:CreationDate": "2024:05:01 08:00:00Z",
                           "QuickTime:CreateDate": "2024:05:01 08:00:00", "Keys:GPSCoordinates": "48 deg 51' 27.72\" N, 2 deg 17' 42.00\" E",
                           "Keys:ExampleProject": "Tides"].merging(exifGPS) { a, _ in a }
    static let exifMatroska = ["Matroska:Title": "Harbour at dawn", "Matroska:Artist": "Ana", "Matroska:Comment": "take 3",
                               "Matroska:Description": "The harbour", "Matroska:Copyright": "© 2024 Ana", "Matroska:Keywords": "harbour, dawn",
                               "Matroska:DateTimeOriginal": "2024:05:01 08:00:00Z", "Matroska:Location": "+48.8577+002.2950/",
                               "Matroska:Comexampleproject": "Tides"]

    @Test("every key is read back by ffprobe and ExifTool: MP4 as iTunes items, MP4 with a custom key and MOV as QuickTime keys, MKV as Matroska tags",
          arguments: [("mp4", false), ("mp4", true), ("mov", true), ("mkv", true)])
    func everyKey(ext: String, custom: Bool) throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src)
        let out = dir.file("out.\(ext)")
        let recipe = try Self.recipe(dir, out: out, metadata: Self.items + (custom ? "\n    custom: { com.example.project: Tides }" : ""))
        let r = try Binary.run(["run", recipe, "-i", src, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let tags = try Self.probed(out)
        for (k, v) in ["title": "Harbour at dawn", "artist": "Ana", "comment": "take 3", "description": "The harbour", "copyright": "© 2024 Ana",
                       "keywords": "harbour, dawn", "date": "2024-05-01T08:00:00Z", "location": "+48.8577+002.2950/"] {
            #expect(tags[k] == v, "\(ext): \(k) in \(tags)")
        }
        #expect(tags["creation_time"]?.hasPrefix("2024-05-01T08:00:00") == true, "\(tags)")
        #expect(tags["com.example.project"] == (custom ? "Tides" : nil))
        if ext != "mkv" && custom {
            // Also under the keys Apple's software reads.
            #expect(tags["com.apple.quicktime.title"] == "Harbour at dawn")
            #expect(tags["com.apple.quicktime.location.iso6709"] == "+48.8577+002.2950/")
            #expect(tags["com.apple.quicktime.creationdate"] == "2024-05-01T08:00:00Z")
        }
        guard let exif = try ExifTool.tags(out, suite: "MetadataCLITests") else { return }
        let want = ext == "mkv" ? Self.exifMatroska : custom ? Self.exifKeys : Self.exifITunes
        for (k, v) in want { #expect(exif[k] == v, "\(ext): \(k) in \(exif)") }
    }

    @Test("plan lists each item, where it comes from and what it is written as, in text and JSON")
    func planListing() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src)
        let recipe = try Self.recipe(dir, out: dir.file("out.mp4"), metadata: "keep: none\n    title: Harbour at dawn\n    location: +48.8577+002.2950/\n    creation-date: 2024-05-01")
        let r = try Binary.run(["plan", recipe, "-i", src])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let at = try #require(lines.firstIndex { $0.hasPrefix("metadata  ") })
        #expect(Array(lines[at...].prefix(6)) == [
            "metadata  keep none, 4 items",
            "  creation_time  2024-05-01T00:00:00Z     recipe → movie header creation time",
            "  date           2024-05-01T00:00:00Z     recipe → iTunes item ©day",
            "  location       +48.8577+002.2950/       recipe → 3GPP loci box",
            "  title          Harbour at dawn          recipe → iTunes item ©nam",
            "",
        ])
        let j = try Binary.run(["plan", recipe, "-i", src, "--json"])
        let o = try #require(BatchFixture.json(j.stdout))
        let m = try #require(o["metadata"] as? [String: Any])
        #expect(m["keep"] as? String == "none")
        let items = try #require(m["items"] as? [[String: String]])
        #expect(items.first == ["key": "creation_time", "value": "2024-05-01T00:00:00Z", "origin": "recipe", "writtenAs": "movie header creation time"])
        #expect(items.map { $0["key"] ?? "" } == ["creation_time", "date", "location", "title"])
    }

    @Test("a malformed value or an unknown key is refused at its line and column (65), nothing written",
          arguments: [
            ("creation-date: 2024-13-01", "5:20: error: 'creation-date' must be source, now or a date like 2024-05-01 or 2024-05-01T10:00:00Z (a time without a zone is UTC), not '2024-13-01'"),
            ("creation-date: 2023-02-29T10:00:00Z", "5:20: error: 'creation-date' must be source, now or a date like 2024-05-01 or 2024-05-01T10:00:00Z (a time without a zone is UTC), not '2023-02-29T10:00:00Z'"),
            ("location: +91.0000+002.2950/", "5:15: error: 'location' must be keep, remove or an ISO 6709 place like +48.8577+002.2950/ (latitude ±DD.D up to 90, longitude ±DDD.D up to 180, an optional altitude ±A.A, then /), not '+91.0000+002.2950/'"),
            ("location: Paris", "5:15: error: 'location' must be keep, remove or an ISO 6709 place like +48.8577+002.2950/ (latitude ±DD.D up to 90, longitude ±DDD.D up to 180, an optional altitude ±A.A, then /), not 'Paris'"),
            ("titel: Harbour", "5:5: error: unknown key 'titel' in metadata (did you mean 'title'?)"),
            ("title: [a, b]", "5:12: error: 'title' must be text, not a list"),
            ("keep: private", "5:11: error: 'keep' must be one of all, none, for-sharing, not 'private'"),
            ("custom: { encoder: me }", "5:15: error: 'encoder' is written by the writer itself and cannot be set"),
            ("custom: { com.example.n: { a: 1 } }", "5:30: error: custom key 'com.example.n' must be text, not a mapping"),
          ])
    func refused(line: String, error: String) throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src)
        let out = dir.file("out.mp4")
        let recipe = try Self.recipe(dir, out: out, metadata: line)
        let r = try Binary.run(["run", recipe, "-i", src, "--quiet"])
        #expect(r.status == 65)
        #expect(r.stderr.split(separator: "\n").first.map(String.init) == "\(recipe):\(error)")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}

/// `keep:` on the corpus files that carry a place (GPS) and a device: ExifTool finds none of it
/// in a `for-sharing` output; `none` leaves what the writer writes; `all` what is kept today.
@Suite("Metadata keep: on corpus files with GPS", .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
struct MetadataCorpusTests {
    static let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? ""
    static let withGPS = ["gpmf-parser/hero7.mp4", "nom-exif/meta.mov", "nom-exif/meta.mp4", "androidx-media/mp4_bt601.mov",
                          "mediabunny/no-correct-videoframe-format.mov"]

    @Test("keep: for-sharing leaves ExifTool no GPS, location, make or model, and keeps the rest", arguments: withGPS, ["mp4", "mov", "mkv"])
    func forSharing(file: String, ext: String) throws {
        let src = Self.corpus + "/" + file
        guard let before = try ExifTool.tags(src, suite: "MetadataCorpusTests") else { return }
        #expect(!ExifTool.personal(before).isEmpty, "\(file) carries a place")
        let dir = Scratch()
        let out = dir.file("out.\(ext)")
        let r = try Binary.run(["run", try MetadataCLITests.recipe(dir, out: out, metadata: "keep: for-sharing"), "-i", src, "--quiet"])
        #expect(r.status == 0, "\(r.stderr)")
        let after = try #require(try ExifTool.tags(out, suite: "MetadataCorpusTests"))
        #expect(ExifTool.personal(after).isEmpty, "\(file) → \(ext): \(ExifTool.personal(after))")
        let tags = try MetadataCLITests.probed(out)
        #expect(tags.keys.filter { $0.contains("location") || $0.hasSuffix("make") || $0.hasSuffix("model") }.isEmpty, "\(tags)")
        // What is not personal stays: the creation date, the software.
        let source = try MetadataCLITests.probed(src)
        for key in ["com.apple.quicktime.software", "com.apple.quicktime.creationdate"] where source[key] != nil {
            #expect(tags[key] == source[key], "\(key)")
        }
    }

    @Test("keep: none leaves only what the writer writes; keep: all what is kept without metadata:", arguments: ["mp4", "mov", "mkv"])
    func noneAndAll(ext: String) throws {
        let src = Self.corpus + "/nom-exif/meta.mov"
        let dir = Scratch()
        func run(_ metadata: String?, _ name: String) throws -> [String: String] {
            let out = dir.file("\(name).\(ext)")
            let recipe = try MetadataCLITests.recipe(dir, out: out, metadata: metadata ?? "{}")
            if metadata == nil {
                try String(decoding: FileManager.default.contents(atPath: recipe)!, as: UTF8.self)
                    .replacingOccurrences(of: "  metadata:\n    {}\n", with: "").write(toFile: recipe, atomically: true, encoding: .utf8)
            }
            let r = try Binary.run(["run", recipe, "-i", src, "--quiet"])
            #expect(r.status == 0, "\(r.stderr)")
            return try MetadataCLITests.probed(out)
        }
        let none = try run("keep: none", "none")
        #expect(Set(none.keys).isSubset(of: ["major_brand", "minor_version", "compatible_brands", "encoder"]), "\(none)")
        let kept = try run("keep: none\n    creation-date: source", "date")
        // An MP4 holds it as the iTunes item `date` (©day), a MOV and an MKV under its own key.
        let date = try #require(try MetadataCLITests.probed(src)["com.apple.quicktime.creationdate"])
        #expect(kept[ext == "mp4" ? "date" : "com.apple.quicktime.creationdate"] == date, "\(kept)")
        #expect(kept["com.apple.quicktime.make"] == nil)
        #expect(try run("keep: all", "all") == (try run(nil, "today")))
    }
}
