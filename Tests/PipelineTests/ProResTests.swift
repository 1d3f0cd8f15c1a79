import Foundation
@testable import Pipeline
import Recipe
import Testing

/// ProRes (prores_ks), the codec table's editing row: each profile against the ffmpeg command line
/// with the same settings, alpha kept in 4444, and the assistant's profile, chroma and depth rules.
@Suite("ProRes against ffmpeg with the same settings")
struct ProResTests {
    /// A frame-stamped 320x240 second at 25 fps, tagged BT.709.
    static func source(_ path: String) throws {
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 25))
        (v.colorPrimaries, v.colorTransfer, v.colorMatrix) = ("bt709", "bt709", "bt709")
        try Media.make(path, video: v, frames: 25)
    }

    /// The same second as 10-bit ProRes 4444 with an alpha plane that moves with the frame.
    static func alphaSource(_ path: String) throws {
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 25))
        (v.codec, v.pixelFormat) = (.prores, "yuva444p10le")
        let source = try FrameSource(path: path, video: v, audio: nil)
        for i in 0..<25 {
            try source.appendPicture(at: v.frameRate.frameDuration * Int64(i)) { p in
                TestPattern.draw(index: i, into: p)
                p.fill(plane: 1, x: 0, y: 0, width: 320, height: 240, value: 128)
                p.fill(plane: 2, x: 0, y: 0, width: 320, height: 240, value: 128)
                for band in 0..<8 { p.fill(plane: 3, x: band * 40, y: 0, width: 40, height: 240, value: (band * 32 + i * 4) % 256) }
            }
        }
        try source.finish()
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let profile: String
        let number: Int
        let container: String
        let pixelFormat: String
        var testDescription: String { "\(profile) in \(container)" }
    }

    static let cases: [Case] = [
        Case(profile: "proxy", number: 0, container: "mov", pixelFormat: "yuv422p10le"),
        Case(profile: "lt", number: 1, container: "mov", pixelFormat: "yuv422p10le"),
        Case(profile: "standard", number: 2, container: "mov", pixelFormat: "yuv422p10le"),
        Case(profile: "hq", number: 3, container: "mkv", pixelFormat: "yuv422p10le"),
        Case(profile: "4444", number: 4, container: "mov", pixelFormat: "yuv444p10le"),
        Case(profile: "4444xq", number: 5, container: "mkv", pixelFormat: "yuv444p10le"),
    ]

    static let fields = "codec_name,codec_tag_string,profile,pix_fmt,width,height,color_range,color_space,color_transfer,color_primaries"

    static func stream(_ file: String) throws -> [String: String] {
        let keys = fields.split(separator: ",").map(String.init)
        return try #require(try FFprobe.stream(file, "v:0", fields)).filter { keys.contains($0.key) }
    }

    @Test("each profile: the stream ffmpeg makes (codec, profile, pixel format, colour tags), 25 frames, its duration, the same source frames; PSNR within 0.1 dB",
          arguments: cases)
    func matchesFFmpeg(_ c: Case) throws {
        let dir = Scratch()
        let src = dir.file("src.mp4"), ours = dir.file("ours.\(c.container)"), theirs = dir.file("ffmpeg.\(c.container)")
        try Self.source(src)
        let settings = VideoSettings(codec: .prores, profile: c.profile)
        try runConversion(ConversionRequest(source: src, output: ours, tracks: [TrackRequest(.type(.video, 0), .video(settings))]))
        try #require(try FFmpegCLI.encode(["-i", src, "-map", "0:v:0", "-c:v", "prores_ks", "-profile:v", "\(c.number)", "-pix_fmt", c.pixelFormat, theirs]))

        let mine = try Self.stream(ours)
        #expect(mine["codec_name"] == "prores" && mine["color_primaries"] == "bt709" && mine["color_space"] == "bt709", "\(mine)")
        #expect(mine == (try Self.stream(theirs)))
        #expect(try FFprobe.frameCount(ours, "v:0") == 25)
        #expect(try FFprobe.frameCount(theirs, "v:0") == 25)
        #expect(try FFprobe.format(ours)?["duration"] == (try FFprobe.format(theirs)?["duration"]))
        #expect(try Media.stamps(ours).map(\.stamp) == Array(0..<25))
        let psnr = try #require(try FFmpegCLI.psnr(ours, against: src)), reference = try #require(try FFmpegCLI.psnr(theirs, against: src))
        #expect(abs(psnr - reference) <= 0.1, "reencode \(psnr) dB, ffmpeg \(reference) dB")
    }

    @Test("ProRes 4444 from a source with alpha: the assistant chooses 4444 and yuva444p10le; ffmpeg's stream, and every alpha sample the source's, as in ffmpeg's",
          arguments: ["mov", "mkv"])
    func alphaKept(_ container: String) throws {
        let dir = Scratch()
        let src = dir.file("alpha.mov"), ours = dir.file("ours.\(container)"), theirs = dir.file("ffmpeg.\(container)")
        try Self.alphaSource(src)
        let plan = try Planner.plan(ConversionRequest(source: src, output: ours, tracks: [TrackRequest(.type(.video, 0), .video(VideoSettings(codec: .prores)))]))
        guard case .video(let v) = plan.lanes[0].kind else { Issue.record("not a video lane"); return }
        #expect(v.profile == "4444" && v.pixelFormat == "yuva444p10le")
        #expect(v.decision("profile").map { "\($0.rule): \($0.reason)" } == "profile.prores-source: the source has alpha: ProRes 4444 keeps it")
        #expect(v.decision("pixel-format").map { "\($0.rule): \($0.reason)" }
                == "pixel-format.profile-alpha: ProRes 4444 is 10-bit 4:4:4 with alpha: the source's alpha is kept")
        try ExportSession(plan: plan).run()
        try #require(try FFmpegCLI.encode(["-i", src, "-map", "0:v:0", "-c:v", "prores_ks", "-profile:v", "4", "-pix_fmt", "yuva444p10le", theirs]))
        let mine = try Self.stream(ours)
        #expect(mine["pix_fmt"] == "yuva444p12le" && mine["profile"] == "4444", "\(mine)")
        #expect(mine == (try Self.stream(theirs)))
        #expect(try FFprobe.frameCount(ours, "v:0") == 25)
        #expect(try Media.stamps(ours).map(\.stamp) == Array(0..<25))
        let alpha = try #require(try FFmpegCLI.alphaPSNR(ours, against: src)), reference = try #require(try FFmpegCLI.alphaPSNR(theirs, against: src))
        // prores_ks codes alpha losslessly (16 bits): every alpha sample is the source's, in both.
        #expect(alpha == .infinity && reference == .infinity, "reencode \(alpha) dB, ffmpeg \(reference) dB")
        let psnr = try #require(try FFmpegCLI.psnr(ours, against: src)), colour = try #require(try FFmpegCLI.psnr(theirs, against: src))
        #expect(abs(psnr - colour) <= 0.1, "reencode \(psnr) dB, ffmpeg \(colour) dB")
    }

    @Test("an HDR10 source stays HDR in ProRes: 10-bit 4:2:2, BT.2020/PQ tags and the container's HDR10 side data as ffmpeg writes them")
    func hdrKept() throws {
        let dir = Scratch()
        let src = dir.file("pq.mp4"), ours = dir.file("ours.mov"), theirs = dir.file("ffmpeg.mov")
        try HDRMedia.make(src, transfer: "smpte2084", left: 400, right: 600, mastering: HDRMedia.mastering, light: HDRMedia.light)
        let plan = try Planner.plan(HDRTests.request(src, ours, VideoSettings(codec: .prores, profile: "hq")))
        guard case .video(let v) = plan.lanes[0].kind else { Issue.record("not a video lane"); return }
        #expect(v.decision("hdr")?.rule == "hdr.keep-10-bit" && v.pixelFormat == "yuv422p10le" && v.toneMapping == nil)
        try ExportSession(plan: plan).run()
        try #require(try FFmpegCLI.encode(["-i", src, "-map", "0:v:0", "-c:v", "prores_ks", "-profile:v", "3", "-pix_fmt", "yuv422p10le", theirs]))
        let t = try HDRTests.tags(ours)
        #expect(t["color_transfer"] == "smpte2084" && t["color_primaries"] == "bt2020" && t["color_space"] == "bt2020nc", "\(t)")
        #expect(try Self.stream(ours) == (try Self.stream(theirs)))
        #expect(try HDRMedia.sideData(ours, "stream") == (try HDRMedia.sideData(theirs, "stream")))
    }
}

/// The assistant's ProRes rules, on made-up sources: the profile fixes chroma and depth, alpha
/// decides 4444, and ProRes takes no rate and no level.
@Suite("ProRes settings")
struct ProResSettingsTests {
    static func source(_ pixelFormat: String, bitDepth: Int = 8, alpha: Bool = false) -> FormatDescription {
        var f = SettingsAssistantTests.video(1920, 1080)
        (f.pixelFormat, f.bitDepth, f.hasAlpha) = (pixelFormat, bitDepth, alpha)
        return f
    }

    static func said(_ r: ResolvedVideoSettings, _ setting: String) -> String? {
        r.decision(setting).map { "\($0.value) \($0.rule): \($0.reason)" }
    }

    @Test("no profile asked: 4:2:0 and 4:2:2 → standard in 10-bit 4:2:2; 4:4:4, RGB or alpha → 4444; every decision says why")
    func automatic() throws {
        let a = SettingsAssistant.system
        let plain = try a.video(source: Self.source("yuv420p"), settings: VideoSettings(codec: .prores))
        #expect(plain.encoderName == "prores_ks" && plain.profile == "standard" && plain.pixelFormat == "yuv422p10le")
        #expect(Self.said(plain, "profile") == "standard profile.prores-source: the source is 4:2:0 without alpha: ProRes standard, the everyday editing profile (AVFoundation's AppleProRes422LPCM)")
        #expect(Self.said(plain, "pixel-format") == "yuv422p10le pixel-format.profile: ProRes standard is 10-bit 4:2:2 (the 8-bit 4:2:0 source is made 10-bit 4:2:2)")
        #expect(Self.said(plain, "quality") == "by profile quality.by-profile: ProRes has no quality scale: each profile codes at its own data rate")
        // No quality, speed or level reaches prores_ks: the profile is its whole rate control.
        #expect(VideoSink.encoderOptions(plain).isEmpty && plain.quality == nil && plain.level == nil && plain.encoderLevel == nil)
        #expect(plain.decision("speed") == nil && plain.decision("level") == nil)
        #expect(Self.said(plain, "gop") == "1 gop.intra-only: ProRes codes every picture on its own: each is a keyframe" && plain.gopFrames == 1)

        let deep = try a.video(source: Self.source("yuv422p10le", bitDepth: 10), settings: VideoSettings(codec: .prores))
        #expect(Self.said(deep, "pixel-format") == "yuv422p10le pixel-format.profile: ProRes standard is 10-bit 4:2:2")
        let full = try a.video(source: Self.source("yuv444p12le", bitDepth: 12), settings: VideoSettings(codec: .prores))
        #expect(full.profile == "4444" && full.pixelFormat == "yuv444p10le")
        #expect(Self.said(full, "profile") == "4444 profile.prores-source: the source is 4:4:4: ProRes 4444 keeps every chroma sample")
        #expect(Self.said(full, "pixel-format") == "yuv444p10le pixel-format.profile-no-alpha: ProRes 4444 is 10-bit 4:4:4: the source has no alpha, so neither has the output")
        let rgb = try a.video(source: Self.source("rgb24"), settings: VideoSettings(codec: .prores))
        #expect(rgb.profile == "4444" && rgb.pixelFormat == "yuv444p10le")
        let alpha = try a.video(source: Self.source("yuva420p", alpha: true), settings: VideoSettings(codec: .prores))
        #expect(alpha.profile == "4444" && alpha.pixelFormat == "yuva444p10le")
    }

    @Test("an asked profile fixes the format: 4444 without alpha is said in the plan, not refused; a 4:2:2 profile drops the source's alpha and says so")
    func asked() throws {
        let a = SettingsAssistant.system
        for name in ["proxy", "lt", "standard", "hq"] {
            let r = try a.video(source: Self.source("yuv444p", alpha: false), settings: VideoSettings(codec: .prores, profile: name))
            #expect(r.profile == name && r.pixelFormat == "yuv422p10le")
            #expect(Self.said(r, "profile") == "\(name) settings: as asked")
            #expect(Self.said(r, "pixel-format") == "yuv422p10le pixel-format.profile: ProRes \(name) is 10-bit 4:2:2 (the 8-bit 4:4:4 source is made 10-bit 4:2:2)")
        }
        let noAlpha = try a.video(source: Self.source("yuv420p"), settings: VideoSettings(codec: .prores, profile: "4444"))
        #expect(noAlpha.pixelFormat == "yuv444p10le")
        #expect(Self.said(noAlpha, "pixel-format") == "yuv444p10le pixel-format.profile-no-alpha: ProRes 4444 is 10-bit 4:4:4: the source has no alpha, so neither has the output")
        let dropped = try a.video(source: Self.source("yuva444p", alpha: true), settings: VideoSettings(codec: .prores, codecOptions: ["profile": "hq"]))
        #expect(dropped.profile == "hq" && dropped.pixelFormat == "yuv422p10le")
        #expect(Self.said(dropped, "pixel-format") == "yuv422p10le pixel-format.profile-alpha-dropped: ProRes hq is 10-bit 4:2:2 without alpha: the 8-bit 4:4:4 source's alpha is dropped")
        let xq = try a.video(source: Self.source("yuva444p10le", bitDepth: 10, alpha: true), settings: VideoSettings(codec: .prores, profile: "4444xq"))
        #expect(xq.pixelFormat == "yuva444p10le")
    }

    @Test("quality, bitrate and max-bitrate are refused for ProRes (its profile sets the rate); so is a level; a profile that cannot carry the pixel format asked is refused when it opens")
    func refusals() throws {
        let a = SettingsAssistant.system, src = Self.source("yuv420p")
        let names = "proxy, lt, standard, hq, 4444, 4444xq"
        for (settings, key) in [(VideoSettings(codec: .prores, quality: 10), "quality"), (VideoSettings(codec: .prores, bitrate: 50_000_000), "bitrate"),
                                (VideoSettings(codec: .prores, maxBitrate: 90_000_000, profile: "hq"), "max-bitrate")] {
            #expect(throws: MediaError(.invalidSettings, "'\(key)' does not apply to ProRes: each profile codes at its own data rate (\(names)); choose one with 'profile'", setting: key)) {
                try a.video(source: src, settings: settings)
            }
        }
        #expect(throws: MediaError(.invalidSettings, "ProRes has no levels: leave 'level' out", setting: "level")) {
            try a.video(source: src, settings: VideoSettings(codec: .prores, level: "4.1"))
        }
        for (profile, format, message) in [
            ("hq", "yuv444p10le", "profile 'hq' cannot carry yuv444p10le (10-bit 4:4:4); prores_ks profiles that can: 4444, 4444xq"),
            ("4444", "yuv422p10le", "profile '4444' cannot carry yuv422p10le (10-bit 4:2:2); prores_ks profiles that can: hq, lt, proxy, standard"),
            ("hqq", "yuv422p10le", "the prores_ks encoder has no profile 'hqq' (did you mean 'hq'?) (it has hq, lt, proxy, standard, 4444, 4444xq)"),
        ] {
            let r = try a.video(source: src, settings: VideoSettings(codec: .prores, profile: profile, pixelFormat: format))
            #expect(throws: MediaError(.invalidSettings, message, setting: "profile")) { _ = try Encoder(EncoderConfiguration.standIn(r)) }
        }
    }
}

extension FFmpegCLI {
    /// The average PSNR (dB) of `file`'s alpha plane against `source`'s (`alphaextract`, then
    /// the `psnr` filter).
    static func alphaPSNR(_ file: String, against source: String) throws -> Double? {
        try psnr(file, against: source, filter: "[0:v]alphaextract[a];[1:v]alphaextract[b];[a][b]psnr")
    }
}
