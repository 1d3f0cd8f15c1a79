import Foundation
import Recipe

/// What one preset would make of a source, and whether it suits it (AVAssetExportSession's
/// `exportPresetsCompatibleWithAsset`, with the reason for each one left out). The answer is the
/// planner's: each preset is tried on the source as a recipe of its own (`Recipe.trial`).
public struct PresetFit: Sendable {
    public let preset: String
    public let summary: String?
    /// What it writes from this source (`h264 1280x720 29.97 fps, aac 2 ch 48 kHz 128 kb/s`);
    /// nil where it cannot plan.
    public let result: String?
    /// nil: it suits the source; else why not.
    public let unsuitable: String?
    /// The containers that could hold what it writes (empty where it cannot plan).
    public let containers: [ContainerFormat]

    public var suits: Bool { unsuitable == nil }
}

extension PresetFit {
    /// Every preset `recipe` can name (its own, then the built-ins) tried on `source`. A preset
    /// that gives exactly what another with a smaller box gives is not suited: it promises a
    /// size it cannot give, since presets never upscale.
    public static func evaluate(_ recipe: Recipe, source: String) -> [PresetFit] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("reencode-presets-\(getpid()).mkv").path
        let trials = recipe.presetCatalogue.map { p in (p, Trial.run(recipe, preset: p.name, source: source, output: scratch)) }
        // The preset each result is best named by: the smallest box (no box counts as largest),
        // then the catalogue's order.
        var owner: [Trial.Signature: (name: String, area: Int)] = [:]
        for (p, t) in trials {
            guard case .planned(let plan, let sig) = t.outcome, t.refusal(source: plan.source) == nil else { continue }
            let area = box(p.name, in: recipe)
            if let o = owner[sig], o.area <= area { continue }
            owner[sig] = (p.name, area)
        }
        return trials.map { p, t in
            switch t.outcome {
            case .failed(let why):
                return PresetFit(preset: p.name, summary: p.summary, result: nil, unsuitable: why, containers: [])
            case .planned(let plan, let sig):
                let result = describe(plan)
                let containers = plan.containerFits.filter(\.holds).map(\.format)
                if let why = t.refusal(source: plan.source) {
                    return PresetFit(preset: p.name, summary: p.summary, result: result, unsuitable: why, containers: containers)
                }
                if let o = owner[sig], o.name != p.name {
                    let larger = box(p.name, in: recipe) > o.area ? ", since presets never upscale" : ""
                    return PresetFit(preset: p.name, summary: p.summary, result: result,
                                     unsuitable: "gives what \(o.name) gives\(larger)", containers: containers)
                }
                return PresetFit(preset: p.name, summary: p.summary, result: result, unsuitable: nil, containers: containers)
            }
        }
    }

    /// The area of the preset's size box; `Int.max` for none (the source's size).
    private static func box(_ name: String, in recipe: Recipe) -> Int {
        guard let v = try? recipe.resolvePreset(Located(name, Mark(line: 0, column: 0))).video,
              let w = v.width, let h = v.height else { return Int.max }
        return w * h
    }

    /// `h264 1280x720 29.97 fps, aac 2 ch 48 kHz 128 kb/s`: each output track in a few words.
    static func describe(_ plan: ConversionPlan) -> String {
        plan.lanes.map { lane -> String in
            switch lane.kind {
            case .video(let v):
                let rate = (v.frameRate ?? lane.track.format.averageFrameRate).map { " \($0.decimalDescription) fps" } ?? ""
                return "\(v.codec.rawValue) \(v.width)x\(v.height)\(rate)"
            case .audio(let a):
                return "\(a.codec.rawValue) \(a.channels) ch \(Double(a.sampleRate) / 1000) kHz".replacingOccurrences(of: ".0 kHz", with: " kHz")
                    + (a.bitrate > 0 ? " \(a.bitrate / 1000) kb/s" : "")
            case .passthrough:
                return "\(lane.track.format.codec) \(lane.track.mediaType.rawValue) copied"
            case .subtitle(let s):
                return "\(s.encoderName) subtitles"
            }
        }.joined(separator: ", ")
    }
}

/// One preset planned on the source.
private struct Trial {
    /// What makes two results the same: every resolved setting, without the reasons.
    struct Signature: Hashable {
        let video: [ResolvedVideoSettings]
        let audio: [ResolvedAudioSettings]
        let copied: [Int]
    }
    enum Outcome {
        case planned(ConversionPlan, Signature)
        case failed(String)
    }
    let trial: PresetTrial?
    let outcome: Outcome

    static func run(_ recipe: Recipe, preset: String, source: String, output: String) -> Trial {
        let trial: PresetTrial
        do { trial = try recipe.trial(of: preset, output: output) } catch { return Trial(trial: nil, outcome: .failed(error.message)) }
        do {
            let plan = try RecipeCompiler.compile(trial.recipe, input: source).plan
            return Trial(trial: trial, outcome: .planned(plan, signature(plan)))
        } catch let e as RecipeErrors {
            return Trial(trial: trial, outcome: .failed(e.diagnostics.first?.message ?? "\(e)"))
        } catch let e as SourceMismatch {
            return Trial(trial: trial, outcome: .failed(e.diagnostics.first?.message ?? "\(e)"))
        } catch let e as MediaError {
            return Trial(trial: trial, outcome: .failed(e.message))
        } catch {
            return Trial(trial: trial, outcome: .failed("\(error)"))
        }
    }

    /// Why a preset that plans still does not suit this source; nil: it suits.
    func refusal(source: Asset) -> String? {
        guard let trial, case .planned(let plan, _) = outcome else { return nil }
        let hasVideo = source.tracks.contains { $0.format.mediaType == .video && $0.ordinal != nil }
        if trial.audioOnly && hasVideo { return "audio only: the pictures are dropped" }
        if !trial.audioOnly && !hasVideo { return "the source has no video: only its sound would be written" }
        if plan.lanes.isEmpty { return "the source has no track it writes" }
        return nil
    }

    private static func signature(_ plan: ConversionPlan) -> Signature {
        var video: [ResolvedVideoSettings] = [], audio: [ResolvedAudioSettings] = [], copied: [Int] = []
        for lane in plan.lanes {
            switch lane.kind {
            case .video(var v): v.decisions = []; video.append(v)
            case .audio(var a): a.decisions = []; audio.append(a)
            case .passthrough, .subtitle: copied.append(lane.track.index)
            }
        }
        return Signature(video: video, audio: audio, copied: copied)
    }
}
