import Foundation
import Pipeline
import Recipe
import Testing

/// The sound of a smart-rendered output (`SmartSoundPass`, `SmartSoundSequence`): the source's
/// AAC frames that lie whole inside each kept range are copied byte for byte and only a few frames
/// at each cut encoded again; the sound lasts what a full encode's lasts within a frame, lands
/// within a frame of its pictures at every cut, and decodes without an error.
@Suite("reencode run with smart rendering: the sound copied between the cuts", .serialized)
struct SmartSoundCLITests {
    static let frame = 1024.0 / 48000

    /// Like `SmartRenderCLITests.makeSource` (30 fps stamped pictures, a closed GOP every second,
    /// a B-pyramid; a 1 kHz burst at each whole second + 0.5 s), with a tone under the bursts
    /// (0.08, rising from 440 Hz), so that every AAC frame of the source differs from every other
    /// (silence would make frames alike) and an encoder started from silence at a cut sees an
    /// onset (with a quieter tone FFmpeg's keeps long windows, and a join without the lead-in
    /// passes unseen). `size`: the pictures' width and height.
    static func makeSource(_ path: String, seconds: Int, size: (Int, Int) = (320, 180)) throws {
        let rate = FrameRate(frames: 30)
        var video = GeneratedVideoFormat(width: size.0, height: size.1, frameRate: rate)
        video.gop = 30
        video.codecOptions = ["preset": "ultrafast", "bf": "3", "b-pyramid": "normal", "x264-params": "b-adapt=0:scenecut=0"]
        let s = try FrameSource(path: path, video: video, audio: GeneratedAudioFormat())
        func tone(_ n: Int64) -> Float {
            let t = Double(n) / 48000, into = t - t.rounded(.down) - 0.5
            let under = 0.08 * sin(2 * Double.pi * (440 * t + 5 * t * t))
            return Float(into >= 0 && into < 0.08 ? 0.5 * sin(2 * Double.pi * 1000 * into) + under : under)
        }
        var samplesDone = 0
        for i in 0..<(30 * seconds) {
            try s.appendPicture(at: rate.frameDuration * Int64(i)) { TestPattern.draw(index: i, into: $0) }
            let until = (i + 1) * 48000 / 30
            try s.appendAudio(count: until - samplesDone) { _, n in tone(n) }
            samplesDone = until
        }
        try s.finish()
    }

    /// Start times of the bursts (a rise above 0.3 after at least 0.2 s below it: the tone under
    /// them stays below 0.1).
    static func burstOnsets(_ path: String) throws -> [Double] {
        let r = try SampleReader(path: path, track: .type(.audio, 0))
        var onsets: [Double] = []
        var lastLoud = -10.0
        while let a = try r.nextAudio() {
            for (i, s) in a.samples.enumerated() where abs(s) > 0.3 {
                let t = a.pts.seconds + Double(i) / Double(a.sampleRate)
                if t - lastLoud > 0.2 { onsets.append(t) }
                lastLoud = t
            }
        }
        return onsets
    }

    /// Each audio packet's pts, duration and MD5, in order.
    static func soundPackets(_ file: String) throws -> [(pts: Int, duration: Int, hash: String)] {
        let r = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-select_streams", "a:0", "-show_data_hash", "MD5",
                                                          "-show_entries", "packet=pts,duration,data_hash", "-of", "csv=p=0", file])
        // A packet with side data (the priming's skip samples) is followed by an empty line.
        return r.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            .filter { $0.count >= 3 }.map { f in (Int(f[0]) ?? -1, Int(f[1]) ?? -1, f[2]) }
    }

    /// The decoded sound, mixed to one channel (FFmpeg drops what the edit list hides).
    static func decoded(_ file: String) throws -> [Float] {
        let r = try SampleReader(path: file, track: .type(.audio, 0))
        var out: [Float] = []
        while let a = try r.nextAudio() { out += a.samples }
        return out
    }

    /// FFmpeg decodes every track, stopping at the first error (`-xerror`): its status and what it said.
    static func strictDecode(_ file: String) throws -> (status: Int32, errors: String) {
        let r = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-xerror", "-i", file, "-map", "0", "-f", "null", "-"])
        return (r.status, r.stderr)
    }

    static func plan(_ dir: Scratch, _ src: String) throws -> (text: [String], json: [String: Any]) {
        let text = try Binary.run(["plan", dir.file("r.yaml"), "-i", src], timeLimit: 120, cwd: dir.path)
        let json = try Binary.run(["plan", "--json", dir.file("r.yaml"), "-i", src], timeLimit: 120, cwd: dir.path)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        return (text.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("sound    ") }, o)
    }

    /// Smart against full: copied packets the source's, few encoded, the same length within a
    /// frame, the bursts where the full encode has them within a frame, a clean decode.
    /// `primed`: the output's first packet is the encoder's priming, hidden by the MP4/MOV edit
    /// list; Matroska's sound starts with its first frame (and stamps in milliseconds).
    static func check(_ dir: Scratch, smart: String, full: String, src: String, stretches: Int, bursts: [Double], primed: Bool = true) throws {
        let p = try plan(dir, src)
        let sound = try #require((p.json["smartSound"] as? [[String: Any]])?.first, "\(p.json)")
        let copied = try #require(sound["copiedFrames"] as? Int)
        let encoded = try #require(sound["encodedFrames"] as? [Int])
        #expect(encoded.count == stretches && encoded.allSatisfy { $0 <= 3 }, "\(encoded)")
        #expect(p.text.count == 1 && p.text[0].hasPrefix("sound    output track 2: \(copied) frames copied, \(encoded.reduce(0, +)) encoded (\(stretches) stretches at the cuts: "), "\(p.text)")

        // The copied frames are the source's bytes, in runs in the source's order; the others few.
        let source = try soundPackets(src), made = try soundPackets(smart)
        let index = Dictionary(source.enumerated().map { ($0.element.hash, $0.offset) }, uniquingKeysWith: { a, _ in a })
        // The first packet is the priming the edit list hides (FFmpeg's encoder codes it as the
        // source's first: both from the encoder's start), not a copy.
        let found = made.dropFirst(primed ? 1 : 0).map { index[$0.hash] }
        #expect(found.compactMap { $0 }.count == copied, "\(found)")
        #expect(made.count - copied <= encoded.reduce(0, +) + (primed ? 1 : 0))
        for (a, b) in zip(found, found.dropFirst()) { if let a, let b { #expect(b == a + 1, "copied frames out of order: \(a) then \(b)") } }
        // Every frame follows the one before without a gap (Matroska: 1024/48 ms, rounded to the millisecond).
        for (a, b) in zip(made, made.dropFirst()) {
            #expect(primed ? b.pts == a.pts + a.duration : abs(Double(b.pts - a.pts) - 1024.0 / 48) <= 1, "\(a) then \(b)")
        }

        let heard: [Float] = try decoded(smart), fullSound: [Float] = try decoded(full), sourceSound: [Float] = try decoded(src)
        #expect(abs(heard.count - fullSound.count) <= 1024, "smart \(heard.count) samples, full \(fullSound.count)")
        // Every copied frame decodes as in the source, the first after encoded frames too (its
        // overlap comes from the encoded frame before it): packet i after any priming shows samples [1024i, 1024(i+1)).
        // Measured: at most 2 % of the frame's peak (a transient the size of coding noise); an
        // encoder that starts from silence, with short windows, leaves 50 % in the first copied frame.
        var worst: (ratio: Float, frame: Int) = (0, 0)
        for (i, j) in zip(0..., found) {
            guard let j, (i + 1) * 1024 <= heard.count, j * 1024 <= sourceSound.count else { continue }
            var e: Float = 0, peak: Float = 0
            for k in 0..<1024 {
                e = max(e, abs(heard[i * 1024 + k] - sourceSound[(j - 1) * 1024 + k]))
                peak = max(peak, abs(sourceSound[(j - 1) * 1024 + k]))
            }
            if e / max(peak, 0.01) > worst.ratio { worst = (e / max(peak, 0.01), i) }
        }
        #expect(worst.ratio < 0.05, "copied frame \(worst.frame) decodes \(worst.ratio) of its peak off the source's")
        let got = try Self.burstOnsets(smart), want = try Self.burstOnsets(full)
        #expect(got.count == bursts.count && want.count == bursts.count, "\(got) \(want)")
        for (g, (w, b)) in zip(got, zip(want, bursts)) {
            #expect(abs(g - w) < frame && abs(g - b) < frame, "burst at \(g): the full encode's at \(w), its picture's at \(b)")
        }
        let d = try strictDecode(smart)
        #expect(d.status == 0 && d.errors.isEmpty, "\(d.errors)")
    }

    @Test("a cut-out (0.4–2.3 s and 3.1–5.5 s) into MP4: the source's AAC frames between the cuts copied, ≤ 3 frames encoded per stretch, the bursts within a frame of their pictures")
    func cutOut() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, seconds: 6)
        let smart = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "full.mp4", smart: "off", timing: SmartRenderCLITests.cutOut), src)
        #expect(smart.status == 0, "\(smart.stderr)")
        let r = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "smart.mp4", timing: SmartRenderCLITests.cutOut), src)
        #expect(r.status == 0, "\(r.stderr)")
        try SmartRenderCLITests.checkFrames(dir.file("smart.mp4"), stamps: Array(12..<69) + Array(93..<165))
        try Self.check(dir, smart: dir.file("smart.mp4"), full: dir.file("full.mp4"), src: src, stretches: 3, bursts: [0.1, 1.1, 2.3, 3.3])
    }

    @Test("a trim (1.5–4.2 s) into MOV: the sound's whole frames copied, two stretches encoded, as long as the full encode's within a frame")
    func trim() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, seconds: 6)
        let full = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "full.mov", smart: "off", timing: SmartRenderCLITests.trim), src)
        #expect(full.status == 0, "\(full.stderr)")
        let r = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "smart.mov", timing: SmartRenderCLITests.trim), src)
        #expect(r.status == 0, "\(r.stderr)")
        try Self.check(dir, smart: dir.file("smart.mov"), full: dir.file("full.mov"), src: src, stretches: 2, bursts: [0.0, 1.0, 2.0])
    }

    @Test("a cut-out of 1 s from the middle of a 10-minute source (128x72): every frame duration equal, the bursts either side of the cut within an audio frame of their pictures, the sound copied but at the cuts")
    func tenMinutes() throws {
        let dir = Scratch()
        let src = dir.file("long.mp4")
        try Self.makeSource(src, seconds: 600, size: (128, 72))
        let timing = "composition:\n  video:\n    - { end: 300s }\n    - { start: 301s }\n"
        let r = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "smart.mp4", timing: timing), src)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("smart.mp4")
        // The pictures: 0…8999 then 9030…17999, every one 1/30 s after the one before.
        let stamps = try CompositionRunCLITests.stamps(out)
        #expect(stamps.count == 17970)
        #expect(stamps.map(\.stamp) == (Array(0..<9000) + Array(9030..<18000)).map { Optional($0) })
        for (a, b) in zip(stamps, stamps.dropFirst()) where abs((b.pts - a.pts).seconds - 1.0 / 30) > 0.0001 {
            Issue.record("frame at \(a.pts.seconds) lasts \((b.pts - a.pts).seconds) s")
            break
        }
        // The bursts at 297.5 … 299.5 and (from the source's 301.5 on, 1 s earlier) 300.5 … 302.5 s:
        // each within an audio frame of the picture it was made with.
        let onsets = try Self.burstOnsets(out).filter { $0 > 297 && $0 < 303 }
        #expect(onsets.count == 6, "\(onsets)")
        for (got, want) in zip(onsets, [297.5, 298.5, 299.5, 300.5, 301.5, 302.5]) { #expect(abs(got - want) < Self.frame, "burst at \(got), not \(want)") }
        let p = try Self.plan(dir, src)
        let sound = try #require((p.json["smartSound"] as? [[String: Any]])?.first, "\(p.json)")
        let encoded = try #require(sound["encodedFrames"] as? [Int]), copied = try #require(sound["copiedFrames"] as? Int)
        // Encoded: the output's first frame and the cut (the copy runs to the file's end).
        #expect(encoded.count == 2 && encoded.allSatisfy { $0 <= 3 } && copied > 28000, "\(encoded) \(copied)")
        let d = try Self.strictDecode(out)
        #expect(d.status == 0 && d.errors.isEmpty, "\(d.errors)")
    }

    @Test("a cut-out (0.4–2.3 s and 3.1–5.5 s) into MKV: the source's AAC frames between the cuts copied, ≤ 3 frames encoded per stretch, no priming before the first frame (as a full encode into MKV), as long as the full encode's within a frame, the bursts within a frame of their pictures")
    func cutOutMatroska() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, seconds: 6)
        let full = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "full.mkv", smart: "off", timing: SmartRenderCLITests.cutOut), src)
        #expect(full.status == 0, "\(full.stderr)")
        let r = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "smart.mkv", timing: SmartRenderCLITests.cutOut), src)
        #expect(r.status == 0, "\(r.stderr)")
        try SmartRenderCLITests.checkFrames(dir.file("smart.mkv"), stamps: Array(12..<69) + Array(93..<165))
        // Both start their sound at 0 with its first frame, the pictures there too.
        for file in ["smart.mkv", "full.mkv"] {
            #expect(try Self.soundPackets(dir.file(file)).first?.pts == 0, "\(file)")
        }
        try Self.check(dir, smart: dir.file("smart.mkv"), full: dir.file("full.mkv"), src: src, stretches: 3, bursts: [0.1, 1.1, 2.3, 3.3], primed: false)
    }

    @Test("what the copy cannot keep encodes the sound whole, and plan says why: other channels, another rate")
    func wholeWhere() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, seconds: 4)
        let base = SmartRenderCLITests.recipe(output: "smart.mp4", timing: SmartRenderCLITests.trim.replacingOccurrences(of: "4.2s", with: "3.2s"))
        let mono = base.replacingOccurrences(of: "settings: aac-stereo", with: "settings: { codec: aac, channels: 1 }")
        try mono.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        #expect(try Self.plan(dir, src).text == ["sound    output track 2: encoded whole: the output's sound channel layout (mono) is not the source's (stereo)"])
        let rate = base.replacingOccurrences(of: "settings: aac-stereo", with: "settings: { codec: aac, sample-rate: 44100 }")
        try rate.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        #expect(try Self.plan(dir, src).text == ["sound    output track 2: encoded whole: the output's sound rate (44100 Hz) is not the source's (48000 Hz)"])
        let r = try SmartRenderCLITests.run(dir, rate, src)
        #expect(r.status == 0, "\(r.stderr)")
        let made = try Self.soundPackets(dir.file("smart.mp4")), source = Set(try Self.soundPackets(src).map(\.hash))
        #expect(made.count > 60 && made.dropFirst().allSatisfy { !source.contains($0.hash) })
    }

    /// A cut-out (0.4–2.3 s and 3.1–5.5 s) into smart.mp4 beside a second output of the same sound.
    static let sharedCutOut = """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
            sound: { track: audio }
        composition:
          video:
            - { start: 0.4s, end: 2.3s }
            - { start: 3.1s, end: 5.5s }
        outputs:
          - path: smart.mp4
            inputs:
              - { source: picture, settings: { codec: h264, smart: require } }
              - { source: sound, settings: aac-stereo }
          - path: sound.m4a
            inputs:
              - { source: sound, settings: { codec: aac, bitrate: 96k } }
        """

    @Test("a cut-out beside a second output of the same sound: plan says the smart output's sound is encoded whole and why, and the run encodes it as the full encode does (its frames at the full encode's times, none the source's), its bursts within a frame of their pictures; the pictures stay smart")
    func sharedSound() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try Self.makeSource(src, seconds: 6)
        try Self.sharedCutOut.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let why = "output 2 takes its sound from the same read (a copied sound is written to one output alone)"
        let p = try Self.plan(dir, src)
        #expect(p.text == ["sound    output track 2: encoded whole: " + why], "\(p.text)")
        let outputs = try #require(p.json["outputs"] as? [[String: Any]], "\(p.json)")
        let sound = try #require((outputs.first?["smartSound"] as? [[String: Any]])?.first, "\(outputs)")
        #expect(sound["encodedWhole"] as? String == why && sound["copiedFrames"] == nil, "\(sound)")
        #expect((outputs.first?["smart"] as? [[String: Any]])?.count == 1, "\(outputs)")

        let r = try Binary.run(["run", "r.yaml", "-i", src, "--quiet"], timeLimit: 300, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let full = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "full.mp4", smart: "off", timing: SmartRenderCLITests.cutOut), src)
        #expect(full.status == 0, "\(full.stderr)")
        // The pictures: smart, two copied runs of one group each (as without the second output).
        let smart = dir.file("smart.mp4")
        try SmartRenderCLITests.checkFrames(smart, stamps: Array(12..<69) + Array(93..<165))
        let sourcePictures = Set(try CopiedCompositionCLITests.packets(src).map(\.hash))
        #expect(try CopiedCompositionCLITests.packets(smart).filter { sourcePictures.contains($0.hash) }.count == 58)
        // The sound: what plan says, encoded whole — the full encode's frames at its times, none
        // of them the source's (the cuts move every frame off the source's frame grid).
        let made = try Self.soundPackets(smart), whole = try Self.soundPackets(dir.file("full.mp4"))
        let source = Set(try Self.soundPackets(src).map(\.hash))
        #expect(made.count == whole.count && made.count > 100, "\(made.count) packets, the full encode's \(whole.count)")
        #expect(made.map(\.pts) == whole.map(\.pts))
        #expect(made.dropFirst().allSatisfy { !source.contains($0.hash) }, "a sound packet of smart.mp4 is the source's own: it was copied")
        #expect(try Self.decoded(smart).count == (try Self.decoded(dir.file("full.mp4"))).count)
        let bursts = [0.1, 1.1, 2.3, 3.3]
        for file in [smart, dir.file("sound.m4a")] {
            let got = try Self.burstOnsets(file)
            #expect(got.count == bursts.count, "\(file): \(got)")
            for (g, b) in zip(got, bursts) { #expect(abs(g - b) < Self.frame, "\(file): burst at \(g), its picture's at \(b)") }
        }
        let d = try Self.strictDecode(smart)
        #expect(d.status == 0 && d.errors.isEmpty, "\(d.errors)")
    }
}
