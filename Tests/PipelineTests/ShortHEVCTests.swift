import Foundation
import Pipeline
import Recipe
import Testing

/// HEVC encodes of one or two pictures: x265 stamps their decode times from a delay it never
/// measured (memory left as it was), so the MP4 muxer could refuse them ("pts/dts pair
/// unsupported") depending on heap contents — a test that made a 2-picture HDR clip failed that
/// way under load. Whatever the heap holds, their decode times must be their presentation times.
@Suite("HEVC of one or two pictures")
struct ShortHEVCTests {
    /// (pts, dts) of every video packet, in file order, by ffprobe (nil: not installed). Matroska
    /// stores no decode times: there the dts is the pts ffprobe derives, or absent.
    static func packetTimes(_ file: String) throws -> [(Int, Int)]? {
        guard let out = try FFprobe.run(["-select_streams", "v:0", "-show_entries", "packet=pts,dts", "-of", "csv=p=0", file]) else { return nil }
        return out.split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard f.count >= 1, let pts = f[0] else { return nil }
            return (pts, f.count == 2 ? f[1] ?? pts : pts)
        }
    }

    @Test("our writer: 1 and 2 HEVC pictures decode at their presentation times", arguments: [1, 2], ["mp4", "mkv"])
    func written(_ pictures: Int, _ ext: String) throws {
        let dir = Scratch()
        let path = dir.file("short.\(ext)")
        var v = GeneratedVideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 30))
        v.codec = .hevc
        v.codecOptions = ["preset": "ultrafast"]
        try Media.make(path, video: v, frames: pictures)
        #expect(try Media.stamps(path).map(\.stamp) == (0..<pictures).map { Optional($0) })
        guard let times = try Self.packetTimes(path) else { return }
        #expect(times.count == pictures)
        for (pts, dts) in times { #expect(dts == pts, "\(times)") }
    }

    @Test("a conversion to HEVC trimmed to two pictures: decode times are presentation times")
    func converted() throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        try Media.make(src, video: GeneratedVideoFormat(width: 64, height: 64, frameRate: FrameRate(frames: 30)), frames: 30)
        var request = ConversionRequest(source: src, output: dir.file("out.mp4"),
                                        tracks: [TrackRequest(.type(.video, 0), .video(.fast(.hevc)))])
        request.timeRange = TimeRange(start: FrameRate(frames: 30).frameDuration * 5, duration: FrameRate(frames: 30).frameDuration * 2)
        try runConversion(request)
        #expect(try Media.stamps(dir.file("out.mp4")).map(\.stamp) == [5, 6])
        guard let times = try Self.packetTimes(dir.file("out.mp4")) else { return }
        #expect(times.count == 2)
        for (pts, dts) in times { #expect(dts == pts, "\(times)") }
    }
}
