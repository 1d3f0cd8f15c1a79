import Foundation
import Pipeline
import Recipe
import Testing

/// Interlaced sources made here: H.264 with field flags by the project's own writer, and from it
/// by ffmpeg an MPEG-2 transport stream and PAL DV. Each picture weaves two fields taken 1/50 s
/// apart — vertical bars 16 pixels wide that move 4 pixels a field (not half their period, which
/// `idet` cannot order), and the field's number in the stamp band — so woven output is combed
/// (ffmpeg's `idet` sees it) and a deinterlaced picture keeps one field's rows as they were.
/// `inspect` names the field order.
@Suite("Interlaced sources: field order shown", .serialized)
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
}
