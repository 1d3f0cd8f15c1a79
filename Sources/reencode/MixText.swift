import Foundation
import Pipeline
import Recipe

/// A composition's audio mix as `plan` prints it: each input's volume (constant, or its ramps
/// with their curves, in linear gain and dB) and the limit rule.
///
///     mix      sound: volume 1 (0.0 dB)
///              input 1: volume 0.25 (-12.0 dB) from 0.000s, ramps 8.000s–10.000s 0.25 → 0 equal-power, fade out 9.000s–10.000s
///              limit clip: samples beyond full scale are cut to it
enum MixText {
    static func lines(_ mix: AudioMix) -> [String] {
        var out: [String] = []
        for (j, volume) in mix.volumes.enumerated() {
            let name = j == 0 ? "sound" : j == mix.crossFadeInput ? "sound, cross-fading in and out" : "input \(j)"
            let fades = mix.fadeRamps.indices.contains(j) ? mix.fadeRamps[j].map { r in
                ", fade \(r.from < r.to ? "in" : "out") \(r.start.secondsDescription)–\(r.end.secondsDescription)"
            }.joined() : ""
            out.append((out.isEmpty ? "mix      " : "         ") + "\(name): " + describe(volume) + fades)
        }
        out.append("         limit \(mix.limitDescription)")
        return out
    }

    static func describe(_ volume: Keyframes?) -> String {
        guard let volume else { return "volume 1 (0.0 dB)" }
        guard !volume.isConstant else { return "volume \(level(volume.constant))" }
        return "volume \(level(volume.ramps[0].from)) from 0.000s, ramps " + ramps(volume)
    }

    /// `1.500s–2.500s 0 → 1 linear, …`: a value's ramps (a volume's, an opacity's).
    static func ramps(_ k: Keyframes) -> String {
        k.ramps.map { r in
            "\(r.start.secondsDescription)–\(r.end.secondsDescription) \(number(r.from)) → \(number(r.to)) \(r.curve.rawValue)"
        }.joined(separator: ", ")
    }

    /// `0.25 (-12.0 dB)`, `0 (silence)`.
    static func level(_ v: Double) -> String {
        v <= 0 ? "0 (silence)" : "\(number(v)) (\(String(format: "%.1f", 20 * log10(v))) dB)"
    }

    static func number(_ v: Double) -> String {
        let s = String(format: "%.4f", v)
        var t = s
        while t.hasSuffix("0") { t.removeLast() }
        if t.hasSuffix(".") { t.removeLast() }
        return t
    }

    static func object(_ mix: AudioMix) -> [String: Any] {
        [
            "inputs": mix.volumes.enumerated().map { j, v -> [String: Any] in
                var o: [String: Any] = ["input": j, "crossFades": j == mix.crossFadeInput]
                if let v, !v.isConstant {
                    o["volume"] = v.ramps[0].from
                    o["ramps"] = v.ramps.map { ["start": $0.start.seconds, "end": $0.end.seconds, "from": $0.from, "to": $0.to, "curve": $0.curve.rawValue] as [String: Any] }
                } else {
                    o["volume"] = v?.constant ?? 1
                    o["ramps"] = [Any]()
                }
                let fades = mix.fadeRamps.indices.contains(j) ? mix.fadeRamps[j] : []
                o["fades"] = fades.map { ["kind": $0.from < $0.to ? "in" : "out", "start": $0.start.seconds, "end": $0.end.seconds] as [String: Any] }
                return o
            },
            "limit": mix.limit.rawValue,
        ]
    }
}
