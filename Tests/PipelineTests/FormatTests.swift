import Foundation
import Pipeline
import Recipe
import Testing

@Suite("Formats and containers")
struct FormatTests {
    @Test("a 10-bit HEVC source converts to 8-bit H.264 and to 10-bit HEVC")
    func tenBit() throws {
        let dir = Scratch()
        let src = dir.file("ten.mp4")
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30))
        v.codec = .hevc
        v.pixelFormat = "yuv420p10le"
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: 20)
        #expect(try Asset.load(src).tracks[0].format.bitDepth == 10)

        try runConversion(ConversionRequest(source: src, output: dir.file("avc.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(.fast(.h264)))
        ]))
        let avc = try Asset.load(dir.file("avc.mp4")).tracks[0].format
        #expect(avc.codec == "h264" && avc.pixelFormat == "yuv420p" && avc.bitDepth == 8)
        #expect(try Media.stamps(dir.file("avc.mp4")).map(\.stamp) == (0..<20).map { Optional($0) })

        try runConversion(ConversionRequest(source: src, output: dir.file("hevc.mp4"), tracks: [
            TrackRequest(.type(.video, 0), .video(.fast(.hevc)))
        ]))
        let hevc = try Asset.load(dir.file("hevc.mp4")).tracks[0].format
        #expect(hevc.codec == "hevc" && hevc.pixelFormat == "yuv420p10le" && hevc.bitDepth == 10)
        #expect(hevc.profile == "Main 10")
        #expect(try Media.stamps(dir.file("hevc.mp4")).map(\.stamp) == (0..<20).map { Optional($0) })
    }

    @Test("inspect mp4, mov, mkv and m4a", arguments: ["mp4", "mov", "mkv", "m4a"])
    func inspect(_ ext: String) throws {
        let dir = Scratch()
        let path = dir.file("clip.\(ext)")
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 25))
        v.codecOptions = ["preset": "ultrafast"]
        if ext == "m4a" {
            let s = try FrameSource(path: path, video: nil, audio: GeneratedAudioFormat(sampleRate: 44100, channels: 1), metadata: ["title": "tone"])
            try s.appendAudio(count: 44100) { _, n in Float(sin(Double(n) * 0.05)) * 0.3 }
            try s.finish()
        } else {
            try Media.make(path, video: v, frames: 50, audio: true, metadata: ["title": "tone"])
        }
        let a = try Asset.load(path)
        #expect(a.metadata["title"] ?? a.metadata["TITLE"] == "tone")
        if ext == "m4a" {
            #expect(a.tracks.count == 1)
            let t = try #require(a.audioTracks.first)
            #expect(t.format.codec == "aac" && t.format.sampleRate == 44100 && t.format.channels == 1)
            #expect(t.format.channelLayout == "mono")
            #expect(abs(a.duration.seconds - 1) < 0.05)
        } else {
            let video = try #require(a.videoTracks.first)
            #expect(video.format.codec == "h264")
            #expect(video.format.width == 320 && video.format.height == 240)
            #expect(video.format.averageFrameRate == FrameRate(frames: 25))
            #expect(video.format.pixelFormat == "yuv420p")
            let audio = try #require(a.audioTracks.first)
            #expect(audio.format.sampleRate == 48000 && audio.format.channels == 2)
            #expect(abs(a.duration.seconds - 2) < 0.05, "\(a.duration)")
        }
    }

    @Test("passthrough copies samples untouched: a remux to mkv keeps every frame; a trim starts at the sync sample before the start")
    func passthrough() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        var v = GeneratedVideoFormat(width: 320, height: 240, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        v.gop = 30
        try Media.make(src, video: v, frames: 90, audio: true)
        let whole = dir.file("whole.mkv")
        let r = try runConversion(ConversionRequest(source: src, output: whole, tracks: [
            TrackRequest(.type(.video, 0), .passthrough), TrackRequest(.type(.audio, 0), .passthrough),
        ]))
        #expect(r.lanes[0].packetsDecoded == 0)
        #expect(try Media.stamps(whole).map(\.stamp) == (0..<90).map { Optional($0) })
        #expect(try Asset.load(whole).tracks.map(\.format.codec) == ["h264", "aac"])

        var trim = ConversionRequest(source: src, output: dir.file("trim.mp4"), tracks: [TrackRequest(.type(.video, 0), .passthrough)])
        trim.timeRange = TimeRange(start: MediaTime(seconds: 1), duration: MediaTime(seconds: 1))
        let t = try runConversion(trim)
        // Sync samples every 30 frames: the 1 s trim starts exactly on one and holds 30 frames.
        #expect(t.lanes[0].packetsWritten == 30)
        #expect(try Media.stamps(dir.file("trim.mp4")).map(\.stamp) == (30..<60).map { Optional($0) })
    }

    @Test("optimize for network puts the index (moov) before the media data (mdat)")
    func moovFirst() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: FrameRate(frames: 30))
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(src, video: v, frames: 10)
        for fast in [true, false] {
            var req = ConversionRequest(source: src, output: dir.file("out-\(fast).mp4"), tracks: [TrackRequest(.type(.video, 0), .video(.fast()))])
            req.optimizeForNetwork = fast
            try runConversion(req)
            let data = try Data(contentsOf: URL(fileURLWithPath: req.output))
            let moov = try #require(data.range(of: Data("moov".utf8)))
            let mdat = try #require(data.range(of: Data("mdat".utf8)))
            #expect((moov.lowerBound < mdat.lowerBound) == fast)
        }
    }
}
