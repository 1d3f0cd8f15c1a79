import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A file cut between two samples ends quietly: no demuxer error, no short sample. What the
/// container states of its length betrays it: a RIFF file's byte count (AVI, WAV), a header's
/// length (FLV's onMetaData, WebM's Duration, an MP3's Xing frame count; FLAC's sample count too,
/// but ffprobe lists no byte positions for its samples to cut at).
/// Cut at 1/4, 1/2 and 3/4 after a whole sample, each fails as cut off, naming the file, the
/// track and a time within it, exit 1, nothing written; the whole file converts.
@Suite("Cut between two samples: the container's stated length")
struct StatedLengthTests {
    /// Extension → ffmpeg arguments (from our writer's MP4), whether it has pictures, and how
    /// the refusal says what the file states.
    static let containers: [String: (args: [String], video: Bool, states: String)] = [
        "avi": (["-c:v", "mpeg4", "-c:a", "libmp3lame"], true, "but its RIFF header states"),
        "wav": (["-vn", "-c:a", "pcm_s16le"], false, "but its RIFF header states"),
        "flv": (["-c:v", "flv1", "-c:a", "libmp3lame", "-ar", "44100"], true, "but its header states"),
        "mp3": (["-vn", "-c:a", "libmp3lame"], false, "but its header states"),
        "webm": (["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus"], true, ""),
    ]

    /// Byte offsets where a sample ends, as ffprobe lists them.
    static func sampleEnds(_ path: String) throws -> [Int] {
        let out = try #require(try FFprobe.run(["-show_entries", "packet=pos,size", "-of", "csv=p=0", path]))
        return Set(out.split(separator: "\n").compactMap { line -> Int? in
            let f = line.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard f.count >= 2, let pos = f[0], let size = f[1] else { return nil }
            return pos + size
        }).sorted()
    }

    static func convert(_ src: String, _ out: String, video: Bool) throws {
        let audio = TrackRequest(.type(.audio, 0), .audio(AudioSettings()))
        try runConversion(ConversionRequest(source: src, output: out, tracks: video ? [TrackRequest(.type(.video, 0), .video(.fast())), audio] : [audio]))
    }

    @Test("cut after a whole sample at 1/4, 1/2, 3/4: fails as cut off with the file, track and time; the whole file converts",
          arguments: ["avi", "wav", "flv", "mp3", "webm"])
    func cutBetweenSamples(ext: String) throws {
        let c = try #require(Self.containers[ext])
        let dir = Scratch()
        let made = dir.file("made.mp4")
        try DamageTests.source(made)
        let src = dir.file("whole.\(ext)")
        try #require(try FFmpegCLI.run(["-i", made] + c.args + [src]), "ffmpeg (scripts/setup.sh installs it) could not make \(ext)")
        try Self.convert(src, dir.file("whole-ok.mp4"), video: c.video)
        let whole = try DamageTests.extent(src)
        let size = try DamageTests.size(src)
        let ends = try Self.sampleEnds(src)
        for q in 1...3 {
            var n = try #require(ends.last { $0 <= size * q / 4 }, "\(ext): no sample ends before \(q)/4")
            if ["avi", "wav"].contains(ext) { n += n & 1 }  // RIFF chunks are padded to even sizes
            let cut = dir.file("cut\(q).\(ext)")
            try DamageTests.cut(src, to: n, as: cut)
            let out = dir.file("out.mp4")
            do {
                try Self.convert(cut, out, video: c.video)
                Issue.record("\(ext) cut at \(n) of \(size) bytes: converted")
            } catch let e as MediaError {
                #expect(e.kind == .processing && e.exitCode == 1, "\(ext) \(q)/4: \(e)")
                #expect(e.file == cut && e.track != nil, "\(ext) \(q)/4: \(e)")
                #expect(e.time.map { whole.contains($0) } == true, "\(ext) \(q)/4: \(e)")
                #expect(e.message.hasPrefix("the file is truncated or damaged"), "\(ext) \(q)/4: \(e)")
                #expect(c.states.isEmpty || e.message.contains(c.states), "\(ext) \(q)/4: \(e)")
            }
            #expect(!FileManager.default.fileExists(atPath: out), "\(ext) \(q)/4: left an output")
            try FileManager.default.removeItem(atPath: cut)
        }
        #expect(Set(dir.contents) == ["made.mp4", "whole.\(ext)", "whole-ok.mp4"])
    }

    @Test("a RIFF file that states more bytes than it has, in its second RIFF chunk (OpenDML), or an unknown size (0xFFFFFFFF)")
    func riffChunks() throws {
        let dir = Scratch()
        func riff(_ chunks: [(size: UInt32, body: Int)]) throws -> String {
            var d = Data()
            for c in chunks {
                d += Data("RIFF".utf8) + withUnsafeBytes(of: c.size.littleEndian) { Data($0) } + Data(repeating: 0, count: c.body)
            }
            let path = dir.file("f\(d.count).avi")
            try d.write(to: URL(fileURLWithPath: path))
            return path
        }
        let whole = try riff([(100, 100), (51, 52)])
        #expect(RIFFSize.stated(whole).map { [$0.stated, $0.size] } == [168, 168])
        let cut = try riff([(100, 100), (200, 50)])
        #expect(RIFFSize.stated(cut).map { [$0.stated, $0.size] } == [316, 166])
        let unknown = try riff([(0xFFFF_FFFF, 100)])
        #expect(RIFFSize.stated(unknown) == nil)
    }
}
