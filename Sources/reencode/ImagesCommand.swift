import Foundation
import Pipeline
import Recipe
import Synchronization

struct ImagesCommand: Command {
    static let name = "images"
    static let answersStops = true
    static let abstract = "Take still images (thumbnails, posters) of a video at chosen times."
    static let usage = "reencode images FILE (--at TIME,… | --every D | --count N) [--tolerance T] [--size WxH] [--quality Q] [--tiles CxR|C [--storyboard]] [-o PATTERN] [--overwrite] [--dry-run] [--json]"
    static let help = """
        OVERVIEW: \(abstract)
        Each time is resolved, from the packets alone, into the source frame the still shows;
        then only what that frame needs is decoded: from the sync sample before it, up to it.
        Stills are drawn upright at the display aspect, HDR made SDR, and all appear together
        once every one is written: a failed or interrupted run leaves none. See docs/images.md.

        USAGE: \(usage)

        ARGUMENTS:
          FILE                 A media file with a video track.

        OPTIONS:
          --at TIME,…          Times from the source's start: 1.5s, 00:01:02.5, 250ms, 25% (of its
                               duration); its duration itself shows the last frame.
          --every D            One still every D from the start (0, D, 2D … before the end).
          --count N            N stills, each in the middle of one of N equal parts of the source.
          --tolerance T        exact (default): the frame on display at the time; keyframe: the
                               nearest sync sample (nothing decoded past it); D or BEFORE,AFTER
                               (0.5s,2s): a sync sample that near, else the exact frame.
          --size WxH           The box each still fits inside, display aspect kept, never
                               upscaled (default: the display size). Sizes are even.
          --quality Q          1–100 for JPEG and WebP (default \(StillRequest.defaultQuality)); PNG is lossless.
          --tiles CxR          One picture of all the stills, C columns by R rows from the top left
                               (a contact sheet; default name \(StillSheets.defaultSheet)); --tiles C:
                               C columns and as many rows as the stills fill.
          --storyboard         With --tiles: also a WebVTT file beside the picture (same name, .vtt)
                               whose cues point at the tiles (#xywh=), for players' scrubbing
                               previews (default name \(StillSheets.defaultStoryboard)).
          -o, --output PATTERN The files: a path with {n} (the still's number from 1, zero-padded),
                               {time} (the time asked, in seconds), {dir}, {stem}, {ext}, {name}
                               (the source's); its extension says JPEG (.jpg, .jpeg), PNG or WebP.
                               Default: \(StillNames.defaultPattern), beside the source.
          --overwrite          Replace existing files.
          --dry-run            Say which frame each still would show, and its file; decode and
                               write nothing.
          --json               Print the stills as JSON (docs/images.md).
          -h, --help           Show help information.

        EXIT STATUS: 0 ok, 1 decoding or encoding failed, 64 usage (also: a time outside the
        source, an extension that is not .jpg, .png or .webp, a pattern naming two stills the
        same), 66 input missing, not media or without a video track, 73 a still exists, or its
        folder cannot be created, 74 I/O error, 75 the system is short of resources for now,
        128+n stopped by signal n. Nothing is left behind.
        """

    let request: StillRequest
    let json: Bool
    let dryRun: Bool

    init(arguments: [String]) throws(UsageError) {
        let a = try ArgumentScanner(arguments, flags: ["--json", "--overwrite", "--storyboard", "--dry-run"],
                                    options: ["--at", "--every", "--count", "--tolerance", "--size", "--quality", "--tiles", "-o", "--output"],
                                    usage: Self.usage)
        guard a.positionals.count == 1 else {
            throw UsageError(message: a.positionals.isEmpty ? "missing FILE" : "unexpected argument '\(a.positionals[1])'", usage: Self.usage)
        }
        var r = StillRequest(source: a.positionals[0], times: try Self.times(a))
        if let t = try a.value("--tolerance") {
            guard let tolerance = StillTolerance(t) else {
                throw UsageError(message: "--tolerance must be exact, keyframe, a duration (1s) or BEFORE,AFTER (0.5s,2s), not '\(t)'", usage: Self.usage)
            }
            r.tolerance = tolerance
        }
        if let s = try a.value("--size") { r.box = try Self.pair(s, "--size", in: 2...16384) }
        if let t = try a.value("--tiles") {
            if let columns = Int(t), (1...100).contains(columns) { r.tiles = (columns, nil) } else {
                let (columns, rows) = try Self.pair(t, "--tiles", in: 1...100)
                r.tiles = (columns, rows)
            }
        }
        r.storyboard = a.flag("--storyboard")
        if try a.value("--quality") != nil { r.quality = try a.wholeNumber("--quality", default: StillRequest.defaultQuality, in: 1...100) }
        r.pattern = try a.value("-o", "--output")
        r.overwrite = a.flag("--overwrite")
        if r.quality != nil, let p = r.pattern, StillFormat(pathExtension: FilePaths.pathExtension(of: p)) == .png {
            throw UsageError(message: "--quality is for JPEG and WebP: PNG is lossless", usage: Self.usage)
        }
        request = r
        json = a.flag("--json")
        dryRun = a.flag("--dry-run")
    }

    private static func times(_ a: ArgumentScanner) throws(UsageError) -> StillTimes {
        let given = ["--at", "--every", "--count"].filter { a.option($0) != nil }
        guard given.count == 1 else {
            throw UsageError(message: given.isEmpty ? "say when: --at, --every or --count" : "\(given[0]) and \(given[1]) cannot be given together", usage: usage)
        }
        if let list = a.option("--at") {
            var times: [StillTime] = []
            for item in list.split(separator: ",", omittingEmptySubsequences: false) {
                guard let t = StillTime(String(item)) else {
                    throw UsageError(message: "'\(item)' in --at is not a time (1.5s, 00:01:02.5, 25%)", usage: usage)
                }
                times.append(t)
            }
            return .at(times)
        }
        if let d = a.option("--every") {
            guard let t = TimeParsing.time(d), t > .zero else { throw UsageError(message: "--every must be a duration above 0 (10s), not '\(d)'", usage: usage) }
            return .every(t)
        }
        return .count(try a.wholeNumber("--count", default: 1, in: 1...100_000))
    }

    /// `WxH`, each in `range`.
    private static func pair(_ text: String, _ name: String, in range: ClosedRange<Int>) throws(UsageError) -> (Int, Int) {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), range.contains(w), range.contains(h) else {
            let example = name == "--tiles" ? "5x4" : "320x180"
            throw UsageError(message: "\(name) must be two whole numbers from \(range.lowerBound) to \(range.upperBound) joined by x (\(example)), not '\(text)'", usage: usage)
        }
        return (w, h)
    }

    func run() -> Int32 {
        let state = StopState()
        let stops = StopRequests { reason in
            // Before the stills are being made nothing exists: stop at once.
            guard state.generating.load(ordering: .acquiring) else {
                Console.shared.abandonStalledWrites()
                Self.announce(reason)
                _exit(reason.exitCode)
            }
            state.reason.withLock { if $0 == nil { $0 = reason } }
        }
        defer { stops.close() }
        do throws(MediaError) {
            let plan = try StillPlanner.plan(request)
            if !dryRun {
                state.generating.store(true, ordering: .releasing)
                try ImageGenerator.run(plan) { state.reason.withLock { $0 != nil } }
            }
            if json { writeOut(jsonString(Self.object(plan))) } else { writeOut(Self.text(plan)) }
            return ExitCode.ok
        } catch {
            if error.kind == .cancelled, let reason = state.reason.withLock({ $0 }) {
                Self.announce(reason)
                return reason.exitCode
            }
            return report(error)
        }
    }

    /// What the stop handler and the run share.
    private final class StopState: Sendable {
        let generating = Atomic<Bool>(false)
        let reason = Locked<StopReason?>(nil)
    }

    private static func announce(_ reason: StopReason) {
        switch reason {
        case .signal(let sig): printError("cancelled: no still written (\(TerminationSignals.name(sig)))")
        case .lost(let loss): if loss.stream != .error { printError("error: \(loss.description): the reader is gone; stopped, no still written") }
        }
    }

    /// `clip.mp4: 3 stills of track #0, 320x180 JPEG`, then a line per still.
    static func text(_ p: StillPlan) -> String {
        let of = p.composition.map { c in
            "of the composition (\(p.duration.secondsDescription)) " + (c.alone != nil ? "drawn at \(c.renderWidth)x\(c.renderHeight) for them alone (nothing encoded)" : "as output track \(c.lane + 1) draws it")
        } ?? "of track #\(p.track.index)"
        var lines = ["\(p.source): \(p.stills.count) still\(p.stills.count == 1 ? "" : "s") \(of), \(p.width)x\(p.height) \(p.format.rawValue.uppercased())"]
        if let sheet = p.sheet {
            lines[0] += ", tiles of a \(sheet.columns)x\(sheet.rows) contact sheet " + ([sheet.path] + [sheet.webVTT].compactMap { $0 }).joined(separator: " and ")
        }
        for s in p.stills {
            let asked = s.asked == s.requested.secondsDescription ? s.asked : "\(s.asked) (\(s.requested.secondsDescription))"
            let shown = p.composition.map { c in composed(s, c) }
                ?? (s.isKeyframe ? "the keyframe at \(s.shown.secondsDescription)" : "the frame at \(s.shown.secondsDescription) (exact)")
            let place = s.tile.map { "\(FilePaths.name(of: s.path))#xywh=\($0.x),\($0.y),\($0.width),\($0.height)" } ?? s.path
            lines.append("  #\(s.number) at \(asked): \(shown) → \(place)")
        }
        return lines.joined(separator: "\n")
    }

    /// `the composed frame at 2.000s (segment 1 a.mp4 1.967s + segment 3 b.mp4 0.000s)`: the
    /// picture a still of a composition shows, and the source frames it is drawn from.
    private static func composed(_ s: PlannedStill, _ c: ComposedStills) -> String {
        let from = c.sources[s.number - 1].map { "segment \($0.segment) \(FilePaths.name(of: $0.file)) \($0.time.secondsDescription)" }
        return "the composed frame at \(s.shown.secondsDescription)" + (from.isEmpty ? " (no source frame: the background)" : " (\(from.joined(separator: " + ")))")
    }

    /// The documented JSON form (docs/images.md).
    static func object(_ p: StillPlan) -> [String: Any] {
        var o: [String: Any] = [
            "source": p.source, "track": p.track.index, "duration": p.duration.seconds,
            "format": p.format.rawValue, "width": p.width, "height": p.height,
            "stills": p.stills.map { s -> [String: Any] in
                var still: [String: Any] = ["number": s.number, "asked": s.asked, "requested": s.requested.seconds, "time": s.shown.seconds,
                                            "frame": s.isKeyframe ? "keyframe" : "exact", "decodedFrom": s.decodeFrom.seconds, "file": s.path]
                if let t = s.tile { still["tile"] = ["x": t.x, "y": t.y, "width": t.width, "height": t.height] }
                if let c = p.composition {
                    still["frame"] = "composed"
                    still["decodedFrom"] = nil
                    still["sources"] = c.sources[s.number - 1].map { ["segment": $0.segment, "file": $0.file, "time": $0.time.seconds] as [String: Any] }
                }
                return still
            },
        ]
        if let c = p.composition {
            o["composition"] = ["outputTrack": c.alone == nil ? c.lane + 1 : NSNull(), "frameRate": c.frameRate.map { $0.description as Any } ?? NSNull(),
                                "renderSize": "\(c.renderWidth)x\(c.renderHeight)", "drawnAlone": c.alone != nil] as [String: Any]
        }
        if let sheet = p.sheet {
            var sh: [String: Any] = ["file": sheet.path, "columns": sheet.columns, "rows": sheet.rows]
            if let v = sheet.webVTT { sh["webVTT"] = v }
            o["sheet"] = sh
        }
        return o
    }
}
