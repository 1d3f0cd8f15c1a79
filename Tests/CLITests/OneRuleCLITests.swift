import Foundation
import Pipeline
import Recipe
import Testing

/// Each rule about a recipe's output, time range and settings lives in one place: `validate`
/// (no source), `plan` and `run` say the same thing about the same fault, and the engine says
/// it in the compiler's words.
@Suite("One rule per fact: validate, plan, run and the engine agree")
struct OneRuleCLITests {
    static func recipe(output: String, session: String = "") -> String {
        """
        recipe: 1
        output: "\(output)"
        reader: { outputs: { v: { track: video } } }
        writer: { inputs: [ { source: v, settings: { codec: h264, codec-options: { preset: ultrafast } } } ] }
        \(session)
        """
    }

    @Test("an output path from the recipe that names no file or no container: the same message at its line (65) from validate, plan and run",
          arguments: [("out/", "names a folder, not a file: end it with a file name such as out.mp4"),
                      ("{dir}/sub/", "names a folder, not a file: end it with a file name such as out.mp4"),
                      ("out/..", "names a folder, not a file: end it with a file name such as out.mp4"),
                      ("a\\0b.mp4", "contains a NUL byte"),
                      ("{dir}/z.avi", "cannot tell the container from the extension '.avi': use mp4, mov, m4a, mkv, webm, flac, opus, ogg or wav, or name the format")])
    func outputPath(template: String, why: String) throws {
        let dir = Scratch()
        let src = dir.file("s.mp4"), recipe = dir.file("r.yaml")
        try makeShortSource(src)
        try Self.recipe(output: template).write(toFile: recipe, atomically: true, encoding: .utf8)
        // Without a source, validate names the path as the recipe writes it; plan and run name
        // the path made from it.
        func expected(_ path: String) -> String {
            "\(recipe):2:9: error: \(path.replacingOccurrences(of: "\\0", with: "\0")): \(why)\noutput: \"\(template)\"\n        ^\n"
        }
        let v = try Binary.run(["validate", recipe], timeLimit: 60, cwd: dir.path)
        #expect(v.status == 65, "validate \(template): \(v.stderr)")
        #expect(v.stderr == expected(template), "validate \(template)")
        for command in ["plan", "run"] {
            let r = try Binary.run([command, recipe, "-i", src], timeLimit: 60, cwd: dir.path)
            #expect(r.status == 65, "\(command) \(template): \(r.stderr)")
            #expect(r.stderr == expected(template.replacingOccurrences(of: "{dir}", with: dir.path)), "\(command) \(template)")
        }
        #expect(dir.contents == ["r.yaml", "s.mp4"])
    }

    @Test("a time range that starts past the source's end: the engine's refusal is the compiler's, word for word")
    func timeRangePastTheEnd() throws {
        let dir = Scratch()
        let src = dir.file("s.mp4"), recipe = dir.file("r.yaml")
        try makeShortSource(src)
        try Self.recipe(output: "out.mp4", session: "session: { time-range: { start: 5s } }")
            .write(toFile: recipe, atomically: true, encoding: .utf8)
        let why = "the time range starts at 5.000s, at or after the end of \(src) (1.000s)"
        let r = try Binary.run(["plan", recipe, "-i", src], timeLimit: 60, cwd: dir.path)
        #expect(r.status == 65)
        #expect(r.stderr == "\(recipe):5:24: error: \(why)\nsession: { time-range: { start: 5s } }\n" + String(repeating: " ", count: 23) + "^\n", "\(r.stderr)")
        var request = ConversionRequest(source: src, output: dir.file("out.mp4"), tracks: [TrackRequest(.type(.video, 0), .passthrough)])
        request.timeRange = TimeRange(start: MediaTime(seconds: 5), duration: MediaTime(seconds: 1))
        #expect(throws: MediaError(.invalidSettings, why, file: src)) { _ = try Planner.plan(request) }
    }

    @Test("the output is checked again when the run starts, the recipe protected as at plan time (73)")
    func recipeProtectedAtStart() throws {
        let dir = Scratch()
        let src = dir.file("s.mp4"), recipePath = dir.file("r.yaml"), out = dir.file("out.mp4")
        try makeShortSource(src)
        let text = Self.recipe(output: "out.mp4")
        try text.write(toFile: recipePath, atomically: true, encoding: .utf8)
        let recipe = try RecipeParser.parse(text, file: recipePath).get()
        let plan = try RecipeCompiler.compile(recipe, input: src, output: out, overwrite: true).plan
        // Between the plan and the run, the output's name comes to name the recipe.
        try FileManager.default.createSymbolicLink(atPath: out, withDestinationPath: "r.yaml")
        #expect(throws: MediaError(.cannotCreateOutput, "is the recipe \(recipePath) (the same file): the output may never replace it; name another output", file: out)) {
            try ExportSession(plan: plan).run()
        }
        #expect(try String(contentsOfFile: recipePath, encoding: .utf8) == text)
        #expect(dir.contents == ["out.mp4", "r.yaml", "s.mp4"])
    }

    @Test("plan says where each setting came from, hdr as every other key: the preset of the chain that sets it, or the recipe")
    func settingOrigins() throws {
        let dir = Scratch()
        let src = dir.file("hlg.mp4"), recipe = dir.file("r.yaml")
        try HDRCLITests.hlgSource(src)
        for (settings, origin) in [("small", "preset sdr"), ("{ base: sdr, hdr: tone-map, quality: 30 }", "recipe")] {
            try """
                recipe: 1
                presets:
                  sdr: { codec: h264, hdr: tone-map, codec-options: { preset: ultrafast } }
                  small: { base: sdr, quality: 30 }
                reader: { outputs: { v: { track: video } } }
                writer: { inputs: [ { source: v, settings: \(settings) } ] }
                """.write(toFile: recipe, atomically: true, encoding: .utf8)
            let r = try Binary.run(["plan", recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
            #expect(r.status == 0, "\(r.stderr)")
            let lines = r.stdout.split(separator: "\n").map(String.init)
            #expect(lines.contains("  hdr             tone-map     \(origin)"), "\(settings): \(r.stdout)")
            #expect(lines.contains("  quality         30           \(settings == "small" ? "preset small" : "recipe"): constant quality as asked"), "\(settings): \(r.stdout)")
        }
    }
}
