import Recipe

/// The refusals of `plan` whose answer does not depend on the source, each written once: `plan`
/// asks them about the tracks the source resolves the recipe's references to, `validate` about
/// what the recipe itself says (a track named by its kind, the output's template). A check that
/// fails whenever the track it is about is converted fails in `validate` too, optional or not.
extension RecipeCompiler {
    /// The container the recipe's own output path names (`path`: the template, or the path made
    /// from it for a source), or why it names none, at the path's line.
    /// Why `format` has no fragments (`fragment:`).
    static func fragmentRefusal(_ format: ContainerFormat) -> String {
        "'fragment' makes a fragmented MP4, but this output is \(format.article) \(format.rawValue) file: use an mp4, mov or m4a output"
    }

    /// `fragment:` on an output whose container has no fragments, at its line.
    static func fragmentRefusal(_ recipe: Recipe, format: ContainerFormat?) -> Diagnostic? {
        guard let f = recipe.output.fragment, let format, !format.isISOMedia else { return nil }
        return recipe.diagnostic(f.mark, fragmentRefusal(format))
    }

    /// The keyframe grid the output's video tracks are encoded on (its fragments' starts).
    static func keyframeGrid(of recipe: Recipe) -> KeyframeGrid? {
        recipe.output.fragment.map { KeyframeGrid(every: $0.value, unit: recipe.output.package == nil ? "fragment" : "segment") }
    }

    static func outputFormat(of recipe: Recipe, path: String) throws(Diagnostic) -> ContainerFormat? {
        guard let template = recipe.output.path else { return recipe.output.format?.value }
        do throws(MediaError) {
            return try OutputLocation.format(for: path, requested: recipe.output.format?.value)
        } catch {
            throw recipe.diagnostic(template.mark, "\(path): \(error.message)")
        }
    }

    /// Whether the container of a path made from `template` is the same for every source: its
    /// extension comes from no token (`{stem}.webm`, `out/x`), not from `{ext}`, `{name}`, or a
    /// `{stem}` or `{dir}` that ends the name. Two stand-in sources that differ in every token,
    /// dots included, make paths with the same extension exactly then.
    static func containerNeedsNoSource(_ template: String) -> Bool {
        let a = expand(template, source: "d.x1/s.t1.e1"), b = expand(template, source: "d2/s2")
        return FilePaths.pathExtension(of: a) == FilePaths.pathExtension(of: b)
    }

    /// A track written by a second writer input: the same track of the same file (`track` says
    /// which, as the message shows it) can be written once.
    static func writtenTwice(_ track: String, by input: WriterInput, reading out: ReaderOutput,
                             first: (input: WriterInput, output: ReaderOutput), in recipe: Recipe) -> Diagnostic {
        recipe.diagnostic(input.source.mark, "writer input \(input.number) reads \(track) ('\(out.name)'), which writer input \(first.input.number) already writes ('\(first.output.name)'): a track can be written once")
    }

    /// A writer input whose container or settings cannot take the kind of track it reads: video
    /// into m4a, an audio setting on video, a video setting on audio, any setting on subtitles
    /// that are converted.
    static func kindRefusal(reading kind: MediaType, format: ContainerFormat?, input: WriterInput, output out: ReaderOutput,
                            settings p: ResolvedPreset, in recipe: Recipe) -> Diagnostic? {
        let what: String
        switch input.settings {
        case .preset(let name): what = "preset '\(name.value)'"
        default: what = "the settings of writer input \(input.number)"
        }
        if let format, !format.holds.holdsAny(kind.rawValue) {
            return recipe.diagnostic(input.source.mark, "writer input \(input.number) reads a\(kind == .audio ? "n" : "") \(kind.rawValue) track ('\(out.name)'), but \(format.article) \(format.rawValue) file holds \(format.holds.kindsText)")
        }
        if let format, let refusal = codecRefusal(reading: kind, format: format, input: input, output: out, settings: p, in: recipe) { return refusal }
        switch kind {
        case .video:
            if let (key, mark) = p.audioOnlyKeys.first {
                // A built-in audio preset's keys have no line: said of the preset, at its name.
                return recipe.diagnostic(mark.line > 0 ? mark : settingsMark(input), "\(what) \(mark.line > 0 ? "sets '\(key)', an audio setting" : "is for audio only"), but writer input \(input.number) reads a video track ('\(out.name)')")
            }
        case .audio:
            if let refusal = loudnessCopyRefusal(input: input, output: out, settings: p, in: recipe) { return refusal }
            if let (key, mark) = p.videoOnlyKeys.first {
                return recipe.diagnostic(mark, "\(what) sets '\(key)', a video setting, but writer input \(input.number) reads an audio track ('\(out.name)')")
            }
        case .subtitle where !copiesSamples(.subtitle, decode: out.decode, settings: p):
            if let (key, mark) = (p.videoOnlyKeys + p.audioOnlyKeys).first {
                return recipe.diagnostic(mark.line > 0 ? mark : settingsMark(input), "\(what) sets '\(key)', but writer input \(input.number) reads a subtitle track ('\(out.name)'): subtitles take no settings but 'codec: copy'")
            }
        default:
            break
        }
        return nil
    }

    /// `loudness:` on an audio track that is copied: its sound is never decoded to be measured or gained.
    static func loudnessCopyRefusal(input: WriterInput, output out: ReaderOutput, settings p: ResolvedPreset, in recipe: Recipe) -> Diagnostic? {
        guard p.audio.loudness != nil, copiesSamples(.audio, decode: out.decode, settings: p) else { return nil }
        let mark = p.keyMarks.last { $0.0 == "loudness" && $0.1.line > 0 }?.1 ?? settingsMark(input)
        return recipe.diagnostic(mark, "writer input \(input.number) copies the audio track ('\(out.name)'), but 'loudness' needs its sound decoded to measure and gain it: leave out 'loudness' or encode the track")
    }

    /// An encoded track whose codec (asked, else the container's or the table's default) the
    /// container does not hold: H.264 into WebM. A copy is refused by `plan`, which knows the
    /// source's codec.
    static func codecRefusal(reading kind: MediaType, format: ContainerFormat, input: WriterInput, output out: ReaderOutput,
                             settings p: ResolvedPreset, in recipe: Recipe) -> Diagnostic? {
        // A package's renditions are fragmented MP4 files, but its playlists name fewer codecs.
        let package = recipe.output.package?.format.value
        let holds = package?.holds ?? format.holds
        guard !copiesSamples(kind, decode: out.decode, settings: p) else { return nil }
        let name: String, streams: [String]
        switch kind {
        case .video:
            guard let family = VideoFamily.of(p.video.codec ?? format.defaultVideoCodec?.codec ?? VideoFamily.default.codec) else { return nil }
            (name, streams) = ("\(family.displayName) (codec \(family.codec.rawValue))", [family.streamCodec])
        case .audio:
            guard let family = AudioFamily.of(p.audio.codec ?? format.defaultAudioCodec?.codec ?? AudioFamily.default.codec) else { return nil }
            (name, streams) = ("\(family.displayName) (codec \(family.codec.rawValue))", family.streamCodecs)
        default:
            return nil
        }
        guard !streams.contains(where: { holds.holds($0, kind: kind.rawValue) }) else { return nil }
        let mark = p.keyMarks.last { $0.0 == "codec" && $0.1.line > 0 }?.1 ?? settingsMark(input)
        let holder = package?.named ?? "\(format.article) \(format.rawValue) file"
        let encodes = "writer input \(input.number) encodes the \(kind.rawValue) track ('\(out.name)') as \(name)"
        // A container that holds what its muxer takes, but this codec: why, from the table.
        if let why = streams.lazy.compactMap({ holds.refused[$0] }).first { return recipe.diagnostic(mark, "\(encodes), but \(holder) does not hold it: \(why)") }
        guard let held = holds.description else { return nil }
        return recipe.diagnostic(mark, "\(encodes), but \(holder) holds \(held) only")
    }

    /// Whether a track of `kind` is copied as it is: not decoded, or `codec: copy` however it
    /// was set (inline, a preset such as `passthrough`, a base).
    static func copiesSamples(_ kind: MediaType, decode: Bool, settings p: ResolvedPreset) -> Bool {
        !decode || (kind == .audio ? p.audio.codec == .copy : p.video.codec == .copy)
    }

    /// A copied track in a composition: its pictures can be cut and joined as they are, where
    /// the composition only puts segments end to end. Anything that changes a picture or its
    /// time needs them decoded; the sound is always decoded and mixed.
    static func compositionCopyRefusal(_ writer: TrackSource, in recipe: Recipe) -> Diagnostic? {
        guard let composition = recipe.composition, writer.copies else { return nil }
        let copying = "writer input \(writer.input.number) copies '\(writer.output.name)'"
        guard case .kind(.video, 0) = writer.output.track else {
            let how = writer.output.decode ? "encode the sound (e.g. codec: aac)" : "remove 'decode: false' so that the sound is encoded"
            return recipe.diagnostic(writer.copyMark, "\(copying), but a composition's sound is decoded and mixed: only its pictures can be copied; \(how)")
        }
        guard let reason = CompositionCopy.obstacle(in: composition) else { return nil }
        return recipe.diagnostic(reason.mark, "\(copying), but \(reason.what): copied pictures keep their source's frames and times; encode the video instead")
    }

    /// What `validate` can refuse of a recipe's tracks and output without a source: the checks
    /// above, asked of every writer input that names its track by kind (and a size or rate in a
    /// ladder's own settings, `Recipe.ladderKeyRefusal`, as `plan` asks it). Returns the output's
    /// container where the recipe fixes it, and the numbers of the writer inputs refused.
    static func sourceFreeRefusals(_ recipe: Recipe) -> (format: ContainerFormat?, refused: Set<Int>, errors: [Diagnostic]) {
        var errors: [Diagnostic] = []
        var refused: Set<Int> = []
        func refuse(_ input: WriterInput, _ d: Diagnostic) { refused.insert(input.number); errors.append(d) }
        do throws(RecipeErrors) { try refuseUnsupportedComposition(recipe) } catch { errors += error.diagnostics }
        var format = recipe.output.format?.value
        if let template = recipe.output.path?.value, containerNeedsNoSource(template) {
            do throws(Diagnostic) { format = try outputFormat(of: recipe, path: template) } catch { errors.append(error) }
        }
        if let refusal = fragmentRefusal(recipe, format: format) { errors.append(refusal) }
        errors += targetSizeRefusals(recipe)
        var writers: [TrackReference: (input: WriterInput, output: ReaderOutput)] = [:]
        for input in recipe.writerInputs {
            guard let out = recipe.readerOutput(input.source.value) else { continue }  // the parser said why
            if let first = writers[out.track] {
                refuse(input, writtenTwice("the \(out.track) track", by: input, reading: out, first: first, in: recipe))
                continue
            }
            writers[out.track] = (input, out)
            // Only a track named by kind is known to be video, audio or subtitles without a source.
            guard case .kind(let k, _) = out.track, let kind = MediaType(rawValue: k.rawValue) else { continue }
            let p: ResolvedPreset
            do throws(Diagnostic) { p = try recipe.resolvedSettings(of: input) ?? .empty } catch { continue }  // the parser said why
            if let refusal = kindRefusal(reading: kind, format: format, input: input, output: out, settings: p, in: recipe) {
                refuse(input, refusal)
                continue
            }
            if kind == .video, let ladder = recipe.output.package?.ladder, let refusal = recipe.ladderKeyRefusal(input, ladder: ladder) {
                refuse(input, refusal)
                continue
            }
            let writer = TrackSource(input: input, output: out, keys: p.keyMarks, copies: copiesSamples(kind, decode: out.decode, settings: p))
            if let refusal = compositionCopyRefusal(writer, in: recipe) { refuse(input, refusal) }
        }
        return (format, refused, errors)
    }
}
