import Foundation
import Pipeline
import Recipe
import Testing

/// Fields kept as fields (`deinterlace: off`) whose chroma is converted to another vertical
/// sampling (4:2:2 → 4:2:0, 4:2:0 → 4:2:2): each field keeps its own colour. The source's two
/// fields carry different chroma — the top field's rows Cb 200 / Cr 60, the bottom field's Cb 60
/// / Cr 200 — so a picture converted as if progressive gives rows of one field the other's colour
/// (or the two averaged), and one converted field by field keeps each row's own.
@Suite("Interlaced chroma: kept fields converted field by field (4:2:2 ↔ 4:2:0)", .serialized)
struct InterlacedChromaCLITests {
    static let frames = 6
    static let (top, bottom) = ((cb: 200, cr: 60), (cb: 60, cr: 200))

    /// Interlaced H.264 (top field first) by the project's writer, in `pixelFormat`; chroma row r
    /// belongs to the top field when r is even (4:2:2: a row per line; 4:2:0: a row per two lines
    /// of its field, the fields' rows interleaved as interlaced 4:2:0 stores them).
    static func source(_ path: String, pixelFormat: String) throws {
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 25))
        v.fieldOrder = .tt
        v.pixelFormat = pixelFormat
        v.quality = 10
        v.codecOptions = ["preset": "ultrafast"]
        let rows = pixelFormat == "yuv422p" ? v.height : v.height / 2
        let s = try FrameSource(path: path, video: v, audio: nil)
        for k in 0..<frames {
            try s.appendPicture(at: v.frameRate.frameDuration * Int64(k)) { p in
                p.fill(plane: 0, x: 0, y: 0, width: p.width, height: p.height, value: 128)
                for r in 0..<rows {
                    let c = r % 2 == 0 ? top : bottom
                    p.fill(plane: 1, x: 0, y: r, width: p.chromaWidth, height: 1, value: c.cb)
                    p.fill(plane: 2, x: 0, y: r, width: p.chromaWidth, height: 1, value: c.cr)
                }
            }
        }
        try s.finish()
    }

    static func recipe(_ dir: Scratch, pixelFormat: String) throws -> String {
        try InterlacedCLITests.recipe(dir, ", pixel-format: \(pixelFormat), deinterlace: off")
    }

    /// Every decoded picture's chroma rows, (mean Cb, mean Cr) per row.
    static func chromaRows(_ file: String) throws -> [[(cb: Double, cr: Double)]] {
        let r = try SampleReader(path: file, track: .type(.video, 0))
        var pictures: [[(cb: Double, cr: Double)]] = []
        while let p = try r.nextPlanes() {
            pictures.append((0..<p.chromaHeight).map { row in
                (p.mean(p.cb, x: 0, y: row, width: p.chromaWidth, height: 1, planeWidth: p.chromaWidth),
                 p.mean(p.cr, x: 0, y: row, width: p.chromaWidth, height: 1, planeWidth: p.chromaWidth))
            })
        }
        return pictures
    }

    /// Each chroma row of every picture is its own field's colour (within a coding error of 12),
    /// in `rows` rows; the rows nearest the picture's edges are left out (the encoder's
    /// prediction blurs them a little).
    static func expectFieldsKept(_ file: String, rows: Int, _ what: String) throws {
        let pictures = try chromaRows(file)
        #expect(pictures.count == frames, "\(what): \(pictures.count) pictures")
        for (n, picture) in pictures.enumerated() {
            #expect(picture.count == rows, "\(what): picture \(n) has \(picture.count) chroma rows")
            for (r, got) in picture.enumerated() where r >= 2 && r < picture.count - 2 {
                let want = r % 2 == 0 ? top : bottom
                if abs(got.cb - Double(want.cb)) > 12 || abs(got.cr - Double(want.cr)) > 12 {
                    Issue.record("\(what): picture \(n), chroma row \(r) (\(r % 2 == 0 ? "top" : "bottom") field): Cb \(got.cb), Cr \(got.cr), not \(want)")
                    return
                }
            }
        }
    }

    @Test("4:2:2 → 4:2:0 and 4:2:0 → 4:2:2 with the fields kept: each field's chroma its own, not the two averaged; the order stated")
    func convertedByField() throws {
        let dir = Scratch()
        // The writer's 4:2:2 H.264, and the broadcast kind: MPEG-2 4:2:2 in a transport stream.
        let avc422 = dir.file("avc422.mp4")
        try Self.source(avc422, pixelFormat: "yuv422p")
        let mpeg422 = dir.file("mpeg2-422.ts")
        try InterlacedCLITests.ffmpeg(["-i", avc422, "-c:v", "mpeg2video", "-pix_fmt", "yuv422p", "-flags", "+ildct+ilme", "-top", "1", "-q:v", "1", mpeg422])
        try Self.expectFieldsKept(mpeg422, rows: 240, "the MPEG-2 source itself")
        let to420 = try Self.recipe(dir, pixelFormat: "yuv420p")
        for src in [avc422, mpeg422] {
            let out = dir.file("420-\(URL(fileURLWithPath: src).lastPathComponent).mkv")
            let run = try Binary.run(["run", to420, "-i", src, "-o", out, "--quiet"], timeLimit: 120)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try InterlacedCLITests.probe(out, "field_order,pix_fmt") == ["field_order": "tt", "pix_fmt": "yuv420p"], "\(src)")
            try Self.expectFieldsKept(out, rows: 120, "\(src) → 4:2:0")
        }
        // Up: 4:2:0 fields made 4:2:2, each field's rows from its own chroma.
        let avc420 = dir.file("avc420.mp4")
        try Self.source(avc420, pixelFormat: "yuv420p")
        let up = dir.file("422.mkv")
        let run = try Binary.run(["run", try Self.recipe(dir, pixelFormat: "yuv422p"), "-i", avc420, "-o", up, "--quiet"], timeLimit: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try InterlacedCLITests.probe(up, "pix_fmt")["pix_fmt"] == "yuv422p")
        try Self.expectFieldsKept(up, rows: 240, "4:2:0 → 4:2:2")
    }

    @Test("4:2:0 → 4:2:0 with the fields kept: no conversion, each field's chroma as it was (the deinterlaced paths: InterlacedCLITests)")
    func sameSampling() throws {
        let dir = Scratch()
        let avc420 = dir.file("avc420.mp4")
        try Self.source(avc420, pixelFormat: "yuv420p")
        let kept = dir.file("kept.mkv")
        let run = try Binary.run(["run", try Self.recipe(dir, pixelFormat: "yuv420p"), "-i", avc420, "-o", kept, "--quiet"], timeLimit: 120)
        #expect(run.status == 0, "\(run.stderr)")
        try Self.expectFieldsKept(kept, rows: 120, "4:2:0 kept")
    }
}
