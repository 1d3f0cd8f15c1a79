import Recipe
import Testing

/// `fragment:` on an output: a time longer than 0 and at most 60 s, for a media file.
@Suite("fragment: read as a time on the output; the mistakes at their lines")
struct FragmentParseTests {
    static func parse(_ output: String) -> Result<Recipe, RecipeErrors> {
        RecipeParser.parse("""
            recipe: 1
            \(output)
            reader: { outputs: { v: { track: video } } }
            writer: { inputs: [ { source: v } ] }
            """, file: "r.yaml")
    }

    @Test("fragment: 2s, 500ms, 60s, 1001/15000 are kept with their line:col; none: nil")
    func kept() throws {
        for (text, time) in [("2s", MediaTime(seconds: 2)), ("500ms", MediaTime(value: 1, timescale: 2)), ("60s", MediaTime(seconds: 60)),
                             ("1001/15000", MediaTime(value: 1001, timescale: 15000))] {
            let r = try Self.parse("output: { path: o.mp4, fragment: \(text) }").get()
            #expect(r.output.fragment?.value == time && r.output.fragment?.mark == Mark(line: 2, column: 34), "\(text)")
        }
        #expect(try Self.parse("output: { path: o.mp4 }").get().output.fragment == nil)
    }

    @Test("0s, over 60 s, not a time, on still images: errors at the value")
    func refused() {
        let cases = [
            ("output: { path: o.mp4, fragment: 0s }", "2:34 'fragment' must be longer than 0 and at most 60s, not '0s'"),
            ("output: { path: o.mp4, fragment: 61s }", "2:34 'fragment' must be longer than 0 and at most 60s, not '61s'"),
            ("output: { path: o.mp4, fragment: often }", "2:34 'fragment' must be a time like 1.5s, 250ms, 00:01:02.5 or 1001/30000, not 'often'"),
        ]
        for (output, message) in cases {
            guard case .failure(let e) = Self.parse(output) else { Issue.record("\(output): parsed"); continue }
            #expect(e.diagnostics.map { "\($0.mark?.line ?? 0):\($0.mark?.column ?? 0) \($0.message)" } == [message], "\(output)")
        }
        let stills = RecipeParser.parse("""
            recipe: 1
            reader: { outputs: { v: { track: video } } }
            outputs:
              - { path: "s-{n}.jpg", fragment: 2s, images: { source: v, every: 1s } }
            """, file: "r.yaml")
        guard case .failure(let e) = stills else { Issue.record("stills with a fragment: parsed"); return }
        let said = e.diagnostics.map { "\($0.mark?.line ?? 0):\($0.mark?.column ?? 0) \($0.message)" }
        #expect(said.contains("4:36 'fragment' is for a media file: output 1 writes still images"), "\(said)")
    }
}
