import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A composition whose first file is HDR (so the plan tone-maps) and whose next is SDR of
/// another shape: each picture is fitted into the render size, and only HDR ones are mapped.
@Suite("Compositions: tone mapping beside fitting")
struct CompositionToneMapTests {
    @Test("an HDR file first (tone-mapped), an SDR one of another shape after it: the HDR pictures are fitted (black bars), the SDR ones are not tone-mapped")
    func toneMappedFirstFile() throws {
        let dir = Scratch()
        let hdr = dir.file("hlg.mp4"), sdr = dir.file("sdr.mp4"), out = dir.file("out.mp4")
        // 64x64 HLG, mid-grey (signal 0.5) on both halves.
        try HDRMedia.make(hdr, transfer: "arib-std-b67", left: HDRMedia.code(0.5), right: HDRMedia.code(0.5))
        // 128x64 SDR, luma 180 everywhere.
        var v = GeneratedVideoFormat(width: 128, height: 64, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        v.quality = 4
        let s = try FrameSource(path: sdr, video: v, audio: nil)
        for i in 0..<6 {
            try s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { p in
                p.fill(plane: 0, x: 0, y: 0, width: 128, height: 64, value: 180)
                p.fill(plane: 1, x: 0, y: 0, width: 64, height: 32, value: 128)
                p.fill(plane: 2, x: 0, y: 0, width: 64, height: 32, value: 128)
            }
        }
        try s.finish()
        var req = ConversionRequest(source: hdr, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codec: .h264, codecOptions: ["preset": "ultrafast"]))),
        ])
        req.sources = [sdr]
        req.timeline = [SegmentRequest(source: 0), SegmentRequest(source: 1)]
        let plan = try Planner.plan(req)
        guard case .video(let r) = plan.lanes[0].kind else { Issue.record("no video lane"); return }
        #expect(r.width == 128 && r.height == 64)
        #expect(r.toneMapping != nil, "the HLG file is tone-mapped into 8-bit H.264")
        try ExportSession(plan: plan).run()

        func mean(_ p: DecodedPicture, x: Range<Int>) -> Double {
            var sum = 0, n = 0
            for row in 16..<48 { for col in x { sum += Int(p.luma[row * p.width + col]); n += 1 } }
            return Double(sum) / Double(n)
        }
        // The SDR file's grey as this reader sees it.
        guard let stored = try SampleReader(path: sdr, track: .type(.video, 0)).nextPicture() else { Issue.record("no SDR picture"); return }
        let grey = mean(stored, x: 8..<120)
        let reader = try SampleReader(path: out, track: .type(.video, 0))
        var k = 0
        while let p = try reader.nextPicture() {
            if k < 6 {
                // Square picture in a 2:1 frame: bars left (x < 32) and right (x ≥ 96).
                #expect(mean(p, x: 4..<28) <= 20, "frame \(k): a black bar on the left, not the picture stretched")
                #expect(mean(p, x: 40..<88) > 40, "frame \(k): the tone-mapped picture in the middle")
            } else {
                #expect(abs(mean(p, x: 8..<120) - grey) <= 3, "frame \(k): the SDR file as it is (\(mean(p, x: 8..<120)), stored \(grey))")
            }
            k += 1
        }
        #expect(k == 12)
    }

    /// The middle's mean luma of each output picture of a composition of the HLG and the SDR
    /// file above, in `order` (true: HLG first), and the plan's video settings.
    static func means(hlgFirst: Bool, dir: Scratch) throws -> (hdr: [Double], sdr: [Double], settings: ResolvedVideoSettings) {
        let hdr = dir.file("hlg.mp4"), sdr = dir.file("sdr.mp4"), out = dir.file(hlgFirst ? "out1.mp4" : "out2.mp4")
        if !FileManager.default.fileExists(atPath: hdr) {
            try HDRMedia.make(hdr, transfer: "arib-std-b67", left: HDRMedia.code(0.5), right: HDRMedia.code(0.5))
            var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 30))
            v.codecOptions = ["preset": "ultrafast"]
            v.quality = 4
            let s = try FrameSource(path: sdr, video: v, audio: nil)
            for i in 0..<6 {
                try s.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { p in
                    p.fill(plane: 0, x: 0, y: 0, width: 64, height: 64, value: 180)
                    p.fill(plane: 1, x: 0, y: 0, width: 32, height: 32, value: 128)
                    p.fill(plane: 2, x: 0, y: 0, width: 32, height: 32, value: 128)
                }
            }
            try s.finish()
        }
        var req = ConversionRequest(source: hlgFirst ? hdr : sdr, output: out, tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codec: .h264, codecOptions: ["preset": "ultrafast"]))),
        ])
        req.sources = [hlgFirst ? sdr : hdr]
        req.timeline = [SegmentRequest(source: 0), SegmentRequest(source: 1)]
        let plan = try Planner.plan(req)
        guard case .video(let r) = plan.lanes[0].kind else { throw MediaError(.notMedia, "no video lane") }
        try ExportSession(plan: plan).run()
        let reader = try SampleReader(path: out, track: .type(.video, 0))
        var pictures: [Double] = []
        while let p = try reader.nextPicture() {
            var sum = 0, n = 0
            for row in 16..<48 { for col in 16..<48 { sum += Int(p.luma[row * p.width + col]); n += 1 } }
            pictures.append(Double(sum) / Double(n))
        }
        let hlgCount = pictures.count - 6
        return hlgFirst ? (Array(pictures.prefix(hlgCount)), Array(pictures.suffix(6)), r)
                        : (Array(pictures.suffix(hlgCount)), Array(pictures.prefix(6)), r)
    }

    @Test("an SDR file first and an HDR one after it: the HDR pictures are tone-mapped exactly as when the HDR file comes first")
    func orderDoesNotMatter() throws {
        let dir = Scratch()
        let hdrFirst = try Self.means(hlgFirst: true, dir: dir), sdrFirst = try Self.means(hlgFirst: false, dir: dir)
        #expect(sdrFirst.settings.toneMapping?.transfer == .hlg, "the plan tone-maps though the first file is SDR")
        #expect(sdrFirst.settings.colorTransfer == "bt709")
        #expect(sdrFirst.settings.decisions.contains { $0.setting == "hdr" && $0.rule == "composition.dynamic-range" && $0.value == "tone-map" })
        #expect(hdrFirst.hdr.count == 6 && sdrFirst.hdr.count == 6)
        for (a, b) in zip(hdrFirst.hdr, sdrFirst.hdr) { #expect(abs(a - b) <= 2, "HLG picture: \(a) with the HLG file first, \(b) after the SDR one") }
        // The SDR file's grey as this reader sees it, untouched either way.
        guard let stored = try SampleReader(path: dir.file("sdr.mp4"), track: .type(.video, 0)).nextPicture() else { Issue.record("no SDR picture"); return }
        let grey = Double(stored.luma[32 * stored.width + 32])
        for (a, b) in zip(hdrFirst.sdr, sdrFirst.sdr) { #expect(abs(a - grey) <= 2 && abs(b - grey) <= 2, "SDR picture: \(a), \(b), stored \(grey)") }
        // Not mapped, the HLG grey (code 0.5 of 10 bits) would be about 126: mapped it is not.
        #expect(sdrFirst.hdr.allSatisfy { abs($0 - 126) > 8 }, "\(sdrFirst.hdr)")
    }

    @Test("'hdr: keep' on a composition of SDR and HDR files is refused, naming both")
    func keepRefusedWhenMixed() throws {
        let dir = Scratch()
        _ = try Self.means(hlgFirst: true, dir: dir)
        var req = ConversionRequest(source: dir.file("sdr.mp4"), output: dir.file("keep.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(VideoSettings(codec: .hevc, pixelFormat: "yuv420p10le", hdr: .keep))),
        ])
        req.sources = [dir.file("hlg.mp4")]
        req.timeline = [SegmentRequest(source: 0), SegmentRequest(source: 1)]
        #expect {
            try Planner.plan(req)
        } throws: { error in
            (error as? MediaError)?.message == "'hdr: keep' needs every picture of the composition HDR of one kind, but its files differ (sdr.mp4 SDR, hlg.mp4 HLG): say 'hdr: tone-map' (or leave 'hdr' out) for an SDR output"
        }
    }
}
