import Foundation
import Testing

/// `reencode plan` shows a trim as it will be cut, at frame boundaries, and what was asked.
@Suite("reencode plan: the trimmed range")
struct TrimPlanTests {
    static func recipe(_ dir: Scratch) throws -> String {
        let path = dir.file("r.yaml")
        try """
            recipe: 1
            output: "{dir}/{stem}-clip.mp4"
            reader: { outputs: { v: { track: video }, a: { track: audio } } }
            writer: { inputs: [ { source: v, settings: h264-1280x720 }, { source: a, settings: aac-stereo } ] }
            session: { time-range: { start: 250ms, duration: 500ms } }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("text: the range line gives the snapped range and the asked one, and a warning says so")
    func text() throws {
        let dir = Scratch()
        let src = dir.file("s.mp4")
        try BatchFixture.clip(src)  // 30 fps: 0.25 s is frame 7.5 (a tie: frame 7), 0.75 s is 22.5 (22)
        let r = try Binary.run(["plan", try Self.recipe(dir), "-i", src], timeLimit: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("range    [0.233s, 0.733s) (asked [0.250s, 0.750s), cut at frame boundaries)  selective decode on"), "\(r.stdout)")
        #expect(lines.contains("warning: the time range 0.250s–0.750s is cut at frame boundaries (the source's frames): 0.233s–0.733s"), "\(r.stdout)")
    }

    @Test("JSON: timeRange is the snapped range with the asked one under 'requested', and a 'changed' warning")
    func json() throws {
        let dir = Scratch()
        let src = dir.file("s.mp4")
        try BatchFixture.clip(src)
        let r = try Binary.run(["plan", try Self.recipe(dir), "-i", src, "--json"], timeLimit: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let range = try #require(o["timeRange"] as? [String: Any])
        #expect(abs((range["start"] as? Double ?? 0) - 7.0 / 30) < 1e-9)
        #expect(abs((range["end"] as? Double ?? 0) - 22.0 / 30) < 1e-9)
        let asked = try #require(range["requested"] as? [String: Any])
        #expect(asked["start"] as? Double == 0.25)
        #expect(asked["end"] as? Double == 0.75)
        let warnings = try #require(o["warnings"] as? [[String: Any]])
        #expect(warnings.contains { $0["kind"] as? String == "changed" && $0["item"] as? String == "time-range" })
    }
}
