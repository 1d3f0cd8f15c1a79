/// `ladder: auto` on a package's rendition: once the source is known, the rendition becomes one
/// rendition per rung the source fills (`HLSLadder.choose`), each its inputs with the rung's box
/// and bit rate over the settings the recipe gave (codec, codec options, …).
extension Recipe {
    /// The recipe with each ladder rendition of `outputs:` replaced by its rungs' renditions.
    /// `videoSize` is the displayed size of a reader output's video track (nil: not a video
    /// track, or absent). A ladder without a video track is refused at its `ladder` line.
    public func expandingLadders(videoSize: (ReaderOutput) -> (width: Int, height: Int)?) throws(RecipeErrors) -> Recipe {
        guard outputs.contains(where: { $0.spec.package?.ladder != nil }) else { return self }
        var expanded: [RecipeOutput] = [], errors: [Diagnostic] = []
        for o in outputs {
            guard let role = o.spec.package, let mark = role.ladder else { expanded.append(o); continue }
            let videoInputs = o.writerInputs.filter { input in readerOutput(input.source.value).flatMap(videoSize) != nil }
            guard let first = videoInputs.first, let size = readerOutput(first.source.value).flatMap(videoSize) else {
                // A video track the source lacks: left as it is, for the plan to say the source does not fit (66).
                if o.writerInputs.contains(where: { readerOutput($0.source.value).map(Self.readsVideo) == true }) {
                    expanded.append(o)
                    continue
                }
                errors.append(diagnostic(mark, "'ladder: auto' makes its rungs from a video track, but \(o.writerInputs.isEmpty ? "the rendition has no inputs" : "none of the rendition's inputs is one the source has")"))
                continue
            }
            let refusals = videoInputs.compactMap { ladderKeyRefusal($0, ladder: mark) }
            guard refusals.isEmpty else { errors += refusals; continue }
            let hevc = (try? resolvedSettings(of: first))?.video.codec == .hevc
            let choices = HLSLadder.choose(width: size.width, height: size.height, hevc: hevc)
            for rung in choices where rung.kept {
                var r = RecipeOutput(number: o.number, spec: o.spec, writerInputs: [], mark: o.mark)
                let name = role.rendition.isEmpty ? rung.name : "\(role.rendition)-\(rung.name)"
                r.spec.path = Located(FilePaths.join(role.folder.value, name), mark)
                var member = PackageRole(folder: role.folder, format: role.format, segment: role.segment, rendition: name,
                                         entry: role.entry, renditions: role.renditions - 1 + choices.filter(\.kept).count)
                member.ladder = mark
                member.rung = rung
                member.rungs = choices
                r.spec.package = member
                r.writerInputs = o.writerInputs.map { input in
                    guard videoInputs.contains(where: { $0.number == input.number }) else { return input }
                    let given = (try? resolvedSettings(of: input))?.video.frameRate
                    return WriterInput(number: input.number, source: input.source,
                                       settings: Self.settings(input.settings, rung: rung, frameRate: Self.rungFrameRate(rung, given: given), at: mark),
                                       mark: input.mark)
                }
                expanded.append(r)
            }
        }
        if !errors.isEmpty { throw RecipeErrors(errors) }
        var r = self
        r.outputs = expanded
        return r
    }

    /// Whether a reader output names a video track by kind (`video`, `video:1`).
    static func readsVideo(_ out: ReaderOutput) -> Bool {
        if case .kind(.video, _) = out.track { return true }
        return false
    }

    /// A size or video bit rate in a ladder's own settings for a video track (each rung sets
    /// them), refused at the key's line; nil: none set. The one check of it: `plan` and `run`
    /// ask it of the inputs the source shows to be video, `validate` of those that name a
    /// video track by kind.
    public func ladderKeyRefusal(_ input: WriterInput, ladder mark: Mark) -> Diagnostic? {
        guard let (key, at) = Self.rungKeys(input) else { return nil }
        return diagnostic(at, "'\(key)' is set by each rung of 'ladder: auto' (\(mark)): leave it out of the ladder's settings")
    }

    /// A size or video bit rate the recipe's own settings for a ladder write (the rungs set them).
    static func rungKeys(_ input: WriterInput) -> (String, Mark)? {
        guard case .inline(let def) = input.settings else { return nil }
        return def.keyMarks.first { ["width", "height", "bitrate"].contains($0.0) }
    }

    /// The frame rate a rung asks for: its ceiling in the specification's frame-rate column (30 for
    /// the smallest rungs), converted as a `frame-rate` with the recipe's policy (default `cap`: a
    /// faster source is brought down to it, 60 → 30 and 59.94 → 29.97; a slower one keeps its rate);
    /// nil: the recipe's settings as they are (a rung at the source's rate, or a recipe's own
    /// `frame-rate` already at or under the ceiling).
    static func rungFrameRate(_ rung: LadderChoice, given: FrameRateSetting?) -> FrameRate? {
        guard let ceiling = rung.rung.maxFrameRate.map({ FrameRate(frames: Int32($0)) }) else { return nil }
        if case .rate(let r)? = given, r <= ceiling { return nil }
        return ceiling
    }

    /// A rung's settings: the box and average bit rate of the rung over the recipe's settings (a
    /// constant quality the recipe set gives way to the rung's rate), and its frame-rate ceiling
    /// where it has one; written at the `ladder` line.
    static func settings(_ given: SettingsReference, rung: LadderChoice, frameRate: FrameRate?, at mark: Mark) -> SettingsReference {
        var def: PresetDefinition
        switch given {
        case .inline(let d): def = d
        case .preset(let name): def = PresetDefinition(name: "ladder rung \(rung.name)", mark: mark); def.base = name
        case .none: def = PresetDefinition(name: "ladder rung \(rung.name)", mark: mark)
        }
        def.video.width = rung.rung.width
        def.video.height = rung.rung.height
        def.video.bitrate = rung.kbps * 1000
        def.video.quality = nil
        def.keyMarks.removeAll { ["width", "height", "bitrate", "quality"].contains($0.0) }
        def.keyMarks += [("width", mark), ("height", mark), ("bitrate", mark)]
        if let frameRate {
            def.video.frameRate = .rate(frameRate)
            def.keyMarks.removeAll { $0.0 == "frame-rate" }
            def.keyMarks.append(("frame-rate", mark))
        }
        return .inline(def)
    }
}
