import Foundation
import Testing

/// `validate` refuses everything `plan` would refuse whatever the source: the output's container
/// (`.webm`, `.m3u8`, no extension, one that contradicts `format:`), a track written twice,
/// settings for another kind of track, a copy in a composition, what this build cannot compose,
/// a size or rate in a `ladder: auto` rendition's own settings.
/// Each at its line and column, exit 65, with `plan` refusing the same recipe for a real source.
/// What does depend on the source (an extension from `{ext}`, `video` and `#0` that may be one
/// track) still validates.
@Suite("validate: what plan refuses without a source")
struct ValidateSourceFreeTests {
    static let tracks = """
        reader:
          outputs:
            v: { track: video }
            s: { track: audio }
        writer:
          inputs:
            - { source: v, settings: { codec: h264, codec-options: { preset: ultrafast } } }
            - { source: s }

        """

    /// Recipe text, the refusal's line:col and message in `validate`, and `plan`'s first line
    /// (where the source is named, it is shown with `SRC`).
    static let refused: [(recipe: String, at: String, validate: String, plan: String)] = [
        ("recipe: 1\noutput: \"{dir}/{stem}-x.ogv\"\n" + tracks, "2:9",
         "{dir}/{stem}-x.ogv: cannot tell the container from the extension '.ogv': use mp4, mov, m4a, mkv, webm, flac, opus, ogg or wav, or name the format",
         "2:9: error: DIR/clip-x.ogv: cannot tell the container from the extension '.ogv'"),
        ("recipe: 1\noutput: \"{dir}/hls/{stem}.m3u8\"\n" + tracks, "2:9",
         "{dir}/hls/{stem}.m3u8: cannot tell the container from the extension '.m3u8': use mp4, mov, m4a, mkv, webm, flac, opus, ogg or wav, or name the format",
         "2:9: error: DIR/hls/clip.m3u8: cannot tell the container from the extension '.m3u8'"),
        ("recipe: 1\noutput: \"{dir}/made\"\n" + tracks, "2:9",
         "{dir}/made: has no extension to tell the container from: end it in .mp4, .mov, .m4a, .mkv, .webm, .flac, .opus, .ogg or .wav, or name the format",
         "2:9: error: DIR/made: has no extension"),
        ("recipe: 1\noutput: { path: \"{dir}/{stem}-x.mp4\", format: mkv }\n" + tracks, "2:17",
         "{dir}/{stem}-x.mp4: the extension '.mp4' contradicts the format mkv: name the output .mkv, or ask for mp4",
         "2:17: error: DIR/clip-x.mp4: the extension '.mp4' contradicts the format mkv"),
        ("""
         recipe: 1
         output: "{dir}/{stem}-x.mp4"
         reader:
           outputs:
             a: { track: video }
             b: { track: video, optional: true }
         writer:
           inputs:
             - { source: a, settings: { codec: h264 } }
             - { source: b }

         """, "10:17",
         "writer input 2 reads the video track ('b'), which writer input 1 already writes ('a'): a track can be written once",
         "10:17: error: writer input 2 reads track #0 of SRC ('b'), which writer input 1 already writes ('a'): a track can be written once"),
        ("""
         recipe: 1
         output: "{dir}/{stem}-x.mp4"
         reader:
           outputs:
             a: { track: video }
         writer:
           inputs:
             - { source: a, settings: { sample-rate: 48000 } }

         """, "8:32",
         "the settings of writer input 1 sets 'sample-rate', an audio setting, but writer input 1 reads a video track ('a')",
         "8:32: error: the settings of writer input 1 sets 'sample-rate', an audio setting, but writer input 1 reads a video track ('a')"),
        ("""
         recipe: 1
         output: "{dir}/{stem}-x.m4a"
         reader:
           outputs:
             a: { track: audio }
         writer:
           inputs:
             - { source: a, settings: { frame-rate: 30 } }

         """, "8:32",
         "the settings of writer input 1 sets 'frame-rate', a video setting, but writer input 1 reads an audio track ('a')",
         "8:32: error: the settings of writer input 1 sets 'frame-rate', a video setting, but writer input 1 reads an audio track ('a')"),
        ("""
         recipe: 1
         output: "{dir}/{stem}-x.mp4"
         composition:
           video:
             - { source: input, speed: 2 }
         reader:
           outputs:
             a: { track: video }
         writer:
           inputs:
             - { source: a, settings: passthrough }

         """, "5:31",
         "writer input 1 copies 'a', but video segment 1 plays at another speed: copied pictures keep their source's frames and times; encode the video instead",
         "5:31: error: writer input 1 copies 'a', but video segment 1 plays at another speed"),
        ("""
         recipe: 1
         output: "{dir}/{stem}-x.m4a"
         composition:
           audio:
             - { source: input, slow-motion: from-source }
         reader:
           outputs:
             s: { track: audio }
         writer:
           inputs:
             - { source: s }

         """, "5:37",
         "'slow-motion: from-source' on the audio track is not yet supported: it is read from the video's frames, so give the composition a 'video:' track and the sound follows it",
         "5:37: error: 'slow-motion: from-source' on the audio track is not yet supported"),
        ("""
         recipe: 1
         reader:
           outputs:
             v: { track: video }
         outputs:
           - path: "{dir}/{stem}-hls"
             format: hls
             renditions:
               - ladder: auto
                 inputs: [ { source: v, settings: { codec: h264, height: 360 } } ]

         """, "10:57",
         "'height' is set by each rung of 'ladder: auto' (9:17): leave it out of the ladder's settings",
         "10:57: error: 'height' is set by each rung of 'ladder: auto' (9:17): leave it out of the ladder's settings"),
    ]

    @Test("each refusal plan makes without looking at the source: validate says it at the same line:col, exit 65; plan refuses too")
    func refusedWithoutSource() throws {
        let dir = Scratch()
        let src = try NegotiationCLITests.clip(dir)
        for c in Self.refused {
            let recipe = try NegotiationCLITests.recipe(dir, c.recipe)
            let v = try Binary.run(["validate", recipe], timeLimit: 60)
            #expect(v.status == 65, "\(c.validate): \(v.stderr)")
            #expect(v.stdout == "")
            let lines = v.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first == "\(recipe):\(c.at): error: \(c.validate)", "\(v.stderr)")
            // The recipe line and a caret under the column.
            let column = Int(c.at.split(separator: ":")[1])!
            #expect(lines.count == 4 && lines[2] == String(repeating: " ", count: column - 1) + "^", "\(v.stderr)")
            let p = try Binary.run(["plan", recipe, "-i", src], timeLimit: 60)
            #expect(p.status == 65, "plan: \(p.stderr)")
            let plan = c.plan.replacingOccurrences(of: "SRC", with: src).replacingOccurrences(of: "DIR", with: dir.path)
            #expect(p.stderr.hasPrefix("\(recipe):\(plan)"), "plan: \(p.stderr)")
        }
        #expect(dir.contents == ["clip.mp4", "r.yaml"])
    }

    @Test("what depends on the source still validates: an extension from {ext} or {name}, video and #0 that may be one track")
    func dependsOnSource() throws {
        let dir = Scratch()
        for output in ["\"{dir}/{stem}-x.{ext}\"", "\"out/{name}\"", "\"{dir}/{stem}\"", "\"{stem}.mkv\""] {
            let recipe = try NegotiationCLITests.recipe(dir, "recipe: 1\noutput: \(output)\n" + Self.tracks)
            let v = try Binary.run(["validate", recipe], timeLimit: 60)
            #expect(v.status == 0, "\(output): \(v.stderr)")
            #expect(v.stdout == "\(recipe): ok\n")
        }
        let recipe = try NegotiationCLITests.recipe(dir, """
        recipe: 1
        output: "{dir}/{stem}-x.mkv"
        reader:
          outputs:
            a: { track: video }
            b: { track: "#0" }
        writer:
          inputs:
            - { source: a, settings: { codec: h264 } }
            - { source: b }

        """)
        let v = try Binary.run(["validate", recipe], timeLimit: 60)
        #expect(v.status == 0, "\(v.stderr)")
    }
}

/// A recipe's bytes that are not UTF-8 text, or a NUL among them, are an error at their line and
/// column (in characters, as libyaml counts), the line shown readable with a caret under them.
@Suite("recipe text: not UTF-8, NUL")
struct RecipeTextCLITests {
    @Test("Latin-1, a cut sequence, a NUL: validate, plan and run say file:line:col with the caret, exit 65")
    func placed() throws {
        let dir = Scratch()
        let src = try NegotiationCLITests.clip(dir)
        let cases: [(bytes: [UInt8], expected: String)] = [
            // `café` saved as Latin-1 on line 3, after a two-byte character: column 15 (16 in bytes).
            (Array("recipe: 1\nname: x\nsummary: ñ caf".utf8) + [0xE9] + Array("\n".utf8),
             ":3:15: error: the recipe is not UTF-8 text: the byte 0xE9 here is not UTF-8 (save the file as UTF-8)\nsummary: ñ caf\u{FFFD}\n              ^\n"),
            // The start of a three-byte sequence cut short at the end of the file.
            (Array("recipe: 1\nname: €".utf8) + [0xE2, 0x82],
             ":2:8: error: the recipe is not UTF-8 text: the bytes 0xE2 0x82 here are not UTF-8 (save the file as UTF-8)\nname: €\u{FFFD}\n       ^\n"),
            (Array("recipe: 1\n# a\tb".utf8) + [0] + Array("c\n".utf8),
             ":2:6: error: the recipe is not text: it holds a NUL byte here\n# a b\u{2400}c\n     ^\n"),
        ]
        for c in cases {
            let recipe = dir.file("r.yaml")
            try Data(c.bytes).write(to: URL(fileURLWithPath: recipe))
            for args in [["validate", recipe], ["plan", recipe, "-i", src], ["run", recipe, "-i", src, "-o", dir.file("o.mp4")]] {
                let r = try Binary.run(args, timeLimit: 60)
                #expect(r.status == 65, "\(args[0]): \(r.stderr)")
                #expect(r.stderr == recipe + c.expected, "\(args[0])")
            }
        }
        #expect(dir.contents == ["clip.mp4", "r.yaml"])
    }
}
