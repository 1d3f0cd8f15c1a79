/// A value and where the recipe wrote it.
public struct Located<Value: Sendable>: Sendable {
    public let value: Value
    public let mark: Mark
    public init(_ value: Value, _ mark: Mark) { self.value = value; self.mark = mark }
}

/// Which source track a reader output takes: `video`, `audio:1`, `subtitle`, `"#3"`.
public enum TrackReference: Sendable, Hashable, CustomStringConvertible {
    public enum Kind: String, Sendable { case video, audio, subtitle }
    case kind(Kind, Int)
    case index(Int)

    public var description: String {
        switch self {
        case .kind(let k, 0): return k.rawValue
        case .kind(let k, let n): return "\(k.rawValue):\(n)"
        case .index(let i): return "#\(i)"
        }
    }
}

public struct ReaderOutput: Sendable {
    public let name: String
    public let track: TrackReference
    /// An absent optional track is left out instead of failing.
    public let optional: Bool
    /// false: compressed samples are passed through (no decode, no encode).
    public let decode: Bool
    public let mark: Mark
}

public enum SettingsReference: Sendable {
    /// No settings: everything from the settings assistant (or passthrough when not decoded).
    case none
    case preset(Located<String>)
    case inline(PresetDefinition)
}

public struct WriterInput: Sendable {
    /// 1-based, as messages count them.
    public let number: Int
    public let source: Located<String>
    public let settings: SettingsReference
    public let mark: Mark
}

public struct OutputSpec: Sendable {
    /// May hold the tokens {stem} {ext} {dir} {name} of the source path.
    public var path: Located<String>?
    public var format: Located<ContainerFormat>?
    public var optimizeForNetwork = true
    public var overwrite = false
    /// `metadata:`: what the file's metadata keeps of the source's and what the recipe sets.
    public var metadata: MetadataSpec?
    /// Where the output stops before its source's end.
    public var limits = OutputLimits()
    /// A fragmented MP4 whose fragments start every this long, each with a keyframe
    /// (`fragment: 2s`); nil: one progressive file.
    public var fragment: Located<MediaTime>?
    /// One rendition of a streaming package (`format: hls` with `renditions:`); nil: a file of its own.
    public var package: PackageRole?
}

/// One of a recipe's `outputs:`: a file of its own with its own tracks and settings, written
/// from the same read as the others.
public struct RecipeOutput: Sendable {
    /// 1-based, as messages count them.
    public let number: Int
    public var spec: OutputSpec
    public var writerInputs: [WriterInput]
    public let mark: Mark
    /// Still images instead of a media file (then `writerInputs` is empty).
    public var images: ImageOutputSpec? = nil
}

public struct TimeRangeSpec: Sendable {
    public let start: MediaTime
    /// Exactly one of duration and end, or neither (to the end of the source).
    public let duration: MediaTime?
    public let end: MediaTime?
    public let mark: Mark

    /// On the source's timeline (0 = its start); duration +infinity when open-ended.
    public var range: TimeRange {
        if let duration { return TimeRange(start: start, duration: duration) }
        if let end { return TimeRange(start: start, end: end) }
        return TimeRange(start: start, duration: .positiveInfinity)
    }
}

/// A parsed, statically checked recipe (format version 1). It knows nothing of FFmpeg: track
/// references and settings are resolved against a real source when the plan is made.
public struct Recipe: Sendable {
    public let file: String
    /// The recipe's text, line by line, for carets in later diagnostics.
    public let lines: [String]
    public var version = 1
    public var name: String?
    public var summary: String?
    public var source: Located<String>?
    public var output = OutputSpec()
    public var presets: [String: PresetDefinition] = [:]
    public var readerOutputs: [ReaderOutput] = [] {
        didSet { readerOutputIndex = Dictionary(readerOutputs.enumerated().map { ($1.name, $0) }) { first, _ in first } }
    }
    /// Name → position in `readerOutputs`, so that looking up every writer input's source stays
    /// linear in a recipe with thousands of them.
    private var readerOutputIndex: [String: Int] = [:]
    public var writerInputs: [WriterInput] = []
    /// `outputs:` — several files from one read; empty: the one `output` with `writerInputs`.
    public var outputs: [RecipeOutput] = []
    /// Where `outputs:` is written.
    public var outputsMark: Mark?
    /// The named sources of a composition, in file order (a recipe without `sources:` but with a
    /// composition has one, the input, named `input`).
    public var sources: [SourceSpec] = [] {
        didSet { sourceIndex = Dictionary(sources.enumerated().map { ($1.name, $0) }) { first, _ in first } }
    }
    private var sourceIndex: [String: Int] = [:]
    /// Several sources on one timeline; nil: the recipe converts its one input.
    public var composition: Composition?
    /// What the recipe says that has no effect (a source no segment uses, an `audio-stretch` on a
    /// segment played at speed 1), in file order; the recipe is valid.
    public var warnings: [Diagnostic] = []
    public var timeRange: TimeRangeSpec?
    /// Skip pictures the frame-rate converter will not show and nothing references (the output is
    /// the same); on by default.
    public var selectiveDecode = true
    /// `parallel:` — the output encoded in chunks and joined; nil: in one piece.
    public var parallel: ParallelSpec?

    public init(file: String, lines: [String]) {
        self.file = file
        self.lines = lines
    }

    /// Every output's writer inputs.
    public var allWriterInputs: [WriterInput] { outputs.isEmpty ? writerInputs : outputs.flatMap(\.writerInputs) }

    /// The entries of `outputs:` that are still images (`images:`), in order.
    public var imageOutputs: [RecipeOutput] { outputs.filter { $0.images != nil } }

    /// The recipe as each of its media-file outputs sees it: itself when it has one output; per
    /// entry of `outputs:` that writes a media file, the recipe with that entry as its `output`
    /// and writer inputs (empty when every entry is still images).
    public var eachOutput: [Recipe] {
        guard !outputs.isEmpty else { return [self] }
        return outputs.filter { $0.images == nil }.map { o in
            var r = self
            r.output = o.spec
            r.writerInputs = o.writerInputs
            r.outputs = []
            return r
        }
    }

    public func readerOutput(_ name: String) -> ReaderOutput? { readerOutputIndex[name].map { readerOutputs[$0] } }

    public func source(named name: String) -> SourceSpec? { sourceIndex[name].map { sources[$0] } }

    /// Whether the input (`-i`, batch's file, else `source:`) is read: always without a
    /// composition; with one, when a source is `"{input}"`. A composition that does not read it
    /// makes the same output whatever the input (its other paths may still use the input's tokens).
    public var readsInput: Bool { composition == nil || sources.contains { $0.path == .input } }

    /// A diagnostic pointing into this recipe.
    public func diagnostic(_ mark: Mark?, _ message: String, severity: Diagnostic.Severity = .error) -> Diagnostic {
        let line = mark.flatMap { $0.line >= 1 && $0.line <= lines.count ? lines[$0.line - 1] : nil }
        return Diagnostic(file: file, mark: mark, message: message, sourceLine: line, severity: severity)
    }
}
