import Foundation
import Pipeline
import Recipe
import Testing

/// Smart rendering of HEVC with open GOPs (x265's default: CRA keyframes whose RASL leading
/// pictures refer to the group before): a copy starts at a CRA, leaves its leading pictures to
/// the encoded run before it and makes it a BLA; a copy ends before a CRA's leading pictures,
/// which the encoded run after it shows. The output shows the frames, at the times, a full
/// encode shows; the copied samples are the source's, but the rewritten NAL unit type.
@Suite("reencode run with smart rendering of HEVC with open GOPs", .serialized)
struct SmartOpenGOPCLITests {
    /// x265's open GOP: a CRA every second (frames 30, 60, …), each with 3 or 4 RASL pictures
    /// shown before it (as its groups of 5 pictures fall: frame 60 has 57…59, 120 has 116…119).
    static let openGOP = ["preset": "ultrafast", "x265-params": "bframes=4:b-pyramid=1:b-adapt=0:scenecut=0:open-gop=1:log-level=error"]

    /// A sample of a file's first video track as ffprobe reads it: its pts (in the track's time
    /// base), whether it is a sync sample, its NAL units (behind 4-byte lengths, as x265's are stored).
    struct Sample {
        let pts: Int
        let key: Bool
        let units: [[UInt8]]
        var types: [Int] { units.map { Int($0.first ?? 0) >> 1 & 0x3f } }
        /// The picture's own units: those after the parameter sets (VPS, SPS, PPS) and the
        /// set-up record's SEI that a run's first sample carries.
        var picture: [[UInt8]] { Array(units.drop { (32...34).contains(Int($0.first ?? 0) >> 1 & 0x3f) || Int($0.first ?? 0) >> 1 & 0x3f == 39 }) }
    }

    static func samples(_ file: String) throws -> [Sample] {
        let r = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_data",
                                                          "-show_entries", "packet=pts,flags,data", "-of", "json", file])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stderr)")
        let packets = try #require(object["packets"] as? [[String: Any]], "\(file): no packets")
        return try packets.map { p in
            let pts = try #require(p["pts"] as? Int, "\(file): a sample without pts")
            return Sample(pts: pts, key: (p["flags"] as? String)?.hasPrefix("K") == true, units: units(hexDump(p["data"] as? String ?? "")))
        }.sorted { $0.pts < $1.pts }
    }

    /// ffprobe's `00000000: 0000 0002 0910 …  ascii` lines as bytes.
    private static func hexDump(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let hex = line[line.index(after: colon)...].prefix(41).split(separator: " ").joined()
            var i = hex.startIndex
            while let j = hex.index(i, offsetBy: 2, limitedBy: hex.endIndex), i < hex.endIndex, let b = UInt8(hex[i..<j], radix: 16) {
                bytes.append(b)
                i = j
            }
        }
        return bytes
    }

    private static func units(_ b: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = [], at = 0
        while at + 4 <= b.count {
            let length = b[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            out.append(Array(b[(at + 4)..<min(b.count, at + 4 + length)]))
            at += 4 + length
        }
        return out
    }

    /// A CRA's units as a copy that starts there holds them: each CRA slice a BLA_N_LP one.
    static func asBrokenLink(_ units: [[UInt8]]) -> [[UInt8]] {
        units.map { u in
            guard let h = u.first, Int(h) >> 1 & 0x3f == 21 else { return u }
            return [h & 0x81 | 18 << 1] + u.dropFirst()
        }
    }

    /// The source is what the tests are about: a CRA (21) every 30 frames from frame 30 on, each
    /// followed by RASL pictures (8, 9) shown before it (at least 3).
    static func checkOpen(_ source: [Sample]) throws {
        try #require(source.count == 180)
        let keys = source.enumerated().filter { $0.element.key }.map(\.offset)
        #expect(keys == [0, 30, 60, 90, 120, 150])
        for k in keys.dropFirst() {
            #expect(source[k].types.contains(21), "frame \(k): \(source[k].types)")
            #expect((k - 3..<k).allSatisfy { source[$0].types.contains { $0 == 8 || $0 == 9 } }, "frames before \(k): \(source[(k - 6)..<k].map(\.types))")
        }
    }

    /// `plan`'s smart lines (the summary and each run).
    static func planLines(_ dir: Scratch, _ src: String) throws -> String {
        let plan = try Binary.run(["plan", dir.file("r.yaml"), "-i", src], timeLimit: 120, cwd: dir.path)
        return plan.stdout.split(separator: "\n").drop { !$0.hasPrefix("smart") }.prefix { $0.hasPrefix("smart") || $0.hasPrefix("  segment") }.joined(separator: "\n")
    }

    /// The smart output and the full encode show the same frames at the same times; FFmpeg
    /// decodes the smart one without an error and GStreamer plays both to the same last picture.
    static func checkAgainstFull(_ dir: Scratch, smart: String, full: String) throws {
        let a = try CompositionRunCLITests.stamps(smart), b = try CompositionRunCLITests.stamps(full)
        #expect(a.map(\.stamp) == b.map(\.stamp))
        #expect(a.map(\.pts) == b.map(\.pts))
        #expect(try CopiedCompositionCLITests.decodeErrors(smart) == "")
        let g = try Binary.runTool(HLSPackageCLITests.gstPlay, [smart, full])
        if g.status == 77 { return }
        #expect(g.status == 0, "\(g.stderr)")
        let last = g.stdout.split(separator: "\n").map { $0.split(separator: " ").dropFirst(3).first.flatMap { Double($0) } }
        #expect(last.count == 2 && last[0] != nil && last[0] == last[1], "\(g.stdout)")
    }

    @Test("a trim of open-GOP HEVC in MP4 (1.5–4.2 s): frames 45…125 as a full encode shows them; frames 60…115 copied from the CRA at 2 s, made a BLA, to before the CRA at 4 s's leading pictures; 15 + 10 pictures encoded")
    func trim() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try SmartRenderCLITests.makeSource(src, seconds: 6, codec: .hevc, options: Self.openGOP)
        let source = try Self.samples(src)
        try Self.checkOpen(source)

        let r = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "smart.mp4", codec: "hevc", timing: SmartRenderCLITests.trim), src)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("smart.mp4")
        try SmartRenderCLITests.checkFrames(out, stamps: Array(45..<126))
        let lines = try Self.planLines(dir, src)
        #expect(lines == """
            smart    output track 1: 56 pictures copied (2 groups of pictures), 25 encoded (libx265, profile main): 69 % of the pictures need no encoding
              segment 1  encoded [1.500s, 2.000s)  15 pictures  at 0.000s
              segment 1  copied  [2.000s, 3.867s)  56 pictures, 2 groups  at 0.500s
              segment 1  encoded [3.867s, 4.200s)  10 pictures  at 2.367s
            """, "\(lines)")

        let full = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "full.mp4", codec: "hevc", smart: "off", timing: SmartRenderCLITests.trim), src)
        #expect(full.status == 0, "\(full.stderr)")
        try Self.checkAgainstFull(dir, smart: out, full: dir.file("full.mp4"))

        // Frames 60…115 are the source's samples; the first, the CRA, is a BLA with the source's
        // parameter sets before it (the encoded pictures before it had theirs); its RASL
        // pictures (56…59) and the CRA at 90's stay in the copy as they are.
        let made = try Self.samples(out)
        try #require(made.count == 81)
        let copied = Array(made[15..<71]), kept = Array(source[60..<116])
        #expect(copied.first?.types.prefix(3) == [32, 33, 34])
        #expect(copied.first?.picture == Self.asBrokenLink(kept[0].units))
        #expect(copied.first?.types.contains(18) == true && copied.first?.types.contains(21) == false)
        #expect(copied.dropFirst().map(\.units) == kept.dropFirst().map(\.units))
        #expect(copied.map(\.key) == kept.map(\.key))
        #expect(made[45].types.contains(21) && made[41].types.contains { $0 == 8 || $0 == 9 })
        // The encoded pictures are not the source's.
        let sourceUnits = Set(source.flatMap(\.units).filter { $0.count > 40 })
        for k in Array(0..<15) + Array(71..<81) { #expect(!made[k].units.contains { sourceUnits.contains($0) }, "frame \(k) is a source sample") }

        // A trim that starts at the CRA: the output starts with it, made a BLA, without parameter
        // sets before it (the sample description has them), its leading pictures left out.
        let atCRA = "session:\n  time-range: { start: 2s, end: 3s }\n"
        let first = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "at.mp4", codec: "hevc", timing: atCRA), src)
        #expect(first.status == 0, "\(first.stderr)")
        try SmartRenderCLITests.checkFrames(dir.file("at.mp4"), stamps: Array(60..<90))
        let starts = try Self.samples(dir.file("at.mp4"))
        try #require(starts.count == 30)
        #expect(starts.first?.units == Self.asBrokenLink(source[60].units))
        #expect(Array(starts[1..<26]).map(\.units) == Array(source[61..<86]).map(\.units))
    }

    @Test("a cut-out of open-GOP HEVC into Matroska (0.4–2.3 s and 3.1–5.5 s): frames 12…68 then 93…164 as a full encode shows them, each copied run from a CRA made a BLA, encoded runs within a GOP and its reordering")
    func cutOutMatroska() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try SmartRenderCLITests.makeSource(src, seconds: 6, codec: .hevc, options: Self.openGOP)
        let source = try Self.samples(src)
        try Self.checkOpen(source)

        let r = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "smart.mkv", codec: "hevc", timing: SmartRenderCLITests.cutOut), src)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("smart.mkv")
        try SmartRenderCLITests.checkFrames(out, stamps: Array(12..<69) + Array(93..<165))

        // Each encoded run is at most a GOP (30) and the reordering: the cut to the next CRA, or
        // a CRA's leading pictures to the cut.
        let plan = try Binary.run(["plan", "--json", dir.file("r.yaml"), "-i", src], timeLimit: 120, cwd: dir.path)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [String: Any])
        let runs = try #require((o["smart"] as? [[String: Any]])?.first?["runs"] as? [[String: Any]])
        #expect(runs.map { $0["kind"] as? String ?? "" } == ["encoded", "copied", "encoded", "encoded", "copied", "encoded"])
        #expect(runs.map { $0["pictures"] as? Int ?? 0 } == [18, 27, 12, 27, 26, 19])

        let full = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "full.mkv", codec: "hevc", smart: "off", timing: SmartRenderCLITests.cutOut), src)
        #expect(full.status == 0, "\(full.stderr)")
        try Self.checkAgainstFull(dir, smart: out, full: dir.file("full.mkv"))

        // Output frames 18…44 are source frames 30…56 (to the CRA at 60's leading pictures), 84…109 are 120…145.
        let made = try Self.samples(out)
        try #require(made.count == 129)
        for (at, from, count) in [(18, 30, 27), (84, 120, 26)] {
            #expect(made[at].types.prefix(3) == [32, 33, 34])
            #expect(made[at].picture == Self.asBrokenLink(source[from].units), "frame \(from)")
            #expect(Array(made[(at + 1)..<(at + count)]).map(\.units) == Array(source[(from + 1)..<(from + count)]).map(\.units), "after frame \(from)")
            #expect(!made[at + count].units.contains { $0.count > 40 && source[from + count].units.contains($0) }, "frame \(from + count) is encoded")
        }
    }

    @Test("HEVC with temporal layers (x265's default open GOP, B pictures in sub-layer 1 as TSA_N): a cut-out into MP4 shows frames 12…68 then 93…164 as a full encode shows them, the source's samples between the cuts")
    func temporalLayers() throws {
        let dir = Scratch()
        let src = dir.file("clip.mp4")
        try SmartRenderCLITests.makeSource(src, seconds: 6, codec: .hevc,
                                           options: ["preset": "ultrafast", "x265-params": "bframes=4:b-pyramid=1:b-adapt=0:scenecut=0:temporal-layers=1:log-level=error"])
        let source = try Self.samples(src)
        try Self.checkOpen(source)
        // Pictures in sub-layer 1 (TemporalId 1), which nothing in sub-layer 0 refers to.
        let layered = source.filter { $0.units.contains { Int($0.first ?? 0) >> 1 & 0x3f == 2 && ($0.count > 1 ? Int($0[1] & 7) - 1 : 0) == 1 } }
        #expect(layered.count > 60, "\(layered.count) TSA_N pictures in sub-layer 1")

        let r = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "smart.mp4", codec: "hevc", timing: SmartRenderCLITests.cutOut), src)
        #expect(r.status == 0, "\(r.stderr)")
        let out = dir.file("smart.mp4")
        try SmartRenderCLITests.checkFrames(out, stamps: Array(12..<69) + Array(93..<165))
        let full = try SmartRenderCLITests.run(dir, SmartRenderCLITests.recipe(output: "full.mp4", codec: "hevc", smart: "off", timing: SmartRenderCLITests.cutOut), src)
        #expect(full.status == 0, "\(full.stderr)")
        try Self.checkAgainstFull(dir, smart: out, full: dir.file("full.mp4"))

        // Each copied run: its CRA made a BLA after the encoded run's parameter sets, then the
        // source's samples, sub-layer 1 included.
        let made = try Self.samples(out)
        try #require(made.count == 129)
        for (at, from) in [(18, 30), (84, 120)] {
            #expect(made[at].picture == Self.asBrokenLink(source[from].units), "frame \(from)")
            #expect(Array(made[(at + 1)..<(at + 26)]).map(\.units) == Array(source[(from + 1)..<(from + 26)]).map(\.units), "after frame \(from)")
        }
    }
}
