import Foundation
import Pipeline
import Recipe
import Testing

/// ProRes from an interlaced source keeps its fields unless the settings ask to deinterlace:
/// prores_ks codes each frame as two fields, the order stated in the stream and the container
/// (ffprobe's field_order, each frame's flags), each field's rows still that field's picture.
/// `deinterlace: auto`, or a resize, which would blend the fields, makes it progressive.
@Suite("Interlaced sources into ProRes: fields kept, order stated (ffprobe, idet)", .serialized)
struct ProResInterlacedCLITests {
    static let frames = InterlacedCLITests.frames

    static func recipe(_ dir: Scratch, _ settings: String = "") throws -> String {
        let path = dir.file("r-\(UInt32.random(in: 0...UInt32.max)).yaml")
        try """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
        writer:
          inputs:
            - { source: picture, settings: { codec: prores, profile: proxy\(settings) } }

        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `plan`'s decision lines with their columns' spaces closed up.
    static func decisions(_ stdout: String) -> [String] {
        stdout.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
    }

    /// Each frame's (interlaced_frame, top_field_first) as ffprobe decodes them.
    static func frameFlags(_ file: String) throws -> [String] {
        try HDRCorpusTests.ffprobe(["-show_entries", "frame=interlaced_frame,top_field_first", "-of", "csv=p=0", file])
    }

    @Test("without 'deinterlace': the fields are kept — field_order the source's (MOV and MKV), every frame flagged in that order, still combed (idet), each field's rows that field's",
          arguments: ["mov", "mkv"])
    func kept(_ ext: String) throws {
        let dir = Scratch()
        let recipe = try Self.recipe(dir)
        for (file, order) in try InterlacedCLITests.sources(in: dir) {
            let name = URL(fileURLWithPath: file).lastPathComponent
            let out = dir.file("kept-\(name).\(ext)")
            let plan = try Binary.run(["plan", recipe, "-i", file, "-o", out], timeLimit: 60)
            #expect(plan.status == 0, "\(plan.stderr)")
            #expect(Self.decisions(plan.stdout).contains("deinterlace off deinterlace.prores-fields: the source is \(order.description) and ProRes is for editing: its fields are kept and coded as fields (prores_ks interlaced), and the output states the order ('deinterlace: auto' makes it progressive)"), "\(plan.stdout)")
            let run = try Binary.run(["run", recipe, "-i", file, "-o", out, "--quiet"], timeLimit: 120)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try InterlacedCLITests.probe(out, "codec_name,field_order") == ["codec_name": "prores", "field_order": order.rawValue], "\(name)")
            #expect(try Self.frameFlags(out) == Array(repeating: "1,\(order.topFieldFirst ? 1 : 0)", count: Self.frames), "\(name)")
            let seen = try InterlacedCLITests.idet(out)
            #expect(seen.interlaced >= Self.frames / 2 && seen.progressive == 0, "\(name): \(seen)")
            // The rows of the field shown first carry field 2k, the others 2k + 1.
            let first = try InterlacedCLITests.pictures(out) { _ in order.topFieldFirst ? 0 : 1 }
            let second = try InterlacedCLITests.pictures(out) { _ in order.topFieldFirst ? 1 : 0 }
            #expect(first.map(\.1) == (0..<Self.frames).map { 2 * $0 }, "\(name)")
            #expect(second.map(\.1) == (0..<Self.frames).map { 2 * $0 + 1 }, "\(name)")
        }
    }

    @Test("'deinterlace: auto' asked, or the pictures resized: made progressive (bwdif), and plan says why")
    func progressive() throws {
        let dir = Scratch()
        let src = dir.file("avc.mp4")
        try InterlacedCLITests.h264(src, order: .tt)
        for (settings, line) in [
            (", deinterlace: auto", "deinterlace frame-rate deinterlace.auto: the source is interlaced, top field first and the output is progressive"),
            (", width: 160", "deinterlace frame-rate deinterlace.resized: the source is interlaced, top field first, but its pictures are resized (320x240 → 160x120), which blends its fields: each frame's two fields are made one picture (bwdif), at the source's 25 fps"),
        ] {
            let recipe = try Self.recipe(dir, settings)
            let out = dir.file("progressive-\(UInt32.random(in: 0...UInt32.max)).mov")
            let plan = try Binary.run(["plan", recipe, "-i", src, "-o", out], timeLimit: 60)
            #expect(Self.decisions(plan.stdout).contains { $0.hasPrefix(line) }, "\(plan.stdout)")
            let run = try Binary.run(["run", recipe, "-i", src, "-o", out, "--quiet"], timeLimit: 120)
            #expect(run.status == 0, "\(run.stderr)")
            // No field order stated (MOV writes no `fiel` box for progressive ProRes), every frame progressive.
            #expect(!["tt", "bb", "tb", "bt"].contains(try InterlacedCLITests.probe(out, "field_order")["field_order"] ?? ""), "\(settings)")
            #expect(try Self.frameFlags(out).allSatisfy { $0.hasPrefix("0,") }, "\(settings)")
            #expect(try InterlacedCLITests.idet(out).interlaced <= Self.frames / 5, "\(settings)")
            // Each picture is its frame's first field made whole (the stamp band is read at the source's size only).
            let pictures = try InterlacedCLITests.pictures(out) { _ in 0 }
            #expect(pictures.count == Self.frames, "\(settings)")
            if !settings.contains("width") { #expect(pictures.map(\.1) == (0..<Self.frames).map { 2 * $0 }, "\(settings)") }
        }
    }
}
