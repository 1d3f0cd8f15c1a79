import Foundation
import Pipeline
import Recipe

struct PlanCommand: Command {
    static let name = "plan"
    static let abstract = "Show what a recipe would do to a source, and why."
    static let usage = "reencode plan RECIPE [-i INPUT] [-o OUTPUT] [--json]"
    static let help = """
        OVERVIEW: \(abstract) Compiles the recipe against the real source and prints
        each output track with every setting and where it came from: the recipe (or a preset),
        or a rule of the settings assistant with its reason. Nothing is written.

        USAGE: \(usage)

        OPTIONS:
          -i, --input INPUT    The source file (default: the recipe's 'source').
          -o, --output OUTPUT  The output file (default: the recipe's 'output: path').
          --json               Print the plan as JSON (docs/recipes.md, "Plan JSON").
          -h, --help           Show help information.

        EXIT STATUS: 0 ok, 65 invalid recipe or settings, 66 input missing or not media.
        """

    let recipe: String
    let input: String?
    let output: String?
    let json: Bool

    init(arguments: [String]) throws(UsageError) {
        let a = try ArgumentScanner(arguments, flags: ["--json"], options: ["-i", "--input", "-o", "--output"], usage: Self.usage)
        guard a.positionals.count == 1 else {
            throw UsageError(message: a.positionals.isEmpty ? "missing RECIPE" : "unexpected argument '\(a.positionals[1])'", usage: Self.usage)
        }
        recipe = a.positionals[0]
        input = try a.value("-i", "--input")
        output = try a.value("-o", "--output")
        json = a.flag("--json")
    }

    func run() -> Int32 {
        let r: Recipe
        switch loadRecipe(recipe) { case .success(let x): r = x; case .failure(let f): return f.code }
        // A plan is only looked at: an existing output is not an error here.
        let compiled: CompiledRecipe
        switch compileRecipe(r, input: input, output: output, overwrite: true) { case .success(let c): compiled = c; case .failure(let f): return f.code }
        if json { writeOut(jsonString(Self.object(r, compiled))) } else { writeOut(Self.text(r, compiled)) }
        return ExitCode.ok
    }

    static func origin(_ d: Decision, _ o: LaneOrigin) -> String {
        guard d.rule == "settings" else { return "assistant" }
        return o.presets.isEmpty ? "recipe" : "preset \(o.presets[0])"
    }

    static func object(_ r: Recipe, _ c: CompiledRecipe) -> [String: Any] {
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
            }
            t["settings"] = decisions.map { d -> [String: Any] in
                ["setting": d.setting, "value": d.value, "origin": origin(d, o), "rule": d.rule, "reason": d.reason]
            }
            tracks.append(t)
        }
        return [
            "recipe": r.file, "name": r.name ?? NSNull(), "source": p.source.path, "output": p.outputPath,
            "format": p.format.rawValue, "optimizeForNetwork": p.optimizeForNetwork, "selectiveDecode": p.selectiveDecode,
            "timeRange": ["start": p.timeRange.start.seconds, "end": p.timeRange.end.isNumeric ? p.timeRange.end.seconds : NSNull()] as [String: Any],
            "tracks": tracks,
            "warnings": p.notices.map(noticeObject),
        ]
    }

    static func text(_ r: Recipe, _ c: CompiledRecipe) -> String {
        let p = c.plan
        var lines = ["recipe   \(r.file)" + (r.name.map { " (\($0))" } ?? "")]
        lines.append("source   \(p.source.path)  [\(p.source.duration.secondsDescription)]")
        lines.append("output   \(p.outputPath)  (\(p.format.rawValue)\(p.optimizeForNetwork && p.format != .mkv ? ", index first" : ""))")
        lines.append("range    \(p.timeRange)  selective decode \(p.selectiveDecode ? "on" : "off")")
        for (i, (lane, o)) in zip(p.lanes, c.origins).enumerated() {
            let f = lane.track.format
            var src = "#\(lane.track.index) \(f.mediaType.rawValue) \(f.codec)"
            if f.mediaType == .video { src += " \(f.width)x\(f.height)" + (f.averageFrameRate.map { " \($0.decimalDescription) fps" } ?? "") }
            if f.mediaType == .audio { src += " \(f.sampleRate) Hz \(f.channels) ch" }
            lines.append("")
            lines.append("track \(i + 1)  ← reader output '\(o.readerOutput)' (\(src))" + (o.presets.isEmpty ? "" : "  preset \(o.presets.joined(separator: " ← "))"))
            let decisions: [Decision]
            switch lane.kind {
            case .video(let v): decisions = v.decisions
            case .audio(let a): decisions = a.decisions
            case .passthrough: decisions = []; lines.append("  passthrough: samples copied as they are")
            }
            for d in decisions {
                let from = origin(d, o)
                let why = from == "assistant" ? "\(d.rule): \(d.reason)" : from
                lines.append("  \(d.setting.padding(toLength: 15, withPad: " ", startingAt: 0)) \(d.value.count >= 12 ? d.value : d.value.padding(toLength: 12, withPad: " ", startingAt: 0)) \(why)")
            }
        }
        if !p.notices.isEmpty { lines.append("") }
        for n in p.notices { lines.append("warning: \(n)") }
        return lines.joined(separator: "\n")
    }
}

/// A notice as `plan --json` and `run --progress json` give it.
func noticeObject(_ n: PlanNotice) -> [String: Any] {
    ["kind": n.kind.rawValue, "item": n.item, "track": n.sourceTrack ?? NSNull(), "message": n.message]
}
