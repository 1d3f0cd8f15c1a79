import Foundation
import Pipeline
import Recipe
import Testing

private let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// Single-source compositions run for real: recipes/cut-out.yaml and a slow-motion segment of
/// 240 fps footage, on frame-stamped sources made with the project's writer; what this build
/// cannot compose yet is refused at its recipe line (65) with nothing made.
@Suite("reencode run with a composition of the input: cut-out, slow motion, refusals", .serialized)
struct CompositionRunCLITests {
    /// `frames` stamped pictures at `fps` (320x180); with `bursts`, stereo 48 kHz sound that is
    /// silent but for a 0.08 s 1 kHz tone at each of those frames' times.
    static func makeSource(_ path: String, fps: Int32, frames: Int, bursts: [Int]? = nil) throws {
        let rate = FrameRate(frames: fps)
        let s = try FrameSource(path: path, video: .droppableH264(width: 320, height: 180, frameRate: rate),
                                audio: bursts == nil ? nil : GeneratedAudioFormat())
        let times = (bursts ?? []).map { Double($0) / Double(fps) }
        func tone(_ n: Int64) -> Float {
            let t = Double(n) / 48000
            for m in times where t >= m && t < m + 0.08 { return Float(0.5 * sin(2 * Double.pi * 1000 * (t - m))) }
            return 0
        }
        var samplesDone = 0
        for i in 0..<frames {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
            if bursts != nil {
                // Sound up to the next frame's time, interleaved as a camera writes it.
                let until = (i + 1) * 48000 / Int(fps)
                try s.appendAudio(count: until - samplesDone) { _, n in tone(n) }
                samplesDone = until
            }
        }
        try s.finish()
    }

    /// (pts, stamp) of every picture of the first video track.
    static func stamps(_ path: String) throws -> [(pts: MediaTime, stamp: Int?)] {
        let r = try SampleReader(path: path, track: .type(.video, 0))
        var out: [(MediaTime, Int?)] = []
        while let p = try r.nextPicture() { out.append((p.pts, p.stamp)) }
        return out
    }

    /// Start times of tone bursts in the first audio track (a rise after at least 0.2 s of quiet).
    static func burstOnsets(_ path: String) throws -> [Double] {
        let r = try SampleReader(path: path, track: .type(.audio, 0))
        var onsets: [Double] = []
        var lastLoud = -10.0
        while let a = try r.nextAudio() {
            for (i, s) in a.samples.enumerated() where abs(s) > 0.1 {
                let t = a.pts.seconds + Double(i) / Double(a.sampleRate)
                if t - lastLoud > 0.2 { onsets.append(t) }
                lastLoud = t
            }
        }
        return onsets
    }

    static let cutOut = repo.appendingPathComponent("recipes/cut-out.yaml").path

    @Test("recipes/cut-out.yaml: every output frame is its source frame, 1–2 s is gone, the bursts stay with their pictures")
    func cutOut() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        // 3 s at 120 fps; bursts at 0.25, 0.75 s (kept), 1.25, 1.75 s (cut out), 2.25 s (→ 1.25 s).
        try Self.makeSource(src, fps: 120, frames: 360, bursts: [30, 90, 150, 210, 270])
        let r = try Binary.run(["run", Self.cutOut, "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "")
        // Under out/ of the folder it runs in (the recipe's output path), not beside the input.
        #expect(dir.contents == ["clip.mp4", "out"])
        let out = dir.file("out/clip-cut.mp4")
        #expect(FileManager.default.fileExists(atPath: out))

        // Source timing (the preset sets no rate): frame k at k/120, showing 0–119 then 240–359.
        let stamps = try Self.stamps(out)
        #expect(stamps.count == 240)
        for (k, s) in stamps.enumerated() {
            #expect(s.stamp == (k < 120 ? k : k + 120), "output frame \(k)")
            #expect(s.pts == FrameRate(frames: 120).frameDuration * Int64(k), "output frame \(k)")
        }
        #expect(!stamps.contains { (120..<240).contains($0.stamp ?? -1) }, "a frame of the cut section is shown")

        // Sound: the bursts of frames 30, 90 and 270 (not 150, 210), each within a frame of the
        // picture that carries it.
        let onsets = try Self.burstOnsets(out)
        #expect(onsets.count == 3, "\(onsets)")
        for (onset, (want, frame)) in zip(onsets, [(0.25, 30), (0.75, 90), (1.25, 270)]) {
            #expect(abs(onset - want) <= 1.0 / 120, "burst at \(onset) s, its frame at \(want) s")
            let shown = stamps.min { abs($0.pts.seconds - onset) < abs($1.pts.seconds - onset) }?.stamp
            #expect(shown == frame, "burst at \(onset) s shows frame \(shown ?? -1)")
        }
        let asset = try Asset.load(out)
        #expect(abs(asset.duration.seconds - 2) < 0.01, "\(asset.duration.secondsDescription)")
    }

    @Test("batch with recipes/cut-out.yaml: each file of the folder cut the same way, frame for frame")
    func cutOutBatch() throws {
        let dir = Scratch()
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        try Self.makeSource(dir.file("in/a.mp4"), fps: 120, frames: 360, bursts: [30])
        try Self.makeSource(dir.file("in/b.mp4"), fps: 120, frames: 300)
        let r = try Binary.run(["batch", Self.cutOut, "--input-dir", dir.file("in"), "--output-dir", dir.file("out"), "--settle", "0"],
                               timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let made = try FileManager.default.contentsOfDirectory(atPath: dir.file("out")).filter { !$0.hasPrefix(".") }.sorted()
        #expect(made == ["a-cut.mp4", "b-cut.mp4"])
        // a: 3 s → 0–119, 240–359; b: 2.5 s → 0–119, 240–299.
        #expect(try Self.stamps(dir.file("out/a-cut.mp4")).map(\.stamp) == (Array(0..<120) + Array(240..<360)).map { Optional($0) })
        #expect(try Self.stamps(dir.file("out/b-cut.mp4")).map(\.stamp) == (Array(0..<120) + Array(240..<300)).map { Optional($0) })
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("in")).sorted() == ["a.mp4", "b.mp4"])
    }

    @Test("plan of recipes/cut-out.yaml shows the two segments: their source ranges and where they play (JSON and text)")
    func planShowsSegments() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, fps: 120, frames: 360)
        let r = try Binary.run(["plan", Self.cutOut, "-i", src, "--json"], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let segments = try #require(json["segments"] as? [[String: Any]])
        #expect(segments.count == 2)
        let seen = segments.map { s -> String in
            let source = s["source"] as? [String: Any]
            return "\(source?["start"] ?? "?")–\(source?["end"] ?? "?") at \(s["at"] ?? "?") for \(s["duration"] ?? "?") speed \(s["speed"] ?? "?")"
        }
        #expect(seen == ["0–1 at 0 for 1 speed 1", "2–3 at 1 for 1 speed 1"])
        let text = try Binary.run(["plan", Self.cutOut, "-i", src], timeLimit: 120, cwd: dir.path)
        #expect(text.status == 0)
        #expect(text.stdout.contains("""
            timeline 2.000s, 2 segments  selective decode on
            segment  1: source [0.000s, 1.000s) at 0.000s for 1.000s, speed 1  (clip.mp4)
            segment  2: source [2.000s, 3.000s) at 1.000s for 1.000s, speed 1  (clip.mp4)
            timeline |clip.mp4 ======================|clip.mp4 ======================|
                     0.000s                          1.000s                          2.000s

            """), "\(text.stdout)")
        #expect(segments.allSatisfy { $0["samples"] is NSNull && $0["frames"] is NSNull }, "no sound, source timing: \(segments)")
        #expect(segments.map { ($0["file"] as? String).map { ($0 as NSString).lastPathComponent } } == ["clip.mp4", "clip.mp4"])
        #expect(dir.contents == ["clip.mp4"])
    }

    @Test("recipes/cut-out.yaml on samples/hfr-120fps.mp4 (its own source): 2 s, 240 frames")
    func cutOutSample() throws {
        let dir = Scratch()
        let r = try Binary.run(["run", Self.cutOut, "-o", dir.file("cut.mp4"), "--quiet"], timeLimit: 300, cwd: repo.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(dir.contents == ["cut.mp4"])
        let asset = try Asset.load(dir.file("cut.mp4"))
        #expect(abs(asset.duration.seconds - 2) < 0.03, "\(asset.duration.secondsDescription)")
        #expect(try Self.stamps(dir.file("cut.mp4")).count == 240)
        #expect(asset.audioTracks.count == 1)
    }

    static func slowRecipe(_ extra: String = "", sound: Bool = false) -> String {
        """
        recipe: 1
        output: "{dir}/{stem}-slomo.mp4"
        composition:
        \(extra)  video:
            - { end: 1s }
            - { start: 1s, end: 2s, speed: 1/8 }
            - { start: 2s }
        presets:
          video-30:
            base: h264-640x480
            frame-rate: 30
        reader:
          outputs:
            picture: { track: video }
        \(sound ? "    sound: { track: audio }\n" : "")writer:
          inputs:
            - { source: picture, settings: video-30 }
        \(sound ? "    - { source: sound, settings: aac-stereo }\n" : "")
        """
    }

    @Test("240 fps, 1–2 s at speed 1/8 in a 30 fps output: every source frame of that second once, in order, for 8 s; elsewhere one frame in eight")
    func slowMotion() throws {
        let dir = Scratch()
        let src = dir.file("hfr.mp4")
        try Self.makeSource(src, fps: 240, frames: 720)
        let recipe = dir.file("slow.yaml")
        try Self.slowRecipe().write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", recipe, "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(dir.contents == ["hfr-slomo.mp4", "hfr.mp4", "slow.yaml"])
        let stamps = try Self.stamps(dir.file("hfr-slomo.mp4"))
        // 1 s + 8 s + 1 s at 30 fps.
        #expect(stamps.count == 300)
        for (k, s) in stamps.enumerated() {
            let want: Int
            switch k {
            case 0..<30: want = 8 * k               // normal speed: slot k shows source k/30 s
            case 30..<270: want = 240 + (k - 30)    // slowed: every frame of 1–2 s, once
            default: want = 480 + 8 * (k - 270)     // normal again from source 2 s
            }
            #expect(s.stamp == want, "output frame \(k)")
            #expect(s.pts == FrameRate(frames: 30).frameDuration * Int64(k), "output frame \(k)")
        }
        let slowed = stamps[30..<270].compactMap(\.stamp)
        #expect(slowed == Array(240..<480))
        #expect(abs(try Asset.load(dir.file("hfr-slomo.mp4")).duration.seconds - 10) < 0.05)
    }

    /// `plan` of `recipe` text on `src`: its status and stderr; nothing is made.
    func refusal(_ recipeText: String, source src: String, in dir: Scratch) throws -> (status: Int32, stderr: String, path: String) {
        let recipe = dir.file("r.yaml")
        try recipeText.write(toFile: recipe, atomically: true, encoding: .utf8)
        let before = dir.contents
        var last: (Int32, String) = (0, "")
        for command in ["plan", "run"] {
            let r = try Binary.run([command, recipe, "-i", src], timeLimit: 120, cwd: dir.path)
            #expect(r.stdout == "", "\(command)")
            #expect(dir.contents == before, "\(command) made something")
            if command == "run" { #expect((r.status, r.stderr) == last, "run and plan differ") }
            last = (r.status, r.stderr)
        }
        return (last.0, last.1, recipe)
    }

    @Test("a scaled segment with sound, every stretching method: 10 s of sound, the bursts with their pictures; plan names the method of the scaled segment")
    func scaledSoundStretched() throws {
        let dir = Scratch()
        let src = dir.file("hfr.mp4")
        // Bursts at 0.5 s and 2.5 s (→ 9.5 s, after the slowed second).
        try Self.makeSource(src, fps: 240, frames: 720, bursts: [120, 600])
        let recipe = dir.file("slow.yaml")
        for method in AudioStretch.allCases where method != .mute {
            // Unsaid, the method is spectral.
            try Self.slowRecipe(method == .spectral ? "" : "  audio-stretch: \(method.rawValue)\n", sound: true)
                .write(toFile: recipe, atomically: true, encoding: .utf8)
            let plan = try Binary.run(["plan", recipe, "-i", src], cwd: dir.path)
            #expect(plan.status == 0, "\(plan.stderr)")
            #expect(plan.stdout.contains("segment  1: source [0.000s, 1.000s) at 0.000s for 1.000s, speed 1  (hfr.mp4, 30 frames, 48000 samples)\nsegment  2: source [1.000s, 2.000s) at 1.000s for 8.000s, speed 1/8, audio-stretch \(method.rawValue)  (hfr.mp4, 240 frames, 384000 samples)\nsegment  3: source [2.000s, 3.000s) at 9.000s for 1.000s, speed 1  (hfr.mp4, 30 frames, 48000 samples)\n"), "\(plan.stdout)")
            let json = try Binary.run(["plan", recipe, "-i", src, "--json"], cwd: dir.path)
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let methods = (object?["segments"] as? [[String: Any]])?.map { $0["audioStretch"] as? String ?? "-" }
            #expect(methods == ["-", method.rawValue, "-"])

            let out = dir.file("\(method.rawValue).mp4")
            let r = try Binary.run(["run", recipe, "-i", src, "--quiet", "-o", out], timeLimit: 300, cwd: dir.path)
            #expect(r.status == 0, "\(r.stderr)")
            let stamps = try Self.stamps(out)
            #expect(stamps.count == 300)
            let onsets = try Self.burstOnsets(out)
            #expect(onsets.count == 2, "\(method.rawValue): \(onsets)")
            for (onset, (want, frame)) in zip(onsets, [(0.5, 120), (9.5, 600)]) {
                #expect(abs(onset - want) <= 1.0 / 30, "\(method.rawValue): burst at \(onset) s, its frame at \(want) s")
                let shown = stamps.min { abs($0.pts.seconds - onset) < abs($1.pts.seconds - onset) }?.stamp
                #expect(shown == frame, "\(method.rawValue): burst at \(onset) s shows frame \(shown ?? -1)")
            }
            let end = try Self.soundEnd(out)
            #expect(end >= 10 && end < 10 + 1024.0 / 48000, "\(method.rawValue): sound ends at \(end) s")
        }
    }

    @Test("audio-stretch: mute: the slowed second is 8 s of silence, the sound around it plays with its pictures, 10 s of sound in all")
    func muted() throws {
        let dir = Scratch()
        let src = dir.file("hfr.mp4")
        // Bursts at 0.5 s (kept), 1.25 s (in the slowed second: muted) and 2.5 s (→ 9.5 s).
        try Self.makeSource(src, fps: 240, frames: 720, bursts: [120, 300, 600])
        let recipe = dir.file("slow.yaml")
        try Self.slowRecipe("  audio-stretch: mute\n", sound: true).write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", recipe, "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("hfr-slomo.mp4")
        let stamps = try Self.stamps(out)
        #expect(stamps.count == 300)
        let onsets = try Self.burstOnsets(out)
        #expect(onsets.count == 2, "\(onsets)")
        for (onset, (want, frame)) in zip(onsets, [(0.5, 120), (9.5, 600)]) {
            #expect(abs(onset - want) <= 1.0 / 30, "burst at \(onset) s, its frame at \(want) s")
            let shown = stamps.min { abs($0.pts.seconds - onset) < abs($1.pts.seconds - onset) }?.stamp
            #expect(shown == frame, "burst at \(onset) s shows frame \(shown ?? -1)")
        }
        // 1 s + 8 s of silence + 1 s of sound: it ends at 10 s (the decoder gives whole AAC
        // frames of 1024 samples, so up to one frame of the encoder's padding follows).
        let whole = try Self.soundEnd(out)
        #expect(whole >= 10 && whole < 10 + 1024.0 / 48000, "sound ends at \(whole) s")

        // The muted segment last: its silence alone gives the sound's end, 9 s.
        try Self.slowRecipe("  audio-stretch: mute\n", sound: true).replacingOccurrences(of: "    - { start: 2s }\n", with: "")
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        let last = try Binary.run(["run", recipe, "-i", src, "--quiet", "-o", dir.file("last.mp4")], timeLimit: 300, cwd: dir.path)
        #expect(last.status == 0, "\(last.stderr)")
        #expect(try Self.stamps(dir.file("last.mp4")).count == 270)
        let end = try Self.soundEnd(dir.file("last.mp4"))
        #expect(end >= 9 && end < 9 + 1024.0 / 48000, "sound ends at \(end) s")
        #expect(try Self.burstOnsets(dir.file("last.mp4")).count == 1)
    }

    /// Where the decoded sound of the first audio track ends (seconds).
    static func soundEnd(_ path: String) throws -> Double {
        let reader = try SampleReader(path: path, track: .type(.audio, 0))
        var end = 0.0
        while let a = try reader.nextAudio() { end = a.pts.seconds + Double(a.samples.count) / Double(a.sampleRate) }
        return end
    }

    @Test("copied pictures at another speed are refused at the speed (65)")
    func otherRefusals() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, fps: 30, frames: 90)
        let r = try refusal(Self.slowRecipe().replacingOccurrences(of: "settings: video-30", with: "settings: { codec: copy }"), source: src, in: dir)
        #expect(r.status == 65)
        #expect(r.stderr == "\(r.path):6:36: error: writer input 1 copies 'picture', but video segment 2 plays at another speed: copied pictures keep their source's frames and times; encode the video instead\n    - { start: 1s, end: 2s, speed: 1/8 }\n" + String(repeating: " ", count: 35) + "^\n", "\(r.stderr)")
    }
}
