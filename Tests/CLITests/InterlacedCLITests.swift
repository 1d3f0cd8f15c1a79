import Foundation
import Pipeline
import Recipe
import Testing

/// Interlaced sources made here: H.264 with field flags by the project's own writer, and from it
/// by ffmpeg an MPEG-2 transport stream and PAL DV. Each picture weaves two fields taken 1/50 s
/// apart — vertical bars 16 pixels wide that move 4 pixels a field (not half their period, which
/// `idet` cannot order), and the field's number in the stamp band — so woven output is combed
/// (ffmpeg's `idet` sees it) and a deinterlaced picture keeps one field's rows as they were.
/// `inspect` names the field order; a conversion deinterlaces at the frame rate unless the recipe
/// asks for a picture per field or for the fields to be kept.
@Suite("Interlaced sources: field order shown, deinterlaced or kept as asked (idet, ffprobe)", .serialized)
struct InterlacedCLITests {
    static let frames = 20

    /// Frame `k`: its rows of the field shown first carry field 2k, the others field 2k + 1.
    static func weave(_ p: borrowing PictureBuffer, frame k: Int, topFirst: Bool) {
        let (w, h) = (p.width, p.height)
        let band = max(2, (h / 8) & ~1)  // TestPattern's band, which TestPattern.read reads
        var row = [UInt8](repeating: 0, count: w)
        for y in 0..<h {
            let field = 2 * k + ((y % 2 == 0) == topFirst ? 0 : 1)
            if y < band {
                for bit in 0..<TestPattern.bits {
                    let on = (field >> (TestPattern.bits - 1 - bit)) & 1 == 1
                    for x in (bit * w / TestPattern.bits)..<((bit + 1) * w / TestPattern.bits) { row[x] = on ? 235 : 16 }
                }
            } else {
                for x in 0..<w { row[x] = ((x + 4 * field) / 16) % 2 == 0 ? 200 : 40 }
            }
            row.withUnsafeBufferPointer { p.setRow(plane: 0, y: y, $0) }
        }
        p.fill(plane: 1, x: 0, y: 0, width: p.chromaWidth, height: p.chromaHeight, value: 128)
        p.fill(plane: 2, x: 0, y: 0, width: p.chromaWidth, height: p.chromaHeight, value: 128)
    }

    /// Interlaced H.264 at 25 frames a second (50 fields) by the project's writer.
    static func h264(_ path: String, order: FieldOrder, width: Int = 320, height: Int = 240) throws {
        var v = GeneratedVideoFormat(width: width, height: height, frameRate: FrameRate(frames: 25))
        v.fieldOrder = order
        v.quality = 12
        v.codecOptions = ["preset": "ultrafast"]
        let s = try FrameSource(path: path, video: v, audio: nil)
        for k in 0..<frames {
            try s.appendPicture(at: v.frameRate.frameDuration * Int64(k)) { Self.weave($0, frame: k, topFirst: order.topFieldFirst) }
        }
        try s.finish()
    }

    static func ffmpeg(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "error", "-y"] + args
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "ffmpeg \(args)")
    }

    /// The three kinds of interlaced source (file, its field order), made in `dir`.
    static func sources(in dir: Scratch) throws -> [(String, FieldOrder)] {
        let avc = dir.file("avc.mp4")
        try h264(avc, order: .tt)
        let ts = dir.file("mpeg2.ts")
        try ffmpeg(["-i", avc, "-c:v", "mpeg2video", "-flags", "+ildct+ilme", "-top", "1", "-q:v", "2", ts])
        // PAL DV is 720x576, bottom field first.
        let pal = dir.file("pal.mp4")
        try h264(pal, order: .bb, width: 720, height: 576)
        let dv = dir.file("pal.dv")
        try ffmpeg(["-i", pal, "-c:v", "dvvideo", "-pix_fmt", "yuv420p", "-top", "0", dv])
        return [(avc, .tt), (ts, .tt), (dv, .bb)]
    }

    static func recipe(_ dir: Scratch, _ settings: String) throws -> String {
        let path = dir.file("r-\(UInt32.random(in: 0...UInt32.max)).yaml")
        try """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
        writer:
          inputs:
            - { source: picture, settings: { codec: h264, quality: 12, codec-options: { preset: ultrafast }\(settings) } }

        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// ffmpeg's `idet` over the whole file (after `filters`, if any): (interlaced, progressive)
    /// frames by its multi-frame detection, which weighs each frame with its neighbours.
    static func idet(_ file: String, after filters: String? = nil) throws -> (interlaced: Int, progressive: Int) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        p.arguments = ["-v", "info", "-nostats", "-i", file, "-vf", (filters.map { $0 + "," } ?? "") + "idet", "-an", "-f", "null", "-"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard let line = text.split(separator: "\n").first(where: { $0.contains("Multi frame detection:") }) else { return (-1, -1) }
        func count(_ key: String) -> Int {
            guard let r = line.range(of: key + ":") else { return -1 }
            return Int(line[r.upperBound...].split(separator: " ").first ?? "") ?? -1
        }
        return (count("TFF") + count("BFF"), count("Progressive"))
    }

    /// What `idet` finds in ffmpeg's own bwdif output for `file`: the oracle for ours. Its
    /// multi-frame detection still calls the first few pictures of a field-rate output combed
    /// (its history starts from the woven source's first field), as it does ours.
    static func reference(_ file: String, _ order: FieldOrder, fields: Bool) throws -> (interlaced: Int, progressive: Int) {
        try idet(file, after: "bwdif=mode=\(fields ? "send_field" : "send_frame"):parity=\(order.topFieldFirst ? "tff" : "bff"):deint=all")
    }

    static func probe(_ file: String, _ entries: String) throws -> [String: String] {
        try NeverRaisedCLITests.probe(file, "v:0", entries)
    }

    /// (pts in seconds, the field number its rows of `parity` carry) of every output picture, by
    /// the project's reader. A deinterlacer keeps its field's rows and makes the others: only the
    /// kept ones are read. `parity`: of picture n (0: top rows, 1: bottom rows).
    static func pictures(_ file: String, parity: (Int) -> Int) throws -> [(Double, Int?)] {
        let r = try SampleReader(path: file, track: .type(.video, 0))
        var out: [(Double, Int?)] = []
        while let p = try r.nextPicture() {
            let rows = parity(out.count)
            let stamp = p.luma.withUnsafeBufferPointer { all in
                TestPattern.read(luma: UnsafeBufferPointer(rebasing: all[(rows * p.width)...]), width: p.width, height: p.height / 2, lineSize: 2 * p.width)
            }
            out.append((p.pts.seconds, stamp))
        }
        return out
    }

    @Test("inspect shows the field order of each kind of interlaced source (text and JSON), and progressive for a progressive one")
    func inspect() throws {
        let dir = Scratch()
        for (file, order) in try Self.sources(in: dir) {
            let text = try Binary.run(["inspect", file], timeLimit: 60)
            #expect(text.status == 0)
            let video = text.stdout.split(separator: "\n").first { $0.contains(" video ") } ?? ""
            #expect(video.contains("  25 fps  \(order.description)  "), "\(file): \(video)")
            let json = try Binary.run(["inspect", "--json", file], timeLimit: 60)
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let track = (object?["tracks"] as? [[String: Any]])?.first { $0["type"] as? String == "video" }
            #expect(track?["fieldOrder"] as? String == order.rawValue, "\(file)")
        }
        let plain = dir.file("plain.mp4")
        try BatchFixture.clip(plain)
        let json = try Binary.run(["inspect", "--json", plain], timeLimit: 60)
        let track = ((try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])?["tracks"] as? [[String: Any]])?.first
        #expect(track?["fieldOrder"] as? String == "progressive")
        #expect(!(try Binary.run(["inspect", plain], timeLimit: 60)).stdout.contains("interlaced"))
    }

    @Test("by default: deinterlaced at the frame rate — not combed (as ffmpeg's bwdif), one picture per frame at its time, its first field's")
    func auto() throws {
        let dir = Scratch()
        let recipe = try Self.recipe(dir, "")
        for (file, order) in try Self.sources(in: dir) {
            #expect(try Self.idet(file).interlaced >= Self.frames / 2, "\(file): the source is not seen as interlaced")
            let plan = try Binary.run(["plan", recipe, "-i", file, "-o", dir.file("out.mp4")], timeLimit: 60)
            #expect(plan.stdout.contains("  deinterlace     frame-rate   deinterlace.auto: the source is \(order.description) and the output is progressive"), "\(plan.stdout)")
            let out = dir.file("auto-\(URL(fileURLWithPath: file).lastPathComponent).mp4")
            let run = try Binary.run(["run", recipe, "-i", file, "-o", out, "--quiet"], timeLimit: 120)
            #expect(run.status == 0, "\(run.stderr)")
            let seen = try Self.idet(out)
            #expect(seen == (try Self.reference(file, order, fields: false)) && seen.interlaced <= Self.frames / 5, "\(file): \(seen)")
            // Each picture keeps its first field: the top rows for top field first.
            let pictures = try Self.pictures(out) { _ in order.topFieldFirst ? 0 : 1 }
            let start = pictures.first?.0 ?? 0
            #expect(pictures.map { (($0.0 - start) * 25).rounded() } == (0..<Self.frames).map(Double.init), "\(file)")
            #expect(pictures.map(\.1) == (0..<Self.frames).map { 2 * $0 }, "\(file)")
            #expect(try Self.probe(out, "field_order")["field_order"] == "progressive", "\(file)")
        }
    }

    @Test("field-rate: a picture per field — twice the frames, at 50 fps, each field in order, not combed (as ffmpeg's bwdif)")
    func fieldRate() throws {
        let dir = Scratch()
        let recipe = try Self.recipe(dir, ", deinterlace: field-rate")
        for (file, order) in try Self.sources(in: dir) {
            let plan = try Binary.run(["plan", recipe, "-i", file, "-o", dir.file("out.mp4")], timeLimit: 60)
            #expect(plan.stdout.contains("  frame-rate      50           frame-rate.field-rate: one picture per field: twice the interlaced source's 25 fps"), "\(plan.stdout)")
            let out = dir.file("fields-\(URL(fileURLWithPath: file).lastPathComponent).mp4")
            let run = try Binary.run(["run", recipe, "-i", file, "-o", out, "--quiet"], timeLimit: 120)
            #expect(run.status == 0, "\(run.stderr)")
            let seen = try Self.idet(out)
            #expect(seen == (try Self.reference(file, order, fields: true)) && seen.interlaced <= Self.frames / 5, "\(file): \(seen)")
            // Picture n keeps field n: the first field's rows for even n, the other's for odd.
            let pictures = try Self.pictures(out) { n in (n % 2 == 0) == order.topFieldFirst ? 0 : 1 }
            let start = pictures.first?.0 ?? 0
            #expect(pictures.map { (($0.0 - start) * 50).rounded() } == (0..<(2 * Self.frames)).map(Double.init), "\(file)")
            #expect(pictures.map(\.1) == (0..<(2 * Self.frames)).map { $0 }, "\(file)")
            #expect(try Self.probe(out, "avg_frame_rate")["avg_frame_rate"] == "50/1", "\(file)")
        }
    }

    @Test("off: the fields are kept, coded as fields, the order stated (ffprobe), still interlaced (idet)")
    func off() throws {
        let dir = Scratch()
        let recipe = try Self.recipe(dir, ", deinterlace: off")
        for (file, order) in try Self.sources(in: dir) {
            let out = dir.file("kept-\(URL(fileURLWithPath: file).lastPathComponent).mkv")
            let run = try Binary.run(["run", recipe, "-i", file, "-o", out, "--quiet"], timeLimit: 120)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try Self.probe(out, "field_order")["field_order"] == order.rawValue, "\(file)")
            let seen = try Self.idet(out)
            #expect(seen.interlaced >= Self.frames / 2 && seen.progressive == 0, "\(file): \(seen)")
            #expect(try Self.pictures(out) { _ in 0 }.count == Self.frames, "\(file)")
        }
    }

    @Test("off where the fields cannot be kept: refused at the 'deinterlace' line (65), nothing written")
    func offRefused() throws {
        let dir = Scratch()
        let src = dir.file("avc.mp4")
        try Self.h264(src, order: .tt)
        let recipe = dir.file("r.yaml")
        try """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
        writer:
          inputs:
            - source: picture
              settings:
                codec: hevc
                deinterlace: off

        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
        #expect(r.status == 65)
        #expect(r.stderr.hasPrefix("\(recipe):10:9: error: 'deinterlace: off' keeps the interlaced, top field first source's fields, but x265 codes no interlaced pictures here"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("out.mp4")))
    }
}
