import Foundation
import Pipeline
import Recipe

struct PlanCommand: Command {
    static let name = "plan"
    static let abstract = "Show what a recipe would do to a source, and why."
    static let usage = "reencode plan RECIPE [-i INPUT] [-o OUTPUT] [--estimate sample|fast] [--chunks N|auto] [--json]"
    static let help = """
        OVERVIEW: \(abstract)
        Compiles the recipe against the real source, opens every decoder and encoder with the
        resolved settings and the output container with every track (its header written into
        memory), and prints each output track with every setting and where it came from: the
        recipe, a preset, or a rule of the settings assistant with its reason; the profile is
        the one the opened encoder really writes. Warnings say what the output will not keep
        and which settings have no effect. Whatever 'run' would refuse before decoding is
        refused here. Nothing is written. Source tracks are #N (stream index), output tracks
        are numbered from 1.

        USAGE: \(usage)

        OPTIONS:
          -i, --input INPUT    The source file (default: the recipe's 'source').
          -o, --output OUTPUT  The output file (default: the recipe's 'output: path'); refused
                               for a recipe with 'outputs:', which names each file.
          --estimate METHOD    How the output's size is estimated: 'sample' (the default)
                               encodes short spans of the source with the real settings;
                               'fast' encodes nothing and assumes bits per pixel
                               (docs/recipes.md, "Size estimate").
        \(ChunkOption.help)
          --json               Print the plan as JSON (docs/recipes.md, "Plan JSON").
          -h, --help           Show help information.

        EXIT STATUS: 0 ok, 64 usage (also -o whose extension contradicts the recipe's format),
        65 invalid recipe or settings the encoder refuses, 66 input missing or not media, lacking
        a track the recipe needs or holding one the container cannot copy, 73 the output is a
        folder or cannot be created.
        """

    let recipe: String
    let input: String?
    let output: String?
    let json: Bool
    let estimate: SizeEstimate.Method
    let chunks: ParallelSpec.Chunks?

    init(arguments: [String]) throws(UsageError) {
        let a = try ArgumentScanner(arguments, flags: ["--json"], options: ["-i", "--input", "-o", "--output", "--estimate", "--chunks"], usage: Self.usage)
        guard a.positionals.count == 1 else {
            throw UsageError(message: a.positionals.isEmpty ? "missing RECIPE" : "unexpected argument '\(a.positionals[1])'", usage: Self.usage)
        }
        recipe = a.positionals[0]
        input = try a.value("-i", "--input")
        output = try a.value("-o", "--output")
        json = a.flag("--json")
        let method = try a.value("--estimate") ?? "sample"
        guard let m = SizeEstimate.Method(rawValue: method) else {
            throw UsageError(message: "--estimate must be sample or fast, not '\(method)'", usage: Self.usage)
        }
        estimate = m
        chunks = try ChunkOption.parse(a, usage: Self.usage)
    }

    func run() -> Int32 {
        let r: Recipe
        switch loadRecipe(recipe) { case .success(let x): r = ChunkOption.applied(chunks, to: x); case .failure(let f): return f.code }
        // A plan is only looked at: an existing output is not an error here.
        let compiled: CompiledOutputs
        switch compileRecipe(r, input: input, output: output, overwrite: true) { case .success(let c): compiled = c; case .failure(let f): return f.code }
        for line in compiled.leftOut { printError("warning: \(line)") }
        let outputs = compiled.files
        var sizes: [SizeEstimate] = []
        do throws(MediaError) { for c in outputs { sizes.append(try EstimatePass.estimate(c.plan, method: estimate)) } } catch {
            printError("error: \(error)")
            return error.exitCode
        }
        guard outputs.count + compiled.images.count > 1 || outputs.isEmpty else {
            if json { writeOut(jsonString(Self.object(r, outputs[0], size: sizes[0]))) } else { writeOut(Self.text(r, outputs[0], size: sizes[0])) }
            return ExitCode.ok
        }
        // Each file's entry of `outputs` (a ladder's rungs are known only now, against the source).
        let numbers = outputs.enumerated().map { $1.number ?? $0 + 1 }
        // A package's renditions are one entry of `outputs` (they share its number).
        let total = Set(numbers).count + compiled.images.count
        let reads = OutputSet.lanes(outputs.map(\.plan)), encodes = OutputSet.encodes(outputs.map(\.plan))
        let riding = OutputSet.stillFeeds(outputs.map(\.plan), stills: compiled.images.map(\.plan))
        let shared = SharedRead(reads, encodes: encodes, outputs, numbers: numbers, stills: compiled.images.map(\.number), riding: riding,
                                drawn: Set(compiled.images.filter { $0.plan.composition?.alone != nil }.map(\.number)))
        if json {
            let images = zip(compiled.images, riding).map { image, lane -> [String: Any] in
                var o = ImagesCommand.object(image.plan)
                o["output"] = image.number
                o["decode"] = lane == nil ? "own" : "shared"
                return o
            }
            writeOut(jsonString(["outputs": zip(outputs, sizes).map { Self.object(r, $0, size: $1) }, "images": images,
                                 "reads": shared.object] as [String: Any]))
        } else {
            var each = zip(zip(outputs, sizes), numbers).map { c, n in
                (n, "output \(n) of \(total)\(c.0.plan.package.map { ", \($0.format.rawValue) rendition \($0.rendition)" } ?? "")\n" + Self.text(r, c.0, size: c.1))
            }
            each += compiled.images.map { ($0.number, "output \($0.number) of \(total): still images\n" + ImagesCommand.text($0.plan)) }
            writeOut((each.sorted { $0.0 < $1.0 }.map(\.1) + [shared.text]).joined(separator: "\n"))
        }
        return ExitCode.ok
    }

    /// `recipe` or `preset NAME` for a value the recipe gave, `assistant` for a derived one.
    static func origin(_ d: Decision, _ o: LaneOrigin) -> String {
        guard d.rule == "settings" else { return "assistant" }
        return o.origin(of: d.setting)
    }

    static func object(_ r: Recipe, _ c: CompiledRecipe, size: SizeEstimate) -> [String: Any] {
        let p = c.plan
        var tracks: [[String: Any]] = []
        for (lane, o) in zip(p.lanes, c.origins) {
            var t: [String: Any] = [
                "output": tracks.count + 1, "writerInput": o.writerInput, "readerOutput": o.readerOutput,
                "sourceTrack": lane.track.index, "type": lane.track.mediaType.rawValue, "presets": o.presets,
            ]
            let decisions: [Decision]
            switch lane.kind {
            case .video(let v): t["mode"] = "encode"; t["encoder"] = v.encoderName; decisions = v.decisions
            case .audio(let a): t["mode"] = "encode"; t["encoder"] = a.encoderName; decisions = a.decisions
            case .passthrough: t["mode"] = "passthrough"; decisions = []
            case .subtitle(let s): t["mode"] = "encode"; t["encoder"] = s.encoderName; decisions = []
            }
            if case .audio(let a) = lane.kind, let l = LoudnessText.object(a) { t["loudness"] = l }
            t["settings"] = decisions.map { d -> [String: Any] in
                ["setting": d.setting, "value": d.value, "origin": origin(d, o), "rule": d.rule, "reason": d.reason]
            }
            tracks.append(t)
        }
        return [
            "recipe": r.file, "name": r.name ?? NSNull(), "source": p.source.path, "sources": p.sources.map(\.path), "output": p.outputPath,
            "format": p.format.rawValue, "optimizeForNetwork": p.optimizeForNetwork, "selectiveDecode": p.selectiveDecode,
            "timeRange": timeRangeObject(p),
            "segments": p.composedSegments.map { $0.map(segmentObject) } ?? NSNull(),
            "mix": p.audioMix.map(MixText.object) ?? NSNull(),
            "video": LayerText.object(p),
            "crossFades": p.crossFades.map { ["segment": $0.timelineSegment, "videoSegment": $0.segment, "start": $0.start.seconds, "end": $0.end.seconds] as [String: Any] },
            "fade": p.pictureFades.isEmpty ? NSNull() : p.pictureFades.map { f -> [String: Any] in
                ["kind": f.name, "start": f.ramp.start.seconds, "end": f.ramp.end.seconds, "color": f.color.description,
                 "segment": f.segment ?? NSNull()]
            },
            "tracks": tracks,
            "smart": SmartText.object(p),
            "smartSound": SmartText.soundObject(p),
            "chunks": ChunkText.object(p),
            "graph": GraphText.object(p),
            "metadata": MetadataText.object(p),
            "limits": LimitText.object(p),
            "targetSize": TargetSizeText.object(p),
            "estimate": EstimateText.object(size),
            "containers": ContainerText.object(p),
            "ladder": LadderText.object(p),
            "warnings": p.notices.map { noticeObject($0, source: p.source.path) } + EstimateText.warnings(size, plan: p),
        ]
    }

    static func text(_ r: Recipe, _ c: CompiledRecipe, size: SizeEstimate) -> String {
        let p = c.plan
        var lines = ["recipe   \(r.file)" + (r.name.map { " (\($0))" } ?? "")]
        if let segments = p.composedSegments {
            for (i, a) in p.sources.enumerated() {
                lines.append("\(i == 0 ? "sources " : "        ") \(a.path)  [\(AssetText.length(a.duration))]")
            }
            lines.append("output   \(p.outputPath)  (\(p.format.rawValue)\(p.layout.map { ", \($0)" } ?? ""))")
            lines.append("timeline \(p.duration.secondsDescription), \(segments.count) segment\(segments.count == 1 ? "" : "s")  selective decode \(p.selectiveDecode ? "on" : "off")")
            for (i, s) in segments.enumerated() {
                var counts: [String] = []
                if let f = s.frames { counts.append("\(f) frame\(f == 1 ? "" : "s")") }
                if let n = s.samples { counts.append("\(n) samples") }
                lines.append("segment  \(i + 1): source \(s.sourceRange) at \(s.targetStart.secondsDescription) for \(s.targetDuration.secondsDescription), speed \(s.speed)"
                             + (s.audioStretch.map { ", audio-stretch \($0.rawValue)" } ?? "")
                             + (s.slowMotionDivisor.map { $0 == 1 ? " (the source's slow motion: real time)" : " (the source's slow motion: ÷\($0))" } ?? "")
                             + "  (\(([FilePaths.label(of: s.file, among: p.sources.map(\.path)) + (s.track.map { " #\($0)" } ?? "")] + counts).joined(separator: ", ")))"
                             + (s.mixInput.map { "  mix \($0)" } ?? "")
                             + (s.videoLayer.flatMap { $0 > 0 && p.videoLayers.indices.contains($0) ? "  \(p.videoLayers[$0].name)" : nil } ?? ""))
            }
            lines += TimelinePicture.lines(segments, total: p.duration, files: p.sources.map(\.path))
            if !p.pictureFades.isEmpty {
                let parts = p.pictureFades.map { f in
                    let span = "\(f.ramp.start.secondsDescription)–\(f.ramp.end.secondsDescription)"
                    switch f.name {
                    case "in": return "in \(span) from black and silence"
                    case "out": return "out \(span) to black and silence"
                    default: return "dip \(span) \(f.ramp.from > f.ramp.to ? "to" : "from") \(f.color) and silence (segment \(f.timelineSegment ?? f.segment ?? 0))"
                    }
                }
                lines.append("fade     " + parts.joined(separator: ", "))
            }
            if !p.crossFades.isEmpty {
                let parts = p.crossFades.map { "\($0.start.secondsDescription)–\($0.end.secondsDescription) into segment \($0.timelineSegment)" }
                lines.append("cross-fade " + parts.joined(separator: ", ") + (p.audioMix?.crossFadeInput != nil ? ", the sound with it (equal power)" : ""))
            }
            lines += LayerText.lines(p)
            if let mix = p.audioMix, !(mix.volumes.count == 1 && mix.volumes[0] == nil && (mix.fadeRamps.first ?? []).isEmpty) {
                lines += MixText.lines(mix)
            }
        } else {
            lines.append("source   \(p.source.path)  [\(AssetText.length(p.source.duration))]")
            lines.append("output   \(p.outputPath)  (\(p.format.rawValue)\(p.layout.map { ", \($0)" } ?? ""))")
            lines.append("range    \(p.timeRange)" + (p.requestedTimeRange.map { " (asked \($0), cut at frame boundaries)" } ?? "")
                         + "  selective decode \(p.selectiveDecode ? "on" : "off")")
            lines += LadderText.lines(p)
        }
        for (i, (lane, o)) in zip(p.lanes, c.origins).enumerated() {
            let f = lane.track.format
            var src = "#\(lane.track.index) \(f.mediaType.rawValue) \(f.codec)"
            if f.mediaType == .video { src += " \(f.width)x\(f.height)" + (f.averageFrameRate.map { " \($0.decimalDescription) fps" } ?? "") }
            if f.mediaType == .audio { src += " \(f.sampleRate) Hz \(f.channels) ch" }
            lines.append("")
            lines.append("output track \(i + 1)  ← reader output '\(o.readerOutput)' (\(src))" + (o.presets.isEmpty ? "" : "  preset \(o.presets.joined(separator: " ← "))"))
            let decisions: [Decision]
            switch lane.kind {
            case .video(let v): decisions = v.decisions
            case .audio(let a): decisions = a.decisions
            case .passthrough: decisions = []; lines.append("  passthrough: samples copied as they are")
            case .subtitle(let s): decisions = []; lines.append("  subtitles: text converted to \(s.encoderName) (what \(p.format.rawValue) holds)")
            }
            for d in decisions {
                let from = origin(d, o)
                // An asked value's note (above the source's, a level's cost) is shown with its origin.
                let why = from == "assistant" ? "\(d.rule): \(d.reason)" : d.reason == "as asked" ? from : "\(from): \(d.reason)"
                lines.append("  \(padded(d.setting, 15)) \(padded(d.value, 12)) \(why)")
            }
        }
        lines += SmartText.lines(p)
        lines += ChunkText.lines(p)
        lines += GraphText.lines(p)
        lines += MetadataText.lines(p)
        lines += LimitText.lines(p) + TargetSizeText.lines(p) + EstimateText.lines(size) + ContainerText.lines(p)
        let sizeWarnings = EstimateText.warnings(size, plan: p)
        if !p.notices.isEmpty || !sizeWarnings.isEmpty { lines.append("") }
        for n in p.notices { lines.append("warning: " + (n.file.map { "\($0): " } ?? "") + "\(n)") }
        for w in sizeWarnings { lines.append("warning: \(w["file"] ?? ""): \(w["message"] ?? "")") }
        return lines.joined(separator: "\n")
    }
}

/// `s` followed by spaces up to `width`; a longer value is kept whole (a profile such as
/// "Constrained Baseline" must not be cut).
func padded(_ s: String, _ width: Int) -> String {
    s.count >= width ? s : s + String(repeating: " ", count: width - s.count)
}

/// A notice as `plan --json` and `run --progress json` give it.
/// A warning for JSON; `file` is the file it concerns (the source, or another file of a composition).
func noticeObject(_ n: PlanNotice, source: String) -> [String: Any] {
    ["kind": n.kind.rawValue, "item": n.item, "track": n.sourceTrack ?? NSNull(), "file": n.file ?? source, "message": n.message]
}

/// A composition's segment: its source range (file timeline) and its place on the output's.
func segmentObject(_ s: PlannedSegment) -> [String: Any] {
    ["source": ["start": s.sourceRange.start.seconds, "end": s.sourceRange.end.isNumeric ? s.sourceRange.end.seconds : NSNull()] as [String: Any],
     "at": s.targetStart.seconds, "duration": s.targetDuration.isNumeric ? s.targetDuration.seconds : NSNull(), "speed": s.speed,
     "file": s.file, "track": s.track ?? NSNull(), "frames": s.frames.map { $0 as Any } ?? NSNull(), "samples": s.samples.map { $0 as Any } ?? NSNull(),
     "slowMotionDivisor": s.slowMotionDivisor ?? NSNull(), "audioStretch": s.audioStretch?.rawValue ?? NSNull(),
     "mixInput": s.mixInput ?? NSNull(), "layer": s.layer ?? NSNull(), "videoLayer": s.videoLayer ?? NSNull()]
}

/// The planned range on the file's timeline, and what was asked when a trim moved to frame
/// boundaries (`requested`).
func timeRangeObject(_ p: ConversionPlan) -> [String: Any] {
    func seconds(_ r: TimeRange) -> [String: Any] {
        ["start": r.start.seconds, "end": r.end.isNumeric ? r.end.seconds : NSNull()]
    }
    var o = seconds(p.timeRange)
    if let asked = p.requestedTimeRange { o["requested"] = seconds(asked) }
    return o
}
