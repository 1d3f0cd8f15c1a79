import Foundation
import Pipeline
import Recipe
import Testing

/// `ladder: auto` through the command line: a 4:3 640x480 source between two rungs of Apple's
/// table gets four rungs fitted to its shape and a top rung at its own size, the five larger
/// rungs dropped with a warning each; `plan` says why of every rung, the package holds exactly
/// the kept rungs at their sizes and rates.
@Suite("reencode plan/run: ladder: auto against a 640x480 source", .serialized)
struct LadderCLITests {
    static func recipe(_ path: String, ladder: String = "{ codec: h264, codec-options: { preset: ultrafast } }") -> String {
        """
        recipe: 1
        reader: { outputs: { v: { track: video }, a: { track: audio } } }
        outputs:
          - path: \(path)
            format: hls
            segment: 1s
            renditions:
              - ladder: auto
                inputs: [ { source: v, settings: \(ladder) } ]
              - { name: snd, inputs: [ { source: a, settings: { codec: aac, bitrate: 64k } } ] }
        """
    }

    /// A 30 fps frame-stamped H.264 source with 48 kHz sound, `seconds` long.
    static func source(_ path: String, width: Int, height: Int, seconds: Int = 2) throws {
        let rate = FrameRate(frames: 30)
        let s = try FrameSource(path: path, video: .droppableH264(width: width, height: height, frameRate: rate), audio: GeneratedAudioFormat())
        for i in 0..<(seconds * 30) {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
            if i % 30 == 29 { try s.appendAudio(count: 48000) { _, n in Float(sin(Double(n) * 0.05)) * 0.3 } }
        }
        try s.finish()
    }

    static func setUp() throws -> Scratch {
        let dir = Scratch()
        try source(dir.file("s.mp4"), width: 640, height: 480)
        try recipe(dir.file("pkg")).write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        return dir
    }

    static let kept = [("234p-145k", "312x234", 145), ("360p-365k", "480x360", 365), ("432p-730k", "576x432", 730),
                       ("432p-1100k", "576x432", 1100), ("480p-1475k", "640x480", 1475)]
    static let dropped = ["960x540 at 2000", "1280x720 at 3000", "1280x720 at 4500", "1920x1080 at 6000", "1920x1080 at 7800"]
        .map { "ladder rung \($0) kb/s dropped: larger than the source (640x480 as displayed): never upscaled" }

    @Test("plan: ladder lines per kept rung (size, rate, the specification's rung, why; its frame rate against the column), the dropped rungs as warnings; nothing written")
    func planText() throws {
        let dir = try Self.setUp()
        let r = try Binary.run(["plan", dir.file("r.yaml"), "-i", dir.file("s.mp4"), "--estimate", "fast"], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let ladder = r.stdout.split(separator: "\n").filter { $0.hasPrefix("ladder ") }.map(String.init)
        #expect(ladder == [
            "ladder   rung 234p-145k: 312x234 at 145 kb/s (the specification's 416x234 at 145 kb/s), kept: the source (640x480 as displayed) fitted inside 416x234, display aspect kept",
            "ladder   rung 234p-145k: 30 fps (the specification's rung: at most 30 fps; the source: 30 fps)",
            "ladder   rung 360p-365k: 480x360 at 365 kb/s (the specification's 640x360 at 365 kb/s), kept: the source (640x480 as displayed) fitted inside 640x360, display aspect kept",
            "ladder   rung 360p-365k: 30 fps (the specification's rung: at most 30 fps; the source: 30 fps)",
            "ladder   rung 432p-730k: 576x432 at 730 kb/s (the specification's 768x432 at 730 kb/s), kept: the source (640x480 as displayed) fitted inside 768x432, display aspect kept",
            "ladder   rung 432p-730k: 30 fps (the specification's rung: at most 30 fps; the source: 30 fps)",
            "ladder   rung 432p-1100k: 576x432 at 1100 kb/s (the specification's 768x432 at 1100 kb/s), kept: the source (640x480 as displayed) fitted inside 768x432, display aspect kept",
            "ladder   rung 432p-1100k: 30 fps (the specification's rung: at most 30 fps; the source: 30 fps)",
            "ladder   rung 480p-1475k: 640x480 at 1475 kb/s (not in the specification's table), kept: the source's size (640x480 as displayed), between the rungs below and 960x540 at 2000 kb/s: the top rung, its rate interpolated by pixel count",
            "ladder   rung 480p-1475k: 30 fps (the specification's rung: the source's rate; the source: 30 fps)",
        ], "\(r.stdout)")
        #expect(r.stdout.contains("output 1 of 1, hls rendition 480p-1475k\n") && r.stdout.contains("output 1 of 1, hls rendition snd\n"), "\(r.stdout)")
        // Said once, on the ladder's top rung.
        for line in Self.dropped { #expect(r.stdout.components(separatedBy: "warning: \(line)\n").count == 2, "\(line)\n\(r.stdout)") }
        #expect(dir.contents == ["r.yaml", "s.mp4"])
    }

    @Test("plan --json: each rung's ladder object (its size, rate, specification's rung, reason) and every rung weighed, kept or dropped")
    func planJSON() throws {
        let dir = try Self.setUp()
        let r = try Binary.run(["plan", dir.file("r.yaml"), "-i", dir.file("s.mp4"), "--estimate", "fast", "--json"], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let outputs = try #require(o["outputs"] as? [[String: Any]])
        #expect(outputs.count == 6 && outputs[5]["ladder"] is NSNull)
        let rungs = outputs.prefix(5).compactMap { ($0["ladder"] as? [String: Any])?["rung"] as? [String: Any] }
        #expect(rungs.map { $0["rendition"] as? String } == Self.kept.map(\.0))
        #expect(rungs.map { "\($0["width"] as? Int ?? 0)x\($0["height"] as? Int ?? 0)" } == Self.kept.map(\.1))
        #expect(rungs.map { $0["bitrate"] as? Int } == Self.kept.map { $0.2 * 1000 })
        #expect(rungs[4]["specification"] is NSNull && (rungs[0]["specification"] as? [String: Any])?["width"] as? Int == 416)
        let all = try #require((outputs[0]["ladder"] as? [String: Any])?["rungs"] as? [[String: Any]])
        #expect(all.count == 10 && all.filter { $0["kept"] as? Bool == false }.map { $0["reason"] as? String }
                == Array(repeating: "larger than the source (640x480 as displayed): never upscaled", count: 5))
        let warnings = (outputs[4]["warnings"] as? [[String: Any]] ?? []).filter { $0["item"] as? String == "ladder-rung" }
        #expect(warnings.map { $0["message"] as? String } == Self.dropped && warnings.allSatisfy { $0["kind"] as? String == "dropped" })
        // The rate says it comes from the ladder; the size is the assistant's fit of the source into the rung's box.
        let tracks = try #require(outputs[4]["tracks"] as? [[String: Any]])
        let settings = try #require(tracks.first?["settings"] as? [[String: Any]])
        #expect(settings.first { $0["setting"] as? String == "size" }?["value"] as? String == "640x480", "\(settings)")
        #expect(settings.first { $0["setting"] as? String == "bitrate" }?["origin"] as? String == "ladder auto (hls rung 640x480 at 1475 kb/s)", "\(settings)")
    }

    @Test("run: the package holds the five kept rungs and the sound, nothing for the dropped; master.m3u8's RESOLUTIONs; each rung's pictures at its size, x264 told its rate")
    func run() throws {
        let dir = try Self.setUp()
        let r = try Binary.run(["run", dir.file("r.yaml"), "-i", dir.file("s.mp4")], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        for line in Self.dropped { #expect(r.stderr.contains("\(dir.file("pkg/480p-1475k")): \(line)\n"), "\(line)\n\(r.stderr)") }
        let p = WrittenPackage(folder: dir.file("pkg")), scratch = Scratch()
        let folders = try FileManager.default.contentsOfDirectory(atPath: p.folder).sorted()
        #expect(folders == (Self.kept.map(\.0) + ["master.m3u8", "snd"]).sorted())
        // The rung nearest 2000 kb/s first (the specification's default variant), then the others in the ladder's order.
        let variants = try p.variants(), listed = [Self.kept[4]] + Self.kept.prefix(4)
        #expect(variants.map(\.uri) == listed.map { "\($0.0)/playlist.m3u8" })
        #expect(variants.map { $0.attributes["RESOLUTION"] } == listed.map(\.1))
        for (name, size, kbps) in Self.kept {
            try p.joined(name, segments: [1, 2], into: scratch.file("v.mp4"))
            let probe = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-count_frames", "-select_streams", "v:0",
                                                                   "-show_entries", "stream=width,height,nb_read_frames", "-of", "csv=p=0", scratch.file("v.mp4")])
            #expect(probe.stdout == "\(size.replacingOccurrences(of: "x", with: ",")),60\n", "\(name): \(probe.stdout) \(probe.stderr)")
            // x264 writes its settings into the first picture's SEI: the rung's average rate.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: p.file("\(name)/seg-1.m4s")))
            let text = String(decoding: bytes.prefix(4096), as: UTF8.self)
            #expect(text.contains(" bitrate=\(kbps) "), "\(name): \(text.range(of: "rc=").map { String(text[$0.lowerBound...].prefix(80)) } ?? "no x264 options")")
        }
        let read = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-i", p.file("master.m3u8"), "-map", "0", "-f", "null", "-"])
        #expect(read.status == 0 && read.stderr.isEmpty, "\(read.stderr)")
        #expect(dir.contents == ["pkg", "r.yaml", "s.mp4"])
    }

    @Test("a size or rate in the ladder's own settings: 65 at the key, the same from validate (no source), plan and run, nothing written",
          arguments: [("{ codec: h264, width: 640 }", "r.yaml:9:57: error: 'width' is set by each rung of 'ladder: auto' (8:17): leave it out of the ladder's settings"),
                      ("{ codec: h264, codec-options: { preset: ultrafast }, height: 480 }", "r.yaml:9:95: error: 'height' is set by each rung of 'ladder: auto' (8:17): leave it out of the ladder's settings"),
                      ("{ codec: h264, bitrate: 2M }", "r.yaml:9:57: error: 'bitrate' is set by each rung of 'ladder: auto' (8:17): leave it out of the ladder's settings")])
    func refused(settings: String, why: String) throws {
        let dir = Scratch()
        try Self.source(dir.file("s.mp4"), width: 640, height: 480, seconds: 1)
        try Self.recipe(dir.file("pkg"), ladder: settings).write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        for command in [["validate", "r.yaml"], ["plan", "r.yaml", "-i", dir.file("s.mp4")], ["run", "r.yaml", "-i", dir.file("s.mp4")]] {
            let r = try Binary.run(command, timeLimit: 60, cwd: dir.path)
            // Said once (validate checks each output once; the message is the one check's).
            #expect(r.status == 65 && r.stderr.hasPrefix(why) && r.stderr.components(separatedBy: "is set by each rung").count == 2, "\(command[0]): \(r.stderr)")
        }
        #expect(dir.contents == ["r.yaml", "s.mp4"])
    }

    @Test("a ladder whose inputs hold no video track: 65 at its ladder line")
    func noVideo() throws {
        let dir = Scratch()
        try Self.source(dir.file("s.mp4"), width: 640, height: 480, seconds: 1)
        try Self.recipe(dir.file("pkg")).replacingOccurrences(of: "[ { source: v, settings: { codec: h264, codec-options: { preset: ultrafast } } } ]", with: "[ { source: a } ]")
            .replacingOccurrences(of: "v: { track: video }, ", with: "")
            .write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", "r.yaml", "-i", dir.file("s.mp4")], timeLimit: 60, cwd: dir.path)
        #expect(r.status == 65 && r.stderr.hasPrefix("r.yaml:8:17: error: 'ladder: auto' makes its rungs from a video track, but none of the rendition's inputs is one the source has"), "\(r.stderr)")
        #expect(dir.contents == ["r.yaml", "s.mp4"])
    }
}
