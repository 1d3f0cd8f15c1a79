import CFFmpeg
import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A source's chroma location other than `left` (what H.264 and HEVC mean by saying nothing) is
/// stated in the output only where its chroma samples reach the encoder where they were — same
/// size, same subsampling, not tone-mapped, not composed — and into 4:2:0, the one layout x264
/// and x265 state it for; elsewhere the plan says why not.
@Suite("Chroma siting")
struct ChromaSitingTests {
    static func source(_ location: String?, pixelFormat: String = "yuv420p", _ w: Int = 1920, _ h: Int = 1080) -> FormatDescription {
        var f = SettingsAssistantTests.video(w, h)
        f.pixelFormat = pixelFormat
        f.chromaLocation = location
        return f
    }

    static func resolve(_ f: FormatDescription, _ s: VideoSettings = VideoSettings()) throws -> ResolvedVideoSettings {
        try SettingsAssistantTests.assistant.video(source: f, settings: s)
    }

    @Test("kept where the chroma samples pass through: same size, 4:2:0 to 4:2:0, 8 to 10 bits")
    func kept() throws {
        let r = try Self.resolve(Self.source("topleft"))
        #expect(r.chromaLocation == "topleft")
        #expect(r.decision("chroma-location")?.rule == "chroma-location.source")
        #expect(r.decision("chroma-location")?.reason == "the source's: its chroma samples reach the encoder where they were")
        let ten = try Self.resolve(Self.source("topleft"), VideoSettings(codec: .hevc, pixelFormat: "yuv420p10le"))
        #expect(ten.chromaLocation == "topleft")
        // Full-range "J" 4:2:0 made limited range: the values change, the sample places do not.
        let j = try Self.resolve(Self.source("center", pixelFormat: "yuvj420p"))
        #expect(j.pixelFormat == "yuv420p" && j.chromaLocation == "center")
    }

    @Test("not stated where the chroma is resampled, and the plan says why")
    func dropped() throws {
        let small = try Self.resolve(Self.source("topleft"), VideoSettings(width: 1280))
        #expect(small.chromaLocation == nil)
        #expect(small.decision("chroma-location")?.value == "unspecified")
        #expect(small.decision("chroma-location")?.reason
                == "the source's is topleft, but its pictures are resized (1920x1080 → 1280x720): their chroma is resampled, and its new siting is not known to be the source's, so none is stated (players then assume left)")
        let sub = try Self.resolve(Self.source("center", pixelFormat: "yuvj422p"))
        #expect(sub.chromaLocation == nil)
        #expect(sub.decision("chroma-location")?.reason
                == "the source's is center, but its pictures are made yuv420p: their chroma is resampled, and its new siting is not known to be the source's, so none is stated (players then assume left)")
        // 4:2:2 kept as 4:2:2: x264 writes no chroma location outside 4:2:0, so none is claimed.
        let kept422 = try Self.resolve(Self.source("center", pixelFormat: "yuv422p"), VideoSettings(pixelFormat: "yuv422p"))
        #expect(kept422.chromaLocation == nil)
        #expect(kept422.decision("chroma-location")?.reason
                == "the source's is center, but x264 and x265 state a chroma location only for 4:2:0 pictures, and these are yuv422p")
        var hdr = Self.source("topleft", pixelFormat: "yuv420p10le")
        hdr.bitDepth = 10; hdr.colorTransfer = "smpte2084"; hdr.colorPrimaries = "bt2020"; hdr.colorMatrix = "bt2020nc"
        let mapped = try Self.resolve(hdr, VideoSettings(codec: .h264))
        #expect(mapped.toneMapping != nil && mapped.chromaLocation == nil)
        #expect(mapped.decision("chroma-location")?.reason
                == "the source's is topleft, but its pictures are tone-mapped: their chroma is resampled, and its new siting is not known to be the source's, so none is stated (players then assume left)")
    }

    @Test("nothing said where the source states none or left (the codecs' default, which FFmpeg reports for a stream that says nothing), or has full-resolution chroma")
    func silent() throws {
        let none = try Self.resolve(Self.source(nil))
        #expect(none.chromaLocation == nil && none.decision("chroma-location") == nil)
        for s in [VideoSettings(), VideoSettings(width: 1280)] {
            let left = try Self.resolve(Self.source("left"), s)
            #expect(left.chromaLocation == nil && left.decision("chroma-location") == nil)
        }
        let full = try Self.resolve(Self.source("left", pixelFormat: "yuv444p"), VideoSettings(pixelFormat: "yuv444p"))
        #expect(full.chromaLocation == nil && full.decision("chroma-location") == nil)
    }

    @Test("the subsampling table is libavutil's for every Y'CbCr format it names")
    func tableMatchesLibavutil() {
        var checked = 0
        var d: UnsafePointer<AVPixFmtDescriptor>? = nil
        while let desc = av_pix_fmt_desc_next(d) {
            d = desc
            let name = String(cString: desc.pointee.name)
            guard let s = ChromaSiting.subsampling(name) else { continue }
            let expected = (Int(desc.pointee.log2_chroma_w), Int(desc.pointee.log2_chroma_h))
            #expect(s == expected, "\(name): \(s) against libavutil's \(expected)")
            #expect(desc.pointee.nb_components >= 3 && desc.pointee.flags & UInt64(AV_PIX_FMT_FLAG_RGB) == 0, "\(name)")
            checked += 1
        }
        #expect(checked > 60)
        // Every 4:2:0 and 4:2:2 format the encoders take is known.
        for name in ["yuv420p", "yuvj420p", "yuv422p", "yuv420p10le", "yuv422p10le", "nv12", "nv21", "nv16", "p010le", "yuv420p12le"] {
            #expect(ChromaSiting.subsampling(name) != nil, "\(name)")
        }
        #expect(ChromaSiting.subsampling("rgb24") == nil && ChromaSiting.subsampling("gray") == nil && ChromaSiting.subsampling("gbrp") == nil)
    }

    /// A 320x240 source whose encoder states `location`.
    static func make(_ path: String, location: String?, codec: VideoCodec = .h264) throws {
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30))
        v.codec = codec
        v.chromaLocation = location
        try Media.make(path, video: v, frames: 6)
    }

    static func read(_ path: String) throws -> String? {
        try Asset.load(path).tracks.first { $0.format.mediaType == .video }?.format.chromaLocation
    }

    @Test("end to end: the output states the source's siting, read back by reencode and by ffprobe", arguments: [VideoCodec.h264, .hevc])
    func endToEnd(codec: VideoCodec) throws {
        let dir = Scratch()
        let src = dir.file("topleft.mp4"), out = dir.file("out.mp4")
        try Self.make(src, location: "topleft")
        #expect(try Self.read(src) == "topleft")
        let plan = try Planner.plan(HDRTests.request(src, out, .fast(codec)))
        guard case .video(let v) = plan.lanes[0].kind else { Issue.record("not a video lane"); return }
        #expect(v.chromaLocation == "topleft")
        try ExportSession(plan: plan).run()
        #expect(try Self.read(out) == "topleft")
        if let probed = try FFprobe.stream(out, "v:0", "chroma_location") {
            #expect(probed["chroma_location"] == "topleft")
        }
    }

    @Test("end to end: resized pictures state none, though the source did")
    func endToEndResized() throws {
        let dir = Scratch()
        let src = dir.file("topleft.mp4"), out = dir.file("small.mp4")
        try Self.make(src, location: "topleft")
        var s = VideoSettings.fast()
        s.width = 160
        try runConversion(HDRTests.request(src, out, s))
        // H.264 without the VUI field: FFmpeg reads the codec's default, left.
        #expect(try Self.read(out) == "left")
        if let probed = try FFprobe.stream(out, "v:0", "chroma_location,width") {
            #expect(probed["chroma_location"] == "left" && probed["width"] == "160")
        }
    }

    @Test("a composition states none, and says so when one of its files states a siting other than left")
    func composition() throws {
        let files = [(file: "/m/a.mp4", format: Self.source("topleft")), (file: "/m/b.mp4", format: Self.source("left"))]
        let (merged, _, decisions) = try CompositionSources.video(files, settings: VideoSettings())
        #expect(merged.chromaLocation == nil)
        #expect(decisions.first { $0.setting == "chroma-location" }?.reason
                == "the composition's pictures are fitted and composed onto one canvas, so the chroma siting of its files (a.mp4 topleft) is not stated (players then assume left)")
        let plain = try CompositionSources.video([(file: "/m/a.mp4", format: Self.source("left")), (file: "/m/b.mp4", format: Self.source(nil))],
                                                 settings: VideoSettings())
        #expect(plain.decisions.first { $0.setting == "chroma-location" } == nil)
    }
}
