import Foundation
import Pipeline
import Recipe
import Testing

/// `reencode images`: what it prints (text and JSON: the time asked, the frame shown, the file),
/// and its refusals — exact message, exit code, nothing written.
@Suite("reencode images")
struct ImagesCLITests {
    /// `a.mp4`: 2 s at 30 fps (stamped), keyframes every 0.5 s.
    static func source(_ dir: Scratch) throws -> String {
        let path = dir.file("a.mp4")
        var v = GeneratedVideoFormat(width: 320, height: 180, frameRate: FrameRate(frames: 30))
        v.gop = 15
        v.codecOptions = ["preset": "ultrafast", "x264-params": "scenecut=0"]
        let s = try FrameSource(path: path, video: v, audio: nil)
        for f in 0..<60 { try s.appendPicture(at: FrameRate(frames: 30).frameDuration * Int64(f)) { TestPattern.draw(index: f, into: $0) } }
        try s.finish()
        return path
    }

    @Test("text: a line per still with the time asked, the frame shown and its file; the files show those frames")
    func text() throws {
        let dir = Scratch()
        let a = try Self.source(dir)
        let r = try Binary.run(["images", a, "--at", "1.02s,50%,2s", "-o", dir.file("out/t-{n}.jpg")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == """
            \(a): 3 stills of track #0, 320x180 JPEG
              #1 at 1.020s: the frame at 1.000s (exact) → \(dir.file("out/t-1.jpg"))
              #2 at 50% (1.000s): the frame at 1.000s (exact) → \(dir.file("out/t-2.jpg"))
              #3 at 2.000s: the frame at 1.967s (exact) → \(dir.file("out/t-3.jpg"))

            """)
        #expect(try SampleReader(path: dir.file("out/t-3.jpg"), track: .type(.video, 0)).nextPicture()?.stamp == 59)
        #expect(Set(dir.contents) == ["a.mp4", "out"])
        // Again: the stills exist (73), and stay as they are.
        let before = try FileManager.default.contentsOfDirectory(atPath: dir.file("out")).sorted()
        let again = try Binary.run(["images", a, "--at", "0.1s,50%,2s", "-o", dir.file("out/t-{n}.jpg")])
        #expect(again.status == 73)
        #expect(again.stderr == "error: \(dir.file("out/t-1.jpg")): already exists (use --overwrite to replace it)\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("out")).sorted() == before)
        #expect(try SampleReader(path: dir.file("out/t-1.jpg"), track: .type(.video, 0)).nextPicture()?.stamp == 30)
    }

    @Test("--json with --count and keyframe tolerance: each still's asked time, the keyframe's time, the file; beside the source by default")
    func json() throws {
        let dir = Scratch()
        let a = try Self.source(dir)
        let args = ["images", a, "--count", "2", "--tolerance", "keyframe", "--size", "160x160", "--json"]
        let dry = try Binary.run(args + ["--dry-run"])
        #expect(dry.status == 0 && dir.contents == ["a.mp4"], "--dry-run writes nothing: \(dry.stderr)")
        let r = try Binary.run(args)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == dry.stdout, "--dry-run says what the run does")
        let o = try #require(BatchFixture.json(r.stdout))
        #expect(o["width"] as? Int == 160 && o["height"] as? Int == 90 && o["format"] as? String == "jpeg")
        let stills = try #require(o["stills"] as? [[String: Any]])
        // The middles of two halves: 0.5 s and 1.5 s, both keyframes (every 15 frames).
        #expect(stills.map { $0["requested"] as? Double } == [0.5, 1.5])
        #expect(stills.map { $0["time"] as? Double } == [0.5, 1.5])
        #expect(stills.map { $0["frame"] as? String } == ["exact", "exact"])
        #expect(stills.map { $0["file"] as? String } == [dir.file("a-1.jpg"), dir.file("a-2.jpg")])
        let later = try Binary.run(["images", a, "--at", "0.7s", "--tolerance", "keyframe", "--json", "-o", dir.file("k.png")])
        let k = try #require((BatchFixture.json(later.stdout)?["stills"] as? [[String: Any]])?.first)
        #expect(k["time"] as? Double == 0.5 && k["frame"] as? String == "keyframe" && k["decodedFrom"] as? Double == 0.5)
        #expect(try SampleReader(path: dir.file("k.png"), track: .type(.video, 0)).nextPicture()?.stamp == 15)
    }

    @Test("formats and options: WebP and PNG show the frame, --quality trades size for JPEG, PNG takes none (64); --tolerance 0,0.2s takes a keyframe just after")
    func formats() throws {
        let dir = Scratch()
        let a = try Self.source(dir)
        for name in ["w.webp", "p.png"] {
            let r = try Binary.run(["images", a, "--at", "0.8s", "-o", dir.file(name)])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try SampleReader(path: dir.file(name), track: .type(.video, 0)).nextPicture()?.stamp == 24, "\(name)")
        }
        if PlanTruthCLITests.ffprobe != nil { #expect(try PlanTruthCLITests.probe(dir.file("w.webp"), "v:0", "codec_name")["codec_name"] == "webp") }
        for q in ["20", "95"] { _ = try Binary.run(["images", a, "--at", "0.8s", "--quality", q, "-o", dir.file("q\(q).jpg")]) }
        let size = { (n: String) in (try? FileManager.default.attributesOfItem(atPath: dir.file(n))[.size] as? Int) ?? 0 }
        #expect(size("q20.jpg") > 0 && size("q20.jpg") < size("q95.jpg"), "\(size("q20.jpg")) vs \(size("q95.jpg"))")
        let png = try Binary.run(["images", a, "--at", "0.8s", "--quality", "50", "-o", dir.file("x.png")])
        #expect(png.status == 64 && png.stderr.hasPrefix("Error: --quality is for JPEG and WebP: PNG is lossless\n"))
        let window = try Binary.run(["images", a, "--at", "0.4s", "--tolerance", "0,0.2s", "--json", "-o", dir.file("k.jpg")])
        let still = try #require((BatchFixture.json(window.stdout)?["stills"] as? [[String: Any]])?.first)
        #expect(still["time"] as? Double == 0.5 && still["frame"] as? String == "keyframe")
    }

    @Test("SIGINT while the stills are being written: 130, 'cancelled', no still, temp file or folder left")
    func interrupted() throws {
        let dir = Scratch()
        let a = try Self.source(dir)
        let r = try UnderWay.run(["images", a, "--count", "3000", "-o", dir.file("out/deep/{n}.jpg")], signal: SIGINT, tempUnder: dir.path)
        #expect(r.status == 130)
        #expect(r.stderr == "cancelled: no still written (SIGINT)\n")
        #expect(dir.contents == ["a.mp4"])
    }

    @Test("a time outside the source: 64 naming the time and the source's duration, nothing written")
    func outside() throws {
        let dir = Scratch()
        let a = try Self.source(dir)
        for (at, shown) in [("2.5s", "2.500s"), ("101%", "101%"), ("-1s", "-1.000s")] {
            let r = try Binary.run(["images", a, "--at", "1s,\(at)", "-o", dir.file("o/{n}.jpg")])
            #expect(r.status == 64)
            #expect(r.stderr == "error: \(a): the time \(shown) is outside the source, which lasts 2.000s\n")
            #expect(dir.contents == ["a.mp4"])
        }
    }

    @Test("refusals: no video track (66), an extension not JPEG/PNG/WebP (64), one name for several stills (64), a folder that cannot be made (73); nothing written")
    func refusals() throws {
        let dir = Scratch()
        let a = try Self.source(dir)
        let sound = dir.file("sound.m4a")
        let s = try FrameSource(path: sound, video: nil, audio: GeneratedAudioFormat())
        try s.appendAudio(count: 48000) { _, _ in 0 }
        try s.finish()
        let none = try Binary.run(["images", sound, "--at", "0.5s"])
        #expect(none.status == 66)
        #expect(none.stderr == "error: \(sound): has no video track to take stills of (it has #0 audio)\n")

        let gif = try Binary.run(["images", a, "--at", "0.5s", "-o", dir.file("x.gif")])
        #expect(gif.status == 64)
        #expect(gif.stderr == "error: \(dir.file("x.gif")): cannot tell the image format from the extension '.gif': use .jpg, .png or .webp\n")

        let same = try Binary.run(["images", a, "--every", "0.5s", "-o", dir.file("x.jpg")])
        #expect(same.status == 64)
        #expect(same.stderr == "error: \(dir.file("x.jpg")): names stills 1 and 2 the same file \(dir.file("x.jpg")): put {n} in it\n")

        _ = FileManager.default.createFile(atPath: dir.file("plain"), contents: Data("x".utf8))
        let folder = try Binary.run(["images", a, "--at", "0.5s,1s", "-o", dir.file("plain/sub/{n}.jpg")])
        #expect(folder.status == 73)
        #expect(folder.stderr == "error: \(dir.file("plain/sub/1.jpg")): \(dir.file("plain")) is not a folder\n")
        #expect(dir.contents == ["a.mp4", "plain", "sound.m4a"])

        let crowded = try Binary.run(["images", a, "--count", "7", "--tiles", "3x2", "-o", dir.file("sheet.jpg")])
        #expect(crowded.status == 64)
        #expect(crowded.stderr == "error: \(a): 7 stills do not fit in 3x2 tiles\n")
        #expect(dir.contents == ["a.mp4", "plain", "sound.m4a"])

        let usage = try Binary.run(["images", a, "--at", "1s", "--count", "3"])
        #expect(usage.status == 64 && usage.stderr.hasPrefix("Error: --at and --count cannot be given together\n"))
    }
}
