import Foundation
import Pipeline
import Recipe
import Testing

/// `plan` shows the graph: each edge between stages with the format both agreed on (text and JSON),
/// and it is what ffprobe then finds in the file `run` writes.
@Suite("plan shows the graph")
struct PlanGraphCLITests {
    @Test("plan --json: nodes and edges with their formats; the text names each edge; run writes what they say")
    func graphInPlan() throws {
        let dir = Scratch()
        let src = try NegotiationCLITests.clip(dir)
        let out = dir.file("out.mp4")
        let recipe = BatchFixture.recipe
        let j = try Binary.run(["plan", recipe, "-i", src, "-o", out, "--json"], timeLimit: 60)
        #expect(j.status == 0, "\(j.stderr)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        let graph = try #require(plan["graph"] as? [String: Any])
        let nodes = try #require(graph["nodes"] as? [[String: Any]])
        let edges = try #require(graph["edges"] as? [[String: Any]])
        #expect(nodes.map { $0["kind"] as? String } == ["file", "sink", "source", "sink", "source"])
        #expect(nodes.map { $0["output"] as? Int } == [nil, 1, nil, 2, nil])
        #expect(nodes.map { $0["track"] as? Int } == [nil, nil, 0, nil, 1])
        #expect(nodes[0]["path"] as? String == out && nodes[2]["file"] as? String == src)
        #expect(edges.map { [$0["from"] as? Int, $0["to"] as? Int] } == [[2, 1], [1, 0], [4, 3], [3, 0]])
        let formats = edges.compactMap { $0["format"] as? [String: Any] }
        #expect(formats.map { $0["kind"] as? String } == ["pictures", "stream", "sound", "stream"])
        // The clip is 160x120 at 30 fps: kept (never upscaled), on the 30 fps grid.
        #expect(formats[0]["width"] as? Int == 160 && formats[0]["height"] as? Int == 120)
        #expect(formats[0]["timeBase"] as? String == "1/30" && formats[0]["frameRate"] as? String == "30/1")
        #expect(formats[1]["codec"] as? String == "h264" && formats[1]["pixelFormat"] as? String == "yuv420p")
        #expect(formats[2]["sampleRate"] as? Int == 48000 && formats[3]["codec"] as? String == "aac")

        let t = try Binary.run(["plan", recipe, "-i", src, "-o", out], timeLimit: 60)
        #expect(t.stdout.contains("""
            graph (each edge with the format both stages agreed on)
              source clip.mp4 #0 → sink of output track 1
                  pictures 160x120 yuv420p, time base 1/30, 30/1 fps
              sink of output track 1 → file \(out)
                  stream h264 (Constrained Baseline), 160x120 yuv420p, time base \(formats[1]["timeBase"] as? String ?? "?")
            """), "\(t.stdout)")

        let r = try Binary.run(["run", recipe, "-i", src, "-o", out], timeLimit: 120)
        #expect(r.status == 0, "\(r.stderr)")
        let probed = try HDRCorpusTests.ffprobe(["-show_entries", "stream=codec_name,width,height,pix_fmt,time_base", "-of", "default=nw=1", out])
        let timeBase = formats[1]["timeBase"] as? String ?? "?"
        #expect(probed == ["codec_name=h264", "width=160", "height=120", "pix_fmt=yuv420p", "time_base=\(timeBase)"])
    }

    @Test("a video encoded in chunks: plan draws source → 3 chunk encoders (their workers) → join → sink → file, the pictures into the encoders, the written stream out of them (text and JSON); the sound as in a plain plan")
    func chunkedGraph() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try SmartRenderCLITests.makeSource(src, seconds: 12)
        let recipe = dir.file("r.yaml")
        try ChunkedEncodeCLITests.recipe(output: "chunked.mp4", parallel: "{ chunks: 3 }").write(toFile: recipe, atomically: true, encoding: .utf8)
        let j = try Binary.run(["plan", recipe, "-i", src, "--json"], timeLimit: 120, cwd: dir.path)
        #expect(j.status == 0, "\(j.stderr)")
        let plan = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        let workers = try #require((plan["chunks"] as? [String: Any])?["workers"] as? Int)
        let graph = try #require(plan["graph"] as? [String: Any])
        let nodes = try #require(graph["nodes"] as? [[String: Any]])
        let edges = try #require(graph["edges"] as? [[String: Any]])
        #expect(nodes.map { $0["kind"] as? String } == ["file", "sink", "chunks", "source", "join", "sink", "source"])
        #expect(nodes.map { $0["output"] as? Int } == [nil, 1, 1, nil, 1, 2, nil])
        #expect(nodes[2]["chunks"] as? Int == 3 && nodes[2]["workers"] as? Int == workers)
        #expect(edges.map { [$0["from"] as? Int, $0["to"] as? Int] } == [[3, 2], [2, 4], [4, 1], [1, 0], [6, 5], [5, 0]])
        let formats = edges.compactMap { $0["format"] as? [String: Any] }
        #expect(formats.map { $0["kind"] as? String } == ["pictures", "stream", "stream", "stream", "sound", "stream"])
        #expect(formats[0]["width"] as? Int == 320 && formats[0]["frameRate"] as? String == "30/1")
        #expect(formats[1]["codec"] as? String == "h264" && formats[1]["timeBase"] as? String == formats[3]["timeBase"] as? String)

        let t = try Binary.run(["plan", recipe, "-i", src], timeLimit: 120, cwd: dir.path)
        let encoders = "3 chunk encoders of output track 1 (\(workers) worker\(workers == 1 ? "" : "s") at once)"
        let drawn = t.stdout.split(separator: "\n").drop { !$0.hasPrefix("graph") }.dropFirst().filter { $0.contains(" → ") }.map(String.init)
        #expect(drawn == [
            "  source clip.mp4 #0 → \(encoders)",
            "  \(encoders) → join of output track 1",
            "  join of output track 1 → sink of output track 1",
            "  sink of output track 1 → file \(nodes[0]["path"] as? String ?? "?")",
            "  source clip.mp4 #1 → sink of output track 2",
            "  sink of output track 2 → file \(nodes[0]["path"] as? String ?? "?")",
        ], "\(t.stdout)")
    }
}
