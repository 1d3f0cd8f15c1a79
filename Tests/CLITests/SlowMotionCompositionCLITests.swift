import Foundation
import Pipeline
import Recipe
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `slow-motion: from-source` through the command line: recipes/phone-slow-motion.yaml on the
/// corpus's Samsung sample (plan and run), files without slow motion to play (as stored, with a
/// warning), and what is refused.
@Suite("reencode with slow-motion: from-source", .serialized)
struct SlowMotionCompositionCLITests {
    static let recipe = repo.appendingPathComponent("recipes/phone-slow-motion.yaml").path
    static let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"]
    static var hasCorpus: Bool { corpus != nil }

    /// The corpus file, copied beside the output (the recipe writes next to its input).
    static func sef(in dir: Scratch, _ name: String = "mp4_sample_sef_slow_motion.mp4") throws -> String {
        let path = dir.file(name)
        try FileManager.default.copyItem(atPath: (corpus ?? "") + "/androidx-media/" + name, toPath: path)
        return path
    }

    static func ffprobe(_ args: [String]) throws -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        p.arguments = ["-v", "error"] + args
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("plan lists the pieces of the phone's timeline, each with its divisor", .enabled(if: hasCorpus))
    func plan() throws {
        let dir = Scratch()
        let src = try Self.sef(in: dir)
        let r = try Binary.run(["plan", Self.recipe, "-i", src], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let segments = r.stdout.split(separator: "\n").filter { $0.hasPrefix("segment ") }
        // Samples at the source's 12 kHz, which AAC takes as it is (never raised to 48 kHz).
        #expect(segments == [
            "segment  1: source [0.000s, 0.088s) at 0.000s for 0.011s, speed 8, audio-stretch varispeed (the source's slow motion: real time)  (mp4_sample_sef_slow_motion.mp4, 132 samples)",
            "segment  2: source [0.088s, 0.879s) at 0.011s for 0.198s, speed 4, audio-stretch varispeed (the source's slow motion: ÷2)  (mp4_sample_sef_slow_motion.mp4, 2373 samples)",
            "segment  3: source [0.879s, 1.255s) at 0.209s for 0.047s, speed 8, audio-stretch varispeed (the source's slow motion: real time)  (mp4_sample_sef_slow_motion.mp4, 564 samples)",
            "segment  4: source [1.255s, 1.970s) at 0.256s for 0.715s, speed 1 (the source's slow motion: ÷8)  (mp4_sample_sef_slow_motion.mp4, 8580 samples)",
            "segment  5: source [1.970s, 2.152s) at 0.971s for 0.023s, speed 8, audio-stretch varispeed (the source's slow motion: real time)  (mp4_sample_sef_slow_motion.mp4, 273 samples)",
        ])
        #expect(!r.stdout.contains("warning"))
        let json = try Binary.run(["plan", "--json", Self.recipe, "-i", src], timeLimit: 120, cwd: dir.path)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let list = try #require(object["segments"] as? [[String: Any]])
        #expect(list.map { $0["slowMotionDivisor"] as? Int } == [1, 2, 1, 8, 1])
        #expect(list.map { $0["speed"] as? String } == ["8", "4", "8", "1", "8"])
        #expect(list.map { $0["at"] as? Double } == [0, 0.011, 0.20875, 0.25575, 0.97075])
        #expect(list.map { $0["audioStretch"] as? String } == ["varispeed", "varispeed", "varispeed", nil, "varispeed"])
    }

    @Test("run: the output's pictures at the phone's times (media3's, to the tick), the sound as long as the timeline", .enabled(if: hasCorpus))
    func run() throws {
        let dir = Scratch()
        let src = try Self.sef(in: dir)
        let r = try Binary.run(["run", Self.recipe, "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "")
        let out = dir.file("mp4_sample_sef_slow_motion-flattened.mp4")
        // media3's times (µs) of the frames it keeps, but for the four we choose otherwise
        // (docs/slow-motion.md): not 234083 (a frame media3 misplaces), and 900750, 934083,
        // 967417 (three it loses) added; in the output's 1/90000 ticks, each to the nearest.
        var us = SlowMotionCompositionCLITests.media3Times.filter { $0 != 234083 } + [900750, 934083, 967417]
        us.sort()
        let pts = try Self.ffprobe(["-select_streams", "v", "-show_entries", "packet=pts", "-of", "csv=p=0", out]).compactMap { Int64($0) }.sorted()
        #expect(pts.count == 31)
        for (ours, theirs) in zip(pts, us) {
            let a: Double = Double(ours) / 90000, b: Double = Double(theirs) / 1e6
            let tolerance: Double = 0.5 / 90000 + 1e-6
            #expect(abs(a - b) <= tolerance, "\(ours) against \(theirs) µs")
        }
        // The sound: the file's (room noise, peaks near -32 dB), as long as the timeline (0.97075 + 0.02275 s).
        let sound = try SampleReader(path: out, track: .type(.audio, 0))
        var end = 0.0, loudest: Float = 0
        while let a = try sound.nextAudio() {
            end = a.pts.seconds + Double(a.samples.count) / Double(a.sampleRate)
            loudest = max(loudest, a.samples.map(abs).max() ?? 0)
        }
        #expect(loudest > 0.005, "loudest \(loudest)")
        // One AAC frame (1024 samples) at the source's 12 kHz, kept: never raised to 48 kHz.
        #expect(end >= 0.9935 && end < 0.9935 + 1024.0 / 12000, "sound ends at \(end) s")
    }

    @Test("run with each stretch method: the sound and the file as long as the phone's timeline (ffprobe)", .enabled(if: hasCorpus),
          arguments: ["spectral", "time-domain", "varispeed", "mute"])
    func runWithSound(method: String) throws {
        let dir = Scratch()
        let src = try Self.sef(in: dir)
        let text = try String(contentsOfFile: Self.recipe, encoding: .utf8)
            .replacingOccurrences(of: "  audio-stretch: varispeed ", with: "  audio-stretch: \(method) ")
        #expect(text.contains("audio-stretch: \(method) "))
        let recipe = dir.file("r.yaml")
        try text.write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", recipe, "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("mp4_sample_sef_slow_motion-flattened.mp4")
        // The timeline: 0.9935 s (0.97075 + 182 ms ÷ 8), 11922 samples at the source's 12 kHz
        // (kept, never raised) handed to the encoder (plan). The MP4's AAC track says 11916
        // (0.993 s): its last packet 6 samples short, with `mute` as with the others, so not the
        // stretch's doing.
        let audio = try Self.ffprobe(["-select_streams", "a", "-show_entries", "stream=sample_rate,duration_ts", "-of", "csv=p=0", out])
        #expect(audio == ["12000,11916"], "\(method): \(audio)")
        let file = try Self.ffprobe(["-show_entries", "format=duration", "-of", "csv=p=0", out])
        #expect(file == ["0.994000"], "\(method): \(file)")
        let frames = try Self.ffprobe(["-select_streams", "v", "-count_packets", "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", out])
        #expect(frames == ["31"], "\(method): \(frames)")
        let sound = try SampleReader(path: out, track: .type(.audio, 0))
        var loudest: Float = 0
        while let a = try sound.nextAudio() { loudest = max(loudest, a.samples.map(abs).max() ?? 0) }
        #expect(method == "mute" ? loudest == 0 : loudest > 0.005, "\(method): loudest \(loudest)")
    }

    /// media3's `presentationTimeUs` of the 29 frames of its dump, sorted.
    static let media3Times: [Int64] = [0, 14000, 47333, 80667, 114000, 147333, 180667, 228042, 234083, 244708, 267416, 300750, 334083,
                                       367416, 400750, 434083, 467416, 500750, 534083, 567416, 600750, 634083, 667416, 700750,
                                       734083, 767416, 800750, 834083, 867416]

    @Test("a file without slow-motion data plays as stored, with a warning saying so")
    func plainFile() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try CompositionRunCLITests.makeSource(src, fps: 30, frames: 30)
        let p = try Binary.run(["plan", Self.recipe, "-i", src], timeLimit: 120, cwd: dir.path)
        #expect(p.status == 0, "\(p.stderr)")
        #expect(p.stdout.contains("\nsegment  1: source [0.000s, 1.000s) at 0.000s for 1.000s, speed 1  (clip.mp4)\n"), "\(p.stdout)")
        #expect(p.stdout.hasSuffix("\nwarning: segment 1 asks for 'slow-motion: from-source', but the file holds no slow-motion data: it plays as stored\n"), "\(p.stdout)")
        let r = try Binary.run(["run", Self.recipe, "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let stamps = try CompositionRunCLITests.stamps(dir.file("clip-flattened.mp4"))
        #expect(stamps.map(\.stamp) == (0..<30).map { $0 })
        #expect(stamps.map(\.pts) == (0..<30).map { FrameRate(frames: 30).frameDuration * Int64($0) })
    }

    @Test("super slow motion (no capture rate, no segments) plays as stored, with the reason", .enabled(if: hasCorpus))
    func superSlowMotion() throws {
        let dir = Scratch()
        let src = try Self.sef(in: dir, "mp4_sample_sef_super_slow_motion.mp4")
        let p = try Binary.run(["plan", Self.recipe, "-i", src], timeLimit: 120, cwd: dir.path)
        #expect(p.status == 0, "\(p.stderr)")
        #expect(p.stdout.contains("\nsegment  1: source [0.000s, 14.500s) at 0.000s for 14.500s, speed 1  (mp4_sample_sef_super_slow_motion.mp4)\n"), "\(p.stdout)")
        #expect(p.stdout.hasSuffix("\nwarning: segment 1 asks for 'slow-motion: from-source', but the file has no slow-motion segments and nothing to pick its frames by (it has no capture rate (no smta box with one, no com.android.capture.fps)): it plays as stored\n"), "\(p.stdout)")
    }

    @Test("segments whose frames carry no temporal layer: an error naming the file and the frame's time (exit 1)")
    func noLayers() throws {
        let dir = Scratch()
        let src = dir.file("phone.mp4")
        // Ours, with Samsung's smta (240 fps, 4 layers) and a ÷2 segment, but frames of x264's
        // (no SVC prefix NAL units).
        try SlowMotionInspectTests.make(src, smta: true, trailer: SlowMotionInspectTests.sefd("0:200:2"))
        let r = try Binary.run(["run", Self.recipe, "-i", src], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 1)
        #expect(r.stderr == "error: \(src): track #0 at 0.000s: a frame carries no SVC temporal layer (no prefix NAL unit): its frames cannot be picked by layer\n", "\(r.stderr)")
        #expect(dir.contents == ["phone.mp4"])
    }

    @Test("from-source on an audio-only composition is refused at its line (65)")
    func audioOnly() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try CompositionRunCLITests.makeSource(src, fps: 30, frames: 30, bursts: [10])
        let recipe = dir.file("r.yaml")
        try """
        recipe: 1
        output: "{dir}/{stem}-out.m4a"
        composition:
          audio:
            - { slow-motion: from-source }
        reader:
          outputs:
            sound: { track: audio }
        writer:
          inputs:
            - { source: sound, settings: aac-stereo }

        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["plan", recipe, "-i", src], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 65)
        #expect(r.stderr == "\(recipe):5:22: error: 'slow-motion: from-source' on the audio track is not yet supported: it is read from the video's frames, so give the composition a 'video:' track and the sound follows it\n    - { slow-motion: from-source }\n                     ^\n", "\(r.stderr)")
    }

    @Test("a phone's file after an intro: its frames without a temporal layer are named with the phone's file, not the intro's")
    func noLayersInLaterFile() throws {
        let dir = Scratch()
        let src = dir.file("phone.mp4"), intro = dir.file("intro.mp4")
        try SlowMotionInspectTests.make(src, smta: true, trailer: SlowMotionInspectTests.sefd("0:200:2"))
        try CompositionRunCLITests.makeSource(intro, fps: 30, frames: 30)
        let recipe = dir.file("r.yaml")
        try """
        recipe: 1
        output: "{dir}/{stem}-out.mp4"
        sources:
          intro: "{dir}/intro.mp4"
          phone: "{input}"
        composition:
          audio-stretch: mute
          video:
            - { source: intro }
            - { source: phone, slow-motion: from-source }
        reader:
          outputs:
            picture: { track: video }
        writer:
          inputs:
            - { source: picture, settings: h264-1920x1080 }

        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", recipe, "-i", src], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 1)
        #expect(r.stderr == "error: \(src): track #0 at 0.000s: a frame carries no SVC temporal layer (no prefix NAL unit): its frames cannot be picked by layer\n", "\(r.stderr)")
        #expect(dir.contents.sorted() == ["intro.mp4", "phone.mp4", "r.yaml"])
    }
}
