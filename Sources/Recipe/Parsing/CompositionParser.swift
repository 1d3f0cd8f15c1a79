import Foundation

/// `sources:` and `composition:` (docs/recipes.md, "Compositions").
extension RecipeParser {
    static let compositionKeys = ["video", "audio", "layers", "mix", "limit", "fade-in", "fade-out", "render-size", "background",
                                  "slow-motion", "audio-stretch", "layer-limit"]
    /// `layer-limit`'s range: each layer showing holds a decoder, so a bound is always set.
    public static let layerLimits = 1...1024
    /// A video track written as a mapping (`video:`, each of `layers:`).
    static let videoTrackKeys = ["segments", "rect", "fit", "crop", "opacity"]
    static let rectKeys = ["x", "y", "width", "height"]
    /// An audio track written as a mapping (`audio:`, each input of `mix:`).
    static let audioTrackKeys = ["segments", "volume", "fade-in", "fade-out"]
    static let rampKeys = ["start", "end", "duration", "from", "to", "curve"]
    static let segmentKeys = ["source", "track", "start", "end", "duration", "at", "speed", "target-duration", "slow-motion", "audio-stretch", "transition"]
    static let transitionKeys = ["kind", "duration", "color"]
    /// The tokens a source path may hold: the input itself, or parts of its path.
    static let sourceTokens = ["input", "stem", "ext", "dir", "name"]
}

extension Parser {
    // MARK: Sources

    mutating func parseSources(_ node: Node, _ keyMark: Mark) {
        sourcesMark = keyMark
        guard case .mapping(let pairs, _) = node else {
            error(node.mark, "'sources' must be a mapping of names to paths, not \(node.kindDescription)")
            return
        }
        if pairs.isEmpty { error(node.mark, "'sources' names no source: give each source a name and a path") }
        var parsed: [SourceSpec] = []  // assigned once: the recipe indexes them by name
        for (k, v) in pairs {
            guard let name = k.scalar, !name.isEmpty else { error(k.mark, "a source needs a name"); continue }
            if let path = sourcePath(name, v) { parsed.append(SourceSpec(name: name, path: path, mark: k.mark, pathMark: v.mark)) }
        }
        recipe.sources = parsed
    }

    mutating func sourcePath(_ name: String, _ node: Node) -> SourceSpec.Path? {
        // `main: {input}` unquoted is a YAML mapping: say what was meant.
        if case .mapping(let pairs, _) = node, pairs.count == 1, pairs[0].key.scalar == "input", pairs[0].value.scalar == "" {
            error(node.mark, "source '\(name)': write \"{input}\" in quotes (without them YAML reads {input} as a mapping)")
            return nil
        }
        guard let path = node.scalar else {
            error(node.mark, "source '\(name)' must be a path, not \(node.kindDescription)")
            return nil
        }
        if path.isEmpty { error(node.mark, "source '\(name)' needs a path"); return nil }
        if path == "{input}" { return .input }
        var rest = Substring(path)
        var ok = true
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else {
                error(node.mark, "source '\(name)' has a '{' without '}'")
                return nil
            }
            let token = String(rest[rest.index(after: open)..<close])
            if token == "input" {
                error(node.mark, "'{input}' stands for the input file itself: it is the whole path of a source, not part of one (use {dir}, {stem}, {ext}, {name} for parts of the input's path)")
                ok = false
            } else if !RecipeParser.sourceTokens.contains(token) {
                error(node.mark, "source '\(name)' has an unknown token {\(token)} (tokens: {input} {stem} {ext} {dir} {name})")
                ok = false
            }
            rest = rest[rest.index(after: close)...]
        }
        return ok ? .file(path) : nil
    }

    // MARK: Composition

    mutating func parseComposition(_ node: Node, _ keyMark: Mark) {
        let before = errors.count
        guard let pairs = mapping(node, "the composition", keys: RecipeParser.compositionKeys) else { return }
        // A misspelt 'video:' is reported as such, not as a composition without segments too.
        var ok = errors.count == before && !truncated
        var video: CompositionTrack?, audio: CompositionTrack?, mix: [CompositionTrack] = [], layers: [CompositionTrack] = []
        var renderSize: Located<RenderSize>?, background: Located<RecipeColor>?
        var slowMotion: Located<SlowMotion>?, audioStretch: Located<AudioStretch>?, limit: Located<MixLimit>?
        var fades: [String: Located<MediaTime>] = [:]
        var layerLimit: Located<Int>?
        for (key, value, _) in pairs {
            switch key {
            case "video", "audio":
                let kind: TrackReference.Kind = key == "video" ? .video : .audio
                guard let track = compositionTrack(kind, value) else { ok = false; continue }
                if kind == .video { video = track } else { audio = track }
            case "mix":
                guard let inputs = mixInputs(value) else { ok = false; continue }
                mix = inputs
            case "layers":
                guard let tracks = videoLayers(value) else { ok = false; continue }
                layers = tracks
            case "render-size":
                guard let size = renderSizeValue(value) else { ok = false; continue }
                renderSize = Located(size, value.mark)
            case "background":
                guard let c = value.scalar.flatMap(RecipeColor.init) else {
                    error(value.mark, "'background' must be black, white or \"#RRGGBB\" (quoted), not \(value.kindDescription)"); ok = false; continue
                }
                background = Located(c, value.mark)
            case "fade-in", "fade-out":
                guard let t = time(value, key) else { ok = false; continue }
                if t == .zero { error(value.mark, "'\(key)' must be longer than 0"); ok = false; continue }
                fades[key] = Located(t, value.mark)
            case "limit":
                guard let v = value.scalar.flatMap(MixLimit.init(rawValue:)) else {
                    error(value.mark, "'limit' must be clip or soft, not \(value.kindDescription)"
                          + suggestion(value.scalar ?? "", among: MixLimit.allCases.map(\.rawValue)))
                    ok = false; continue
                }
                limit = Located(v, value.mark)
            case "slow-motion":
                guard let v = slowMotionValue(value) else { ok = false; continue }
                slowMotion = Located(v, value.mark)
            case "audio-stretch":
                guard let v = audioStretchValue(value) else { ok = false; continue }
                audioStretch = Located(v, value.mark)
            case "layer-limit":
                guard let n = integer(value, key, range: RecipeParser.layerLimits, unit: " layers") else { ok = false; continue }
                layerLimit = Located(n, value.mark)
            default: break
            }
        }
        if ok && video == nil && audio == nil {
            error(keyMark, "the composition has no segments: give it a 'video:' or 'audio:' list of segments")
            return
        }
        var composition = Composition(video: video, explicitAudio: audio, slowMotion: slowMotion, audioStretch: audioStretch,
                                      mix: mix, limit: limit, mark: keyMark)
        composition.fadeIn = fades["fade-in"]
        composition.fadeOut = fades["fade-out"]
        composition.layers = layers
        composition.renderSize = renderSize
        composition.background = background
        composition.layerLimit = layerLimit
        recipe.composition = composition
    }

    /// A composition track: a list of segments, or (audio) a mapping with `segments` and `volume`.
    /// `layer` 0 is `video:`/`audio:`, j ≥ 1 input j of `mix:`.
    mutating func compositionTrack(_ kind: TrackReference.Kind, _ node: Node, layer: Int = 0) -> CompositionTrack? {
        let name = layer == 0 ? kind.rawValue : kind == .video ? "layer \(layer)" : "mix input \(layer)"
        var list = node, volume: Keyframes?, fadeIn: Located<MediaTime>?, fadeOut: Located<MediaTime>?, style: VideoLayerStyle?
        if kind == .video, case .mapping = node {
            guard let (segmentsNode, parsed) = videoTrackMapping(node, name: name) else { return nil }
            list = segmentsNode
            style = parsed
        } else if kind == .audio, case .mapping = node {
            let before = errors.count
            guard let pairs = mapping(node, "'\(name)'", keys: RecipeParser.audioTrackKeys), errors.count == before else { return nil }
            var segmentsNode: Node?, ok = true
            for (key, value, _) in pairs {
                switch key {
                case "segments": segmentsNode = value
                case "volume":
                    guard let v = keyframes(value, "volume", range: Self.volumeRange) else { ok = false; continue }
                    volume = v
                case "fade-in", "fade-out":
                    guard let t = time(value, key) else { ok = false; continue }
                    if t == .zero { error(value.mark, "'\(key)' must be longer than 0"); ok = false; continue }
                    if key == "fade-in" { fadeIn = Located(t, value.mark) } else { fadeOut = Located(t, value.mark) }
                default: break
                }
            }
            guard let segmentsNode else {
                error(node.mark, "'\(name)' needs 'segments': a list of segments (- { source: …, start: …, end: … })")
                return nil
            }
            guard ok else { return nil }
            list = segmentsNode
        }
        guard case .sequence(let items, _) = list else {
            let shape = kind == .audio ? ", or a mapping with 'segments' and 'volume'" : ", or a mapping with 'segments' and 'rect', 'fit', 'crop', 'opacity'"
            error(list.mark, "'\(name)' must be a list of segments (- { source: …, start: …, end: … })\(shape), not \(list.kindDescription)")
            return nil
        }
        if items.isEmpty {
            error(list.mark, "'\(name)' has no segments: list at least one, or leave '\(name)' out")
            return nil
        }
        var segments: [Segment] = []
        var ok = true
        for (i, item) in items.enumerated() {
            if full { truncated = true; return nil }
            if let s = segment(kind, i + 1, item, layer: layer) { segments.append(s) } else { ok = false }
        }
        guard ok else { return nil }
        var track = CompositionTrack(kind: kind, segments: segments, mark: list.mark, layer: layer, volume: volume,
                                     fadeIn: fadeIn, fadeOut: fadeOut)
        track.style = style
        return track
    }

    /// `{ segments: [ … ], rect: …, fit: …, crop: …, opacity: … }`: the segments' node and the style.
    mutating func videoTrackMapping(_ node: Node, name: String) -> (Node, VideoLayerStyle)? {
        // `video: { source: clip }`: one segment written without its list.
        if case .mapping(let pairs, _) = node, pairs.contains(where: { RecipeParser.segmentKeys.contains($0.key.scalar ?? "") }) {
            error(node.mark, "'\(name)' must be a list of segments (- { source: …, start: …, end: … }), not a mapping: write the segment as a list item, or put it under 'segments'")
            return nil
        }
        let before = errors.count
        guard let pairs = mapping(node, "'\(name)'", keys: RecipeParser.videoTrackKeys), errors.count == before else { return nil }
        var segmentsNode: Node?, style = VideoLayerStyle(), ok = true
        for (key, value, _) in pairs {
            switch key {
            case "segments": segmentsNode = value
            case "rect", "crop":
                guard let r = rectValue(value, key) else { ok = false; continue }
                if key == "rect" { style.rect = r } else { style.crop = r }
            case "fit":
                guard let f = value.scalar.flatMap(LayerFit.init(rawValue:)) else {
                    error(value.mark, "'fit' must be fit, fill or stretch, not \(value.kindDescription)"
                          + suggestion(value.scalar ?? "", among: LayerFit.allCases.map(\.rawValue)))
                    ok = false; continue
                }
                style.fit = f
            case "opacity":
                guard let v = keyframes(value, "opacity", range: 0...1) else { ok = false; continue }
                style.opacity = v
            default: break
            }
        }
        guard let segmentsNode else {
            error(node.mark, "'\(name)' needs 'segments': a list of segments (- { source: …, start: …, end: … })")
            return nil
        }
        return ok ? (segmentsNode, style) : nil
    }

    /// `layers:` — more video tracks over `video:`, each a mapping with `segments` (and `rect`…).
    mutating func videoLayers(_ node: Node) -> [CompositionTrack]? {
        guard case .sequence(let items, _) = node, !items.isEmpty else {
            error(node.mark, "'layers' must be a list of video tracks (- { rect: …, segments: [ … ] }), not \(node.kindDescription)")
            return nil
        }
        var tracks: [CompositionTrack] = [], ok = true
        for (i, item) in items.enumerated() {
            guard case .mapping = item else {
                error(item.mark, "layer \(i + 1) must be a mapping with 'segments' (and 'rect', 'fit', 'crop', 'opacity'), not \(item.kindDescription)")
                ok = false; continue
            }
            if let t = compositionTrack(.video, item, layer: i + 1) { tracks.append(t) } else { ok = false }
        }
        return ok ? tracks : nil
    }

    /// `{ x: 1240, y: 40, width: 640, height: 360 }`, each in pixels or a percentage (`25%`).
    /// `x`, `y` may be negative (partly outside); `width`, `height` are positive.
    mutating func rectValue(_ node: Node, _ key: String) -> RecipeRect? {
        let before = errors.count
        guard let pairs = mapping(node, "'\(key)'", keys: RecipeParser.rectKeys), errors.count == before else { return nil }
        var values: [String: RecipeLength] = [:], ok = true
        for (k, value, _) in pairs {
            let text = value.scalar?.trimmingWhitespace() ?? ""
            var length: RecipeLength?
            // At most 16384 pixels or 400 % each way: a rectangle is drawn at its full size.
            if text.hasSuffix("%"), let q = Double(text.dropLast().trimmingWhitespace()), q.isFinite, abs(q) <= 400 {
                length = .percent(q)
            } else if value.scalar != nil, let p = Int(text), abs(p) <= 16384 {
                length = .pixels(p)
            }
            guard let length else {
                error(value.mark, "'\(k)' of '\(key)' must be whole pixels (640, at most 16384) or a percentage (25%, at most 400%), not \(value.kindDescription)"); ok = false; continue
            }
            let positive: Bool
            switch length { case .pixels(let p): positive = p > 0; case .percent(let q): positive = q > 0 }
            if (k == "width" || k == "height") && !positive {
                error(value.mark, "'\(k)' of '\(key)' must be more than 0"); ok = false; continue
            }
            let negative: Bool
            switch length { case .pixels(let p): negative = p < 0; case .percent(let q): negative = q < 0 }
            if key == "crop" && (k == "x" || k == "y") && negative {
                error(value.mark, "'\(k)' of 'crop' must be 0 or more: a crop is a part of the picture"); ok = false; continue
            }
            values[k] = length
        }
        guard ok else { return nil }
        let missing = ["width", "height"].filter { values[$0] == nil }
        if !missing.isEmpty {
            error(node.mark, "'\(key)' needs " + missing.map { "'\($0)'" }.joined(separator: " and ")); return nil
        }
        return RecipeRect(x: values["x"] ?? .pixels(0), y: values["y"] ?? .pixels(0), width: values["width"]!, height: values["height"]!, mark: node.mark)
    }

    /// `1920x1080`: even, from 2 to 16384 each way (what encoders take).
    mutating func renderSizeValue(_ node: Node) -> RenderSize? {
        let parts = (node.scalar ?? "").lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0].trimmingWhitespace()), let h = Int(parts[1].trimmingWhitespace()),
              (2...16384).contains(w), (2...16384).contains(h), w % 2 == 0, h % 2 == 0 else {
            error(node.mark, "'render-size' must be WIDTHxHEIGHT, each even and from 2 to 16384 (1920x1080), not \(node.kindDescription)")
            return nil
        }
        return RenderSize(width: w, height: h)
    }

    /// `mix:` — more audio tracks, each a mapping with `segments` and an optional `volume`.
    mutating func mixInputs(_ node: Node) -> [CompositionTrack]? {
        guard case .sequence(let items, _) = node, !items.isEmpty else {
            error(node.mark, "'mix' must be a list of audio tracks (- { volume: …, segments: [ … ] }), not \(node.kindDescription)")
            return nil
        }
        var tracks: [CompositionTrack] = [], ok = true
        for (i, item) in items.enumerated() {
            guard case .mapping = item else {
                error(item.mark, "mix input \(i + 1) must be a mapping with 'segments' (and 'volume'), not \(item.kindDescription)")
                ok = false; continue
            }
            if let t = compositionTrack(.audio, item, layer: i + 1) { tracks.append(t) } else { ok = false }
        }
        return ok ? tracks : nil
    }

    /// Volumes go from silence (0, or -120dB) to 16 (+24 dB) of gain.
    static let volumeRange = 0.0...16.0

    /// A level: `0.5`, `2`, `-6dB`, `+3 dB`. Linear, within `range`.
    mutating func level(_ node: Node, _ key: String, range: ClosedRange<Double>) -> Double? {
        let s = node.scalar?.trimmingWhitespace() ?? ""
        var value: Double?
        if s.lowercased().hasSuffix("db") {
            let number = s.dropLast(2).trimmingWhitespace()
            if number.looksLikeNumber, let db = Double(number), db.isFinite, db >= -120, db <= 24 {
                value = db <= -120 ? 0 : pow(10, db / 20)
            }
        } else if s.looksLikeNumber, let v = Double(s), v.isFinite {
            value = v
        }
        guard node.scalar != nil, let v = value, range.contains(v) else {
            let db = range.upperBound > 1 ? ", or decibels from -120dB to +24dB" : ""
            error(node.mark, "'\(key)' must be a number from \(Self.formatted(range.lowerBound)) to \(Self.formatted(range.upperBound))\(db), not \(node.kindDescription)")
            return nil
        }
        return v
    }

    private static func formatted(_ v: Double) -> String { v == v.rounded() ? String(Int(v)) : String(v) }

    /// A value over the timeline: one level, or a list of ramps
    /// (`- { start: 0s, end: 1s, from: 0, to: 1, curve: linear }`), in order, none overlapping.
    mutating func keyframes(_ node: Node, _ key: String, range: ClosedRange<Double>) -> Keyframes? {
        guard case .sequence(let items, _) = node else {
            return level(node, key, range: range).map { Keyframes(constant: $0, mark: node.mark) }
        }
        guard !items.isEmpty else {
            error(node.mark, "'\(key)' has no ramps: give a level, or list ramps (- { start: …, end: …, from: …, to: … })")
            return nil
        }
        var ramps: [Ramp] = [], ok = true
        for (i, item) in items.enumerated() {
            let what = "ramp \(i + 1) of '\(key)'"
            guard let pairs = mapping(item, what, keys: RecipeParser.rampKeys) else { ok = false; continue }
            var start: MediaTime?, end: MediaTime?, duration: MediaTime?, from: Double?, to: Double?, curve = RampCurve.linear
            var marks: [String: Mark] = [:], good = true
            for (k, value, keyMark) in pairs {
                marks[k] = value.mark
                switch k {
                case "start", "end", "duration":
                    guard let t = time(value, k) else { good = false; continue }
                    if k == "start" { start = t } else if k == "end" { end = t } else { duration = t }
                    _ = keyMark
                case "from", "to":
                    guard let v = level(value, k, range: range) else { good = false; continue }
                    if k == "from" { from = v } else { to = v }
                case "curve":
                    guard let c = value.scalar.flatMap(RampCurve.init(rawValue:)) else {
                        error(value.mark, "'curve' must be one of linear, equal-power, ease-in-out, not \(value.kindDescription)"
                              + suggestion(value.scalar ?? "", among: RampCurve.allCases.map(\.rawValue)))
                        good = false; continue
                    }
                    curve = c
                default: break
                }
            }
            guard good else { ok = false; continue }
            if let e = marks["end"], let d = marks["duration"] {
                error(max(e, d), "\(what) takes 'end' or 'duration', not both"); ok = false; continue
            }
            let missing = ["start", "from", "to"].filter { marks[$0] == nil } + (marks["end"] == nil && marks["duration"] == nil ? ["end"] : [])
            if !missing.isEmpty {
                error(item.mark, "\(what) needs " + missing.map { "'\($0)'" }.joined(separator: ", ")); ok = false; continue
            }
            guard let s = start, let a = from, let b = to else { ok = false; continue }
            let e = end ?? (s + (duration ?? .zero))
            guard e > s else {
                error(marks["end"] ?? marks["duration"] ?? item.mark, "\(what) must end after it starts (\(s.secondsDescription))"); ok = false; continue
            }
            if let last = ramps.last, s < last.end {
                error(marks["start"] ?? item.mark, "\(what) starts at \(s.secondsDescription), before ramp \(i) ends (\(last.end.secondsDescription)): ramps are listed in order and never overlap")
                ok = false; continue
            }
            ramps.append(Ramp(start: s, end: e, from: a, to: b, curve: curve, mark: item.mark))
        }
        return ok ? Keyframes(ramps: ramps, mark: node.mark) : nil
    }

    mutating func slowMotionValue(_ node: Node) -> SlowMotion? {
        if let s = node.scalar, let v = SlowMotion(rawValue: s) { return v }
        error(node.mark, "'slow-motion' must be from-source or none, not \(node.kindDescription)"
              + suggestion(node.scalar ?? "", among: SlowMotion.allCases.map(\.rawValue)))
        return nil
    }

    mutating func audioStretchValue(_ node: Node) -> AudioStretch? {
        if let s = node.scalar, let v = AudioStretch(rawValue: s) { return v }
        error(node.mark, "'audio-stretch' must be one of spectral, time-domain, varispeed, mute, not \(node.kindDescription)"
              + suggestion(node.scalar ?? "", among: AudioStretch.allCases.map(\.rawValue)))
        return nil
    }

    /// One segment; nil when it has errors (each reported).
    mutating func segment(_ kind: TrackReference.Kind, _ number: Int, _ node: Node, layer: Int = 0) -> Segment? {
        let what = "segment \(number) of " + (layer == 0 ? "the \(kind.rawValue) track" : kind == .video ? "layer \(layer)" : "mix input \(layer)")
        guard let pairs = mapping(node, what, keys: RecipeParser.segmentKeys) else { return nil }
        var source: Located<String>?, track: Located<TrackReference>?
        var start: Located<MediaTime>?, end: Located<MediaTime>?, duration: Located<MediaTime>?, at: Located<MediaTime>?
        var speed: Located<SegmentSpeed>?, target: Located<MediaTime>?
        var slowMotion: Located<SlowMotion>?, audioStretch: Located<AudioStretch>?
        var transition: Transition?
        var keyMarks: [String: Mark] = [:]
        var ok = true
        for (key, value, keyMark) in pairs {
            keyMarks[key] = keyMark
            switch key {
            case "transition":
                guard kind == .video, layer == 0 else {
                    error(keyMark, "\(what) takes no 'transition': transitions join the segments of the video track"); ok = false; continue
                }
                guard number > 1 else {
                    error(keyMark, "\(what) takes no 'transition': a transition joins a segment to the one before it"); ok = false; continue
                }
                guard let t = transitionValue(value) else { ok = false; continue }
                transition = t
            case "source":
                guard let s = string(value, key) else { ok = false; continue }
                if s.isEmpty { error(value.mark, "'source' must name a source"); ok = false; continue }
                source = Located(s, value.mark)
            case "track":
                guard let s = value.scalar, let t = Self.trackReference(s) else {
                    error(value.mark, "'track' must be \(kind.rawValue), \(kind.rawValue):N or \"#N\" (a stream index), not \(value.kindDescription)")
                    ok = false; continue
                }
                if case .kind(let k, _) = t, k != kind {
                    error(value.mark, "\(what) takes \(kind == .audio ? "an" : "a") \(kind.rawValue) track, not '\(s)'")
                    ok = false; continue
                }
                track = Located(t, value.mark)
            case "start", "end", "duration", "at", "target-duration":
                guard let t = time(value, key) else { ok = false; continue }
                if (key == "duration" || key == "target-duration") && t == .zero {
                    error(value.mark, "'\(key)' must be longer than 0"); ok = false; continue
                }
                let located = Located(t, value.mark)
                switch key {
                case "start": start = located
                case "end": end = located
                case "duration": duration = located
                case "at": at = located
                default: target = located
                }
            case "speed":
                guard let s = segmentSpeed(value) else { ok = false; continue }
                speed = Located(s, value.mark)
            case "slow-motion":
                guard let v = slowMotionValue(value) else { ok = false; continue }
                slowMotion = Located(v, value.mark)
            case "audio-stretch":
                guard let v = audioStretchValue(value) else { ok = false; continue }
                audioStretch = Located(v, value.mark)
            default: break
            }
        }
        /// The later of two keys that exclude each other, where the second one was written.
        func later(_ a: String, _ b: String) -> Mark? {
            guard let x = keyMarks[a], let y = keyMarks[b] else { return nil }
            return max(x, y)
        }
        if let m = later("end", "duration") {
            error(m, "\(what) takes 'end' or 'duration', not both"); ok = false
        }
        if let m = later("speed", "target-duration") {
            error(m, "\(what) takes 'speed' or 'target-duration', not both"); ok = false
        }
        if slowMotion?.value == .fromSource {
            for other in ["speed", "target-duration"] {
                if let m = later("slow-motion", other) {
                    error(m, "\(what) plays the source's own slow motion ('slow-motion: from-source'), so it takes no '\(other)'"); ok = false
                }
            }
        }
        if let end, end.value <= (start?.value ?? .zero) {
            error(end.mark, "'end' (\(end.value.secondsDescription)) must be after 'start' (\((start?.value ?? .zero).secondsDescription))"); ok = false
        }
        // The speed a target duration implies, when the source range's length is known.
        if let target, let length = (duration?.value ?? end.map { $0.value - (start?.value ?? .zero) }), length > .zero {
            if target.value > length * 32 {
                error(target.mark, "'target-duration' (\(target.value.secondsDescription)) plays \(length.secondsDescription) of source slower than speed 1/32 (speeds go from 1/32 to 32)"); ok = false
            } else if length > target.value * 32 {
                error(target.mark, "'target-duration' (\(target.value.secondsDescription)) plays \(length.secondsDescription) of source faster than speed 32 (speeds go from 1/32 to 32)"); ok = false
            }
        }
        guard ok else { return nil }
        let timing: Located<SegmentTiming>? = speed.map { Located(.speed($0.value), $0.mark) } ?? target.map { Located(.targetDuration($0.value), $0.mark) }
        // An omitted source is resolved once every source is known (checkComposition).
        var made = Segment(number: number, source: source ?? Located("", node.mark), track: track, start: start, end: end,
                           duration: duration, at: at, timing: timing, slowMotion: slowMotion, audioStretch: audioStretch, mark: node.mark)
        made.transition = transition
        return made
    }

    /// `{ kind: dip, duration: 1s, color: black }`.
    mutating func transitionValue(_ node: Node) -> Transition? {
        let before = errors.count
        guard let pairs = mapping(node, "the transition", keys: RecipeParser.transitionKeys), errors.count == before else { return nil }
        var kind: Transition.Kind?, duration: MediaTime?, color = RecipeColor.black, ok = true
        for (key, value, _) in pairs {
            switch key {
            case "kind":
                guard let k = value.scalar.flatMap(Transition.Kind.init(rawValue:)) else {
                    error(value.mark, "'kind' must be dip or cross-fade, not \(value.kindDescription)"
                          + suggestion(value.scalar ?? "", among: Transition.Kind.allCases.map(\.rawValue)))
                    ok = false; continue
                }
                kind = k
            case "duration":
                guard let t = time(value, key) else { ok = false; continue }
                if t == .zero { error(value.mark, "'duration' must be longer than 0"); ok = false; continue }
                duration = t
            case "color":
                guard let c = value.scalar.flatMap(RecipeColor.init) else {
                    error(value.mark, "'color' must be black, white or \"#RRGGBB\" (quoted), not \(value.kindDescription)"); ok = false; continue
                }
                color = c
            default: break
            }
        }
        guard ok else { return nil }
        let missing = [kind == nil ? "'kind'" : nil, duration == nil ? "'duration'" : nil].compactMap { $0 }
        guard missing.isEmpty, let kind, let duration else {
            error(node.mark, "the transition needs " + missing.joined(separator: " and ")); return nil
        }
        return Transition(kind: kind, duration: duration, color: color, mark: node.mark)
    }

    /// `2`, `0.125`, `1/8`, `1000/1001`: an exact rational from 1/32 to 32.
    mutating func segmentSpeed(_ node: Node) -> SegmentSpeed? {
        let s = node.scalar?.trimmingWhitespace() ?? ""
        // Shaped like a number, whatever its size (`2s` is a time, not a speed).
        let numeric = node.scalar != nil && !s.hasSuffix("s") && s.looksLikeNumber
        var terms: (Int64, Int64)?
        if s.contains("/") {
            let parts = s.split(separator: "/", omittingEmptySubsequences: false)
            if parts.count == 2, let n = Int64(parts[0]), let d = Int64(parts[1]) { terms = (n, d) }
        } else if node.scalar != nil, !s.hasSuffix("s"), let t = TimeParsing.decimal(s, scale: 1) {
            terms = (t.value, Int64(t.timescale))
        }
        guard node.scalar != nil, numeric || terms != nil else {
            error(node.mark, "'speed' must be a number (2, 0.125) or a fraction (1/8), not \(node.kindDescription)")
            return nil
        }
        guard let terms, let speed = SegmentSpeed(numerator: terms.0, denominator: terms.1),
              speed >= .slowest, speed <= .fastest else {
            error(node.mark, "'speed' must be from 1/32 to 32, not \(node.kindDescription)")
            return nil
        }
        guard speed.numerator <= SegmentSpeed.maxTerm, speed.denominator <= SegmentSpeed.maxTerm else {
            error(node.mark, "'speed' must be a fraction whose terms are at most \(SegmentSpeed.maxTerm) once reduced, or a decimal of at most 6 places, not \(node.kindDescription)")
            return nil
        }
        return speed
    }

    // MARK: Cross-references

    /// Sources named and used, placements, and what the reader reads — once the whole recipe is read.
    mutating func checkComposition() {
        guard let composition = recipe.composition else {
            if let sourcesMark { error(sourcesMark, "'sources' are read by a composition: add 'composition:' with segments that use them") }
            return
        }
        if let tr = recipe.timeRange {
            error(tr.mark, "'time-range' cuts the one input; in a composition each segment has its own range ('start', 'end' or 'duration')")
        }
        if sourcesMark == nil {
            let mark = composition.video?.mark ?? composition.explicitAudio?.mark ?? composition.mark
            recipe.sources = [SourceSpec(name: SourceSpec.implicitName, path: .input, mark: mark, pathMark: mark, isImplicit: true)]
        }
        var used = Set<String>()
        let video = composition.video.map { resolveSources($0, &used) }
        let audio = composition.explicitAudio.map { resolveSources($0, &used) }
        let mix = composition.mix.map { resolveSources($0, &used) }
        let layers = composition.layers.map { resolveSources($0, &used) }
        var resolved = Composition(video: video, explicitAudio: audio, slowMotion: composition.slowMotion,
                                   audioStretch: composition.audioStretch, mix: mix, limit: composition.limit, mark: composition.mark)
        resolved.fadeIn = composition.fadeIn
        resolved.fadeOut = composition.fadeOut
        resolved.layers = layers
        resolved.renderSize = composition.renderSize
        resolved.background = composition.background
        resolved.layerLimit = composition.layerLimit
        if let first = layers.first, video == nil {
            error(first.mark, "'layers' are drawn over the composition's video track: give it a 'video:' list of segments")
        }
        recipe.composition = resolved
        if let limit = composition.limit, mix.isEmpty {
            warn(limit.mark, "'limit' has no effect: the composition mixes nothing (list 'mix:' inputs)")
        }
        for track in [video, audio].compactMap({ $0 }) + layers + mix {
            checkPlacements(track, in: resolved)
            for segment in track.segments { checkAudioStretch(segment, of: track, in: resolved) }
        }
        for source in recipe.sources where !source.isImplicit && !used.contains(source.name) {
            warn(source.mark, "source '\(source.name)' is not used by any segment")
        }
        if sourcesMark != nil, let input = recipe.source, !recipe.sources.contains(where: { $0.path == .input }) {
            warn(input.mark, "'source' is not read: no entry of 'sources' is \"{input}\"")
        }
        checkReaderOutputs(resolved)
    }

    mutating func warn(_ mark: Mark, _ message: String) {
        warnings.append(recipe.diagnostic(mark, message, severity: .warning))
    }

    /// The track with every segment's source named (an omitted one is the only source); unknown
    /// names are errors.
    mutating func resolveSources(_ track: CompositionTrack, _ used: inout Set<String>) -> CompositionTrack {
        var segments: [Segment] = []
        segments.reserveCapacity(track.segments.count)
        let names = recipe.sources.map(\.name)
        for var segment in track.segments {
            let what = "segment \(segment.number) of \(track.named)"
            if full { truncated = true; break }
            if segment.source.value.isEmpty {
                if recipe.sources.count == 1 {
                    segment.source = Located(names[0], segment.mark)
                } else {
                    let list = names.count <= 10 ? names.joined(separator: ", ") : names.prefix(10).joined(separator: ", ") + ", …"
                    error(segment.mark, "\(what) needs a 'source': one of \(list)")
                }
            } else if recipe.source(named: segment.source.value) == nil {
                let name = segment.source.value
                let hint = sourcesMark == nil ? " (without 'sources:' the one source is '\(SourceSpec.implicitName)', the input file)" : suggestion(name, among: names)
                error(segment.source.mark, "\(what) reads '\(name)', which is not a source" + hint)
            }
            used.insert(segment.source.value)
            segments.append(segment)
        }
        return track.with(segments: segments)
    }

    /// Segments of one track never overlap. Checked where the recipe alone places them: a
    /// segment after one that runs to its source's end (or plays the source's slow motion) is
    /// placed when the source is known, and checked then. Such a segment itself, when its start
    /// is known, is sure to cover its start: a start inside it is not (it may be short).
    mutating func checkPlacements(_ track: CompositionTrack, in composition: Composition) {
        struct Placed { let start: MediaTime; let end: MediaTime; let open: Bool; let segment: Segment }
        var cursor: MediaTime? = .zero
        var placed: [Placed] = []
        for segment in track.segments {
            guard let start = segment.at?.value ?? cursor else { continue }
            guard let length = segment.staticTargetDuration(slowMotion: composition.slowMotion(for: segment)) else {
                placed.append(Placed(start: start, end: start, open: true, segment: segment))
                cursor = nil
                continue
            }
            let end = start + length
            if end > RecipeParser.maxTime {
                error(segment.at?.mark ?? segment.mark, "segment \(segment.number) of \(track.named) ends at \(end.secondsDescription) on the timeline, past 10000 hours")
                return
            }
            placed.append(Placed(start: start, end: end, open: false, segment: segment))
            cursor = end
        }
        func span(_ p: Placed) -> String {
            p.open ? "from \(p.start.secondsDescription)" : "\(p.start.secondsDescription) to \(p.end.secondsDescription)"
        }
        // By start; the segment reaching furthest so far is the one a later start may fall inside.
        let sorted = placed.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }.map(\.element)
        var furthest: Placed?
        for p in sorted {
            if let f = furthest, p.start < f.end || (f.open && p.start == f.start) {
                let (later, earlier) = p.segment.number > f.segment.number ? (p, f) : (f, p)
                error(later.segment.at?.mark ?? later.segment.mark,
                      "segment \(later.segment.number) of \(track.named) (\(span(later)) on the timeline) overlaps segment \(earlier.segment.number) (\(span(earlier))): segments of one track never overlap")
            }
            if furthest == nil || p.end > furthest!.end { furthest = p }
        }
    }

    /// `audio-stretch` where nothing is stretched is said (a warning), not refused.
    mutating func checkAudioStretch(_ segment: Segment, of track: CompositionTrack, in composition: Composition) {
        guard let stretch = segment.audioStretch else { return }
        let what = "segment \(segment.number) of \(track.named)"
        if track.kind == .video && track.layer > 0 {
            warn(stretch.mark, "'audio-stretch' has no effect on \(what): a layer's sound is not played (put its file's sound in 'mix:' to hear it)")
            return
        }
        if track.kind == .video && composition.explicitAudio != nil {
            warn(stretch.mark, "'audio-stretch' has no effect on \(what): the composition's audio track lists its own segments")
            return
        }
        let unscaled: Bool
        switch segment.timing?.value {
        case .speed(let s)?: unscaled = s.isNormal
        case .targetDuration(let d)?: unscaled = segment.sourceRange.duration == d
        case nil: unscaled = composition.slowMotion(for: segment) == .none
        }
        if unscaled { warn(stretch.mark, "'audio-stretch' has no effect: \(what) plays at speed 1") }
    }

    /// With a composition, reader outputs read its tracks, decoded.
    mutating func checkReaderOutputs(_ composition: Composition) {
        var kinds: [TrackReference.Kind] = []
        for k in composition.tracks.map(\.kind) where !kinds.contains(k) { kinds.append(k) }
        let names = kinds.map { "'\($0.rawValue)'" }.joined(separator: " and ")
        var read = Set<String>()
        for out in recipe.readerOutputs {
            if full { truncated = true; return }
            guard case .kind(let kind, 0) = out.track, kind != .subtitle else {
                error(out.mark, "reader output '\(out.name)' reads the composition, whose tracks are \(names), not '\(out.track)'")
                continue
            }
            if !kinds.contains(kind) {
                error(out.mark, "reader output '\(out.name)' reads the composition's \(kind.rawValue) track, but the composition has none")
                continue
            }
            read.insert(kind.rawValue)
        }
        for track in composition.writtenTracks where !read.contains(track.kind.rawValue) {
            warn(track.mark, "the composition's \(track.title) is not read by any reader output")
        }
    }
}
