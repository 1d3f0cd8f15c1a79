import Foundation
import Pipeline
import Recipe

/// `inspect --loudness`: each audio track's integrated loudness, loudness range and true peak.
enum LoudnessText {
    static func lines(_ tracks: [LoudnessReading.Track]) -> [String] {
        guard !tracks.isEmpty else { return ["loudness  no audio tracks"] }
        return ["loudness (ITU-R BS.1770-4 / EBU R128)"] + tracks.map { t in
            let m = t.measurement
            let integrated = m.integrated.map { "\(one($0)) LUFS" } ?? "silence (below -70 LUFS)"
            let range = m.range.map { "\(one($0)) LU" } ?? "n/a"
            let peak = m.truePeak.isFinite ? "\(one(m.truePeak)) dBTP" : "-inf dBTP"
            return "  track #\(t.index)  integrated \(integrated)  range \(range)  true peak \(peak)  (\(t.sampleRate) Hz, \(t.layout))"
        }
    }

    static func object(_ tracks: [LoudnessReading.Track]) -> [[String: Any]] {
        tracks.map { t in
            let m = t.measurement
            return ["track": t.index, "integrated": m.integrated.map { $0 as Any } ?? NSNull(), "range": m.range.map { $0 as Any } ?? NSNull(),
                    "truePeak": m.truePeak.isFinite ? m.truePeak as Any : NSNull(), "sampleRate": t.sampleRate, "layout": t.layout]
        }
    }

    private static func one(_ v: Double) -> String { String(format: "%.1f", v) }
}

extension LoudnessText {
    /// `plan --json`'s `loudness` of an audio track that asks for it: the target, what the
    /// first pass measured, the gain and what it gives (nil: none asked).
    static func object(_ a: ResolvedAudioSettings) -> [String: Any]? {
        guard let target = a.loudness else { return nil }
        var o: [String: Any] = ["target": target.integrated, "truePeakCeiling": target.truePeak]
        if let g = a.loudnessGain {
            o["measured"] = g.measured.integrated.map { $0 as Any } ?? NSNull()
            o["measuredTruePeak"] = g.measured.truePeak.isFinite ? g.measured.truePeak as Any : NSNull()
            o["gain"] = g.decibels
            o["result"] = g.result.map { $0 as Any } ?? NSNull()
            o["peakLimited"] = g.peakLimited
        }
        return o
    }
}
