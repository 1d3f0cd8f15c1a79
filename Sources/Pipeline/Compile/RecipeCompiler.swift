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
    /// Where each of `explicitKeys` was set: `recipe` (the writer input's own settings) or
    /// `preset NAME` (the most specific preset of the chain that sets it).
    public let keyOrigins: [String: String]

    /// Where a setting the recipe gave comes from.
    public func origin(of setting: String) -> String {
        keyOrigins[setting] ?? (presets.first.map { "preset \($0)" } ?? "recipe")
    }
}

/// The source lacks a track the recipe requires: the recipe is fine, the input does not fit it.
public struct SourceMismatch: Error, Sendable {
    public let diagnostics: [Diagnostic]
}

public struct CompiledRecipe: Sendable {
    public let plan: ConversionPlan
    public let origins: [LaneOrigin]
    /// Its entry of `outputs:` (a package's renditions share one); nil without `outputs:`.
    public var number: Int? = nil
}

/// Turns a recipe into a plan against a real source: track references are resolved, presets
/// merged, the settings assistant run. Mismatches between recipe and source are reported at the
/// recipe line that causes them (exit 65).
public enum RecipeCompiler {
    /// A recipe's one output (with `outputs:`, its first: `compileAll` plans every one).
    public static func compile(_ recipe: Recipe, input: String? = nil, output: String? = nil,
                               overwrite: Bool = false, assistant: SettingsAssistant = .system) throws -> CompiledRecipe {
        try refuseUnsupportedComposition(recipe)
        let read = try ReadSources.load(recipe, input: input)
        guard let first = recipe.eachOutput.first else {
            throw MediaError(.usage, "the recipe writes still images only: 'run' makes them", file: recipe.file)
        }
        return try compile(first, reading: read, output: output, overwrite: overwrite, assistant: assistant)
    }

    /// Every output of the recipe, planned against one loading of its source: one per entry of
    /// `outputs:` (run together from one read: `ExportSession(plans:)`), else the one. `-o`
    /// names a single output, so it is refused for several; so are two that make one path.
    public static func compileAll(_ recipe: Recipe, input: String? = nil, output: String? = nil,
                                  overwrite: Bool = false, assistant: SettingsAssistant = .system) throws -> [CompiledRecipe] {
        guard !recipe.outputs.isEmpty else { return [try compile(recipe, input: input, output: output, overwrite: overwrite, assistant: assistant)] }
        try refuseSingleOutputPath(recipe, output: output)
        try refuseUnsupportedComposition(recipe)
        let read = try ReadSources.load(recipe, input: input)
        let files = try compileFiles(recipe, reading: read, overwrite: overwrite, assistant: assistant)
        try refuseChunksBeside(recipe, outputs: files.count)
        let obstacles = smartSharingObstacles(files, images: [])
        return obstacles.isEmpty ? files : try compileFiles(recipe, reading: read, overwrite: overwrite, assistant: assistant, smartObstacles: obstacles)
    }

    /// `-o` names a single output: a recipe with `outputs:` names each one itself.
    static func refuseSingleOutputPath(_ recipe: Recipe, output: String?) throws(MediaError) {
        guard output != nil, !recipe.outputs.isEmpty else { return }
        let at = recipe.outputsMark.map { " (\($0.line):\($0.column))" } ?? ""
        throw MediaError(.usage, "-o names one output, but the recipe writes \(recipe.outputs.count) ('outputs'\(at)): each one's path is in the recipe", file: recipe.file)
    }

    /// The media-file outputs of `outputs:`, each planned against the sources `read`; two that
    /// make one path are refused at the second one's line. `smartObstacles`: per output (its
    /// position in the result), `ConversionRequest.smartObstacles`.
    static func compileFiles(_ recipe: Recipe, reading read: ReadSources, overwrite: Bool, assistant: SettingsAssistant,
                             smartObstacles: [Int: [Int: String]] = [:]) throws -> [CompiledRecipe] {
        let recipe = try expandingLadders(recipe, reading: read)
        var compiled: [CompiledRecipe] = [], errors: [Diagnostic] = []
        var made: [String: Int] = [:], segmentMarks: [Mark?] = []
        let numbers = recipe.outputs.filter { $0.images == nil }.map(\.number)
        for (k, (r, number)) in zip(recipe.eachOutput, numbers).enumerated() {
            do {
                let c = try compile(r, reading: read, output: nil, overwrite: overwrite, assistant: assistant, smartObstacles: smartObstacles[k] ?? [:])
                if let first = made[c.plan.outputPath] {
                    errors.append(recipe.diagnostic(r.output.path?.mark, "output \(number) makes the same file as output \(first) (\(c.plan.outputPath)): each output is a file of its own"))
                }
                made[c.plan.outputPath] = number
                var numbered = c
                numbered.number = number
                compiled.append(ladderRung(numbered, role: r.output.package))
                segmentMarks.append(r.output.fragment?.mark)
            } catch let e as RecipeErrors {
                errors += e.diagnostics
            }
        }
        if errors.isEmpty, let refusal = OutputSet.compositionRefusal(compiled.map(\.plan)) {
            errors.append(compositionRefusal(refusal, in: recipe, compiled: compiled))
        }
        if errors.isEmpty { errors += segmentAlignmentRefusals(compiled, marks: segmentMarks, in: recipe) }
        if !errors.isEmpty { throw RecipeErrors(errors) }
        return packageNotices(compiled)
    }

    /// A later output of a composition that cannot take a track from the first output's, at the
    /// settings of the writer input that makes it.
    private static func compositionRefusal(_ refusal: (output: Int, track: Int, reason: String), in recipe: Recipe,
                                           compiled: [CompiledRecipe]) -> Diagnostic {
        let outputs = recipe.outputs.filter { $0.images == nil }
        let number = compiled[refusal.output].origins[refusal.track].writerInput
        let input = outputs[refusal.output].writerInputs.first { $0.number == number }
        return recipe.diagnostic(input.map(settingsMark) ?? outputs[refusal.output].mark, refusal.reason)
    }

    /// The files a recipe reads, each loaded once for all its outputs.
    struct ReadSources {
        /// The input as named (`-i`, else the recipe's `source:`).
        let source: String
        /// A composition's files in the order they are shown (the first is the plan's source); empty without one.
        let files: [String]
        let asset: Asset
        let others: [Asset]
        var primary: String { files.first ?? source }

        static func load(_ recipe: Recipe, input: String?) throws -> ReadSources {
            let source = try inputPath(of: recipe, given: input)
            let files = compositionFiles(recipe, input: source)
            let asset = try Asset.load(files.first ?? source)
            var others: [Asset] = []
            for path in files.dropFirst() { others.append(try Asset.load(path)) }
            return ReadSources(source: source, files: files, asset: asset, others: others)
        }
    }

    /// One output of the recipe (`recipe` has it as its `output` and writer inputs), against sources loaded already.
    static func compile(_ recipe: Recipe, reading read: ReadSources, output: String?, overwrite: Bool,
                                assistant: SettingsAssistant, smartObstacles: [Int: String] = [:]) throws -> CompiledRecipe {
        let (source, files, primary, asset, others) = (read.source, read.files, read.primary, read.asset, read.others)
        guard let template = output ?? recipe.output.path?.value else {
            throw MediaError(.cannotCreateOutput, "no output path: name one with -o OUTPUT or 'output: path:' in the recipe", file: recipe.file)
        }
        let outPath = expand(template, source: source)
        var request = ConversionRequest(source: primary, output: outPath, tracks: [])
        request.sources = Array(files.dropFirst())
        request.format = recipe.output.format?.value
        request.overwrite = overwrite || recipe.output.overwrite
        // The recipe is as precious as the sources, and so is an input named only for the
        // output's name: an output path that names either is refused.
        request.protected = [ProtectedFile(recipe.file, role: "recipe")] + (files.contains(source) ? [] : [ProtectedFile(source, role: "source")])
        var errors: [Diagnostic] = []
        // The same rules as `validate` and the planner apply: one place reads an extension, one
        // checks the location.
        var outFormat: ContainerFormat?
        if let role = recipe.output.package {
            request.package = PackageMember(folder: expand(role.folder.value, source: source), format: role.format.value,
                                            rendition: role.rendition, segment: role.segment, rung: role.rung, rungs: role.rungs)
            outFormat = .mp4
            try PackageFolder.check(request.package!.folder, format: role.format.value, protecting: request.protectedFiles, overwrite: request.overwrite)
        } else if output != nil {
            try OutputLocation.check(outPath, protecting: request.protectedFiles, overwrite: request.overwrite, format: request.format)
            do throws(MediaError) { outFormat = try OutputLocation.format(for: outPath, requested: request.format) } catch {
                // -o contradicts the recipe (or says no container): the command line is wrong.
                var e = error
                e.kind = .usage
                throw e
            }
        } else {
            // From the recipe's own path: said at its line:col with the rest, as `validate` says
            // it; a path that names no file is the recipe's fault before the folder's.
            do throws(Diagnostic) { outFormat = try outputFormat(of: recipe, path: outPath) } catch { errors.append(error) }
            if errors.isEmpty {
                try OutputLocation.check(outPath, protecting: request.protectedFiles, overwrite: request.overwrite, format: outFormat)
            }
        }

        if let refusal = fragmentRefusal(recipe, format: outFormat) { errors.append(refusal) }
        errors += targetSizeRefusals(recipe)
        var resolved = TrackResolution()
        for input in recipe.writerInputs { resolved.add(input, of: recipe, reading: read, outFormat: outFormat) }
        errors += resolved.errors
        let (missing, tracks, origins, ignored, writers, written) = (resolved.missing, resolved.tracks, resolved.origins, resolved.ignored, resolved.writers, resolved.written)

        if let tr = recipe.timeRange, let why = Planner.timeRangeRefusal(start: tr.start, in: asset) {
            errors.append(recipe.diagnostic(tr.mark, why))
        }
        if let refusal = maxDurationRefusal(recipe) { errors.append(refusal) }
        if !errors.isEmpty { throw RecipeErrors(errors) }
        if !missing.isEmpty { throw SourceMismatch(diagnostics: missing) }
        if tracks.isEmpty {
            // Every track is optional and none is here: the source does not fit the recipe (66).
            throw MediaError(.notMedia, "none of the recipe's tracks are in this file (it has \(trackList(asset)))", file: primary)
        }

        request.tracks = tracks
        request.optimizeForNetwork = recipe.output.optimizeForNetwork
        request.timeRange = limitedRange(recipe, asset: asset)
        request.fileLengthLimit = fileLengthLimit(recipe)
        request.targetSize = targetSize(recipe)
        if request.targetSize != nil { request.tracks = request.tracks.map(twoPassUnlessOne) }
        request.keyframeGrid = keyframeGrid(of: recipe)
        request.fragmented = recipe.output.fragment != nil
        request.selectiveDecode = recipe.selectiveDecode
        request.parallel = recipe.parallel
        request.smartObstacles = smartObstacles
        request.metadataSpec = recipe.output.metadata
        request.metadata = MetadataKeeping.set(by: recipe.output.metadata, now: ISO8601DateFormatter().string(from: Date()))
        request.timeline = timeline(of: recipe, files: files, input: source)
        if let composition = recipe.composition, composition.fadeIn != nil || composition.fadeOut != nil {
            request.fade = (composition.fadeIn?.value, composition.fadeOut?.value)
        }
        if let composition = recipe.composition, composition.drawsLayers || composition.renderSize != nil {
            request.videoComposition = VideoCompositionRequest(styles: ([composition.video] + composition.layers.map { Optional($0) }).map { $0?.style ?? VideoLayerStyle() },
                                                               renderSize: composition.renderSize?.value, background: composition.background?.value ?? .black)
            if let limit = composition.layerLimit { request.videoComposition?.layerLimit = limit.value }
        }
        // The whole output's fades need no inputs' volumes: the planner gives the sound a mix of one.
        if let composition = recipe.composition, !composition.mix.isEmpty
            || composition.explicitAudio.map({ $0.volume != nil || $0.fadeIn != nil || $0.fadeOut != nil }) == true {
            let tracks = [composition.explicitAudio] + composition.mix.map { Optional($0) }
            request.audioMix = AudioMix(volumes: tracks.map { $0?.volume }, limit: composition.limit?.value ?? .clip,
                                        fades: tracks.map { AudioMix.InputFade(in: $0?.fadeIn?.value, out: $0?.fadeOut?.value) })
        }
        var plan: ConversionPlan
        do throws(MediaError) { plan = try Planner.plan(request, asset: asset, sources: others, assistant: assistant) } catch {
            // A track of a composition's later file is that file's (its number may be another's too).
            let byFile = error.file.flatMap { written[$0] }.map { own in writers.merging(own) { _, mine in mine } } ?? writers
            throw placed(error, in: recipe, writers: byFile, source: primary)
        }
        plan.notices += ignored
        return CompiledRecipe(plan: plan, origins: origins)
    }

    /// A refusal the plan found that the recipe caused, at the recipe line that caused it: a
    /// setting no encoder takes (65), or a copy the container cannot hold or a track a segment
    /// names that its file lacks (the source does not fit the recipe, 66). Anything else is the source's or the file system's, as it is.
    private static func placed(_ error: MediaError, in recipe: Recipe, writers: [Int: TrackSource], source: String) -> any Error {
        // A target the output cannot reach: refused at the output's `target-size`.
        if error.kind == .invalidSettings, error.setting == "target-size", let t = recipe.output.limits.targetSize {
            return RecipeErrors([recipe.diagnostic(t.mark, error.message)])
        }
        // Chunks the output cannot be split into: refused at `parallel` (from `--chunks`, as it is).
        if error.setting == "parallel", let p = recipe.parallel {
            guard let mark = p.mark else {
                var e = error
                e.kind = .usage
                e.message = "--chunks: \(error.message)"
                return e
            }
            return RecipeErrors([recipe.diagnostic(mark, error.message)])
        }
        // The keyframe grid is the output's `fragment`: refused there.
        if error.kind == .invalidSettings, error.setting == "keyframes", let f = recipe.output.fragment {
            return RecipeErrors([recipe.diagnostic(f.mark, error.track.map { "\(source): track #\($0): \(error.message)" } ?? error.message)])
        }
        if error.kind == .invalidSettings, let field = error.segment, let mark = segmentMark(field, in: recipe) {
            // A composition's segment is refused about its own file, which may not be the input.
            return RecipeErrors([recipe.diagnostic(mark, "\(error.file ?? source): \(error.message)")])
        }
        if error.kind == .notMedia, let field = error.segment, let mark = segmentMark(field, in: recipe) {
            // A segment's file lacks the track it names: the recipe is fine, that file does not
            // fit it (66), as a reader output's missing track.
            return SourceMismatch(diagnostics: [recipe.diagnostic(mark, "\(error.file ?? source): \(error.message)")])
        }
        guard let track = error.track, let writer = writers[track] else { return error }
        switch error.kind {
        case .invalidSettings:
            let mark = error.setting.flatMap { key in writer.keys.last { $0.0 == key && $0.1.line > 0 }?.1 } ?? settingsMark(writer.input)
            // A refusal no one setting explains depends on this source (a picture too small for
            // x265): it names the source and track, and FFmpeg's own reason.
            var message = error.setting == nil ? "\(source): track #\(track): \(error.message)" : error.message
            if let detail = error.detail, !detail.isEmpty, !message.contains(detail) { message += " (ffmpeg: \(detail))" }
            return RecipeErrors([recipe.diagnostic(mark, message)])
        case .unsupported where writer.copies:
            return SourceMismatch(diagnostics: [recipe.diagnostic(writer.copyMark, "\(source): track #\(track): \(error.message)")])
        default:
            return error
        }
    }

    /// One output track's recipe origin: its writer input, reader output and the keys its
    /// settings set, with where.
    struct TrackSource {
        let input: WriterInput
        let output: ReaderOutput
        let keys: [(String, Mark)]
        /// Samples are copied: `decode: false`, or `codec: copy` however it was set (inline, a
        /// preset such as `passthrough`, a base).
        let copies: Bool
        /// Where the copy was asked for: `decode: false` on the reader output, else the `codec`
        /// key that says copy, else the settings.
        var copyMark: Mark {
            if !output.decode { return output.mark }
            if let codec = keys.last(where: { $0.0 == "codec" && $0.1.line > 0 })?.1 { return codec }
            // Copied through `base:` (e.g. base: passthrough): at the base reference.
            if case .inline(let def) = input.settings, let base = def.base { return base.mark }
            return settingsMark(input)
        }
    }

    /// A preset chain's settings, most specific first, each with the name it is shown by.
    static func layers(_ chain: [String], in recipe: Recipe) -> [(origin: String, video: VideoSettings, audio: AudioSettings)] {
        chain.compactMap { name in
            (recipe.presets[name] ?? BuiltinPresets.named(name)).map { ("preset \(name)", $0.video, $0.audio) }
        }
    }

    /// Where a writer input's settings are: the preset's name, or the inline mapping.
    static func settingsMark(_ input: WriterInput) -> Mark {
        switch input.settings {
        case .preset(let p): return p.mark
        case .inline(let def): return def.mark ?? input.mark
        case .none: return input.mark
        }
    }

    /// The input the recipe is compiled for: `-i`, else the recipe's `source:`. A composition
    /// that reads no input needs one only to fill a path's `{stem}`-like tokens.
    static func inputPath(of recipe: Recipe, given input: String?) throws(MediaError) -> String {
        if let source = input ?? recipe.source?.value {
            if source.isEmpty { throw MediaError(.inputMissing, "the input path is empty", file: "''") }
            return source
        }
        guard !recipe.readsInput else {
            throw MediaError(.inputMissing, "no source file: name one with -i INPUT or 'source:' in the recipe", file: recipe.file)
        }
        let templates = recipe.sources.compactMap { spec -> String? in
            if case .file(let t) = spec.path { return t }
            return nil
        } + [recipe.output.path?.value].compactMap { $0 }
        if let t = templates.first(where: { t in inputTokens.contains { t.contains($0) } }) {
            throw MediaError(.inputMissing, "'\(t)' is made from the input's name, but the composition reads no input and none is named: name one with -i INPUT or 'source:' in the recipe, or write the path out", file: recipe.file)
        }
        // Nothing is made from it: a name no path uses.
        return ""
    }

    static let inputTokens = ["{stem}", "{ext}", "{dir}", "{name}"]

    /// `#0 video, #1 audio` for a message.
    static func trackList(_ asset: Asset) -> String {
        let has = asset.tracks.map { "#\($0.index) \($0.isAttachedPicture ? "cover art" : $0.mediaType.rawValue)" }.joined(separator: ", ")
        return has.isEmpty ? "no tracks" : has
    }

    /// `out/{stem}-30fps.mp4` with the source's stem, extension, folder and name.
    public static func expand(_ template: String, source: String) -> String {
        template
            .replacingOccurrences(of: "{stem}", with: FilePaths.stem(of: source))
            .replacingOccurrences(of: "{ext}", with: FilePaths.pathExtension(of: source))
            .replacingOccurrences(of: "{dir}", with: FilePaths.folder(of: source))
            .replacingOccurrences(of: "{name}", with: FilePaths.name(of: source))
    }

    /// The decisions of `plan` that settings keys make: `width` and `height` are one `size`.
    static func decided(_ keys: [SettingKey]) -> [String] {
        var names: [String] = []
        for key in keys {
            let name = key == .width || key == .height ? "size" : key.rawValue
            if !names.contains(name) { names.append(name) }
        }
        return names
    }
}
