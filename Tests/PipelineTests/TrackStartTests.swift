import Foundation
import Pipeline
import Recipe
import Testing

/// Every output track starts where its source material starts relative to the others, whether
/// it is reencoded or copied, in MKV and MP4: an audio encoder's priming never shows as sound
/// before the source's first sample, and never pushes the other tracks later.
@Suite("Track starts keep their offsets")
struct TrackStartTests {
    static let rate = FrameRate(frames: 30)
    static let markerFrames = [15, 45]

    /// 60 stamped frames from `videoStart`, and 48 kHz audio from `audioStart` to the video's end
    /// with a 1 kHz burst at the time of each marker frame.
    static func make(_ path: String, videoStart: MediaTime, audioStart: MediaTime) throws {
        var v = GeneratedVideoFormat(width: 160, height: 120, frameRate: rate)
        v.timescale = 48000
        v.codecOptions = ["preset": "ultrafast"]
        var a = GeneratedAudioFormat()
        a.startSample = try audioStart.converted(to: 48000).value
        let source = try FrameSource(path: path, video: v, audio: a)
        let markers = markerFrames.map { (videoStart + rate.frameDuration * Int64($0)).seconds }
        let end = videoStart + rate.frameDuration * 60
        var written: Int64 = 0
        func audio(until t: MediaTime) throws {
            let n = Int64(((t - audioStart).seconds * 48000).rounded())
            guard n > written else { return }
            try source.appendAudio(count: Int(n - written)) { _, i in
                let t = audioStart.seconds + Double(i) / 48000
                for m in markers where t >= m && t < m + 0.08 { return Float(0.5 * sin(2 * Double.pi * 1000 * (t - m))) }
                return 0
            }
            written = n
        }
        for i in 0..<60 {
            let t = videoStart + rate.frameDuration * Int64(i)
            try source.appendPicture(at: t) { TestPattern.draw(index: i, into: $0) }
            try audio(until: t)
        }
        try audio(until: end)
        try source.finish()
    }

    struct Timing {
        let video: Double
        let audio: Double
        /// Burst onset minus the time its marker frame is shown, per marker.
        let skew: [Double]
    }

    static func timing(_ path: String) throws -> Timing {
        let stamps = try Media.stamps(path)
        let video = try #require(stamps.first?.pts.seconds)
        let audio = try #require(try SampleReader(path: path, track: .type(.audio, 0)).nextAudio()?.pts.seconds)
        let onsets = try Media.burstOnsets(path)
        var skew: [Double] = []
        for (m, onset) in zip(markerFrames, onsets) {
            if let shown = stamps.first(where: { $0.stamp == m }) { skew.append(onset - shown.pts.seconds) }
        }
        return Timing(video: video, audio: audio, skew: skew)
    }

    /// Seconds of the first audio track's packets the container marks to discard (ffprobe's `D`).
    static func discardedAudio(_ path: String) throws -> Double {
        let rows = try #require(try FFprobe.run(["-select_streams", "a:0", "-show_entries", "packet=duration_time,flags", "-of", "csv=p=0", path]))
        return rows.split(separator: "\n").reduce(0) { sum, row in
            let f = row.split(separator: ",")
            return f.count >= 2 && f[1].contains("D") ? sum + (Double(f[0]) ?? 0) : sum
        }
    }

    enum Mode: String, CaseIterable, Sendable { case bothEncoded, videoCopied, audioCopied }

    @Test("audio starting later or earlier than video: the offset and sync survive",
          arguments: ["mkv", "mp4"], [(0.5, 0.0), (0.0, 0.5)])
    func offsets(ext: String, starts: (video: Double, audio: Double)) throws {
        let dir = Scratch()
        let src = dir.file("src.mp4")
        try Self.make(src, videoStart: MediaTime(value: Int64(starts.video * 1000), timescale: 1000),
                      audioStart: MediaTime(value: Int64(starts.audio * 1000), timescale: 1000))
        let before = try Self.timing(src)
        #expect(before.skew.count == 2 && before.skew.allSatisfy { abs($0) < 0.002 }, "source skew \(before.skew)")

        for mode in Mode.allCases {
            let out = dir.file("\(mode.rawValue).\(ext)")
            let video: TrackMode = mode == .videoCopied ? .passthrough : .video(.fast())
            let audio: TrackMode = mode == .audioCopied ? .passthrough : .audio(AudioSettings())
            try runConversion(ConversionRequest(source: src, output: out, tracks: [
                TrackRequest(.type(.video, 0), video), TrackRequest(.type(.audio, 0), audio),
            ]))
            let after = try Self.timing(out)
            let note = "\(ext) \(mode) video \(starts.video) audio \(starts.audio)"
            // A copied AAC track keeps every packet, as `ffmpeg -c copy` does, including the
            // priming packet an MP4 edit list marks to discard (1024 samples before the sound):
            // Matroska cannot hide it, so the stream starts that much earlier; the sound itself
            // stays in sync (the skew below).
            let priming = mode == .audioCopied && ext == "mkv" ? try Self.discardedAudio(src) : 0
            #expect(abs((after.audio - after.video) - (before.audio - before.video) + priming) < 0.001,
                    "\(note): audio − video \(after.audio - after.video), source \(before.audio - before.video)")
            // The earlier track starts the file.
            #expect(abs(min(after.audio, after.video)) < 0.001, "\(note): starts at \(after.video), \(after.audio)")
            #expect(after.skew.count == 2 && after.skew.allSatisfy { abs($0) < 0.002 }, "\(note): skew \(after.skew)")
            // What other players see first: each stream's first packet.
            for (selector, expected) in [("v:0", after.video), ("a:0", after.audio)] {
                let start = Double(try FFprobe.stream(out, selector, "start_time")?["start_time"] ?? "") ?? -1
                #expect(abs(start - expected) < 0.001, "\(note) \(selector): start_time \(start), first decoded \(expected)")
            }
        }
    }
}
