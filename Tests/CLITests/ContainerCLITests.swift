import Foundation
import Testing

/// WebM and the audio-only containers through the command line: a codec or a kind of track the
/// container does not hold is refused at the line of the writer input that asks, naming the
/// track and the container, by `validate` and `plan` alike (65), a copy by `plan` (66), with
/// nothing written; the bundled web-vp9 recipe makes VP9 + Opus WebM.
@Suite("Containers: WebM, FLAC, Ogg Opus, WAV refusals")
struct ContainerCLITests {
    /// A recipe writing the video and sound (each where its settings are not nil; "": without
    /// settings) to `{dir}/{stem}-SUFFIX.EXT`.
    static func recipe(_ ext: String, video: String?, audio: String?, suffix: String = "x") -> String {
        func input(_ source: String, _ settings: String?) -> String {
            settings.map { "    - { source: \(source)\($0.isEmpty ? "" : ", settings: \($0)") }\n" } ?? ""
        }
        let inputs = input("v", video) + input("a", audio)
        return """
        recipe: 1
        output: "{dir}/{stem}-\(suffix).\(ext)"
        reader:
          outputs:
        \(video == nil ? "" : "    v: { track: video }\n")\(audio == nil ? "" : "    a: { track: audio }\n")writer:
          inputs:
        \(inputs)
        """
    }

    static let webmHolds = "VP8, VP9 or AV1 video, Opus or Vorbis audio and WebVTT subtitles"

    /// (extension, video settings, audio settings, line:col, message) of the first error.
    static let refused: [(String, String?, String?, String, String)] = [
        ("webm", "{ codec: h264 }", "{ codec: opus }", "9:32",
         "writer input 1 encodes the video track ('v') as H.264 (codec h264), but a webm file holds \(webmHolds) only"),
        ("webm", "{ codec: hevc }", nil, "8:32",
         "writer input 1 encodes the video track ('v') as HEVC (codec hevc), but a webm file holds \(webmHolds) only"),
        ("webm", "{ codec: vp9 }", "{ codec: aac }", "10:32",
         "writer input 2 encodes the audio track ('a') as AAC (codec aac), but a webm file holds \(webmHolds) only"),
        // A preset's codec: at the preset's name.
        ("webm", "vp9-1080p", "flac", "10:30",
         "writer input 2 encodes the audio track ('a') as FLAC (codec flac), but a webm file holds \(webmHolds) only"),
        ("flac", "{ codec: vp9 }", "{ codec: flac }", "9:17", "writer input 1 reads a video track ('v'), but a flac file holds audio only"),
        ("flac", nil, "{ codec: opus }", "8:32", "writer input 1 encodes the audio track ('a') as Opus (codec opus), but a flac file holds FLAC audio only"),
        ("opus", nil, "{ codec: vorbis }", "8:32", "writer input 1 encodes the audio track ('a') as Vorbis (codec vorbis), but an opus file holds Opus audio only"),
        // Ogg (.ogg, .oga): Opus, Vorbis or FLAC sound only; its writer's Theora and VP8 are not written.
        ("ogg", "{ codec: vp9 }", "{ codec: opus }", "9:17", "writer input 1 reads a video track ('v'), but an ogg file holds audio only"),
        ("oga", "{ codec: h264 }", nil, "8:17", "writer input 1 reads a video track ('v'), but an ogg file holds audio only"),
        ("ogg", nil, "{ codec: aac }", "8:32", "writer input 1 encodes the audio track ('a') as AAC (codec aac), but an ogg file holds Opus, Vorbis or FLAC audio only"),
        ("oga", nil, "{ codec: alac }", "8:32", "writer input 1 encodes the audio track ('a') as ALAC (codec alac), but an ogg file holds Opus, Vorbis or FLAC audio only"),
        ("wav", nil, "{ codec: aac }", "8:32", "writer input 1 encodes the audio track ('a') as AAC (codec aac), but a wav file holds PCM audio only"),
        ("wav", "{ codec: h264 }", nil, "8:17", "writer input 1 reads a video track ('v'), but a wav file holds audio only"),
    ]

    @Test("validate and plan: a codec or track the container does not hold, at the writer input's line, exit 65, nothing written")
    func refusals() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try BatchFixture.clip(src)
        for (ext, video, audio, at, message) in Self.refused {
            let recipe = try NegotiationCLITests.recipe(dir, Self.recipe(ext, video: video, audio: audio))
            for command in [["validate", recipe], ["plan", recipe, "-i", src]] {
                let r = try Binary.run(command, timeLimit: 60)
                #expect(r.status == 65, "\(command[0]) \(ext) \(video ?? "") \(audio ?? ""): \(r.stderr)")
                #expect(r.stderr.split(separator: "\n").first.map(String.init) == "\(recipe):\(at): error: \(message)", "\(command[0]): \(r.stderr)")
            }
        }
        #expect(dir.contents == ["clip.mp4", "r.yaml"])
    }

    @Test("plan and run: H.264 copied into WebM is refused at the line that asked the copy, naming the track (66), nothing written")
    func copyRefused() throws {
        let dir = Scratch()
        let src = try NewCodecCLITests.clip(dir)
        let recipe = try NegotiationCLITests.recipe(dir, Self.recipe("webm", video: "passthrough", audio: nil))
        for command in ["plan", "run"] {
            let r = try Binary.run([command, recipe, "-i", src], timeLimit: 60)
            #expect(r.status == 66, "\(command): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").first.map(String.init) == "\(recipe):8:30: error: \(src): track #0: h264 cannot be copied into webm as it is: reencode it instead")
        }
        #expect(dir.contents == ["clip-160x120.mp4", "r.yaml"])
    }

    @Test("recipes/web-vp9.yaml: VP9 + Opus WebM inside 1920x1080, every picture in order; plan names the preset")
    func webVP9Recipe() throws {
        let dir = Scratch()
        let src = try NewCodecCLITests.clip(dir)
        // The clip has no sound: the recipe's sound is optional.
        let recipe = BatchFixture.repo.appendingPathComponent("recipes/web-vp9.yaml").path
        let p = try Binary.run(["plan", recipe, "-i", src], timeLimit: 60)
        #expect(p.status == 0, "\(p.stderr)")
        #expect(p.stdout.contains("output   \(dir.file("clip-160x120-web.webm"))  (webm)\n"))
        #expect(p.stdout.contains("  codec           vp9          preset vp9-1080p\n"))
        let r = try Binary.run(["run", recipe, "-i", src, "--progress", "none", "--quiet"], timeLimit: 120)
        #expect(r.status == 0 && r.stderr == "", "\(r.stderr)")
        let out = dir.file("clip-160x120-web.webm")
        #expect(try HDRCorpusTests.ffprobe(["-show_entries", "format=format_name:stream=codec_name", "-of", "default=nw=1", out]) == ["codec_name=vp9", "format_name=matroska,webm"])
        #expect(try CompositionCLITests.stamps(out) == Array(0..<10))
    }
}
