import Foundation
import Pipeline
import Recipe

/// What smart rendering copies and encodes, as `plan` shows it (docs/recipes.md, "Smart
/// rendering"): per output track, its runs in output order, each with its source range (counted
/// from its file's start, as recipes count), its pictures and its place on the output.
enum SmartText {
    static func lines(_ p: ConversionPlan) -> [String] {
        var lines: [String] = []
        for (l, render) in p.smart.sorted(by: { $0.key < $1.key }) {
            let total = render.encodedPictures + render.copiedPictures
            let saved = total > 0 ? Int((Double(render.copiedPictures) / Double(total) * 100).rounded()) : 0
            lines += ["", "smart    output track \(l + 1): \(render.copiedPictures) pictures copied (\(render.copiedGroups) group\(render.copiedGroups == 1 ? "" : "s") of pictures), "
                      + "\(render.encodedPictures) encoded (\(render.settings.encoderName), profile \(render.settings.profile)"
                      + "\(render.settings.encoderLevel.map { ", level \($0)" } ?? "")): \(saved) % of the pictures need no encoding"]
            for run in render.runs {
                let what = run.kind == .copied ? "copied " : "encoded"
                let groups = run.kind == .copied ? ", \(run.groups) group\(run.groups == 1 ? "" : "s")" : ""
                lines.append("  segment \(run.piece)  \(what) \(range(run, p))  \(run.pictures) picture\(run.pictures == 1 ? "" : "s")\(groups)  at \(run.targetStart.secondsDescription)")
            }
        }
        return lines + soundLines(p)
    }

    /// The sound of a smart-rendered output: its copied frames and the frames encoded at each cut,
    /// or why it is encoded whole.
    static func soundLines(_ p: ConversionPlan) -> [String] {
        guard !p.smart.isEmpty else { return [] }
        var lines: [String] = []
        for (l, why) in p.soundObstacles.sorted(by: { $0.key < $1.key }) {
            lines.append("sound    output track \(l + 1): encoded whole: \(why)")
        }
        for (l, sound) in p.smartSound.sorted(by: { $0.key < $1.key }) {
            let encoded = sound.encodedFrames
            lines.append("sound    output track \(l + 1): \(sound.copiedFrames) frames copied, \(encoded.reduce(0, +)) encoded (\(encoded.count) stretch\(encoded.count == 1 ? "" : "es") at the cuts: "
                         + encoded.map(String.init).joined(separator: ", ") + "); each copied run within \(sound.offsets.map { abs($0) }.max() ?? 0) samples of a full encode's place")
        }
        return lines
    }

    static func soundObject(_ p: ConversionPlan) -> Any {
        guard !p.smartSound.isEmpty || !p.soundObstacles.isEmpty, !p.smart.isEmpty else { return NSNull() }
        return p.smartSound.sorted(by: { $0.key < $1.key }).map { l, sound -> [String: Any] in
            ["output": l + 1, "copiedFrames": sound.copiedFrames, "encodedFrames": sound.encodedFrames, "offsets": sound.offsets.map(Int.init)]
        } + p.soundObstacles.sorted(by: { $0.key < $1.key }).map { l, why -> [String: Any] in ["output": l + 1, "encodedWhole": why] }
    }

    static func object(_ p: ConversionPlan) -> Any {
        guard !p.smart.isEmpty else { return NSNull() }
        return p.smart.sorted(by: { $0.key < $1.key }).map { l, render -> [String: Any] in
            ["output": l + 1, "encoder": render.settings.encoderName, "profile": render.settings.profile,
             "level": render.settings.encoderLevel ?? NSNull(),
             "copiedPictures": render.copiedPictures, "encodedPictures": render.encodedPictures, "copiedGroups": render.copiedGroups,
             "runs": render.runs.map { run -> [String: Any] in
                 let start = p.sources[run.sourceFile].startTime
                 return ["kind": run.kind.rawValue, "segment": run.piece, "file": p.sources[run.sourceFile].path,
                         "start": (run.sourceRange.start - start).seconds, "end": (run.sourceRange.end - start).seconds,
                         "at": run.targetStart.seconds, "pictures": run.pictures, "groups": run.groups]
             }]
        }
    }

    private static func range(_ run: SmartRender.Run, _ p: ConversionPlan) -> String {
        let start = p.sources[run.sourceFile].startTime
        return TimeRange(start: run.sourceRange.start - start, end: run.sourceRange.end - start).description
    }
}
