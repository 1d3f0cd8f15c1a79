import Foundation
import Testing

/// One numbering of tracks everywhere: source tracks are `#N` (stream index) in errors, warnings,
/// `plan` and `inspect`; `video:N` counts tracks of a type without cover art, and `inspect`'s
/// `ordinal` is that same count.
@Suite("Track numbering")
struct TrackNumberingCLITests {
    static let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first { FileManager.default.isExecutableFile(atPath: $0) }

    static func ffmpeg(_ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ffmpeg!)
        p.arguments = ["-v", "error", "-y"] + args
        try p.run()
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "ffmpeg \(args)")
    }

    @Test("cover art: inspect gives it no ordinal (it is not video:1, which recipes never select), the video is video:0 and plan picks it")
    func coverArtFirst() throws {
        try #require(Self.ffmpeg != nil, "ffmpeg is needed to add cover art")
        let dir = Scratch()
        let clip = dir.file("clip.mp4")
        try BatchFixture.clip(clip)
        try Self.ffmpeg(["-f", "lavfi", "-i", "color=red:s=64x64", "-frames:v", "1", dir.file("cover.png")])
        let src = dir.file("art.mp4")
        try Self.ffmpeg(["-i", clip, "-i", dir.file("cover.png"), "-map", "1", "-map", "0", "-c", "copy", "-c:v:0", "png",
                         "-disposition:v:0", "attached_pic", src])
        let r = try Binary.run(["inspect", src, "--json"], timeLimit: 60)
        try #require(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let tracks = try #require(o["tracks"] as? [[String: Any]])
        let pairs = tracks.map { "#\($0["index"] ?? "") \($0["type"] ?? "") \($0["ordinal"] is NSNull ? "-" : "\($0["ordinal"] ?? "")")" }
        // The MP4 muxer puts the cover art last.
        #expect(pairs == ["#0 video 0", "#1 audio 0", "#2 video -"])

        let plan = try Binary.run(["plan", BatchFixture.recipe, "-i", src, "-o", dir.file("out.mp4"), "--json"], timeLimit: 60)
        try #require(plan.status == 0, "\(plan.stderr)")
        let p = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        let planned = (p["tracks"] as? [[String: Any]] ?? []).map { "\($0["output"] ?? "") #\($0["sourceTrack"] ?? "")" }
        #expect(planned == ["1 #0", "2 #1"])
    }
}

extension TrackNumberingCLITests {
    @Test("a source with none of the recipe's (all optional) tracks does not fit the recipe: 66, saying what it has, nothing written")
    func noneOfTheTracks() throws {
        try #require(Self.ffmpeg != nil, "ffmpeg is needed to make an audio-only source")
        let dir = Scratch()
        let clip = dir.file("clip.mp4")
        try BatchFixture.clip(clip)
        let src = dir.file("sound.m4a")
        try Self.ffmpeg(["-i", clip, "-vn", "-c:a", "copy", src])
        try FileManager.default.removeItem(atPath: clip)
        let recipe = dir.file("r.yaml")
        try """
        recipe: 1
        reader:
          outputs:
            v: { track: video, optional: true }
        writer:
          inputs:
            - { source: v }

        """.write(toFile: recipe, atomically: true, encoding: .utf8)
        for command in ["plan", "run"] {
            let r = try Binary.run([command, recipe, "-i", src, "-o", dir.file("out.mp4")], timeLimit: 60)
            #expect(r.status == 66, "\(command)")
            #expect(r.stderr == "error: \(src): none of the recipe's tracks are in this file (it has #0 audio)\n", "\(command)")
        }
        #expect(dir.contents == ["r.yaml", "sound.m4a"])
    }
}
