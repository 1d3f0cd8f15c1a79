import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Several outputs whose tracks have the same settings: one encode, written into each file.
@Suite("One encode for outputs alike: a track with the same frames and settings is encoded once and written into each file")
struct SharedEncodeTests {
    /// Four outputs: 1 and 3 alike in pictures and sound (MP4 and MKV), 2 and 4 alike in sound
    /// only (MP4 and MOV).
    static let outputs: [(file: String, video: String, audio: String)] = [
        ("a.mp4", "{ codec: h264, codec-options: { preset: ultrafast } }", "{ codec: aac, bitrate: 128k }"),
        ("b.mp4", "{ codec: h264, width: 256, height: 192, codec-options: { preset: ultrafast } }", "{ codec: aac, bitrate: 96k, channels: 1 }"),
        ("c.mkv", "{ codec: h264, codec-options: { preset: ultrafast } }", "{ codec: aac, bitrate: 128k }"),
        ("d.mov", "{ codec: h264, width: 192, height: 144, codec-options: { preset: ultrafast } }", "{ codec: aac, bitrate: 96k, channels: 1 }"),
    ]

    static func recipe(_ dir: Scratch, only: Int? = nil) throws -> Recipe {
        var text = """
            recipe: 1
            reader:
              outputs:
                picture: { track: video }
                sound: { track: audio }
            outputs:

            """
        for (k, o) in outputs.enumerated() where only == nil || only == k {
            text += """
                  - path: \(dir.file((only == nil ? "" : "alone-") + o.file))
                    inputs:
                      - { source: picture, settings: \(o.video) }
                      - { source: sound, settings: \(o.audio) }

                """
        }
        return try RecipeParser.parse(text, file: dir.file("r.yaml")).get()
    }

    /// Each packet of a track: presentation time, duration and an MD5 of its data.
    static func packets(_ file: String, _ selector: String) throws -> [String] {
        let out = try #require(try FFprobe.run(["-select_streams", selector, "-show_data_hash", "MD5", "-show_entries", "packet=pts_time,duration_time,data_hash",
                                                "-of", "json", file]), "ffprobe is missing")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        let packets = try #require(object["packets"] as? [[String: Any]], "\(file): no packets in \(out.prefix(200))")
        return packets.map { p in ["pts_time", "duration_time", "data_hash"].map { "\(p[$0] ?? "-")" }.joined(separator: " ") }
    }

    @Test("four outputs, two pairs alike: five encoders, not eight; each file's packets as its settings make alone, its own priming rule kept")
    func pairs() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        try Media.make(src, video: GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30)), frames: 60, audio: true)
        let plans = try RecipeCompiler.compileAll(try Self.recipe(dir), input: src).map(\.plan)
        // Pictures: 1 with 3, 2 and 4 each alone; sound: 1 with 3, 2 with 4 (the MP4, MKV and MOV
        // muxers all want the codec's headers out of band).
        let encodes = OutputSet.encodes(plans).map { lane in lane.map { group in group.map { [$0.output, $0.track] } } }
        #expect(encodes == [[[[0, 0], [2, 0]], [[1, 0]], [[3, 0]]], [[[0, 1], [2, 1]], [[1, 1], [3, 1]]]])

        let session = ExportSession(plans: plans)
        let results = try session.runAll()
        #expect(session.lanesInLastRun == 2)
        #expect(session.encodersInLastRun == 5)

        for (k, o) in Self.outputs.enumerated() {
            let alone = try RecipeCompiler.compileAll(try Self.recipe(dir, only: k), input: src).map(\.plan)
            try ExportSession(plans: alone).runAll()
            let (shared, own) = (dir.file(o.file), dir.file("alone-" + o.file))
            for selector in ["v:0", "a:0"] {
                let (s, a) = (try Self.packets(shared, selector), try Self.packets(own, selector))
                #expect(!s.isEmpty && s == a, "\(o.file) \(selector): its packets differ from the same settings alone")
            }
            // Each output counts what was written into it: Matroska leaves the encoder's priming
            // out, MP4 and MOV keep it before the start (their edit list hides it).
            #expect(results[k].lanes.map(\.packetsWritten) == [try Self.packets(shared, "v:0").count, try Self.packets(shared, "a:0").count], "\(o.file)")
        }
        #expect(try Self.packets(dir.file("c.mkv"), "a:0").count < Self.packets(dir.file("a.mp4"), "a:0").count)
    }
}
