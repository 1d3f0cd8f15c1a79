import Foundation
@testable import Pipeline
import Recipe
import Testing

/// `fragment:` — a fragmented MP4 (moov with mvex, then a moof and an mdat per fragment), each
/// fragment starting with the IDR on the grid, holding the same frames and sound as without.
@Suite("fragment: a fragmented MP4 cut on the keyframe grid, with the frames and sound of the same recipe without it")
struct FragmentedOutputTests {
    static let gstRead = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/gst-read.sh").path

    static func recipe(_ dir: Scratch, _ name: String, fragment: String?) throws -> Recipe {
        try RecipeParser.parse("""
            recipe: 1
            output:
              path: \(dir.file(name))
            \(fragment.map { "  fragment: \($0)" } ?? "")
            reader:
              outputs:
                picture: { track: video }
                sound: { track: audio }
            writer:
              inputs:
                - { source: picture, settings: { codec: h264, gop: 250, codec-options: { preset: ultrafast } } }
                - { source: sound, settings: { codec: aac, bitrate: 128k } }
            """, file: dir.file("r.yaml")).get()
    }

    /// The file's top-level boxes: type, offset, size.
    static func boxes(_ file: String) throws -> [(type: String, offset: Int, size: Int)] {
        let d = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        var out: [(String, Int, Int)] = [], at = 0
        func number(_ r: Range<Int>) -> Int { d[r].reduce(0) { $0 << 8 | Int($1) } }
        while at + 8 <= d.count {
            var size = number(at..<at + 4)
            if size == 1 { size = number(at + 8..<at + 16) } else if size == 0 { size = d.count - at }
            guard size >= 8 else { break }
            out.append((String(decoding: d[at + 4..<at + 8], as: UTF8.self), at, size))
            at += size
        }
        return out
    }

    /// Every packet: stream kind, exact pts, byte position, keyframe or not.
    static func packets(_ file: String) throws -> [(video: Bool, pts: MediaTime, pos: Int, key: Bool)] {
        var bases: [Int: (Int32, Int32)] = [:]
        let streams = try #require(try FFprobe.run(["-show_entries", "stream=index,time_base", "-of", "csv=p=0", file]), "ffprobe is missing")
        for line in streams.split(separator: "\n") {
            let f = line.split(separator: ",")
            let tb = f[1].split(separator: "/").compactMap { Int32($0) }
            bases[Int(f[0])!] = (tb[0], tb[1])
        }
        let out = try #require(try FFprobe.run(["-show_entries", "packet=codec_type,stream_index,pts,pos,flags", "-of", "json", file]))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
        let list = try #require(object["packets"] as? [[String: Any]])
        return try list.map { p in
            let tb = try #require(bases[p["stream_index"] as? Int ?? -1])
            let pts = Int64(try #require(p["pts"] as? Int))
            return (p["codec_type"] as? String == "video", MediaTime(value: pts * Int64(tb.0), timescale: tb.1),
                    Int(p["pos"] as? String ?? "") ?? -1, (p["flags"] as? String)?.hasPrefix("K") == true)
        }
    }

    @Test("29.97 fps with sound, fragment: 2s — ftyp, moov (with mvex), four moof+mdat pairs, mfra; each fragment's video starts with the IDR at frames 0, 60, 120, 180 and its sound at its 2 s instant; the same frames, sound, start and video length as without fragment; GStreamer's qtdemux reads every sample")
    func fragmentsOnGrid() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        let rate = FrameRate(frames: 30000, seconds: 1001)
        try Media.make(src, video: GeneratedVideoFormat(width: 320, height: 240, frameRate: rate), frames: 200, audio: true)
        let fragmented = try RecipeCompiler.compile(try Self.recipe(dir, "frag.mp4", fragment: "2s"), input: src).plan
        #expect(fragmented.layout == "fragmented every 2.000s")
        try ExportSession(plan: fragmented).run()
        try ExportSession(plan: try RecipeCompiler.compile(try Self.recipe(dir, "plain.mp4", fragment: nil), input: src).plan).run()
        let (frag, plain) = (dir.file("frag.mp4"), dir.file("plain.mp4"))

        let boxes = try Self.boxes(frag)
        #expect(boxes.map(\.type) == ["ftyp", "moov"] + Array(repeating: ["moof", "mdat"], count: 4).flatMap { $0 } + ["mfra"])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: frag)))
        let moov = try #require(boxes.first { $0.type == "moov" })
        #expect(String(decoding: bytes[moov.offset..<moov.offset + moov.size], as: UTF8.self).contains("mvex"), "moov without mvex")
        #expect(try Self.boxes(plain).filter { $0.type == "moof" }.isEmpty)

        let moofs = boxes.filter { $0.type == "moof" }.map(\.offset) + [Int.max]
        let packets = try Self.packets(frag)
        for k in 0..<4 {
            let inside = packets.filter { $0.pos >= moofs[k] && $0.pos < moofs[k + 1] }
            let video = inside.filter(\.video), audio = inside.filter { !$0.video }
            let first = try #require(video.first, "fragment \(k) has no video")
            #expect(first.key && first.pts == rate.frameDuration * Int64(60 * k), "fragment \(k) starts with \(first)")
            let (from, to) = (MediaTime(seconds: Int64(2 * k)), MediaTime(seconds: Int64(2 * k + 2)))
            #expect(!audio.isEmpty && audio.allSatisfy { ($0.pts >= from || k == 0) && $0.pts < to }, "fragment \(k)'s sound: \(audio.map(\.pts.seconds))")
        }

        // The same source frames at the same times, the same sound.
        let (a, b) = (try Media.stamps(frag), try Media.stamps(plain))
        #expect(a.count == 200 && a.map(\.pts) == b.map(\.pts) && a.map(\.stamp) == b.map(\.stamp))
        // The sound's packets at the same times with the same data (their stated durations differ
        // at the ends only: the edit list's trim of the last, the first's skipped priming).
        let timeAndData = { (file: String) throws -> [String] in try SharedEncodeTests.packets(file, "a:0").map { $0.split(separator: " ") }.map { "\($0[0]) \($0[$0.count - 1])" } }
        #expect(try timeAndData(frag) == timeAndData(plain))
        for selector in ["v:0", "a:0"] {
            let (f, p) = (try #require(try FFprobe.stream(frag, selector, "start_time,duration")), try #require(try FFprobe.stream(plain, selector, "start_time,duration")))
            // The sound's packets are the same (above); FFmpeg's reader hides the priming before
            // an edit list's start in a progressive file only.
            #expect(selector == "a:0" || f["start_time"] == p["start_time"], "\(selector): starts at \(f) and \(p)")
            let (fd, pd) = (Double(f["duration"] ?? "") ?? -1, Double(p["duration"] ?? "") ?? -2)
            // A fragmented file's edit list is written before its end is known: the encoder's
            // padding in the last AAC frame (under 1024 samples) is not cut off.
            #expect(selector == "v:0" ? fd == pd : fd >= pd && fd - pd < 1024.0 / 48000, "\(selector): \(fd) s, without fragments \(pd) s")
        }

        let gst = Process()
        gst.executableURL = URL(fileURLWithPath: Self.gstRead)
        gst.arguments = [frag]
        let pipe = Pipe(), err = Pipe()
        (gst.standardOutput, gst.standardError) = (pipe, err)
        try gst.run()
        let said = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let why = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        gst.waitUntilExit()
        if gst.terminationStatus == 77 { print("GStreamer check skipped: \(why)"); return }
        #expect(gst.terminationStatus == 0 && said == "SAMPLES \(frag) 200\n", "\(said) \(why)")
    }

    @Test("refused at the fragment line (65 when run): a container without fragments, fragments shorter than a frame, SVT-AV1 (which cannot be told where keyframes go), a copied video track")
    func refusals() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        try Media.make(src, video: GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 25)), frames: 10)
        let cases: [(path: String, fragment: String, settings: String, message: String)] = [
            ("o.mkv", "2s", "{ codec: h264 }", "'fragment' makes a fragmented MP4, but this output is an mkv file: use an mp4, mov or m4a output"),
            ("o.mp4", "30ms", "{ codec: h264 }", "\(src): track #0: fragments of 0.030s are shorter than one frame at 25 fps (0.040s): each fragment starts with a picture of its own"),
            ("o.mp4", "2s", "{ codec: av1 }", "\(src): track #0: SVT-AV1 cannot be told where its keyframes go under FFmpeg 5.1 (its wrapper ignores a forced keyframe): use codec h264, hevc or vp9"),
            ("o.mov", "2s", "{ codec: copy }", "\(src): track #0: a copied video track keeps the source's keyframes, which cannot be moved onto the output's fragment starts: reencode it"),
        ]
        for c in cases {
            let recipe = try RecipeParser.parse("""
                recipe: 1
                output: { path: \(dir.file(c.path)), fragment: \(c.fragment) }
                reader: { outputs: { v: { track: video } } }
                writer: { inputs: [ { source: v, settings: \(c.settings) } ] }
                """, file: dir.file("r.yaml")).get()
            let column = 29 + dir.file(c.path).utf8.count
            do {
                _ = try RecipeCompiler.compile(recipe, input: src)
                Issue.record("\(c.path) \(c.fragment) \(c.settings): planned")
            } catch let e as RecipeErrors {
                #expect(e.diagnostics.map { "\($0.mark?.line ?? 0):\($0.mark?.column ?? 0) \($0.message)" } == ["2:\(column) \(c.message)"])
            }
            #expect(!FileManager.default.fileExists(atPath: dir.file(c.path)))
        }
    }
}
