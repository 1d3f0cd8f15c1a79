import Foundation
import Pipeline
import Recipe
import Testing

/// Smart rendering (`smart: require | auto` on a video writer input): a trim and a cut-out copy
/// the source's whole groups of pictures byte for byte and encode only the pictures around the
/// cuts — the output shows exactly the frames, at exactly the times, a full encode shows; it
/// decodes cleanly in FFmpeg and GStreamer; the sound stays with its pictures; what cannot be
/// joined is refused (`require`) or encoded whole with a warning (`auto`).
@Suite("reencode run with smart rendering: trims and cut-outs that encode only around the cuts", .serialized)
struct SmartRenderCLITests {
    /// `seconds` of 30 fps stamped pictures (320x180, a closed GOP every second, B frames in a
    /// pyramid) and stereo sound with a 1 kHz burst at each whole second + 0.5 s.
    /// `options`: the encoder's own instead (an open GOP, temporal layers).
    static func makeSource(_ path: String, seconds: Int, codec: VideoCodec = .h264, soundAfter: Int = 0, options: [String: String]? = nil) throws {
        let rate = FrameRate(frames: 30)
        var video = GeneratedVideoFormat(width: 320, height: 180, frameRate: rate)
        video.codec = codec
        video.gop = 30
        video.codecOptions = options ?? (codec == .h264 ? ["preset": "ultrafast", "bf": "3", "b-pyramid": "normal", "x264-params": "b-adapt=0:scenecut=0"]
            : ["preset": "ultrafast", "x265-params": "bframes=4:b-pyramid=1:b-adapt=0:scenecut=0:open-gop=0:log-level=error"])
        let s = try FrameSource(path: path, video: video, audio: GeneratedAudioFormat())
        func tone(_ n: Int64) -> Float {
            let t = Double(n) / 48000, into = t - t.rounded(.down) - 0.5
            return into >= 0 && into < 0.08 ? Float(0.5 * sin(2 * Double.pi * 1000 * into)) : 0
        }
        var samplesDone = 0
        for i in 0..<(30 * seconds) {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
            let until = (i + 1) * 48000 / 30
            try s.appendAudio(count: until - samplesDone) { _, n in tone(n) }
            samplesDone = until
        }
        if soundAfter > 0 { try s.appendAudio(count: 48000 * soundAfter) { _, n in tone(n) } }
        try s.finish()
    }

    static func recipe(output: String, codec: String = "h264", smart: String = "require", extra: String = "", timing: String) -> String {
        """
        recipe: 1
        output: "{dir}/\(output)"
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        writer:
          inputs:
            - { source: picture, settings: { codec: \(codec)\(extra), smart: \(smart) } }
            - { source: sound, settings: aac-stereo }
        \(timing)
        """
    }

    static let trim = "session:\n  time-range: { start: 1.5s, end: 4.2s }\n"
    static let cutOut = "composition:\n  video:\n    - { start: 0.4s, end: 2.3s }\n    - { start: 3.1s, end: 5.5s }\n"

    static func run(_ dir: Scratch, _ text: String, _ src: String) throws -> Binary.Result {
        let recipe = dir.file("r.yaml")
        try text.write(toFile: recipe, atomically: true, encoding: .utf8)
        return try Binary.run(["run", recipe, "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
    }

    /// Each picture's pts and stamp, the packets' hashes in presentation order.
    static func checkFrames(_ out: String, stamps want: [Int]) throws {
        let stamps = try CompositionRunCLITests.stamps(out)
        #expect(stamps.map(\.stamp) == want.map { Optional($0) })
        let first = try #require(stamps.first?.pts)
        for (k, s) in stamps.enumerated() {
            // Matroska keeps milliseconds; MP4 the exact ticks.
            #expect(abs((s.pts - first).seconds - Double(k) / 30) < 0.0006, "frame \(k) at \(s.pts)")
        }
        #expect(try CopiedCompositionCLITests.decodeErrors(out) == "")
    }

    @Test("a trim of H.264 with a B-pyramid (1.5–4.2 s): frames 45…125 at k/30 as a full encode shows them, 2.0–4.0 s the source's own packets, 21 pictures encoded, GStreamer plays it")
    func trimH264() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, seconds: 6)
        let r = try Self.run(dir, Self.recipe(output: "smart.mp4", timing: Self.trim), src)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("smart.mp4")
        try Self.checkFrames(out, stamps: Array(45..<126))

        // plan says which pictures are copied and which encoded.
        let plan = try Binary.run(["plan", dir.file("r.yaml"), "-i", src], timeLimit: 120, cwd: dir.path)
        let smart = plan.stdout.split(separator: "\n").drop { !$0.hasPrefix("smart") }.prefix(4).joined(separator: "\n")
        #expect(smart == """
            smart    output track 1: 60 pictures copied (2 groups of pictures), 21 encoded (libx264, profile main, level 1.3): 74 % of the pictures need no encoding
              segment 1  encoded [1.500s, 2.000s)  15 pictures  at 0.000s
              segment 1  copied  [2.000s, 4.000s)  60 pictures, 2 groups  at 0.500s
              segment 1  encoded [4.000s, 4.200s)  6 pictures  at 2.500s
            """, "\(plan.stdout)")

        // The full encode of the same recipe shows the same frames at the same times.
        let full = try Self.run(dir, Self.recipe(output: "full.mp4", smart: "off", timing: Self.trim), src)
        #expect(full.status == 0, "\(full.stderr)")
        let a = try CompositionRunCLITests.stamps(out), b = try CompositionRunCLITests.stamps(dir.file("full.mp4"))
        #expect(a.map(\.stamp) == b.map(\.stamp))
        #expect(a.map(\.pts) == b.map(\.pts))

        // Frames 60…119 (2.0–4.0 s: two whole GOPs) are the source's packets; the first carries
        // the source's parameter sets before its own bytes (the encoded pictures before it had theirs).
        let source = try CopiedCompositionCLITests.packets(src).sorted { $0.pts < $1.pts }
        let made = try CopiedCompositionCLITests.packets(out).sorted { $0.pts < $1.pts }
        #expect(made.count == 81)
        #expect(Array(made[16..<75]).map(\.hash) == Array(source[61..<120]).map(\.hash))
        #expect(made[15].hash != source[60].hash && made[15].key)
        #expect(Set(made[0..<15].map(\.hash)).isDisjoint(with: source.map(\.hash)))
        #expect(Set(made[75...].map(\.hash)).isDisjoint(with: source.map(\.hash)))

        // A second client: GStreamer (qtdemux, avdec_h264) plays it to its last picture, as it
        // plays the full encode.
        let g = try Binary.runTool(HLSPackageCLITests.gstPlay, [out, dir.file("full.mp4")])
        if g.status == 77 { return }
        #expect(g.status == 0, "\(g.stderr)")
        let last = g.stdout.split(separator: "\n").map { $0.split(separator: " ").dropFirst(3).first.flatMap { Double($0) } }
        #expect(last.count == 2 && last[0] != nil && last[0] == last[1], "\(g.stdout)")
    }

    @Test("a cut-out of HEVC into Matroska (0.4–2.3 s and 3.1–5.5 s): frames 12…68 then 93…164, constant rate, the bursts with their pictures, decodes cleanly")
    func cutOutHEVC() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, seconds: 6, codec: .hevc)
        let r = try Self.run(dir, Self.recipe(output: "smart.mkv", codec: "hevc", timing: Self.cutOut), src)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("smart.mkv")
        try Self.checkFrames(out, stamps: Array(12..<69) + Array(93..<165))
        // Bursts at 0.5, 1.5 (segment 1: → 0.1, 1.1 s), 3.5, 4.5 (segment 2 from 1.9 s: → 2.3, 3.3 s).
        let onsets = try CompositionRunCLITests.burstOnsets(out)
        let first = try #require(CompositionRunCLITests.stamps(out).first?.pts.seconds)
        #expect(onsets.count == 4, "\(onsets)")
        for (got, want) in zip(onsets, [0.1, 1.1, 2.3, 3.3]) { #expect(abs(got - first - want) < 0.022, "burst at \(got), not \(want)") }
        let g = try Binary.runTool(HLSPackageCLITests.gstPlay, [out])
        if g.status == 77 { return }
        #expect(g.status == 0, "\(g.stderr)")
    }

    @Test("require refuses settings that make another stream at the smart key (65, nothing written); auto encodes every picture and says why")
    func refusals() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, seconds: 3)
        let required = try Self.run(dir, Self.recipe(output: "x.mp4", extra: ", width: 160", timing: Self.trim.replacingOccurrences(of: "4.2s", with: "2.5s")), src)
        #expect(required.status == 65)
        #expect(required.stderr.contains("r.yaml:9:63: error: smart rendering is required, but the output's size (160x90) is not the source's (320x180)"), "\(required.stderr)")
        #expect(dir.contents == ["clip.mp4", "r.yaml"])

        let auto = try Self.run(dir, Self.recipe(output: "x.mp4", smart: "auto", extra: ", width: 160", timing: Self.trim.replacingOccurrences(of: "4.2s", with: "2.5s")), src)
        #expect(auto.status == 0, "\(auto.stderr)")
        #expect(auto.stderr.contains("smart rendering is off: the output's size (160x90) is not the source's (320x180); every picture is encoded"), "\(auto.stderr)")
        try Self.checkFrames(dir.file("x.mp4"), stamps: Array(45..<75))

        // A time base of one tick per frame, pictures without B frames: no room for the encoded
        // pictures' decode times.
        let coarse = dir.file("coarse.mp4")
        _ = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-i", src, "-c:v", "libx264", "-bf", "0", "-g", "30", "-c:a", "copy", "-video_track_timescale", "30", coarse])
        let ticks = try Self.run(dir, Self.recipe(output: "y.mp4", smart: "auto", timing: Self.trim.replacingOccurrences(of: "4.2s", with: "2.5s")), coarse)
        #expect(ticks.status == 0, "\(ticks.stderr)")
        #expect(ticks.stderr.contains("track #0: smart rendering is off: the source's time base (1/30 s) has 1 tick per frame and its pictures reorder less than the encoder's: no room for their decode times; every picture is encoded"), "\(ticks.stderr)")

        // A segment past the file's last picture: a full encode shows black there, a copy nothing.
        let short = dir.file("short.mp4")
        try Self.makeSource(short, seconds: 3, soundAfter: 1)
        let past = try Self.run(dir, Self.recipe(output: "z.mp4", smart: "auto", timing: "composition:\n  video:\n    - { start: 1s, end: 2s }\n    - { start: 2.5s, end: 3.8s }\n"), short)
        #expect(past.status == 0, "\(past.stderr)")
        #expect(past.stderr.contains("track #0: smart rendering is off: segment 2 reaches outside its file's pictures (a full encode shows black there); every picture is encoded"), "\(past.stderr)")
    }

    @Test("a cut-out with its own audio list: the video's segments decide the runs; frames 12…68 then 93…164 and the bursts with them")
    func audioList() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, seconds: 6)
        let timing = Self.cutOut + "  audio:\n    - { start: 0.4s, end: 2.3s }\n    - { start: 3.1s, end: 5.5s }\n"
        let r = try Self.run(dir, Self.recipe(output: "smart.mp4", timing: timing), src)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("smart.mp4")
        try Self.checkFrames(out, stamps: Array(12..<69) + Array(93..<165))
        let onsets = try CompositionRunCLITests.burstOnsets(out)
        #expect(onsets.count == 4, "\(onsets)")
        for (got, want) in zip(onsets, [0.1, 1.1, 2.3, 3.3]) { #expect(abs(got - want) < 0.022, "burst at \(got), not \(want)") }
    }

    @Test("real files (a GoPro clip, full range; H.264 with a B-pyramid): a smart cut-out shows the frames at the times a full encode shows, copies the source's packets between the cuts, decodes cleanly",
          .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
    func corpus() throws {
        let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? ""
        let dir = Scratch()
        for (name, cuts) in [("gpmf-parser/hero7.mp4", "    - { end: 1.5s }\n    - { start: 3.2s, end: 8.1s }\n"),
                             ("androidx-media/mp4_bbb_800x640_768kbps_30fps_avc_pyramid_3b.mp4", "    - { end: 0.5s }\n    - { start: 1.6s, end: 3.5s }\n")] {
            let src = corpus + "/" + name
            let timing = "composition:\n  video:\n" + cuts
            func recipe(_ smart: String) -> String {
                // Written in the test's folder, never beside the corpus file.
                Self.recipe(output: "\(smart).mp4", smart: smart, timing: timing).replacingOccurrences(of: "\"{dir}/", with: "\"\(dir.path)/").replacingOccurrences(of: "    sound: { track: audio }\n", with: "")
                    .replacingOccurrences(of: "    - { source: sound, settings: aac-stereo }\n", with: "")
            }
            for old in ["require.mp4", "off.mp4"] { try? FileManager.default.removeItem(atPath: dir.file(old)) }
            let smart = try Self.run(dir, recipe("require"), src)
            #expect(smart.status == 0, "\(name): \(smart.stderr)")
            let plan = try Binary.run(["plan", "--json", dir.file("r.yaml"), "-i", src], timeLimit: 120, cwd: dir.path)
            let o = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any], "\(name)")
            let render = try #require((o["smart"] as? [[String: Any]])?.first, "\(name)")
            let copied = try #require(render["copiedPictures"] as? Int), runs = try #require(render["runs"] as? [[String: Any]])
            #expect(copied > 0, "\(name)")
            let full = try Self.run(dir, recipe("off"), src)
            #expect(full.status == 0, "\(name): \(full.stderr)")
            let a = try CompositionRunCLITests.stamps(dir.file("require.mp4")), b = try CompositionRunCLITests.stamps(dir.file("off.mp4"))
            #expect(a.count == b.count && a.map(\.pts) == b.map(\.pts), "\(name)")
            // Every copied picture is the source's packet as it is, but each copied run's first
            // after another run (its parameter sets put before it).
            let source = Set(try CopiedCompositionCLITests.packets(src).map(\.hash))
            let made = try CopiedCompositionCLITests.packets(dir.file("require.mp4"))
            let copiedRuns = runs.enumerated().filter { $0.element["kind"] as? String == "copied" && $0.offset > 0 }.count
            #expect(made.filter { source.contains($0.hash) }.count == copied - copiedRuns, "\(name)")
            #expect(try CopiedCompositionCLITests.decodeErrors(dir.file("require.mp4")) == "", "\(name)")
        }
    }
}
