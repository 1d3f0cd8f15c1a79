import Foundation
import Pipeline
import Recipe

/// The composition's timeline drawn in text for `plan`: one bar, each segment's share of it
/// proportional to its length on the output, named by its file (and speed when not 1); gaps dotted.
///
///     timeline |intro.mp4 ····|clip.mp4 ············|outro.mp4 ···|
///              0s             2s                    4.97s         6.97s
enum TimelinePicture {
    static let width = 64

    /// One bar for the video and audio lists, one more per `layers:` track (`layer 1  |…|`) and
    /// per `mix:` input (`mix 1    |…|`), then
    /// the times under them.
    static func lines(_ segments: [PlannedSegment], total: MediaTime, files: [String]) -> [String] {
        guard total.isNumeric, total > .zero, !segments.isEmpty else { return [] }
        var marks: [(Int, MediaTime)] = []
        // The video list's two rolls (a cross-fade's) share the timeline bar; a layer has its own.
        var out = ["timeline " + bar(segments.filter { $0.mixInput == nil && $0.layer == nil }, total: total, files: files, marks: &marks)]
        for j in Set(segments.compactMap(\.layer)).sorted() {
            let title = "layer \(j)"
            out.append(title.padding(toLength: max(9, title.count + 1), withPad: " ", startingAt: 0)
                       + bar(segments.filter { $0.layer == j }, total: total, files: files, marks: &marks))
        }
        for j in Set(segments.compactMap(\.mixInput)).sorted() {
            let title = "mix \(j)"
            out.append(title.padding(toLength: max(9, title.count + 1), withPad: " ", startingAt: 0)
                       + bar(segments.filter { $0.mixInput == j }, total: total, files: files, marks: &marks))
        }
        var scale = Array(repeating: Character(" "), count: width + 12)
        var free = 0
        for (col, t) in marks.sorted(by: { $0.0 < $1.0 }) where col >= free {
            let text = t.secondsDescription
            for (k, ch) in text.enumerated() where col + k < scale.count { scale[col + k] = ch }
            free = col + text.count + 1
        }
        return out + ["         \(String(scale).trimmingCharacters(in: .whitespaces))"]
    }

    private static func bar(_ segments: [PlannedSegment], total: MediaTime, files: [String], marks: inout [(Int, MediaTime)]) -> String {
        let seconds = total.seconds
        func column(_ t: MediaTime) -> Int { t.isNumeric ? min(width, max(0, Int((t.seconds / seconds * Double(width)).rounded()))) : width }
        var bar = Array(repeating: Character("·"), count: width + 1)
        for s in segments {
            let a = column(s.targetStart), b = column(s.targetStart + s.targetDuration)
            bar[a] = "|"
            var label = FilePaths.label(of: s.file, among: files) + (s.speed == "1" ? "" : " ×\(s.speed)") + " "
            let room = max(0, b - a - 1)
            if label.count > room { label = String(label.prefix(room)) }
            for (k, ch) in label.enumerated() { bar[a + 1 + k] = ch }
            for k in (a + 1 + label.count)..<max(a + 1 + label.count, b) { bar[k] = "=" }
            bar[b] = "|"
            marks.append((a, s.targetStart))
            marks.append((b, s.targetStart + s.targetDuration))
        }
        return String(bar)
    }
}
