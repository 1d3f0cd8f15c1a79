import Foundation
import Pipeline
import Recipe
import Testing

/// HDR sources through reencoding and passthrough: HDR10 metadata kept where the output can hold
/// it, HDR made SDR (and tagged so) where it cannot, every loss said as a plan notice.
@Suite("HDR: kept, or tone-mapped and said")
struct HDRTests {
    static func request(_ src: String, _ out: String, _ settings: VideoSettings) -> ConversionRequest {
        ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.video, 0), .video(settings))])
    }

    static func tags(_ file: String) throws -> [String: String] {
        try FFprobe.stream(file, "v:0", "pix_fmt,color_range,color_space,color_transfer,color_primaries") ?? [:]
    }

    @Test("HDR10 into HEVC: mastering display and content light level kept in the SEI and the container, exact values")
    func hdr10Kept() throws {
        let dir = Scratch()
        let src = dir.file("pq.mp4"), out = dir.file("out.mp4")
        try HDRMedia.make(src, transfer: "smpte2084", left: 400, right: 600, mastering: HDRMedia.mastering, light: HDRMedia.light)
        let plan = try Planner.plan(Self.request(src, out, .fast(.hevc)))
        guard case .video(let v) = plan.lanes[0].kind else { Issue.record("not a video lane"); return }
        #expect(v.decision("hdr")?.rule == "hdr.keep-10-bit")
        #expect(v.decision("color")?.value == "bt2020/smpte2084/bt2020nc")
        #expect(plan.notices.isEmpty)
        try ExportSession(plan: plan).run()
        let t = try Self.tags(out)
        #expect(t["pix_fmt"] == "yuv420p10le" && t["color_transfer"] == "smpte2084" && t["color_primaries"] == "bt2020" && t["color_space"] == "bt2020nc")
        #expect(try HDRMedia.sideData(out, "stream") == HDRMedia.expectedSideData)
        #expect(try HDRMedia.sideData(out, "frame") == HDRMedia.expectedSideData)
    }

    @Test("HDR10 metadata only in the source's SEI (a container that says nothing) is found and kept")
    func hdr10FromPictures() throws {
        let dir = Scratch()
        let src = dir.file("pq-sei.mp4"), out = dir.file("out.mkv")
        try HDRMedia.make(src, transfer: "smpte2084", left: 400, right: 600,
                          codecOptions: ["x265-params": "master-display=\(HDRMedia.mastering.encoderParameter):max-cll=1000,400"])
        #expect(try HDRMedia.sideData(src, "stream") == [:])
        #expect(try HDRMedia.sideData(src, "frame") == HDRMedia.expectedSideData)
        try runConversion(Self.request(src, out, .fast(.hevc)))
        #expect(try HDRMedia.sideData(out, "stream") == HDRMedia.expectedSideData)
        #expect(try HDRMedia.sideData(out, "frame") == HDRMedia.expectedSideData)
    }

    @Test("passthrough keeps the source stream's HDR10 side data (MP4 to Matroska)")
    func passthroughSideData() throws {
        let dir = Scratch()
        let src = dir.file("pq.mp4"), out = dir.file("copy.mkv")
        try HDRMedia.make(src, transfer: "smpte2084", left: 400, right: 600, mastering: HDRMedia.mastering, light: HDRMedia.light)
        // The SEI is not what is checked: Matroska's colour elements come from the stream's side data.
        try runConversion(ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.video, 0), .passthrough)]))
        #expect(try HDRMedia.sideData(out, "stream") == HDRMedia.expectedSideData)
        #expect(try Self.tags(out)["color_transfer"] == "smpte2084")
    }

    /// The expected SDR code of an HLG grey (ITU-R BT.2100 inverse OETF and OOTF for a 1000 cd/m²
    /// display; BT.2408's 203 cd/m² reference white as SDR white; BT.1886 gamma 2.4), below the
    /// knee where light passes unchanged.
    static func hlgGreyCode(_ code10: Int) -> Double {
        let e = Double(code10 - 64) / 876
        let scene = e * e / 3  // e ≤ 0.5
        let nits = 1000 * pow(scene, 1.2)
        return 16 + 219 * pow(nits / 203, 1 / 2.4)
    }

    // Tolerance ±2 code values: the kernel's tables quantise the signal to 1/16384 (< 0.1 code),
    // libswscale's 16- to 8-bit step dithers (< 1 code), and x264 at CRF 23 moves a flat patch by
    // about 1.

    @Test("HLG into 8-bit H.264: tone-mapped to BT.709 SDR, tagged bt709, grey patches at the expected codes")
    func hlgToneMapped() throws {
        let dir = Scratch()
        let src = dir.file("hlg.mp4"), out = dir.file("sdr.mp4")
        // 50 % HLG (mid grey, 50.7 cd/m²) and 75 % HLG (reference white, 203 cd/m²).
        try HDRMedia.make(src, transfer: "arib-std-b67", left: HDRMedia.code(0.5), right: HDRMedia.code(0.75))
        let plan = try Planner.plan(Self.request(src, out, .fast(.h264)))
        guard case .video(let v) = plan.lanes[0].kind else { Issue.record("not a video lane"); return }
        #expect(v.decision("hdr")?.value == "tone-map")
        #expect(v.decision("hdr")?.rule == "hdr.tone-map-8-bit")
        #expect(v.decision("color")?.rule == "color.tone-mapped-bt709")
        #expect(plan.notices.map(\.item) == ["hdr"])
        #expect(plan.notices.first?.kind == .changed)
        #expect(plan.notices.first?.description == "track #0: HDR (HLG) is tone-mapped to BT.709 SDR (yuv420p h264 output)")
        try ExportSession(plan: plan).run()
        let t = try Self.tags(out)
        #expect(t["pix_fmt"] == "yuv420p")
        #expect(t["color_transfer"] == "bt709" && t["color_primaries"] == "bt709" && t["color_space"] == "bt709" && t["color_range"] == "tv")
        let (left, right) = try HDRMedia.patchLuma(out)
        let mid = Self.hlgGreyCode(HDRMedia.code(0.5))
        #expect(abs(mid - 138.86) < 0.05)
        #expect(abs(left - mid) <= 2, "mid grey: \(left), expected \(mid)")
        // Reference white is 1.0 before highlight compression; the Möbius curve (knee 0.5, peak
        // 1000/203) gives 0.7652 of SDR white, 16 + 219 · 0.7652^(1/2.4) = 211.9.
        #expect(abs(right - 211.9) <= 2, "reference white: \(right)")
    }

    @Test("PQ with HDR10 metadata into 8-bit H.264: tone-mapped, tagged bt709, the dropped metadata said")
    func pqToneMapped() throws {
        let dir = Scratch()
        let src = dir.file("pq.mp4"), out = dir.file("sdr.mp4")
        // Code 509 is 99.9 cd/m² in PQ: below the knee, so 16 + 219 · (99.91/203)^(1/2.4) = 179.0.
        try HDRMedia.make(src, transfer: "smpte2084", left: 509, right: 509, mastering: HDRMedia.mastering, light: HDRMedia.light)
        let plan = try Planner.plan(Self.request(src, out, .fast(.h264)))
        #expect(plan.notices.map(\.item) == ["hdr", "hdr10-mastering-display", "hdr10-content-light-level"])
        #expect(plan.notices.dropFirst().allSatisfy { $0.kind == .dropped })
        #expect(plan.notices.map(\.description).last == "track #0: the HDR10 content light level (MaxCLL/MaxFALL) is dropped: the output is SDR")
        try ExportSession(plan: plan).run()
        let t = try Self.tags(out)
        #expect(t["color_transfer"] == "bt709" && t["color_primaries"] == "bt709" && t["color_space"] == "bt709")
        #expect(try HDRMedia.sideData(out, "stream") == [:])
        let (left, _) = try HDRMedia.patchLuma(out)
        #expect(abs(left - 179.0) <= 2, "100 cd/m² grey: \(left)")
    }

    @Test("a recipe's hdr: tone-map makes a 10-bit HEVC output SDR; hdr: keep keeps HLG in 10-bit H.264")
    func askedModes() throws {
        let dir = Scratch()
        let src = dir.file("hlg.mp4")
        try HDRMedia.make(src, transfer: "arib-std-b67", left: HDRMedia.code(0.5), right: HDRMedia.code(0.75), frames: 3)
        var toneMap = VideoSettings.fast(.hevc)
        toneMap.hdr = .toneMap
        try runConversion(Self.request(src, dir.file("sdr.mkv"), toneMap))
        var t = try Self.tags(dir.file("sdr.mkv"))
        #expect(t["pix_fmt"] == "yuv420p10le" && t["color_transfer"] == "bt709" && t["color_primaries"] == "bt709")
        var keep = VideoSettings.fast(.h264)
        keep.hdr = .keep
        keep.pixelFormat = "yuv420p10le"
        try runConversion(Self.request(src, dir.file("hdr.mp4"), keep))
        t = try Self.tags(dir.file("hdr.mp4"))
        #expect(t["pix_fmt"] == "yuv420p10le" && t["color_transfer"] == "arib-std-b67" && t["color_primaries"] == "bt2020")
    }

    @Test("hdr: on an SDR source changes nothing and is said to have no effect")
    func sdrSourceIgnoresHDR() throws {
        let dir = Scratch()
        let src = dir.file("sdr.mp4")
        var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 30))
        v.colorPrimaries = "bt709"; v.colorTransfer = "bt709"; v.colorMatrix = "bt709"
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: 3)
        var s = VideoSettings.fast(.hevc)
        s.hdr = .toneMap
        let plan = try Planner.plan(Self.request(src, dir.file("out.mp4"), s))
        guard case .video(let r) = plan.lanes[0].kind else { Issue.record("not a video lane"); return }
        #expect(r.toneMapping == nil)
        #expect(r.decision("hdr")?.rule == "hdr.sdr-source")
        #expect(r.decision("color")?.value == "bt709/bt709/bt709" && r.decision("color")?.rule == "color.source")
        #expect(plan.notices.map(\.description) == ["track #0: 'hdr' has no effect: the source is SDR"])
        #expect(plan.notices.first?.kind == .ignored && plan.notices.first?.item == "setting.hdr")
    }

    @Test("RGB (gbrp) into yuv420p is tagged with the BT.601 matrix the scaler converted with, limited range")
    func rgbTagged() throws {
        let dir = Scratch()
        let src = dir.file("rgb.mkv"), out = dir.file("out.mp4")
        var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 30))
        v.codec = .hevc
        v.pixelFormat = "gbrp"
        v.colorPrimaries = "bt709"; v.colorTransfer = "bt709"; v.colorMatrix = "gbr"
        v.codecOptions = ["preset": "ultrafast"]
        let source = try FrameSource(path: src, video: v, audio: nil)
        for i in 0..<3 {
            try source.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { p in
                // gbrp planes: G, B, R. A red of 200.
                p.fill(plane: 0, x: 0, y: 0, width: 64, height: 64, value: 0)
                p.fill(plane: 1, x: 0, y: 0, width: 64, height: 64, value: 0)
                p.fill(plane: 2, x: 0, y: 0, width: 64, height: 64, value: 200)
            }
        }
        try source.finish()
        #expect(try Self.tags(src)["color_space"] == "gbr")
        let plan = try Planner.plan(Self.request(src, out, .fast(.h264)))
        guard case .video(let r) = plan.lanes[0].kind else { Issue.record("not a video lane"); return }
        #expect(r.decision("color")?.value == "bt709/bt709/smpte170m" && r.decision("color")?.rule == "color.matrix-converted")
        try ExportSession(plan: plan).run()
        let t = try Self.tags(out)
        #expect(t["pix_fmt"] == "yuv420p" && t["color_space"] == "smpte170m" && t["color_range"] == "tv" && t["color_primaries"] == "bt709")
        // Red 200 of 255 by BT.601's Kr: Y' = 16 + 219 · 0.299 · 200/255 = 67.4 (BT.709's would be
        // 52.5): the tag names the matrix the pixels were made with. ±2 for the encoder.
        let (red, _) = try HDRMedia.patchLuma(out)
        #expect(abs(red - 67.4) <= 2, "\(red)")
    }

    @Test("full-range (yuvj) SDR into yuv420p is tagged limited range, as the scaler made it")
    func fullRangeTagged() throws {
        let dir = Scratch()
        let src = dir.file("full.mp4"), out = dir.file("out.mp4")
        var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 30))
        v.pixelFormat = "yuvj420p"
        v.colorPrimaries = "bt709"; v.colorTransfer = "bt709"; v.colorMatrix = "bt709"
        v.codecOptions = ["preset": "ultrafast"]
        let source = try FrameSource(path: src, video: v, audio: nil)
        for i in 0..<3 {
            try source.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { p in
                p.fill(plane: 0, x: 0, y: 0, width: 64, height: 64, value: 255)
                p.fill(plane: 1, x: 0, y: 0, width: 32, height: 32, value: 128)
                p.fill(plane: 2, x: 0, y: 0, width: 32, height: 32, value: 128)
            }
        }
        try source.finish()
        #expect(try Self.tags(src)["color_range"] == "pc")
        try runConversion(Self.request(src, out, .fast(.h264)))
        let t = try Self.tags(out)
        #expect(t["pix_fmt"] == "yuv420p" && t["color_range"] == "tv" && t["color_transfer"] == "bt709")
        let (white, _) = try HDRMedia.patchLuma(out)
        #expect(abs(white - 235) <= 1, "full-range white in limited range: \(white)")
    }
}
