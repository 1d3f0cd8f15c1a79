import Foundation
import Pipeline
import Recipe

/// What `inspect` shows of a file's slow-motion data (docs/slow-motion.md). Damaged data is shown,
/// not fatal: the file itself is still media, and `inspect` is where one looks to find out why a
/// slow-motion conform refuses it.
enum InspectSlowMotion {
    /// nil when the file holds no slow-motion data.
    static func read(_ a: Asset) -> Result<SlowMotionInfo, MediaError>? {
        do throws(MediaError) {
            return try a.slowMotion().map { .success($0) }
        } catch {
            return .failure(error)
        }
    }

    static func lines(_ a: Asset) -> [String] {
        switch read(a) {
        case nil: return []
        case .failure(let e): return ["  slow motion: unreadable: \(e.message)"]
        case .success(let info):
            var head: [String] = []
            if let r = info.captureFrameRate {
                var captured = "captured at \(r.decimalDescription) fps"
                if let s = info.smtaCaptureRate, let android = info.androidCaptureRate, s != android {
                    captured += " (\(SlowMotionReader.captureRateKey) says \(android.decimalDescription))"
                }
                head.append(captured)
            }
            if let n = info.temporalLayerCount { head.append("\(n) temporal layers") }
            if let m = info.recordingMode { head.append("Samsung mode \(m)") }
            // A Samsung recording without segments plays at normal speed on the phone: say so.
            if info.segments.isEmpty && (info.recordingMode != nil || !info.otherSEFEntries.isEmpty) {
                head.append("no slowed segments")
            }
            var lines = ["  slow motion: " + head.joined(separator: ", ")]
            for s in info.segments {
                lines.append("    slowed \(s.start.secondsDescription)–\(s.end.secondsDescription) ÷\(s.speedDivisor)")
            }
            if !info.otherSEFEntries.isEmpty {
                let more = info.otherSEFEntriesLeftOut > 0 ? " (and \(info.otherSEFEntriesLeftOut) more)" : ""
                lines.append("    other SEF entries (not read): " + info.otherSEFEntries.joined(separator: ", ") + more)
            }
            return lines
        }
    }

    /// The `slowMotion` object of `inspect --json`; nil when the file holds no slow-motion data.
    static func object(_ a: Asset) -> [String: Any]? {
        switch read(a) {
        case nil: return nil
        case .failure(let e): return ["error": e.message]
        case .success(let info):
            var o: [String: Any] = [
                "segments": info.segments.map { s -> [String: Any] in
                    ["start": s.start.seconds, "end": s.end.seconds, "speedDivisor": s.speedDivisor]
                },
            ]
            if let r = info.captureFrameRate { o["captureFrameRate"] = r.description }
            if let r = info.smtaCaptureRate { o["smtaCaptureFrameRate"] = r.description }
            if let r = info.androidCaptureRate { o["androidCaptureFrameRate"] = r.description }
            if let n = info.temporalLayerCount { o["temporalLayers"] = n }
            if let m = info.recordingMode { o["recordingMode"] = m }
            if !info.otherSEFEntries.isEmpty { o["otherSEFEntries"] = info.otherSEFEntries }
            if info.otherSEFEntriesLeftOut > 0 { o["otherSEFEntriesLeftOut"] = info.otherSEFEntriesLeftOut }
            return o
        }
    }
}
