import Foundation
import Testing

/// The corpus's HDR files (REENCODE_CORPUS): HLG made SDR for the web, HDR10 metadata kept in an
/// HEVC archive, Dolby Vision losses said.
@Suite("HDR corpus files", .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
struct HDRCorpusTests {
    static let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? ""
    static let recipes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("recipes").path

    static func ffprobe(_ args: [String]) throws -> [String] {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
        p.arguments = ["-v", "error", "-select_streams", "v:0"] + args
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test("mp4_hlg10-color-test.mp4 through web-1080p: 8-bit H.264 tagged BT.709, the tone mapping said")
    func hlgForTheWeb() throws {
        let dir = Scratch()
        let out = dir.file("web.mp4")
        let r = try Binary.run(["run", Self.recipes + "/web-1080p.yaml", "-i", Self.corpus + "/androidx-media/mp4_hlg10-color-test.mp4", "-o", out], timeLimit: 600)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("track #1: HDR (HLG) is tone-mapped to BT.709 SDR (yuv420p h264 output)\n"))
        #expect(try Self.ffprobe(["-show_entries", "stream=pix_fmt,color_range,color_space,color_transfer,color_primaries", "-of", "default=nw=1", out])
                == ["pix_fmt=yuv420p", "color_range=tv", "color_space=bt709", "color_transfer=bt709", "color_primaries=bt709"])
    }

    @Test("mp4_hdr10-video-with-sdr-container.mp4 through hevc-archive: mastering display and MaxCLL/MaxFALL kept exactly")
    func hdr10Archive() throws {
        let dir = Scratch()
        let out = dir.file("archive.mp4")
        let r = try Binary.run(["run", Self.recipes + "/hevc-archive.yaml", "-i", Self.corpus + "/androidx-media/mp4_hdr10-video-with-sdr-container.mp4", "-o", out], timeLimit: 600)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("track #0: the HDR10+ dynamic metadata is dropped: FFmpeg 5.1's encoders cannot write it (the HDR10 static metadata is kept)\n"))
        // The source's values as FFmpeg reads them from its SEI (its primaries are P3's, listed
        // in an unusual order, and its luminance is what the file says: kept as they are).
        let expected = [
            "side_data_type=Mastering display metadata", "red_x=7500/50000", "red_y=3000/50000", "green_x=34000/50000", "green_y=16000/50000",
            "blue_x=13250/50000", "blue_y=34500/50000", "white_point_x=15635/50000", "white_point_y=16450/50000",
            "min_luminance=50/10000", "max_luminance=1000/10000",
            "side_data_type=Content light level metadata", "max_content=1000", "max_average=200",
        ]
        #expect(try Self.ffprobe(["-show_entries", "stream_side_data", "-of", "default=nw=1", out]) == expected)
        let frame = try Self.ffprobe(["-read_intervals", "%+#1", "-show_entries", "frame_side_data", "-of", "default=nw=1", out])
        #expect(frame.filter { !$0.hasPrefix("side_data_type=H.26") } == expected)
        #expect(try Self.ffprobe(["-show_entries", "stream=pix_fmt,color_transfer", "-of", "default=nw=1", out]) == ["pix_fmt=yuv420p10le", "color_transfer=smpte2084"])
    }

    @Test("passthrough keeps HDR10 and HDR10+ in the pictures' SEI, and says nothing is dropped")
    func hdr10PlusPassthrough() throws {
        let dir = Scratch()
        let out = dir.file("copy.mkv")
        let r = try Binary.run(["run", Self.recipes + "/remux-passthrough.yaml", "-i", Self.corpus + "/androidx-media/mp4_hdr10-video-with-sdr-container.mp4", "-o", out], timeLimit: 120)
        #expect(r.status == 0 && r.stderr == "", "\(r.stderr)")
        #expect(try Self.ffprobe(["-read_intervals", "%+#1", "-show_entries", "frame_side_data=side_data_type", "-of", "default=nw=1", out])
                == ["side_data_type=Mastering display metadata", "side_data_type=Content light level metadata",
                    "side_data_type=HDR Dynamic Metadata SMPTE2094-40 (HDR10+)"])
    }

    @Test("Dolby Vision passthrough into .mp4 and .mkv keeps the configuration record (dvcC, block addition mapping)")
    func dolbyVisionPassthrough() throws {
        let dir = Scratch()
        for ext in ["mp4", "mkv"] {
            let out = dir.file("dv.\(ext)")
            let r = try Binary.run(["run", Self.recipes + "/remux-passthrough.yaml", "-i", Self.corpus + "/mediabunny/no-correct-videoframe-format.mov", "-o", out], timeLimit: 120)
            #expect(r.status == 0, "\(r.stderr)")
            let lines = try Self.ffprobe(["-show_entries", "stream_side_data=side_data_type,dv_profile,dv_level,dv_bl_signal_compatibility_id", "-of", "default=nw=1", out])
            #expect(Array(lines.prefix(4)) == ["side_data_type=DOVI configuration record", "dv_profile=8", "dv_level=5", "dv_bl_signal_compatibility_id=4"], "\(ext)")
        }
    }

    @Test("Dolby Vision: plan says what reencoding or a MOV passthrough drops, and not what an MP4 passthrough keeps")
    func dolbyVisionSaid() throws {
        let dv = Self.corpus + "/androidx-media/mp4_dolbyVision-hdr.MOV"
        let dir = Scratch()
        func warnings(_ recipe: String, _ input: String, _ out: String) throws -> [String] {
            let r = try Binary.run(["plan", Self.recipes + "/" + recipe, "-i", input, "-o", dir.file(out)], timeLimit: 120)
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").filter { $0.hasPrefix("warning: ") }.map(String.init)
        }
        #expect(try warnings("hevc-archive.yaml", dv, "a.mp4").contains(
            "warning: track #0: the Dolby Vision metadata (profile 8.4) is dropped: the encoder cannot write it; the HLG base pictures are kept"))
        #expect(try warnings("remux-passthrough.yaml", dv, "r.mov").contains(
            "warning: track #0: the Dolby Vision configuration (profile 8.4) is dropped: FFmpeg 5.1's MOV writer cannot store it (.mp4 and .mkv keep it); players show the base layer"))
        #expect(try warnings("remux-passthrough.yaml", dv, "r.mp4").filter { $0.contains("Dolby") } == [])
        #expect(try warnings("web-1080p.yaml", Self.corpus + "/androidx-media/mp4_video_dovi_1920x1080_60fps_dvav_09.mp4", "w.mp4").contains(
            "warning: track #0: the Dolby Vision metadata (profile 9.2) is dropped: the encoder cannot write it; the SDR base pictures are kept"))
    }
}
