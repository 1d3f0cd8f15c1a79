import Recipe

extension RecipeCompiler {
    /// What the writer inputs of one output ask of the source, each resolved to a source track:
    /// the track requests for the planner, where each setting came from, and every refusal.
    struct TrackResolution {
        var errors: [Diagnostic] = []
        /// Tracks the recipe needs that this source lacks: the input does not fit (exit 66).
        var missing: [Diagnostic] = []
        var tracks: [TrackRequest] = []
        var origins: [LaneOrigin] = []
        /// Settings of writer inputs whose reader output is not decoded: copied, so without effect.
        var ignored: [PlanNotice] = []
        /// Per source track: the writer input that writes it, for refusals found while planning.
        var writers: [Int: TrackSource] = [:]
        /// Every (file, track) some writer input writes: a composition's files number their tracks
        /// each from 0, so #0 of one file is not #0 of another.
        var written: [String: [Int: TrackSource]] = [:]

        /// Resolves writer input `input` of `recipe` against the sources `read`, for an output in
        /// `outFormat` (nil: not known yet).
        mutating func add(_ input: WriterInput, of recipe: Recipe, reading read: ReadSources, outFormat: ContainerFormat?) {
            let (source, primary, asset, others) = (read.source, read.primary, read.asset, read.others)
            guard let out = recipe.readerOutput(input.source.value) else { return }  // checked by the parser
            let track: Track?
            var trackFile = primary
            switch out.track {
            case .kind(let kind, let n):
                // A composition's track of a kind comes from the first of its files that has one.
                track = MediaType(rawValue: kind.rawValue).flatMap { t in
                    if let own = asset.track(t, ordinal: n) { return own }
                    guard let other = others.first(where: { $0.track(t, ordinal: n) != nil }) else { return nil }
                    trackFile = other.path
                    return other.track(t, ordinal: n)
                }
            case .index(let i):
                track = asset.track(index: i)
            }
            guard let track else {
                if out.optional { return }
                let which = others.isEmpty ? "\(primary) has none (it has \(trackList(asset)))"
                    : "none of the composition's files has one (" + ([asset] + others).map { "\($0.path) has \(trackList($0))" }.joined(separator: "; ") + ")"
                missing.append(recipe.diagnostic(out.mark, "reader output '\(out.name)' wants the \(out.track) track, but \(which); add 'optional: true' to convert without it"))
                return
            }
            if let first = written[trackFile]?[track.index] {
                errors.append(writtenTwice("track #\(track.index) of \(trackFile == primary ? source : trackFile)", by: input, reading: out,
                                           first: (first.input, first.output), in: recipe))
                return
            }
            let settings: ResolvedPreset
            do throws(Diagnostic) { settings = try recipe.resolvedSettings(of: input) ?? .empty } catch { errors.append(error); return }
            if let refusal = kindRefusal(reading: track.mediaType, format: outFormat, input: input, output: out, settings: settings, in: recipe) {
                errors.append(refusal)
                return
            }
            let (video, audio, keyMarks, presets) = (settings.video, settings.audio, settings.keyMarks, settings.chain)
            /// The settings' layers, most specific first, with who wrote each.
            var layers = RecipeCompiler.layers(presets, in: recipe)
            if case .inline(let def) = input.settings { layers.insert(("recipe", def.video, def.audio), at: 0) }
            let copies = copiesSamples(track.mediaType, decode: out.decode, settings: settings)
            let mode: TrackMode
            switch track.mediaType {
            case .video:
                mode = out.decode ? .video(video) : .passthrough
            case .audio:
                mode = out.decode ? .audio(audio) : .passthrough
            case .subtitle where !copies:
                if let refusal = SubtitleConversion.refusal(track, format: outFormat) {
                    missing.append(recipe.diagnostic(out.mark, "\(trackFile): \(refusal)"))
                    return
                }
                mode = .subtitle
            default:
                guard !out.decode || video.codec == .copy else {
                    errors.append(recipe.diagnostic(out.mark, "track #\(track.index) of \(trackFile) is \(track.mediaType.rawValue): it can only be copied ('decode: false')"))
                    return
                }
                mode = .passthrough
            }
            // A composition names tracks by kind: the planner finds each in the file that has it.
            if recipe.composition != nil, case .kind(let kind, let n) = out.track, let t = MediaType(rawValue: kind.rawValue) {
                tracks.append(TrackRequest(.type(t, n), mode))
            } else {
                tracks.append(TrackRequest(.index(track.index), mode))
            }
            if mode == .passthrough {
                let keys = track.mediaType == .audio ? audio.setKeys : video.setKeys
                let copyAsked = (track.mediaType == .audio ? audio.codec == .copy : video.codec == .copy)
                for key in keys where !(key == .codec && copyAsked) {
                    ignored.append(IgnoredSettings.notice(key, track: track.index,
                                                          "reader output '\(out.name)' is not decoded (decode: false), so the track is copied as it is"))
                }
            }
            let explicit: [String]
            var keyOrigins: [String: String] = [:]
            switch mode {
            case .video(let v):
                explicit = RecipeCompiler.decided(v.setKeys)
                for key in explicit { keyOrigins[key] = layers.first { RecipeCompiler.decided($0.video.setKeys).contains(key) }?.origin }
            case .audio(let a):
                explicit = RecipeCompiler.decided(a.setKeys)
                for key in explicit { keyOrigins[key] = layers.first { RecipeCompiler.decided($0.audio.setKeys).contains(key) }?.origin }
            case .passthrough, .subtitle:
                explicit = []
            }
            let writer = TrackSource(input: input, output: out, keys: keyMarks, copies: copies)
            if let refusal = compositionCopyRefusal(writer, in: recipe) {
                errors.append(refusal)
                return
            }
            if writers[track.index] == nil { writers[track.index] = writer }
            written[trackFile, default: [:]][track.index] = writer
            origins.append(LaneOrigin(writerInput: input.number, readerOutput: out.name, presets: presets,
                                      explicitKeys: explicit, keyOrigins: keyOrigins))
        }
    }
}
