import Foundation
import Recipe

/// Where each output track of a compiled recipe came from, for `reencode plan`.
public struct LaneOrigin: Sendable {
    public let writerInput: Int
    public let readerOutput: String
    /// The preset chain, most specific first (empty: no preset).
    public let presets: [String]
    /// Settings keys the recipe (or its presets) set, as opposed to the assistant.
    public let explicitKeys: [String]
}

/// The source lacks a track the recipe requires: the recipe is fine, the input does not fit it.
public struct SourceMismatch: Error, Sendable {
    public let diagnostics: [Diagnostic]
}

public struct CompiledRecipe: Sendable {
    public let plan: ConversionPlan
    public let origins: [LaneOrigin]
}

/// Turns a recipe into a plan against a real source: track references are resolved, presets
/// merged, the settings assistant run. Mismatches between recipe and source are reported at the
/// recipe line that causes them (exit 65).
public enum RecipeCompiler {
    public static func compile(_ recipe: Recipe, input: String? = nil, output: String? = nil,
                               overwrite: Bool = false, assistant: SettingsAssistant = .system) throws -> CompiledRecipe {
        guard let source = input ?? recipe.source?.value else {
            throw MediaError(.inputMissing, "no source file: name one with -i INPUT or 'source:' in the recipe", file: recipe.file)
        }
        if source.isEmpty { throw MediaError(.inputMissing, "the input path is empty", file: "''") }
        let asset = try Asset.load(source)
        guard let template = output ?? recipe.output.path?.value else {
            throw MediaError(.cannotCreateOutput, "no output path: name one with -o OUTPUT or 'output: path:' in the recipe", file: recipe.file)
        }
        let outPath = expand(template, source: source)
        // The recipe is as precious as the source: an output path that names it is refused.
        try OutputLocation.check(outPath, source: source, protected: [(recipe.file, "recipe")], overwrite: overwrite || recipe.output.overwrite)
        var errors: [Diagnostic] = []
        /// Tracks the recipe needs that this source lacks: the input does not fit (exit 66).
        var missing: [Diagnostic] = []
        var tracks: [TrackRequest] = []
        var origins: [LaneOrigin] = []
        /// Per source track: the writer input that writes it, for refusals found while planning.
        var writers: [Int: TrackSource] = [:]
        // The same rule as for -o (and as the planner applies): one place reads an extension.
        var outFormat: ContainerFormat?
        do {
            outFormat = try OutputLocation.format(for: outPath, requested: recipe.output.format?.value)
        } catch {
            // From the recipe's own path: said at its line:col with the rest; from -o the
            // planner says it as for any output.
            if output == nil, let path = recipe.output.path {
                errors.append(recipe.diagnostic(path.mark, "\(outPath): \(error.message)"))
            }
        }

        for input in recipe.writerInputs {
            guard let out = recipe.readerOutput(input.source.value) else { continue }  // checked by the parser
            let track: Track?
            switch out.track {
            case .kind(let kind, let n):
                track = asset.tracks.filter { $0.mediaType.rawValue == kind.rawValue && !$0.isAttachedPicture }.dropFirst(n).first
            case .index(let i):
                track = asset.track(index: i)
            }
            guard let track else {
                if out.optional { continue }
                let has = asset.tracks.map { "#\($0.index) \($0.isAttachedPicture ? "cover art" : $0.mediaType.rawValue)" }.joined(separator: ", ")
                missing.append(recipe.diagnostic(out.mark, "reader output '\(out.name)' wants the \(out.track) track, but \(source) has none (it has \(has.isEmpty ? "no tracks" : has)); add 'optional: true' to convert without it"))
                continue
            }
            if let first = writers[track.index] {
                errors.append(recipe.diagnostic(input.source.mark, "writer input \(input.number) reads track #\(track.index) of \(source) ('\(out.name)'), which writer input \(first.input.number) already writes ('\(first.output.name)'): a track can be written once"))
                continue
            }
            if outFormat == .m4a, track.mediaType == .video {
                errors.append(recipe.diagnostic(input.source.mark, "writer input \(input.number) reads a video track ('\(out.name)'), but an m4a file holds audio only"))
                continue
            }
            var presets: [String] = []
            var video = VideoSettings(), audio = AudioSettings()
            var videoOnly: [(String, Mark)] = [], audioOnly: [(String, Mark)] = []
            var what = ""
            switch input.settings {
            case .none:
                break
            case .preset(let name):
                do throws(Diagnostic) {
                    let p = try recipe.resolvePreset(name)
                    (video, audio, videoOnly, audioOnly, presets) = (p.video, p.audio, p.videoOnlyKeys, p.audioOnlyKeys, p.chain)
                    what = "preset '\(name.value)'"
                } catch { errors.append(error); continue }
            case .inline(let def):
                var base = ResolvedPreset.empty
                if let b = def.base {
                    do throws(Diagnostic) { base = try recipe.resolvePreset(b) } catch { errors.append(error); continue }
                }
                video = def.video.over(base.video)
                audio = def.audio.over(base.audio)
                videoOnly = base.videoOnlyKeys + def.videoOnlyKeys
                audioOnly = base.audioOnlyKeys + def.audioOnlyKeys
                presets = base.chain
                what = "the settings of writer input \(input.number)"
            }
            let mode: TrackMode
            switch track.mediaType {
            case .video:
                if let (key, mark) = audioOnly.first {
                    errors.append(recipe.diagnostic(mark.line > 0 ? mark : settingsMark(input), "\(what) \(mark.line > 0 ? "sets '\(key)', an audio setting" : "is for audio only"), but writer input \(input.number) reads a video track ('\(out.name)')"))
                    continue
                }
                mode = out.decode ? .video(video) : .passthrough
            case .audio:
                if let (key, mark) = videoOnly.first {
                    errors.append(recipe.diagnostic(mark, "\(what) sets '\(key)', a video setting, but writer input \(input.number) reads an audio track ('\(out.name)')"))
                    continue
                }
                mode = out.decode ? .audio(audio) : .passthrough
            case .subtitle where out.decode && video.codec != .copy:
                if let (key, mark) = (videoOnly + audioOnly).first {
                    errors.append(recipe.diagnostic(mark.line > 0 ? mark : settingsMark(input), "\(what) sets '\(key)', but writer input \(input.number) reads a subtitle track ('\(out.name)'): subtitles take no settings but 'codec: copy'"))
                    continue
                }
                if let refusal = SubtitleConversion.refusal(track, format: outFormat) {
                    missing.append(recipe.diagnostic(out.mark, "\(source): \(refusal)"))
                    continue
                }
                mode = .subtitle
            default:
                guard !out.decode || video.codec == .copy else {
                    errors.append(recipe.diagnostic(out.mark, "track #\(track.index) of \(source) is \(track.mediaType.rawValue): it can only be copied ('decode: false')"))
                    continue
                }
                mode = .passthrough
            }
            tracks.append(TrackRequest(.index(track.index), mode))
            writers[track.index] = TrackSource(input: input, output: out, keys: track.mediaType == .audio ? audioOnly : videoOnly)
            let explicit: [String]
            switch mode {
            case .video: explicit = setKeys(video)
            case .audio: explicit = setKeys(audio)
            case .passthrough, .subtitle: explicit = []
            }
            origins.append(LaneOrigin(writerInput: input.number, readerOutput: out.name, presets: presets, explicitKeys: explicit))
        }

        if let tr = recipe.timeRange, asset.duration.isNumeric, tr.start >= asset.duration {
            errors.append(recipe.diagnostic(tr.mark, "the time range starts at \(tr.start.secondsDescription), at or after the end of \(source) (\(asset.duration.secondsDescription))"))
        }
        if !errors.isEmpty { throw RecipeErrors(errors) }
        if !missing.isEmpty { throw SourceMismatch(diagnostics: missing) }
        if tracks.isEmpty {
            throw MediaError(.unsupported, "none of the recipe's tracks are in this file", file: source)
        }

        var request = ConversionRequest(source: source, output: outPath, tracks: tracks)
        request.format = recipe.output.format?.value
        request.optimizeForNetwork = recipe.output.optimizeForNetwork
        request.overwrite = overwrite || recipe.output.overwrite
        request.timeRange = recipe.timeRange?.range
        request.selectiveDecode = recipe.selectiveDecode
        let plan: ConversionPlan
        do throws(MediaError) { plan = try Planner.plan(request, asset: asset, assistant: assistant) } catch {
            throw placed(error, in: recipe, writers: writers, source: source)
        }
        return CompiledRecipe(plan: plan, origins: origins)
    }

    /// A refusal the plan found that the recipe caused, at the recipe line that caused it: a
    /// setting no encoder takes (65), or a copy the container cannot hold (the source does not
    /// fit the recipe, 66). Anything else is the source's or the file system's, as it is.
    private static func placed(_ error: MediaError, in recipe: Recipe, writers: [Int: TrackSource], source: String) -> any Error {
        guard let track = error.track, let writer = writers[track] else { return error }
        switch error.kind {
        case .invalidSettings:
            let mark = error.setting.flatMap { key in writer.keys.last { $0.0 == key && $0.1.line > 0 }?.1 } ?? settingsMark(writer.input)
            return RecipeErrors([recipe.diagnostic(mark, error.message)])
        case .unsupported where writer.copies:
            return SourceMismatch(diagnostics: [recipe.diagnostic(writer.copyMark, "\(source): \(error.message)")])
        default:
            return error
        }
    }

    /// One output track's recipe origin: its writer input, reader output and the keys its
    /// settings set, with where.
    private struct TrackSource {
        let input: WriterInput
        let output: ReaderOutput
        let keys: [(String, Mark)]
        var copies: Bool { !output.decode || copyKey != nil }
        /// `codec: copy` in the writer input's inline settings.
        var copyKey: Mark? {
            if case .inline(let def) = input.settings, def.video.codec == .copy || def.audio.codec == .copy { return def.mark }
            return nil
        }
        /// Where the copy was asked for: `decode: false` on the reader output, else the settings.
        var copyMark: Mark { !output.decode ? output.mark : (copyKey ?? settingsMark(input)) }
    }

    private static func settingsMark(_ input: WriterInput) -> Mark {
        if case .preset(let p) = input.settings { return p.mark }
        return input.mark
    }

    /// `out/{stem}-30fps.mp4` with the source's stem, extension, folder and name.
    public static func expand(_ template: String, source: String) -> String {
        template
            .replacingOccurrences(of: "{stem}", with: FilePaths.stem(of: source))
            .replacingOccurrences(of: "{ext}", with: FilePaths.pathExtension(of: source))
            .replacingOccurrences(of: "{dir}", with: FilePaths.folder(of: source))
            .replacingOccurrences(of: "{name}", with: FilePaths.name(of: source))
    }

    private static func setKeys(_ v: VideoSettings) -> [String] {
        var k: [String] = []
        if v.codec != nil { k.append("codec") }
        if v.width != nil || v.height != nil { k.append("size") }
        if v.frameRate != nil { k.append("frame-rate") }
        if v.quality != nil { k.append("quality") }
        if v.bitrate != nil { k.append("bitrate") }
        if v.gop != nil { k.append("gop") }
        if v.profile != nil { k.append("profile") }
        if v.level != nil { k.append("level") }
        if v.pixelFormat != nil { k.append("pixel-format") }
        return k
    }

    private static func setKeys(_ a: AudioSettings) -> [String] {
        var k: [String] = []
        if a.codec != nil { k.append("codec") }
        if a.bitrate != nil { k.append("bitrate") }
        if a.sampleRate != nil { k.append("sample-rate") }
        if a.channels != nil { k.append("channels") }
        if a.channelLayout != nil { k.append("channel-layout") }
        return k
    }
}
