import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Raw H.264/HEVC elementary streams (`ffmpeg -f h264`, `raspivid`, drones) carry no times: they
/// are refused at open (66) with the way to wrap them; raw streams whose demuxer times them are
/// read as any file.
@Suite("Raw video elementary streams")
struct RawElementaryStreamTests {
    /// `frames` stamped pictures at 30 fps written by the project's writer, then copied out of
    /// their MP4 as a bare stream by the ffmpeg command line (`-f h264` / `-f hevc`).
    private static func raw(_ dir: Scratch, _ name: String, codec: VideoCodec = .h264, bFrames: Bool, frames: Int = 30) throws -> String {
        let mp4 = dir.file("made.mp4"), out = dir.file(name)
        var v = GeneratedVideoFormat(width: 160, height: 96, frameRate: FrameRate(frames: 30))
        v.codec = codec
        v.codecOptions = codec == .h264 ? ["preset": "ultrafast", "bf": bFrames ? "2" : "0"] : ["preset": "ultrafast", "x265-params": "bframes=\(bFrames ? 2 : 0)"]
        try Media.make(mp4, video: v, frames: frames)
        try #require(try FFmpegCLI.run(["-i", mp4, "-c", "copy", "-f", codec == .h264 ? "h264" : "hevc", out]),
                     "ffmpeg (scripts/setup.sh installs it) could not write a raw stream")
        try FileManager.default.removeItem(atPath: mp4)
        return out
    }

    private static func refusal(_ path: String) -> MediaError? {
        do { _ = try Asset.load(path); return nil } catch { return error }
    }

    @Test("raw H.264 with B-frames: refused at open (66), its rate from its header, wrapped by picture order (mkvmerge)")
    func h264WithBFrames() throws {
        let dir = Scratch()
        let src = try Self.raw(dir, "cam.h264", bFrames: true)
        let error = try #require(Self.refusal(src))
        #expect(error.kind == .notMedia && error.exitCode == 66)
        #expect(error.description == "\(src): raw H.264 video stream: its pictures carry no presentation times and may be stored out of display order; "
            + "wrap it with its frame rate first (30 fps, as its header states): mkvmerge -o cam.mkv --default-duration 0:30fps cam.h264 "
            + "(ffmpeg -c copy would time them in stored order)")
        // Every way in refuses it the same: a packets-only open (trim scans) too.
        #expect(throws: error) { _ = try InputContainer(path: src, streamInformation: false) }
    }

    @Test("raw H.264 without B-frames: refused with the ffmpeg wrap, and that wrap gives each picture its time")
    func h264WithoutBFrames() throws {
        let dir = Scratch()
        let src = try Self.raw(dir, "drone 1.264", bFrames: false)
        let error = try #require(Self.refusal(src))
        #expect(error.exitCode == 66)
        #expect(error.description == "\(src): raw H.264 video stream: its pictures carry no presentation times; "
            + "wrap it with its frame rate first (30 fps, as its header states): ffmpeg -framerate 30 -i 'drone 1.264' -c copy 'drone 1.mp4'")
        // The advice works: picture n at n/30 s (FFmpeg's raw time base, 1/1200000, rounds a tick).
        let wrapped = dir.file("drone 1.mp4")
        try #require(try FFmpegCLI.run(["-framerate", "30", "-i", src, "-c", "copy", wrapped]))
        let stamps = try Media.stamps(wrapped)
        #expect(stamps.map(\.stamp) == (0..<30).map { Optional($0) })
        #expect(stamps.map { Int(($0.pts.seconds * 30).rounded()) } == Array(0..<30))
    }

    @Test("raw HEVC with B-frames: refused at open the same way")
    func hevc() throws {
        let dir = Scratch()
        let src = try Self.raw(dir, "clip.hevc", codec: .hevc, bFrames: true)
        let error = try #require(Self.refusal(src))
        #expect(error.exitCode == 66)
        #expect(error.description == "\(src): raw HEVC video stream: its pictures carry no presentation times and may be stored out of display order; "
            + "wrap it with its frame rate first (30 fps, as its header states): mkvmerge -o clip.mkv --default-duration 0:30fps clip.hevc "
            + "(ffmpeg -c copy would time them in stored order)")
    }

    @Test("raw MPEG-2 video (decode times only: its first picture would be lost, the others shown a frame late) is refused the same way")
    func mpeg2() throws {
        let dir = Scratch()
        let mp4 = dir.file("made.mp4"), src = dir.file("tape.m2v")
        try Media.make(mp4, video: GeneratedVideoFormat(width: 160, height: 96, frameRate: FrameRate(frames: 30)), frames: 30)
        try #require(try FFmpegCLI.run(["-i", mp4, "-c:v", "mpeg2video", "-q:v", "2", "-f", "mpeg2video", src]))
        let error = try #require(Self.refusal(src))
        #expect(error.exitCode == 66)
        #expect(error.description == "\(src): raw MPEG video stream: its pictures carry no presentation times and may be stored out of display order; "
            + "wrap it with its frame rate first (30 fps, as its header states): mkvmerge -o tape.mkv --default-duration 0:30fps tape.m2v "
            + "(ffmpeg -c copy would time them in stored order)")
    }

    @Test("raw MPEG-4 Part 2 video is timed by its demuxer: read, each picture at n/30 s")
    func mpeg4PartTwoIsRead() throws {
        let dir = Scratch()
        let mp4 = dir.file("made.mp4"), src = dir.file("clip.m4v")
        try Media.make(mp4, video: GeneratedVideoFormat(width: 160, height: 96, frameRate: FrameRate(frames: 30)), frames: 30)
        try #require(try FFmpegCLI.run(["-i", mp4, "-c:v", "mpeg4", "-q:v", "2", "-bf", "2", "-f", "m4v", src]))
        let asset = try Asset.load(src)
        #expect(asset.formatName == "m4v")
        let stamps = try Media.stamps(src)
        #expect(stamps.map(\.stamp) == (0..<30).map { Optional($0) })
        #expect(stamps.map { Int(($0.pts.seconds * 30).rounded()) } == Array(0..<30))
    }

    @Test("a trimmed copy of raw MPEG-4 Part 2 (no stated length) ends at the range's end, not the file's")
    func mpeg4PartTwoCopyTrimEnds() throws {
        let dir = Scratch()
        let mp4 = dir.file("made.mp4"), src = dir.file("clip.m4v"), out = dir.file("trim.mkv")
        try Media.make(mp4, video: GeneratedVideoFormat(width: 160, height: 96, frameRate: FrameRate(frames: 30)), frames: 90)
        // Sync samples at frames 0, 10, 20 …, no B-frames: the copy of [0.5 s, 1.5 s) is frames 10 … 44.
        try #require(try FFmpegCLI.run(["-i", mp4, "-c:v", "mpeg4", "-q:v", "2", "-bf", "0", "-g", "10", "-f", "m4v", src]))
        #expect(!(try Asset.load(src)).duration.isNumeric)
        var request = ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.video, 0), .passthrough)])
        request.timeRange = TimeRange(start: MediaTime(value: 1, timescale: 2), end: MediaTime(value: 3, timescale: 2))
        try runConversion(request)
        let stamps = try Media.stamps(out)
        #expect(stamps.map(\.stamp) == (10...44).map { Optional($0) })
    }
}
