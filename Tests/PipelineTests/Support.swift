import Foundation
import Pipeline
import Recipe
import Testing

/// A scratch folder per test, removed afterwards.
final class Scratch {
    let path: String
    init(_ name: String = #function) {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        path = NSTemporaryDirectory() + "reencode-tests/\(safe)-\(UInt32.random(in: 0...UInt32.max))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
    var contents: [String] { (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] }
}

/// Source media made with the project's own FrameSource.
enum Media {
    /// A marker (tone burst) every `markerEvery` frames starting at `firstMarker`: the audio burst
    /// starts exactly at the presentation time of that frame.
    struct Markers {
        var firstMarker = 30
        var markerEvery = 60
        var burstSeconds = 0.08
    }

    /// `frames` frame-stamped pictures at `rate` (frame i at i/rate, or at `times[i]`), with
    /// optional stereo 48 kHz audio carrying tone bursts at marker frames.
    static func make(_ path: String, video: GeneratedVideoFormat, frames: Int, times: [MediaTime]? = nil,
                     audio: Bool = false, markers: Markers = Markers(), metadata: [String: String] = [:]) throws {
        let source = try FrameSource(path: path, video: video, audio: audio ? GeneratedAudioFormat() : nil, metadata: metadata)
        let rate = video.frameRate
        let markerTimes: [Double] = stride(from: markers.firstMarker, to: frames, by: markers.markerEvery).map {
            times?[$0].seconds ?? Double($0) * Double(rate.seconds) / Double(rate.frames)
        }
        var samplesDone = 0
        for i in 0..<frames {
            let t = times?[i] ?? rate.frameDuration * Int64(i)
            let d = times.flatMap { i + 1 < $0.count ? $0[i + 1] - t : nil }
            try source.appendPicture(at: t, duration: d) { TestPattern.draw(index: i, into: $0) }
            if audio {
                // Keep audio up to this frame's time so the writer interleaves as a camera would.
                let until = Int((t.seconds * 48000).rounded())
                if until > samplesDone {
                    try source.appendAudio(count: until - samplesDone) { _, n in Self.tone(n, markers: markerTimes, burst: markers.burstSeconds) }
                    samplesDone = until
                }
            }
        }
        if audio {
            let end = times.map { $0.last!.seconds + rate.frameDuration.seconds } ?? Double(frames) * rate.frameDuration.seconds
            let until = Int((end * 48000).rounded())
            if until > samplesDone {
                try source.appendAudio(count: until - samplesDone) { _, n in Self.tone(n, markers: markerTimes, burst: markers.burstSeconds) }
            }
        }
        try source.finish()
    }

    /// The burst sample at sample `n`; `markers` ascending (the latest marker at or before the
    /// sample is found by bisection: a long source has thousands).
    static func tone(_ n: Int64, markers: [Double], burst: Double) -> Float {
        let t = Double(n) / 48000
        var lo = 0, hi = markers.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if markers[mid] <= t { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0, case let m = markers[lo - 1], t < m + burst else { return 0 }
        return Float(0.5 * sin(2 * Double.pi * 1000 * (t - m)))
    }

    /// (pts, stamp) of every decoded picture of the first video track.
    static func stamps(_ path: String) throws -> [(pts: MediaTime, stamp: Int?)] {
        let r = try SampleReader(path: path, track: .type(.video, 0))
        var out: [(MediaTime, Int?)] = []
        while let p = try r.nextPicture() { out.append((p.pts, p.stamp)) }
        return out
    }

    /// Start times of tone bursts in the first audio track (a rise after at least 0.2 s of quiet).
    static func burstOnsets(_ path: String) throws -> [Double] {
        let r = try SampleReader(path: path, track: .type(.audio, 0))
        var onsets: [Double] = []
        var lastLoud = -10.0
        while let a = try r.nextAudio() {
            for (i, s) in a.samples.enumerated() {
                let t = a.pts.seconds + Double(i) / Double(a.sampleRate)
                if abs(s) > 0.1 {
                    if t - lastLoud > 0.2 { onsets.append(t) }
                    lastLoud = t
                }
            }
        }
        return onsets
    }
}

@discardableResult
func runConversion(_ request: ConversionRequest) throws -> ConversionResult {
    let plan = try Planner.plan(request)
    return try ExportSession(plan: plan).run()
}

extension VideoSettings {
    static func fast(_ codec: VideoCodec = .h264, rate: FrameRate? = nil, policy: FrameRatePolicy? = nil) -> VideoSettings {
        VideoSettings(codec: codec, frameRate: rate.map { .rate($0) }, frameRatePolicy: policy,
                      codecOptions: codec == .h264 ? ["preset": "ultrafast"] : ["preset": "ultrafast"])
    }
}

/// The source frame nearest to output slot k, ties to the earlier frame, for sources
/// with frames at `times` (sorted).
func nearestFrame(to t: MediaTime, in times: [MediaTime]) -> Int {
    var lo = 0, hi = times.count - 1
    while lo < hi {  // the last frame with time ≤ t
        let mid = (lo + hi + 1) / 2
        if times[mid] <= t { lo = mid } else { hi = mid - 1 }
    }
    if times[lo] > t { return lo }
    if lo + 1 < times.count {
        // Later frame only when strictly nearer: 2t > a + b.
        if t * 2 > times[lo] + times[lo + 1] { return lo + 1 }
    }
    return lo
}

func frameTimes(_ count: Int, rate: FrameRate) -> [MediaTime] {
    (0..<count).map { rate.frameDuration * Int64($0) }
}

/// The stamps an output at `rate` must show for a source with frames at `times` lasting until `end`.
func expectedStamps(times: [MediaTime], end: MediaTime, rate: FrameRate, start: MediaTime = .zero,
                    sessionEnd: MediaTime = .positiveInfinity) -> [Int] {
    let d = rate.frameDuration
    var out: [Int] = []
    var k: Int64 = 0
    while true {
        let t = start + d * k
        if t >= sessionEnd || t + d.half >= end { break }
        if t + d.half >= times[0] { out.append(nearestFrame(to: t, in: times)) }
        k += 1
    }
    return out
}

extension SettingsAssistant {
    /// This machine's FFmpeg as if it lacked the encoders `names` (libsvtav1): the assistant's
    /// one view of which encoders exist, so a fallback is chosen as on a build without them.
    static func missing(_ names: [String]) -> SettingsAssistant {
        let gone = Set(names)
        return SettingsAssistant { gone.contains($0) ? nil : EncoderCapabilities.of($0) }
    }
}
