import Recipe

extension RecipeCompiler {
    /// What this build cannot convert of a composition, refused at the recipe line that asks for
    /// it (exit 65) rather than converting something else: slow motion from the source on an
    /// audio track, or on a video track other than the file's first; a cross-fade into or out of
    /// a segment playing the phone's slow motion. Needs no file, so `batch` says it once, before
    /// any file.
    public static func refuseUnsupportedComposition(_ recipe: Recipe) throws(RecipeErrors) {
        guard let composition = recipe.composition else { return }
        var errors: [Diagnostic] = []
        let video = composition.video?.segments ?? []
        for track in composition.writtenTracks {
            for segment in track.segments {
                // The phone's slow motion is read from the video's temporal layers; the sound
                // follows the video's pieces.
                if track.kind == .audio, composition.slowMotion(for: segment) == .fromSource {
                    let mark = segment.slowMotion?.mark ?? composition.slowMotion?.mark ?? segment.mark
                    errors.append(recipe.diagnostic(mark, "'slow-motion: from-source' on the audio track is not yet supported: it is read from the video's frames, so give the composition a 'video:' track and the sound follows it"))
                }
                // A cross-fade reads past the outgoing segment's end and before the incoming one's
                // start; a phone's slow motion is read piece by piece from its own layers.
                if let t = segment.transition, t.kind == .crossFade, track.layer == 0, track.kind == .video,
                   let i = video.firstIndex(where: { $0.number == segment.number }), i > 0 {
                    for other in [video[i - 1], segment] where composition.slowMotion(for: other) == .fromSource {
                        errors.append(recipe.diagnostic(t.mark, "a cross-fade into segment \(segment.number) is not yet supported: segment \(other.number) plays the phone's slow motion ('slow-motion: from-source'), whose pictures cannot be read past its range; use 'kind: dip' or a cut"))
                    }
                }
                // The phone's slow-motion data describes the file's first video track.
                if track.kind == .video, composition.slowMotion(for: segment) == .fromSource, let own = segment.track,
                   own.value != .kind(.video, 0) {
                    errors.append(recipe.diagnostic(own.mark, "'slow-motion: from-source' plays the phone's slow motion of the file's first video track, not '\(own.value)': leave out 'track' or say 'track: video'"))
                }
            }
        }
        if !errors.isEmpty { throw RecipeErrors(errors) }
    }

    /// The composition's segments as the engine takes them (nil: no composition): the video
    /// list's, then the audio list's (with only one list, its segments serve both kinds of lane
    /// when it is the video's). `files` are the paths `compositionFiles` gives; a segment's
    /// `source` is its file's place among them.
    static func timeline(of recipe: Recipe, files: [String], input: String) -> [SegmentRequest]? {
        guard let composition = recipe.composition else { return nil }
        var requests: [SegmentRequest] = []
        let tracks = [(composition.video, SegmentRequest.List.video), (composition.explicitAudio, .audio)]
            + composition.layers.map { ($0, .video) } + composition.mix.map { ($0, .audio) }
        for (track, list) in tracks {
            guard let track else { continue }
            for segment in track.segments {
                let path = recipe.source(named: segment.source.value).map { sourcePath($0, input: input) } ?? input
                var r = SegmentRequest(source: files.firstIndex(of: path) ?? 0, start: segment.start?.value ?? .zero,
                                       end: sourceEnd(of: segment), at: segment.at?.value,
                                       timing: segment.timing?.value, audioStretch: composition.audioStretch(for: segment),
                                       slowMotion: composition.slowMotion(for: segment))
                // An audio list alone serves the audio lanes as the video list would.
                r.list = composition.video == nil && track.layer == 0 ? .video : list
                r.layer = track.layer
                r.transition = segment.transition
                // Found in the segment's own file at plan time (`SegmentTracks`).
                if let own = segment.track, let kind = MediaType(rawValue: track.kind.rawValue) {
                    switch own.value {
                    case .kind(let k, let n): r.track = MediaType(rawValue: k.rawValue).map { .init(kind, .type($0, n)) }
                    case .index(let i): r.track = .init(kind, .index(i))
                    }
                }
                requests.append(r)
            }
        }
        return requests.isEmpty ? nil : requests
    }

    /// The files a composition shows, each once, in the order its segments first show them (the
    /// first is the plan's source); without a composition, the input alone.
    static func compositionFiles(_ recipe: Recipe, input: String) -> [String] {
        guard let composition = recipe.composition else { return [input] }
        var files: [String] = []
        for segment in composition.writtenTracks.flatMap(\.segments) {
            let path = recipe.source(named: segment.source.value).map { sourcePath($0, input: input) } ?? input
            if !files.contains(path) { files.append(path) }
        }
        return files.isEmpty ? [input] : files
    }

    /// A source's path: the input itself, or its path with the input's tokens filled in.
    static func sourcePath(_ spec: SourceSpec, input: String) -> String {
        switch spec.path {
        case .input: return input
        case .file(let template): return expand(template, source: input)
        }
    }

    /// `end`, or `start + duration`; nil: to the end of the source.
    private static func sourceEnd(of segment: Segment) -> MediaTime? {
        let range = segment.sourceRange
        return range.end.isNumeric ? range.end : nil
    }

    /// The recipe line a refusal about a segment's field comes from.
    static func segmentMark(_ field: SegmentField, in recipe: Recipe) -> Mark? {
        guard let composition = recipe.composition,
              let track = field.layer > 0 ? (field.list == .audio ? composition.mix : composition.layers).element(field.layer - 1)
                : field.list == .audio ? composition.explicitAudio : composition.video ?? composition.explicitAudio,
              let segment = track.segments.first(where: { $0.number == field.number }) else { return nil }
        switch field.name {
        case .track: return segment.track?.mark ?? segment.mark
        case .transition: return segment.transition?.mark ?? segment.mark
        case .start: return segment.start?.mark ?? segment.mark
        case .end: return segment.end?.mark ?? segment.duration?.mark ?? segment.mark
        case .at: return segment.at?.mark ?? segment.mark
        case .speed: return segment.timing?.mark ?? segment.mark
        case .slowMotion: return segment.slowMotion?.mark ?? composition.slowMotion?.mark ?? segment.mark
        case .audioStretch:
            let slowMotion = composition.slowMotion(for: segment) == .fromSource ? segment.slowMotion?.mark ?? composition.slowMotion?.mark : nil
            return segment.audioStretch?.mark ?? composition.audioStretch?.mark ?? segment.timing?.mark ?? slowMotion ?? segment.mark
        }
    }
}

private extension Array {
    func element(_ i: Int) -> Element? { indices.contains(i) ? self[i] : nil }
}
