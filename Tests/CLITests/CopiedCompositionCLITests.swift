import Foundation
import Pipeline
import Recipe
import Testing

/// A composition whose pictures are copied: a cut-out of one file and a join of two alike, cut
/// on keyframes of closed GOPs — every output packet the source's own bytes, the times
/// continuous, the sound encoded with its pictures; what a copy cannot do is refused at its
/// recipe line (65) with nothing made.
@Suite("reencode run with a composition of copied pictures: cut-out and join on keyframes, refusals", .serialized)
struct CopiedCompositionCLITests {
    /// `seconds` of 30 fps stamped pictures (320x180, H.264 with B frames, a closed GOP every
    /// second, stamps from `first`) and stereo sound with a 1 kHz burst at each whole second + 0.5 s.
    static func makeSource(_ path: String, seconds: Int, first: Int = 0, width: Int = 320, rotation: Int = 0, openGOP: Bool = false) throws {
        let rate = FrameRate(frames: 30)
        var video = GeneratedVideoFormat.droppableH264(width: width, height: 180, frameRate: rate)
        video.gop = 30
        video.rotation = rotation
        if openGOP { video.codecOptions["x264-params"] = "b-adapt=0:scenecut=0:open-gop=1" }
        let s = try FrameSource(path: path, video: video, audio: GeneratedAudioFormat())
        func tone(_ n: Int64) -> Float {
            let t = Double(n) / 48000, into = t - t.rounded(.down) - 0.5
            return into >= 0 && into < 0.08 ? Float(0.5 * sin(2 * Double.pi * 1000 * into)) : 0
        }
        var samplesDone = 0
        for i in 0..<(30 * seconds) {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: first + i, into: $0) }
            let until = (i + 1) * 48000 / 30
            try s.appendAudio(count: until - samplesDone) { _, n in tone(n) }
            samplesDone = until
        }
        try s.finish()
    }

    static func recipe(segments: String, sound: String = "aac-stereo", sources: String = "") -> String {
        """
        recipe: 1
        output: "{dir}/{stem}-joined.mp4"
        \(sources)composition:
          video:
        \(segments)
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        writer:
          inputs:
            - { source: picture, settings: { codec: copy } }
            - { source: sound, settings: \(sound) }

        """
    }

    /// Each video packet: pts (in the stream's ticks), key flag and an MD5 of its bytes.
    static func packets(_ file: String) throws -> [(pts: Int, key: Bool, hash: String)] {
        let r = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_data_hash", "MD5",
                                                          "-show_entries", "packet=pts,flags,data_hash", "-of", "csv=p=0", file])
        return r.stdout.split(separator: "\n").map { line in
            let f = line.split(separator: ",").map(String.init)
            return (Int(f[0]) ?? -1, f[1].hasPrefix("K"), f[2])
        }
    }

    static func decodeErrors(_ file: String) throws -> String {
        let r = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-i", file, "-map", "0", "-f", "null", "-"])
        return r.stderr
    }

    @Test("a cut-out (0–2 s and 4–6 s of one file): the source's own packets for exactly those frames, times continuous, the bursts with their pictures")
    func cutOut() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, seconds: 6)
        let recipe = dir.file("r.yaml")
        try Self.recipe(segments: "    - { end: 2s }\n    - { start: 4s }").write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", recipe, "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("clip-joined.mp4")

        // Frames 0–59 then 120–179, each at k/30 on the output's timeline.
        let stamps = try CompositionRunCLITests.stamps(out)
        #expect(stamps.map(\.stamp) == Array(0..<60) + Array(120..<180))
        for (k, s) in stamps.enumerated() { #expect(s.pts == MediaTime(value: Int64(k), timescale: 30), "frame \(k) at \(s.pts)") }
        // Byte for byte the source's packets (in presentation order), keyframes where the source's were.
        let source = try Self.packets(src).sorted { $0.pts < $1.pts }
        let copied = try Self.packets(out).sorted { $0.pts < $1.pts }
        let kept = Array(source[0..<60]) + Array(source[120..<180])
        #expect(copied.map(\.hash) == kept.map(\.hash))
        #expect(copied.map(\.key) == kept.map(\.key))
        #expect(copied.filter(\.key).count == 4)
        #expect(try Self.decodeErrors(out) == "")
        // The sound is cut with the pictures: bursts at 0.5, 1.5 (kept), 4.5 → 2.5, 5.5 → 3.5 s.
        let onsets = try CompositionRunCLITests.burstOnsets(out)
        #expect(onsets.count == 4, "\(onsets)")
        for (got, want) in zip(onsets, [0.5, 1.5, 2.5, 3.5]) { #expect(abs(got - want) < 0.005, "burst at \(got), not \(want)") }
    }

    @Test("Matroska with B frames (no decode times on its first samples): the cut-out's stamps, times and the source's packets")
    func matroska() throws {
        let dir = Scratch()
        let src = dir.file("clip.mkv")
        try Self.makeSource(src, seconds: 6)
        // Matroska states milliseconds, and delays the pictures by the B-frame reordering: the
        // keyframes as the file has them, counted from its start as a recipe counts.
        let keys = try Self.keyframesAndPackets(src).keys
        let start = try #require(Double(try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-show_entries", "format=start_time", "-of", "csv=p=0", src])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        try #require(keys.count == 6, "keyframes \(keys)")
        let recipe = dir.file("r.yaml")
        try Self.recipe(segments: "    - { end: \(keys[2] - start)s }\n    - { start: \(keys[4] - start)s }").replacingOccurrences(of: "-joined.mp4", with: "-joined.mkv")
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", recipe, "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("clip-joined.mkv")
        let stamps = try CompositionRunCLITests.stamps(out)
        #expect(stamps.map(\.stamp) == Array(0..<60) + Array(120..<180))
        let first = try #require(stamps.first?.pts)
        for (k, s) in stamps.enumerated() {
            // Matroska keeps milliseconds: each frame within half of one of k/30 from the first.
            #expect(abs((s.pts - first).seconds - Double(k) / 30) < 0.0006, "frame \(k) at \(s.pts)")
        }
        let source = try Self.keyframesAndPackets(src).packets, copied = try Self.keyframesAndPackets(out).packets
        #expect(copied.map(\.hash) == (Array(source[0..<60]) + Array(source[120..<180])).map(\.hash))
        #expect(try Self.decodeErrors(out) == "")
    }

    @Test("a join of two files alike: the first's 1–3 s, then the second whole — its own packets, stamps 1030… after 30…89")
    func join() throws {
        let dir = Scratch()
        let a = dir.file("a.mp4"), b = dir.file("b.mp4")
        try Self.makeSource(a, seconds: 4)
        try Self.makeSource(b, seconds: 2, first: 1000)
        let recipe = dir.file("r.yaml")
        try Self.recipe(segments: "    - { source: first, start: 1s, end: 3s }\n    - { source: second }", sources: "sources:\n  first: \"{input}\"\n  second: \(b)\n")
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", recipe, "-i", a, "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("a-joined.mp4")
        let stamps = try CompositionRunCLITests.stamps(out)
        #expect(stamps.map(\.stamp) == Array(30..<90) + Array(1000..<1060))
        for (k, s) in stamps.enumerated() { #expect(s.pts == MediaTime(value: Int64(k), timescale: 30), "frame \(k) at \(s.pts)") }
        let first = try Self.packets(a).sorted { $0.pts < $1.pts }, second = try Self.packets(b).sorted { $0.pts < $1.pts }
        #expect(try Self.packets(out).sorted { $0.pts < $1.pts }.map(\.hash) == (Array(first[30..<90]) + second).map(\.hash))
        #expect(try Self.decodeErrors(out) == "")
    }

    /// Keyframe times (seconds, ascending) and every video packet (pts seconds, MD5) of a file.
    static func keyframesAndPackets(_ file: String) throws -> (keys: [Double], packets: [(pts: Double, hash: String)]) {
        let r = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_data_hash", "MD5",
                                                          "-show_entries", "packet=pts_time,flags,data_hash", "-of", "csv=p=0", file])
        var keys: [Double] = [], packets: [(Double, String)] = []
        for line in r.stdout.split(separator: "\n") {
            let f = line.split(separator: ",").map(String.init)
            guard f.count == 3, let t = Double(f[0]) else { continue }
            if f[1].hasPrefix("K") { keys.append(t) }
            packets.append((t, f[2]))
        }
        return (keys.sorted(), packets.sorted { $0.0 < $1.0 })
    }

    @Test("real files (a GoPro clip, H.264 with a B-pyramid): the second keyframe's GOP cut out — the source's packets on each side, decoded without an error; an open GOP's keyframe refused as an end",
          .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
    func corpus() throws {
        let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? ""
        let dir = Scratch()
        for name in ["gpmf-parser/hero7.mp4", "androidx-media/mp4_bbb_800x640_768kbps_30fps_avc_pyramid_3b.mp4"] {
            let src = corpus + "/" + name
            let (keys, packets) = try Self.keyframesAndPackets(src)
            try #require(keys.count >= 3, "\(name): keyframes \(keys)")
            let recipe = dir.file("r.yaml")
            try Self.recipe(segments: "    - { end: \(keys[1])s }\n    - { start: \(keys[2])s }")
                .replacingOccurrences(of: "    sound: { track: audio }\n", with: "").replacingOccurrences(of: "    - { source: sound, settings: aac-stereo }\n", with: "")
                .write(toFile: recipe, atomically: true, encoding: .utf8)
            let r = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("out.mp4"), "--quiet", "--overwrite"], timeLimit: 300, cwd: dir.path)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            let kept = packets.filter { $0.pts < keys[1] - 1e-6 || $0.pts >= keys[2] - 1e-6 }.map(\.hash)
            #expect(try Self.keyframesAndPackets(dir.file("out.mp4")).packets.map(\.hash) == kept, "\(name)")
            #expect(try Self.decodeErrors(dir.file("out.mp4")) == "", "\(name)")
        }
        // I P B B …: the keyframe at 2 s is decoded before the B frames shown at 0 and 1 s.
        let open = corpus + "/androidx-media/mp4_iibbibb_editlist_videoonly.mp4"
        let recipe = dir.file("r.yaml")
        try Self.recipe(segments: "    - { end: 2s }").replacingOccurrences(of: "    sound: { track: audio }\n", with: "")
            .replacingOccurrences(of: "    - { source: sound, settings: aac-stereo }\n", with: "").write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["plan", recipe, "-i", open], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 65)
        #expect(r.stderr.hasPrefix("\(recipe):5:14: error: \(open): segment 1: it ends at 2.000s, before a keyframe whose group of pictures is open (pictures shown before it are decoded after it, so a copy would lose them); end elsewhere, or encode the video\n"), "\(r.stderr)")
    }

    @Test("what a copy cannot do: a start or end between keyframes, another speed, copied sound, files not alike — each at its line, 65, nothing made")
    func refusals() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4"), wide = dir.file("wide.mp4"), turned = dir.file("turned.mp4"), open = dir.file("open.mp4")
        try Self.makeSource(src, seconds: 4)
        try Self.makeSource(wide, seconds: 1, width: 352)
        try Self.makeSource(turned, seconds: 1, rotation: 90)
        try Self.makeSource(open, seconds: 4, openGOP: true)
        let cases: [(String, String)] = [
            (Self.recipe(segments: "    - { end: 1s }\n    - { start: 2500ms }"),
             "r.yaml:6:16: error: \(src): segment 2: it starts at 2.500s, between keyframes (the nearest are at 2.000s and 3.000s): a copy can begin only on a keyframe; start on one, or encode the video"),
            (Self.recipe(segments: "    - { end: 1500ms }\n    - { start: 2s }"),
             "r.yaml:5:14: error: \(src): segment 1: it ends at 1.500s, between keyframes (the nearest are at 1.000s and 2.000s): a copy can end only before a keyframe (or at the end of its file); end on one, or encode the video"),
            (Self.recipe(segments: "    - { end: 1s, speed: 1/2 }"),
             "r.yaml:5:25: error: writer input 1 copies 'picture', but video segment 1 plays at another speed: copied pictures keep their source's frames and times; encode the video instead"),
            (Self.recipe(segments: "    - { end: 1s }", sound: "{ codec: copy }"),
             "r.yaml:13:36: error: writer input 2 copies 'sound', but a composition's sound is decoded and mixed: only its pictures can be copied; encode the sound (e.g. codec: aac)"),
            (Self.recipe(segments: "    - { source: first, end: 1s }\n    - { source: wide }", sources: "sources:\n  first: \"{input}\"\n  wide: \(wide)\n"),
             "r.yaml:9:7: error: \(wide): segment 2: its pictures differ from segment 1's (\(src)): 352x180, not 320x180; copied segments are joined into one stream, so every file's must be alike: encode the video instead"),
            (Self.recipe(segments: "    - { source: first, end: 1s }\n    - { source: turned }", sources: "sources:\n  first: \"{input}\"\n  turned: \(turned)\n"),
             "r.yaml:9:7: error: \(turned): segment 2: its pictures differ from segment 1's (\(src)): turned 90°, not 0°; copied segments are joined into one stream, so every file's must be alike: encode the video instead"),
            (Self.recipe(segments: "    - { source: first, end: 1s }\n    - { source: open, start: 2s }", sources: "sources:\n  first: \"{input}\"\n  open: \(open)\n"),
             "r.yaml:9:30: error: \(open): segment 2: it starts at 2.000s on a keyframe that does not restart decoding (its group of pictures is open): a copy joined after another segment must begin on an IDR picture; start on one, or encode the video"),
            (Self.recipe(segments: "    - { end: 1s }", sound: "{ codec: aac }").replacingOccurrences(of: "sound: { track: audio }", with: "sound: { track: audio, decode: false }"),
             "r.yaml:9:5: error: writer input 2 copies 'sound', but a composition's sound is decoded and mixed: only its pictures can be copied; remove 'decode: false' so that the sound is encoded"),
        ]
        for (text, expected) in cases {
            let recipe = dir.file("r.yaml")
            try text.write(toFile: recipe, atomically: true, encoding: .utf8)
            let before = dir.contents
            for command in ["plan", "run"] {
                let r = try Binary.run([command, recipe, "-i", src], timeLimit: 120, cwd: dir.path)
                #expect(r.status == 65, "\(command): \(r.stderr)")
                #expect(r.stderr.hasPrefix(dir.file(expected)), "\(command): \(r.stderr)")
                #expect(dir.contents == before, "\(command) made something")
            }
        }
    }

    @Test("stills beside copied pictures: the composition is drawn for them alone (nothing encoded), each shows the frame at its time, the copy is written as it is")
    func stills() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, seconds: 2)
        let recipe = dir.file("r.yaml")
        try """
            recipe: 1
            composition:
              video:
                - { end: 1s }
            reader:
              outputs:
                picture: { track: video }
            outputs:
              - path: "{dir}/{stem}-copied.mp4"
                inputs:
                  - { source: picture, settings: { codec: copy } }
              - path: "{dir}/{stem}-{n}.jpg"
                images: { source: picture, at: [0.5s] }

            """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let plan = try Binary.run(["plan", recipe, "-i", src], timeLimit: 120, cwd: dir.path)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("1 still of the composition (1.000s) drawn at 320x180 for them alone (nothing encoded), 320x180 JPEG"), "\(plan.stdout)")
        let r = try Binary.run(["run", recipe, "-i", src, "--quiet"], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(dir.contents == ["clip-1.jpg", "clip-copied.mp4", "clip.mp4", "r.yaml"])
        let still = try #require(try SampleReader(path: dir.file("clip-1.jpg"), track: .type(.video, 0)).nextPicture())
        #expect(still.stamp == 15 && still.width == 320 && still.height == 180, "\(String(describing: still.stamp)) \(still.width)x\(still.height)")
    }
}
