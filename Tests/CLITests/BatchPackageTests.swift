import Foundation
import Pipeline
import Recipe
import Testing

private typealias F = BatchFixture

/// `reencode batch` with a recipe whose output is a streaming package: the folder is one
/// output, made whole in the output folder's mirror of the source's, exactly once per source.
@Suite("reencode batch: an HLS package per source, one output each", .serialized)
struct BatchPackageTests {
    /// A ladder (a 160x120 source is smaller than the smallest rung: one rung at its size) and the sound.
    static let recipe = """
        recipe: 1
        reader: { outputs: { v: { track: video }, a: { track: audio } } }
        outputs:
          - path: "{dir}/{stem}-hls"
            format: hls
            segment: 1s
            renditions:
              - ladder: auto
                inputs: [ { source: v, settings: { codec: h264, codec-options: { preset: ultrafast } } } ]
              - { name: snd, inputs: [ { source: a, settings: { codec: aac, bitrate: 64k } } ] }
        """

    /// 160x120 fitted to 416x234 is 312x234 (73008 pixels): 145 kb/s · 19200 / 73008 = 38 kb/s.
    static let rung = "120p-38k"

    /// A package's files, relative to the output folder.
    static func package(_ stem: String) -> [String] {
        (["master.m3u8"] + [rung, "snd"].flatMap { r in ["init.mp4", "playlist.m3u8", "seg-1.m4s", "seg-2.m4s"].map { "\(r)/\($0)" } })
            .map { "\(stem)-hls/\($0)" }
    }

    /// Every regular file under `dir` but the batch's state, relative, sorted.
    func files(_ dir: String) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: dir) else { return [] }
        var found: [String] = []
        while let rel = e.nextObject() as? String {
            if rel == ".reencode" { e.skipDescendants(); continue }
            var st = stat()
            if lstat(dir + "/" + rel, &st) == 0, st.st_mode & S_IFMT == S_IFREG { found.append(rel) }
        }
        return found.sorted()
    }

    func batch(_ dir: Scratch) throws -> [String: Any] {
        let r = try Binary.run(["batch", dir.file("r.yaml"), "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--settle", "0", "--json"],
                               timeLimit: 300, environment: ["REENCODE_HOSTNAME": "host-a"])
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        return try #require(F.json(r.stdout), "\(r.stdout) \(r.stderr)")
    }

    @Test("two sources: each gets its package folder whole in the output folder (nothing beside the source), listed once in the ledger; a second run converts nothing")
    func oncePerSource() throws {
        let dir = Scratch()
        try F.folder(dir.file("in"), ["a.mp4", "day1/b.mp4"], seconds: 2)
        try Self.recipe.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let first = try batch(dir)
        #expect((first["converted"] as? [String])?.sorted() == ["a.mp4", "day1/b.mp4"], "\(first)")
        #expect(files(dir.file("out")) == (Self.package("a") + Self.package("day1/b")).sorted())
        #expect(files(dir.file("in")) == ["a.mp4", "day1/b.mp4"])
        for stem in ["a", "day1/b"] {
            // Whole: ffmpeg reads the master playlist to the end, all 60 pictures at the source's size
            // (its stream listed under the variant's program too).
            let master = dir.file("out/\(stem)-hls/master.m3u8")
            let read = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                                  "-show_entries", "stream=width,height,nb_read_frames", "-of", "csv=p=0", master])
            #expect(read.status == 0 && Set(read.stdout.split(separator: "\n")) == ["160,120,60"] && read.stderr.isEmpty, "\(stem): \(read.stdout) \(read.stderr)")
            let variants = try WrittenPackage(folder: dir.file("out/\(stem)-hls")).variants()
            #expect(variants.map(\.uri) == ["\(Self.rung)/playlist.m3u8"] && variants.first?.attributes["RESOLUTION"] == "160x120")
        }
        let entries = F.ledger(dir.file("out"))
        for (source, stem) in [("a.mp4", "a"), ("day1/b.mp4", "day1/b")] {
            let mine = entries.filter { $0.source == source }
            #expect(mine.map(\.status) == [.started, .done], "\(mine)")
            #expect(mine.allSatisfy { $0.output == "\(stem)-hls" && $0.outputs?.map(\.path) == ["\(stem)-hls"] }, "\(mine.map { "\($0.output ?? "-") \($0.outputs?.map(\.path) ?? [])" })")
        }
        let journal = try String(contentsOfFile: F.journal(dir.file("out"), host: "host-a"), encoding: .utf8)
        let before = files(dir.file("out")).map { SourceIdentity.of(dir.file("out/" + $0)) }
        let second = try batch(dir)
        #expect(second["converted"] as? [String] == [] && second["alreadyDone"] as? Int == 2, "\(second)")
        #expect(try String(contentsOfFile: F.journal(dir.file("out"), host: "host-a"), encoding: .utf8) == journal)
        #expect(files(dir.file("out")).map { SourceIdentity.of(dir.file("out/" + $0)) } == before)
    }
}
