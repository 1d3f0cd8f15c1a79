/// Reads a recipe (format version 1) from YAML text. Every error found is reported, each at its
/// line and column; a recipe comes back only when there are none.
public enum RecipeParser {
    public static func parse(_ text: String, file: String) -> Result<Recipe, RecipeErrors> {
        let root: Node
        switch YAMLParser.parse(text, file: file) {
        case .failure(let d): return .failure(RecipeErrors([d]))
        case .success(let n): root = n
        }
        var p = Parser(recipe: Recipe(file: file, lines: text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)))
        p.parseRoot(root)
        if p.errors.isEmpty { p.checkReferences() }
        if !p.errors.isEmpty {
            var sorted = p.errors.sorted { ($0.mark ?? Mark(line: 0, column: 0)) < ($1.mark ?? Mark(line: 0, column: 0)) }
            if p.truncated {
                sorted.append(Diagnostic(file: file, mark: nil, message: "too many errors: only the first \(maxErrors) are shown", sourceLine: nil))
            }
            return .failure(RecipeErrors(sorted))
        }
        var recipe = p.recipe
        recipe.warnings = p.warnings.sorted { ($0.mark ?? Mark(line: 0, column: 0)) < ($1.mark ?? Mark(line: 0, column: 0)) }
        return .success(recipe)
    }

    static let rootKeys = ["recipe", "name", "summary", "source", "sources", "output", "outputs", "presets", "reader", "writer", "session", "composition", "parallel"]
    static let outputKeys = ["path", "format", "optimize-for-network", "overwrite", "metadata", "fragment"] + outputLimitKeys
    static let readerOutputKeys = ["track", "optional", "decode"]
    static let writerInputKeys = ["source", "settings"]
    static let sessionKeys = ["time-range", "selective-decode"]
    static let timeRangeKeys = ["start", "duration", "end"]
    static let presetKeys = ["base"] + SettingKey.names(.both) + SettingKey.names(.video) + SettingKey.names(.audio)

    /// The most diagnostics one recipe gets; a generated recipe with 100,000 mistakes gets these
    /// and a note, in well under a second, instead of 100,000 messages.
    public static let maxErrors = 100

    // Limits on the numbers a recipe may state (docs/recipes.md, "Limits"). They are chosen so
    // that no later computation can overflow: a time of at most 10,000 hours is < 2^26 seconds,
    // so even in a time base of 1/2^31 (finer than any FFmpeg uses) start + duration stays below
    // 2^58 ticks; frame rates and GOPs fit the encoders' 32-bit fields.

    /// The latest time a recipe may name: 10,000 hours.
    public static let maxTime = MediaTime(seconds: 10_000 * 3600)
    public static let maxTimeDescription = "0 to 10000 hours (36000000s)"
    public static let frameRates = FrameRate(frames: 1)...FrameRate(frames: 1000)
    public static let gopFrames = 1...100_000
    public static let maxGOPDuration = MediaTime(seconds: 3600)
    public static let bitrates: ClosedRange<Int64> = 1000...1_000_000_000
    /// The longest fragment of a fragmented MP4 (`fragment`): players buffer one whole.
    public static let maxFragment = MediaTime(seconds: 60)
    public static let maxFragmentDescription = "60s"
}

extension String {
    /// Digits only (a whole number too large to parse is still a number, for range messages).
    var isUnsignedNumber: Bool { !isEmpty && allSatisfy(\.isASCIIDigit) }

    /// `-12`, `3.5`, `250ms`, `2s`, `7/3`: text shaped like a number or a time, whatever its size.
    var looksLikeNumber: Bool {
        var t = Substring(self)
        var unit = true
        if t.hasSuffix("ms") { t = t.dropLast(2) } else if t.hasSuffix("s") { t = t.dropLast() } else { unit = false }
        if t.first == "-" { t = t.dropFirst() }
        let fraction = !unit && t.contains("/")  // `7/3` is a time; `7/3s` is not
        let parts = t.split(separator: fraction ? "/" : ".", omittingEmptySubsequences: false)
        return parts.count <= 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }
    }
}

/// The state of one parse (the composition part is in CompositionParser.swift).
struct Parser {
    var recipe: Recipe
    var errors: [Diagnostic] = []
    /// More errors were found than are kept (`RecipeParser.maxErrors`).
    var truncated = false
    var full: Bool { errors.count >= RecipeParser.maxErrors }
    /// Where `sources:` was written, when it was.
    var sourcesMark: Mark?
    /// What has no effect but is allowed (`Recipe.warnings`).
    var warnings: [Diagnostic] = []

    /// Records an error; past the limit the message (and its suggestion) is not even built.
    mutating func error(_ mark: Mark, _ message: @autoclosure () -> String) {
        if full { truncated = true; return }
        errors.append(recipe.diagnostic(mark, message()))
    }

    mutating func add(_ d: @autoclosure () -> Diagnostic) {
        if full { truncated = true; return }
        errors.append(d())
    }

    /// The pairs of a mapping node, with unknown keys reported; nil when it is not a mapping.
    mutating func mapping(_ node: Node, _ what: String, keys: [String]) -> [(String, Node, Mark)]? {
        guard case .mapping(let pairs, _) = node else {
            error(node.mark, "\(what) must be a mapping of keys to values, not \(node.kindDescription)")
            return nil
        }
        var out: [(String, Node, Mark)] = []
        for (k, v) in pairs {
            let key = k.scalar ?? ""
            if !keys.contains(key) {
                error(k.mark, "unknown key '\(key)' in \(what)" + suggestion(key, among: keys))
                continue
            }
            out.append((key, v, k.mark))
        }
        return out
    }

    mutating func string(_ node: Node, _ key: String) -> String? {
        guard let s = node.scalar else { error(node.mark, "'\(key)' must be text, not \(node.kindDescription)"); return nil }
        return s
    }

    mutating func bool(_ node: Node, _ key: String) -> Bool? {
        switch node.scalar {
        case "true": return true
        case "false": return false
        default: error(node.mark, "'\(key)' must be true or false, not \(node.kindDescription)"); return nil
        }
    }

    mutating func integer(_ node: Node, _ key: String, range: ClosedRange<Int>, unit: String = "") -> Int? {
        guard let s = node.scalar, let v = Int(s), range.contains(v) else {
            error(node.mark, "'\(key)' must be a whole number from \(range.lowerBound) to \(range.upperBound)\(unit), not \(node.kindDescription)")
            return nil
        }
        return v
    }

    mutating func time(_ node: Node, _ key: String) -> MediaTime? {
        let s = node.scalar?.trimmingWhitespace()
        guard let s, let t = TimeParsing.time(s), t >= .zero, t <= RecipeParser.maxTime else {
            if let s, s.looksLikeNumber || TimeParsing.time(s) != nil {
                error(node.mark, "'\(key)' must be a time from \(RecipeParser.maxTimeDescription), not \(node.kindDescription)")
            } else {
                error(node.mark, "'\(key)' must be a time like 1.5s, 250ms, 00:01:02.5 or 1001/30000, not \(node.kindDescription)")
            }
            return nil
        }
        return t
    }

    // MARK: Root

    mutating func parseRoot(_ root: Node) {
        guard let pairs = mapping(root, "the recipe", keys: RecipeParser.rootKeys) else { return }
        let present = Set(pairs.map(\.0))
        if !present.contains("recipe") {
            error(root.mark, "missing 'recipe: 1' (the recipe format version) at the top")
        }
        if !present.contains("writer") && !present.contains("outputs") {
            error(root.mark, "missing 'writer:' (the output tracks)")
        }
        // Presets first: writer inputs may refer to them.
        for (key, value, _) in pairs where key == "presets" { parsePresets(value) }
        for (key, value, keyMark) in pairs {
            switch key {
            case "recipe":
                if let v = value.scalar, let n = Int(v) {
                    if n != 1 { error(value.mark, "unsupported recipe version \(n) (this reencode reads version 1)") }
                } else {
                    error(value.mark, "'recipe' is the format version and must be 1, not \(value.kindDescription)")
                }
            case "name": recipe.name = string(value, key)
            case "summary": recipe.summary = string(value, key)
            case "source": if let s = string(value, key) { recipe.source = Located(s, value.mark) }
            case "output": parseOutput(value)
            case "outputs": parseOutputs(value, keyMark, others: pairs.filter { ["output", "writer"].contains($0.0) })
            case "reader": parseReader(value)
            case "writer": parseWriter(value)
            case "session": parseSession(value)
            case "sources": parseSources(value, keyMark)
            case "composition": parseComposition(value, keyMark)
            case "parallel": parseParallel(value)
            default: break
            }
        }
    }

    mutating func parseOutput(_ node: Node) {
        if let s = node.scalar, !s.isEmpty {  // `output: out/{stem}.mp4` shorthand
            recipe.output.path = Located(s, node.mark)
            checkTokens(s, node.mark)
            return
        }
        guard let pairs = mapping(node, "output", keys: RecipeParser.outputKeys) else { return }
        recipe.output = parseOutputSpec(pairs)
    }

    /// An output's keys (`output:`, or an entry of `outputs:` but its `inputs`).
    /// `stillTokens`: an image output's path, which may also hold a still's `{n}` and `{time}`.
    mutating func parseOutputSpec(_ pairs: [(String, Node, Mark)], stillTokens: Bool = false) -> OutputSpec {
        var spec = OutputSpec()
        for (key, value, _) in pairs {
            switch key {
            case "path":
                if let s = string(value, key) { spec.path = Located(s, value.mark); checkTokens(s, value.mark, stillTokens: stillTokens) }
            case "format":
                if let s = string(value, key) {
                    if let f = ContainerFormat(rawValue: s.lowercased()) { spec.format = Located(f, value.mark) }
                    else { error(value.mark, "output format '\(s)' is not one of \(ContainerFormat.allCases.map(\.rawValue).joined(separator: ", "))") }
                }
            case "optimize-for-network": if let b = bool(value, key) { spec.optimizeForNetwork = b }
            case "overwrite": if let b = bool(value, key) { spec.overwrite = b }
            case "metadata": spec.metadata = parseMetadata(value)
            case "fragment":
                guard let t = time(value, key) else { continue }
                // Under one frame is refused where the frame rate is known (the plan).
                guard t > .zero, t <= RecipeParser.maxFragment else {
                    error(value.mark, "'fragment' must be longer than 0 and at most \(RecipeParser.maxFragmentDescription), not \(value.kindDescription)")
                    continue
                }
                spec.fragment = Located(t, value.mark)
            default: _ = parseOutputLimit(key, value, into: &spec.limits)
            }
        }
        // The limit's cut rewrites the finished file, and that rewrite writes no fragments.
        if spec.fragment != nil, let limit = spec.limits.fileLength {
            error(limit.mark, "'file-length-limit' and 'fragment' cannot be used together yet: leave out one of them")
        }
        return spec
    }

    /// `outputs:` — a list of files written from one read, each with its own `path` and
    /// `inputs` (its writer inputs); instead of `output:` and `writer:`, which `others` holds.
    mutating func parseOutputs(_ node: Node, _ keyMark: Mark, others: [(String, Node, Mark)]) {
        for (key, _, mark) in others {
            error(mark, key == "writer" ? "with 'outputs', each output lists its own 'inputs': 'writer' has no place"
                                        : "'output' and 'outputs' cannot both be given: name each file's 'path' in 'outputs'")
        }
        guard case .sequence(let items, _) = node else {
            error(node.mark, "'outputs' must be a list of outputs (- { path: …, inputs: [ … ] }), not \(node.kindDescription)")
            return
        }
        guard !items.isEmpty else { error(node.mark, "'outputs' lists no output: add at least one (- { path: …, inputs: [ … ] })"); return }
        recipe.outputsMark = keyMark
        var paths: [String: Int] = [:]
        for (k, item) in items.enumerated() {
            let what = "output \(k + 1)"
            if let format = Self.packageFormat(item) { parsePackage(item, k, format: format, paths: &paths); continue }
            guard let pairs = mapping(item, what, keys: RecipeParser.outputKeys + ["inputs", "images"]) else { continue }
            let images = pairs.first { $0.0 == "images" }
            let spec = parseOutputSpec(pairs.filter { $0.0 != "inputs" && $0.0 != "images" }, stillTokens: images != nil)
            guard let path = spec.path else { error(item.mark, "\(what) needs a 'path' (each output of 'outputs' is a file of its own)"); continue }
            if let first = paths[path.value] {
                error(path.mark, "\(what) has the same path as output \(first) ('\(path.value)'): each output is a file of its own")
            } else {
                paths[path.value] = k + 1
            }
            if let images {
                if let m = spec.metadata { error(m.mark, "\(what) writes still images, which hold no 'metadata'") }
                if let f = spec.fragment { error(f.mark, "'fragment' is for a media file: \(what) writes still images") }
                if let still = parseImageOutput(images.1, what: what, path: path, entry: pairs) {
                    recipe.outputs.append(RecipeOutput(number: k + 1, spec: spec, writerInputs: [], mark: item.mark, images: still))
                }
                continue
            }
            guard let inputs = pairs.first(where: { $0.0 == "inputs" })?.1 else {
                error(item.mark, "\(what) needs 'inputs' (its tracks: - { source: …, settings: … })")
                continue
            }
            recipe.outputs.append(RecipeOutput(number: k + 1, spec: spec, writerInputs: parseWriterInputs(inputs), mark: item.mark))
        }
    }

    mutating func checkTokens(_ path: String, _ mark: Mark, stillTokens: Bool = false) {
        let tokens = ["stem", "ext", "dir", "name"] + (stillTokens ? ["n", "time"] : [])
        var rest = Substring(path)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else {
                error(mark, "'path' has a '{' without '}'")
                return
            }
            let token = String(rest[rest.index(after: open)..<close])
            if !tokens.contains(token) {
                error(mark, "'path' has an unknown token {\(token)} (tokens: \(tokens.map { "{\($0)}" }.joined(separator: " ")))")
            }
            rest = rest[rest.index(after: close)...]
        }
    }

    // MARK: Reader and writer

    mutating func parseReader(_ node: Node) {
        guard let pairs = mapping(node, "reader", keys: ["outputs"]) else { return }
        for (_, value, _) in pairs {
            guard case .mapping(let outputs, _) = value else {
                error(value.mark, "'outputs' must be a mapping of names to reader outputs, not \(value.kindDescription)")
                continue
            }
            var parsed = recipe.readerOutputs  // assigned once: the recipe indexes them by name
            for (k, v) in outputs {
                guard let name = k.scalar, !name.isEmpty else { error(k.mark, "a reader output needs a name"); continue }
                if let out = parseReaderOutput(name, v, k.mark) { parsed.append(out) }
            }
            recipe.readerOutputs = parsed
        }
    }

    mutating func parseReaderOutput(_ name: String, _ node: Node, _ mark: Mark) -> ReaderOutput? {
        guard let pairs = mapping(node, "reader output '\(name)'", keys: RecipeParser.readerOutputKeys) else { return nil }
        var track: TrackReference?
        var optional = false, decode = true
        for (key, value, _) in pairs {
            switch key {
            case "track":
                guard let s = value.scalar, let t = Self.trackReference(s) else {
                    error(value.mark, "'track' must be video, audio, subtitle, video:N, audio:N, subtitle:N or \"#N\" (a stream index), not \(value.kindDescription)")
                    continue
                }
                track = t
            case "optional": optional = bool(value, key) ?? optional
            case "decode": decode = bool(value, key) ?? decode
            default: break
            }
        }
        guard let track else {
            if !pairs.contains(where: { $0.0 == "track" }) { error(mark, "reader output '\(name)' needs a 'track' (video, audio, subtitle, video:N, audio:N, subtitle:N or \"#N\")") }
            return nil
        }
        return ReaderOutput(name: name, track: track, optional: optional, decode: decode, mark: mark)
    }

    static func trackReference(_ s: String) -> TrackReference? {
        if s.hasPrefix("#") { return Int(s.dropFirst()).flatMap { $0 >= 0 ? .index($0) : nil } }
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard let kind = TrackReference.Kind(rawValue: String(parts[0])) else { return nil }
        if parts.count == 1 { return .kind(kind, 0) }
        guard parts.count == 2, let n = Int(parts[1]), n >= 0 else { return nil }
        return .kind(kind, n)
    }

    mutating func parseWriter(_ node: Node) {
        guard let pairs = mapping(node, "writer", keys: ["inputs"]) else { return }
        for (_, value, _) in pairs { recipe.writerInputs += parseWriterInputs(value) }
    }

    /// A list of writer inputs (`writer: inputs:`, or an output's `inputs:`).
    mutating func parseWriterInputs(_ node: Node) -> [WriterInput] {
        guard case .sequence(let items, _) = node else {
            error(node.mark, "'inputs' must be a list of writer inputs (- { source: …, settings: … }), not \(node.kindDescription)")
            return []
        }
        return items.enumerated().compactMap { i, item in parseWriterInput(i + 1, item) }
    }

    mutating func parseWriterInput(_ number: Int, _ node: Node) -> WriterInput? {
        guard let pairs = mapping(node, "writer input \(number)", keys: RecipeParser.writerInputKeys) else { return nil }
        var source: Located<String>?
        var settings = SettingsReference.none
        for (key, value, _) in pairs {
            switch key {
            case "source": if let s = string(value, key) { source = Located(s, value.mark) }
            case "settings":
                if let s = value.scalar { settings = .preset(Located(s, value.mark)) }
                else if let p = parsePreset(name: "writer input \(number)", value, inline: true) { settings = .inline(p) }
            default: break
            }
        }
        guard let source else {
            error(node.mark, "writer input \(number) needs a 'source' (the name of a reader output)")
            return nil
        }
        return WriterInput(number: number, source: source, settings: settings, mark: node.mark)
    }

    // MARK: Presets

    mutating func parsePresets(_ node: Node) {
        guard case .mapping(let pairs, _) = node else {
            error(node.mark, "'presets' must be a mapping of names to settings, not \(node.kindDescription)")
            return
        }
        for (k, v) in pairs {
            guard let name = k.scalar, !name.isEmpty else { error(k.mark, "a preset needs a name"); continue }
            if let p = parsePreset(name: name, v, inline: false, mark: k.mark) { recipe.presets[name] = p }
        }
    }

    mutating func parsePreset(name: String, _ node: Node, inline: Bool, mark: Mark? = nil) -> PresetDefinition? {
        let what = inline ? "the settings of \(name)" : "preset '\(name)'"
        guard let pairs = mapping(node, what, keys: RecipeParser.presetKeys) else { return nil }
        var p = PresetDefinition(name: inline ? name : name, mark: mark ?? node.mark)
        for (key, value, keyMark) in pairs {
            p.keyMarks.append((key, keyMark))
            if key == "base" {
                if let s = string(value, key) { p.base = Located(s, value.mark) }
                continue
            }
            guard let setting = SettingKey(rawValue: key) else { continue }  // `mapping` said why
            if setting.kind == .video { p.videoOnlyKeys.append((key, keyMark)) }
            if setting.kind == .audio { p.audioOnlyKeys.append((key, keyMark)) }
            switch setting {
            case .codec:
                guard let s = value.scalar?.lowercased() else { _ = string(value, key); continue }
                if let c = VideoCodec(rawValue: s) {
                    p.video.codec = c
                    if c == .copy { p.audio.codec = .copy } else { p.videoOnlyKeys.append((key, keyMark)) }
                } else if let c = AudioCodec(rawValue: s) {
                    p.audio.codec = c
                    p.audioOnlyKeys.append((key, keyMark))
                } else {
                    error(value.mark, "'codec' must be one of \(recipeCodecNames.joined(separator: ", ")), not \(value.kindDescription)")
                }
            case .bitrate:
                if let b = bitrate(value, key) { p.video.bitrate = b; p.audio.bitrate = b }
            case .maxBitrate: p.video.maxBitrate = bitrate(value, key)
            case .codecOptions:
                guard case .mapping(let opts, _) = value else {
                    error(value.mark, "'codec-options' must be a mapping of encoder option names to values, not \(value.kindDescription)")
                    continue
                }
                var d: [String: String] = [:]
                for (k, v) in opts {
                    guard let ks = k.scalar, let vs = v.scalar else { error(v.mark, "codec options are plain name: value pairs"); continue }
                    d[ks] = vs
                    p.keyMarks.append(("codec-options.\(ks)", k.mark))
                }
                p.video.codecOptions = d
                p.audio.codecOptions = d
            case .width: p.video.width = integer(value, key, range: 16...16384)
            case .height: p.video.height = integer(value, key, range: 16...16384)
            case .frameRate:
                if value.scalar == "source" { p.video.frameRate = .source; continue }
                let s = value.scalar?.trimmingWhitespace()
                guard let s, let r = TimeParsing.frameRate(s), RecipeParser.frameRates.contains(r) else {
                    if let s, TimeParsing.frameRate(s) != nil || s.isUnsignedNumber {
                        error(value.mark, "'frame-rate' must be from 1 to 1000 frames per second, not \(value.kindDescription)")
                    } else {
                        error(value.mark, "'frame-rate' must be a positive number (30, 29.97), a fraction (30000/1001) or 'source', not \(value.kindDescription)")
                    }
                    continue
                }
                p.video.frameRate = .rate(r)
            case .frameRatePolicy:
                guard let s = value.scalar, let policy = FrameRatePolicy(rawValue: s) else {
                    error(value.mark, "'frame-rate-policy' must be one of cap, exact, divisor, not \(value.kindDescription)")
                    continue
                }
                p.video.frameRatePolicy = policy
            case .quality:
                let scale = VideoFamily.qualityBounds
                guard let s = value.scalar, let q = Double(s), scale.contains(q) else {
                    error(value.mark, "'quality' must be a number from \(formatNumber(scale.lowerBound)) (best) to \(formatNumber(scale.upperBound)) (smallest), not \(value.kindDescription)")
                    continue
                }
                p.video.quality = q
            case .gop:
                let s = value.scalar?.trimmingWhitespace() ?? ""
                let gopRange = "'gop' must be from \(RecipeParser.gopFrames.lowerBound) to \(RecipeParser.gopFrames.upperBound) frames or at most 3600s, not \(value.kindDescription)"
                if s.isUnsignedNumber {
                    guard let n = Int(s), RecipeParser.gopFrames.contains(n) else { error(value.mark, gopRange); continue }
                    p.video.gop = .frames(n)
                    continue
                }
                guard value.scalar != nil, s.hasSuffix("s"), let t = TimeParsing.time(s), t > .zero else {
                    // A duration too long to parse at all is out of range too, not malformed.
                    let tooLong = s.hasSuffix("s") && s.looksLikeNumber && !s.hasPrefix("-") && TimeParsing.time(s) == nil
                    error(value.mark, tooLong ? gopRange : "'gop' must be a duration like 2s or a frame count like 60, not \(value.kindDescription)")
                    continue
                }
                guard t <= RecipeParser.maxGOPDuration else { error(value.mark, gopRange); continue }
                p.video.gop = .duration(t)
            case .profile: p.video.profile = string(value, key)
            case .level: p.video.level = string(value, key)
            case .pixelFormat: p.video.pixelFormat = string(value, key)
            case .hdr:
                guard let s = value.scalar, let h = HDRSetting(rawValue: s) else {
                    error(value.mark, "'hdr' must be keep or tone-map, not \(value.kindDescription)")
                    continue
                }
                p.video.hdr = h
            case .deinterlace:
                guard let s = value.scalar, let d = DeinterlaceSetting(rawValue: s) else {
                    error(value.mark, "'deinterlace' must be auto, off or field-rate, not \(value.kindDescription)")
                    continue
                }
                p.video.deinterlace = d
            case .passes:
                guard let s = value.scalar, let n = Int(s), n == 1 || n == 2 else {
                    error(value.mark, "'passes' must be 1 or 2 (a statistics pass, then the encode), not \(value.kindDescription)")
                    continue
                }
                p.video.passes = n
            case .smart:
                guard let s = value.scalar, let mode = SmartRendering(rawValue: s) else {
                    error(value.mark, "'smart' must be auto, off or require, not \(value.kindDescription)")
                    continue
                }
                p.video.smart = mode
            case .sampleRate:
                guard let s = value.scalar, let r = Self.sampleRate(s) else {
                    error(value.mark, "'sample-rate' must be a rate in Hz from 8000 to 192000 (48000 or 48k), not \(value.kindDescription)")
                    continue
                }
                p.audio.sampleRate = r
            case .channels: p.audio.channels = integer(value, key, range: 1...8)
            case .channelLayout: p.audio.channelLayout = string(value, key)
            case .loudness: p.audio.loudness = loudness(value)
            }
        }
        if !p.videoOnlyKeys.isEmpty && !p.audioOnlyKeys.isEmpty && p.video.codec != .copy {
            let v = p.videoOnlyKeys[0], a = p.audioOnlyKeys[0]
            error(max(v.1, a.1), "\(what) mixes video settings ('\(v.0)') and audio settings ('\(a.0)'); make one preset for each")
        }
        return p
    }

    /// `128k`, `5M`, `800000`, `1.5M` → bits per second.
    mutating func bitrate(_ node: Node, _ key: String) -> Int? {
        let s = node.scalar?.trimmingWhitespace()
        guard let s, let b = Self.bitrate(s), RecipeParser.bitrates.contains(b) else {
            if let s, Self.bitrate(s) != nil || s.isUnsignedNumber {
                error(node.mark, "'\(key)' must be from 1k to 1000M bits per second, not \(node.kindDescription)")
            } else {
                error(node.mark, "'\(key)' must be a bit rate like 128k, 5M or 800000, not \(node.kindDescription)")
            }
            return nil
        }
        return Int(b)
    }

    /// `128k`, `5M`, `800000`, `1.5M` → bits per second, any size that fits; nil when not a rate.
    static func bitrate(_ s: String) -> Int64? {
        var text = s.lowercased()
        var scale = 1
        if text.hasSuffix("k") { scale = 1000; text.removeLast() } else if text.hasSuffix("m") { scale = 1_000_000; text.removeLast() }
        guard let t = TimeParsing.decimal(text, scale: 1), t.value >= 0 else { return nil }
        return WideArithmetic.checkedMulDiv(t.value, Int64(scale), Int64(t.timescale), rounding: .nearest)
    }

    static func sampleRate(_ s: String) -> Int? {
        let v: Int?
        if s.lowercased().hasSuffix("k") {
            v = TimeParsing.decimal(String(s.dropLast()), scale: 1)
                .flatMap { WideArithmetic.checkedMulDiv($0.value, 1000, Int64($0.timescale)) }.map { Int($0) }
        } else {
            v = Int(s)
        }
        guard let v, (8000...192_000).contains(v) else { return nil }
        return v
    }

    // MARK: Session

    mutating func parseSession(_ node: Node) {
        guard let pairs = mapping(node, "session", keys: RecipeParser.sessionKeys) else { return }
        for (key, value, _) in pairs {
            switch key {
            case "selective-decode": recipe.selectiveDecode = bool(value, key) ?? true
            case "time-range": parseTimeRange(value)
            default: break
            }
        }
    }

    mutating func parseTimeRange(_ node: Node) {
        guard let pairs = mapping(node, "time-range", keys: RecipeParser.timeRangeKeys) else { return }
        var start: MediaTime = .zero, duration: MediaTime?, end: MediaTime?
        var endMark: Mark?
        var ok = true
        for (key, value, keyMark) in pairs {
            guard let t = time(value, key) else { ok = false; continue }
            switch key {
            case "start": start = t
            case "duration":
                if t == .zero { error(value.mark, "'duration' must be longer than 0"); ok = false }
                duration = t
            case "end": end = t; endMark = value.mark
            default: break
            }
            _ = keyMark
        }
        if duration != nil && end != nil {
            error(node.mark, "'time-range' takes 'end' or 'duration', not both")
            ok = false
        }
        if let end, let endMark, end <= start {
            error(endMark, "'end' (\(end.secondsDescription)) must be after 'start' (\(start.secondsDescription))")
            ok = false
        }
        if ok { recipe.timeRange = TimeRangeSpec(start: start, duration: duration, end: end, mark: node.mark) }
    }

    // MARK: Cross-references

    mutating func checkReferences() {
        if recipe.outputs.isEmpty && recipe.writerInputs.isEmpty && recipe.outputsMark == nil {
            error(Mark(line: 1, column: 1), "the writer has no inputs: add at least one under writer: inputs:")
        }
        for o in recipe.outputs where o.writerInputs.isEmpty && o.images == nil {
            error(o.mark, "output \(o.number) has no inputs: add at least one under its inputs:")
        }
        // Each diagnostic once, found in constant time (a generated recipe can have thousands).
        var reported = Set(errors)
        func report(_ d: Diagnostic) { if reported.insert(d).inserted { add(d) } }
        // Each output's inputs apart: a reader output feeds one input of each output.
        let lists = recipe.outputs.isEmpty ? [recipe.writerInputs] : recipe.outputs.map(\.writerInputs)
        var used: Set<String> = []
        for inputs in lists {
            var seenNames: [String: Int] = [:]
            for input in inputs {
                if full { truncated = true; return }
                let name = input.source.value
                guard recipe.readerOutput(name) != nil else {
                    let hint = recipe.readerOutputs.count <= maxSuggestionCandidates ? suggestion(name, among: recipe.readerOutputs.map(\.name)) : ""
                    report(recipe.diagnostic(input.source.mark, "writer input \(input.number) reads '\(name)', which is not a reader output" + hint))
                    continue
                }
                if let other = seenNames[name] {
                    report(recipe.diagnostic(input.source.mark, "reader output '\(name)' feeds writer inputs \(other) and \(input.number); each reader output feeds one input"))
                }
                seenNames[name] = input.number
                used.insert(name)
                switch input.settings {
                case .preset(let p):
                    do throws(Diagnostic) { _ = try recipe.presetChain(p) } catch { report(error) }
                case .inline(let def):
                    if let base = def.base { do throws(Diagnostic) { _ = try recipe.presetChain(base) } catch { report(error) } }
                case .none:
                    break
                }
            }
        }
        for o in recipe.outputs {
            guard let images = o.images else { continue }
            if let d = imageSourceRefusal(images, output: o.number) { report(d) } else { used.insert(images.source.value) }
        }
        // In file order, so that which errors are kept past the limit does not vary between runs.
        let origin = Mark(line: 0, column: 0)
        // Chains are walked once: a walk stops at a preset whose chain length is known, and the
        // lengths along it are remembered. Only a chain in trouble (a cycle, an unknown base, too
        // long) is walked again by presetChain, which words the error.
        var length: [String: Int] = [:]
        for p in recipe.presets.values.sorted(by: { ($0.mark ?? origin) < ($1.mark ?? origin) }) {
            if full { truncated = true; return }
            guard let base = p.base, length[p.name] == nil else { continue }
            var path: [String] = [], onPath: Set<String> = []
            var below = 0, trouble = false
            var current: String? = p.name
            while let n = current {
                if let known = length[n] { below = known; break }
                if let def = recipe.presets[n] {
                    if !onPath.insert(n).inserted || path.count >= Recipe.maxPresetChain { trouble = true; break }
                    path.append(n)
                    current = def.base?.value
                } else {
                    if BuiltinPresets.named(n) != nil { below = 1 } else { trouble = true }
                    break
                }
            }
            if !trouble && below + path.count <= Recipe.maxPresetChain {
                for (i, n) in path.enumerated() { length[n] = below + path.count - i }
                continue
            }
            do throws(Diagnostic) { _ = try recipe.presetChain(Located(p.name, p.mark ?? base.mark)) } catch { report(error) }
        }
        for out in recipe.readerOutputs where !used.contains(out.name) {
            report(recipe.diagnostic(out.mark, "reader output '\(out.name)' is not used by any writer input" + (recipe.imageOutputs.isEmpty ? "" : " or images")))
        }
        for d in hdrKeepErrors() { if full { truncated = true; return }; report(d) }
        checkComposition()
    }

    /// `hdr: keep` in settings that give an 8-bit output asks for the impossible whatever the
    /// source: an error at the `hdr:` line (the settings assistant refuses it the same way).
    func hdrKeepErrors() -> [Diagnostic] {
        let inlineKeep = recipe.allWriterInputs.contains { if case .inline(let d) = $0.settings { return d.video.hdr == .keep } else { return false } }
        guard inlineKeep || recipe.presets.values.contains(where: { $0.video.hdr == .keep }) else { return [] }
        var out: [Diagnostic] = []
        for input in recipe.allWriterInputs {
            let resolved: ResolvedPreset?
            do throws(Diagnostic) { resolved = try recipe.resolvedSettings(of: input) } catch { continue }  // reported above
            guard let p = resolved else { continue }
            let (video, keys, audioCodec) = (p.video, p.videoOnlyKeys, p.audio.codec)
            // Audio settings with a stray `hdr:` are refused where the track is known.
            if video.codec == nil && audioCodec != nil { continue }
            guard video.hdr == .keep, let why = HDRSetting.keepRefusal(codec: video.codec, pixelFormat: video.pixelFormat),
                  let mark = keys.last(where: { $0.0 == "hdr" })?.1 else { continue }
            out.append(recipe.diagnostic(mark, why))
        }
        return out
    }
}
