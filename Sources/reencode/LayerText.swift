import Foundation
import Pipeline
import Recipe

/// A composition's video layers as `plan` prints them: bottom first, each one's place in the
/// output frame, how it fits there, its crop and its opacity (constant, or ramps — a cross-fade's
/// included).
///
///     layers   drawn bottom first in 1920x1080, over black
///              video: whole frame, fit, opacity 1
///              video (cross-fades): whole frame, fit, opacity 0 from 0.000s, ramps 1.500s–2.500s 0 → 1 linear
///              layer 1: 480x270+1400+40, fill, opacity 0.8
enum LayerText {
    static func lines(_ p: ConversionPlan) -> [String] {
        guard !p.videoLayers.isEmpty else { return [] }
        let size = p.lanes.lazy.compactMap { lane -> String? in
            if case .video(let v) = lane.kind { return "\(v.width)x\(v.height)" } else { return nil }
        }.first ?? "the output frame"
        var out = ["layers   drawn bottom first in \(size), over \(p.background)"]
        for layer in p.videoLayers {
            var parts = [layer.placement.rect.map { "\($0)" } ?? "whole frame", layer.placement.fit.rawValue]
            if let c = layer.crop { parts.append("crop \(c.width)x\(c.height)+\(c.x)+\(c.y)") }
            parts.append(opacity(layer.opacity))
            out.append("         \(layer.name): " + parts.joined(separator: ", "))
        }
        return out
    }

    static func opacity(_ k: Keyframes?) -> String {
        guard let k else { return "opacity 1" }
        guard !k.isConstant else { return "opacity \(MixText.number(k.constant))" }
        return "opacity \(MixText.number(k.ramps[0].from)) from 0.000s, ramps " + MixText.ramps(k)
    }

    static func object(_ p: ConversionPlan) -> Any {
        guard !p.videoLayers.isEmpty else { return NSNull() }
        return [
            "background": p.background.description,
            "layers": p.videoLayers.map { layer -> [String: Any] in
                let rect: Any = layer.placement.rect.map { ["x": Int($0.x), "y": Int($0.y), "width": Int($0.width), "height": Int($0.height)] } ?? NSNull()
                let crop: Any = layer.crop.map { ["x": $0.x.description, "y": $0.y.description, "width": $0.width.description, "height": $0.height.description] } ?? NSNull()
                let k = layer.opacity
                return ["name": layer.name, "rect": rect, "fit": layer.placement.fit.rawValue, "crop": crop,
                        "opacity": k.map { $0.isConstant ? $0.constant : $0.ramps[0].from } ?? 1,
                        "ramps": (k?.ramps ?? []).map { ["start": $0.start.seconds, "end": $0.end.seconds, "from": $0.from, "to": $0.to, "curve": $0.curve.rawValue] as [String: Any] }]
            },
        ] as [String: Any]
    }
}
