import Recipe
import Testing

/// `ladder: auto`'s rungs against a source's displayed size: the specification's table, none
/// larger than the source, a top rung at the source's size when it falls between two.
@Suite("ladder: auto — the rungs of Apple's HLS authoring specification that a source fills")
struct LadderChoiceTests {
    static func kept(_ c: [LadderChoice]) -> [String] { c.filter(\.kept).map { "\($0.width)x\($0.height)@\($0.kbps)" } }
    static func dropped(_ c: [LadderChoice]) -> [String] { c.filter { !$0.kept }.map { "\($0.rung.box)@\($0.kbps)" } }

    @Test("a 1280x720 source: the H.264 rungs up to both 720p ones at its size; the two 1080p rungs dropped, never upscaled")
    func hd() {
        let c = HLSLadder.choose(width: 1280, height: 720, hevc: false)
        #expect(Self.kept(c) == ["416x234@145", "640x360@365", "768x432@730", "768x432@1100", "960x540@2000", "1280x720@3000", "1280x720@4500"])
        #expect(Self.dropped(c) == ["1920x1080@6000", "1920x1080@7800"])
        #expect(c.filter { $0.kept }.map { $0.name } == ["234p-145k", "360p-365k", "432p-730k", "432p-1100k", "540p-2000k", "720p-3000k", "720p-4500k"])
        #expect(c.last?.reason == "larger than the source (1280x720 as displayed): never upscaled")
        #expect(c[5].reason == "the source's size (1280x720 as displayed)" && c[1].reason == "the source (1280x720 as displayed) fitted inside 640x360, display aspect kept")
        #expect(!c.contains { $0.added })
    }

    @Test("a 4:3 640x480 source between two rungs: each box fitted to 4:3, the top rung at 640x480 with its rate interpolated by pixel count")
    func between() {
        let c = HLSLadder.choose(width: 640, height: 480, hevc: false)
        // 1100 + (2000 − 1100) · (640·480 − 576·432) / (720·540 − 576·432) = 1475.3
        #expect(Self.kept(c) == ["312x234@145", "480x360@365", "576x432@730", "576x432@1100", "640x480@1475"])
        #expect(Self.dropped(c) == ["960x540@2000", "1280x720@3000", "1280x720@4500", "1920x1080@6000", "1920x1080@7800"])
        let top = c[4]
        #expect(top.added && top.name == "480p-1475k" && top.rung.box == "640x480")
        #expect(top.reason == "the source's size (640x480 as displayed), between the rungs below and 960x540 at 2000 kb/s: the top rung, its rate interpolated by pixel count")
    }

    @Test("1000x562 falls between 960x540 and 1280x720: a 1000x562 rung at 2108 kb/s on top")
    func betweenOdd() {
        let c = HLSLadder.choose(width: 1000, height: 562, hevc: false)
        #expect(Self.kept(c).suffix(2) == ["960x540@2000", "1000x562@2108"])
        #expect(Self.dropped(c).first == "1280x720@3000")
    }

    @Test("a portrait 1080x1920 source: the boxes turned upright, every H.264 rung kept, the 1080p ones at its size")
    func portrait() {
        let c = HLSLadder.choose(width: 1080, height: 1920, hevc: false)
        #expect(Self.kept(c) == ["234x416@145", "360x640@365", "432x768@730", "432x768@1100", "540x960@2000", "720x1280@3000", "720x1280@4500",
                                 "1080x1920@6000", "1080x1920@7800"])
        #expect(c.map(\.name).last == "1080p-7800k" && Self.dropped(c).isEmpty)
    }

    @Test("a 3840x2160 source: HEVC takes its column to 2160p at 16800 kb/s; H.264's column ends at 1080p, nothing dropped or added")
    func uhd() {
        let hevc = HLSLadder.choose(width: 3840, height: 2160, hevc: true)
        #expect(hevc.count == 12 && hevc.allSatisfy { $0.kept } && Self.kept(hevc).suffix(3) == ["2560x1440@8100", "3840x2160@11600", "3840x2160@16800"])
        #expect(Self.kept(hevc).prefix(3) == ["416x234@145", "640x360@300", "768x432@660"])
        let avc = HLSLadder.choose(width: 3840, height: 2160, hevc: false)
        #expect(avc.count == 9 && avc.allSatisfy { $0.kept } && Self.kept(avc).last == "1920x1080@7800")
    }

    @Test("a source smaller than the smallest rung: one rung at its size, 145 kb/s scaled by pixel count; every table rung dropped")
    func tiny() {
        let c = HLSLadder.choose(width: 320, height: 180, hevc: false)
        #expect(Self.kept(c) == ["320x180@86"] && c[0].added)
        #expect(c[0].reason == "the source's size (320x180 as displayed), smaller than the specification's smallest rung (416x234): its rate scaled by pixel count")
        #expect(Self.dropped(c).count == 9)
    }

    static let head = """
        recipe: 1
        reader: { outputs: { v: { track: video }, a: { track: audio } } }
        outputs:
          - path: pkg
            format: hls
            renditions:

        """

    @Test("ladder: auto is parsed on a rendition (its mark kept, its name empty so rungs name themselves); anything else than auto is refused at its value")
    func parsed() throws {
        let r = try RecipeParser.parse(Self.head + """
                  - ladder: auto
                    inputs: [ { source: v, settings: { codec: h264 } } ]
                  - { name: snd, inputs: [ { source: a } ] }
            """, file: "r.yaml").get()
        #expect(r.outputs.count == 2 && r.outputs[0].spec.package?.ladder?.description == "7:17" && r.outputs[0].spec.package?.rendition == "")
        #expect(r.outputs[1].spec.package?.ladder == nil)
        let bad = RecipeParser.parse(Self.head + """
                  - { ladder: yes, inputs: [ { source: v } ] }
            """, file: "r.yaml")
        guard case .failure(let e) = bad else { Issue.record("ladder: yes parsed"); return }
        #expect(e.diagnostics.map(\.description).first?.hasPrefix("r.yaml:7:19: error: 'ladder' must be auto (one rendition per rung of Apple's HLS authoring specification that fits the source), not") == true,
                "\(e.diagnostics)")
    }

    @Test("expanded against a 1280x720 video: one rendition per kept rung, the box and rate over the ladder's settings, the sound's input untouched")
    func expanded() throws {
        let r = try RecipeParser.parse(Self.head + """
                  - ladder: auto
                    inputs: [ { source: v, settings: { codec: h264, quality: 20, codec-options: { preset: ultrafast } } }, { source: a } ]
            """, file: "r.yaml").get()
        let e = try r.expandingLadders { $0.name == "v" ? (1280, 720) : nil }
        #expect(e.outputs.map { $0.spec.package?.rendition ?? "-" } == ["234p-145k", "360p-365k", "432p-730k", "432p-1100k", "540p-2000k", "720p-3000k", "720p-4500k"])
        #expect(e.outputs.map { $0.spec.path?.value ?? "-" }.last == "pkg/720p-4500k")
        let top = try #require(e.outputs.last)
        guard case .inline(let def) = top.writerInputs[0].settings else { Issue.record("not inline"); return }
        #expect(def.video.width == 1280 && def.video.height == 720 && def.video.bitrate == 4_500_000 && def.video.quality == nil
                && def.video.codec == .h264 && def.video.codecOptions == ["preset": "ultrafast"])
        guard case .none = top.writerInputs[1].settings else { Issue.record("the sound's settings changed"); return }
        #expect(top.spec.package?.rungs.count == 9 && top.spec.package?.rungs.filter { !$0.kept }.count == 2)
    }

    @Test("the frame-rate column: the four smallest rungs of each column at most 30 fps, the others the source's; an added rung takes the rung above it's")
    func frameRateColumn() {
        for hevc in [false, true] {
            let column = HLSLadder.rungs(hevc: hevc)
            #expect(column.map(\.maxFrameRate) == Array(repeating: 30, count: 4) + Array(repeating: nil, count: column.count - 4), "hevc \(hevc)")
        }
        // Between 768x432 (≤ 30 fps) and 960x540 (the source's rate): the top rung stands in for 960x540.
        #expect(HLSLadder.choose(width: 640, height: 480, hevc: false).first { $0.added }?.rung.maxFrameRate == nil)
        // Smaller than 416x234: its one rung is a reduced 416x234, at most 30 fps.
        #expect(HLSLadder.choose(width: 320, height: 180, hevc: false).first?.rung.maxFrameRate == 30)
        // Between 640x360 and 768x432, both at most 30 fps.
        #expect(HLSLadder.choose(width: 700, height: 394, hevc: false).first { $0.added }?.rung.maxFrameRate == 30)
    }

    /// The frame rate each rung's video settings ask for (`-`: none, the recipe's as it is),
    /// expanded from `settings` against a 1280x720 video.
    static func rungFrameRates(_ settings: String) throws -> [String] {
        let r = try RecipeParser.parse(Self.head + """
                  - ladder: auto
                    inputs: [ { source: v, settings: \(settings) }, { source: a } ]
            """, file: "r.yaml").get()
        let e = try r.expandingLadders { $0.name == "v" ? (1280, 720) : nil }
        return e.outputs.map { o in
            guard case .inline(let def) = o.writerInputs[0].settings else { return "not inline" }
            switch def.video.frameRate {
            case .rate(let r)?: return r.description
            case .source?: return "source"
            case nil: return "-"
            }
        }
    }

    @Test("a rung at most 30 fps asks frame-rate 30 (converted as frame-rate's policy says: cap by default), at the ladder's line; a larger rung keeps the recipe's rate; a recipe's own rate at or under 30 is kept")
    func rungFrameRate() throws {
        // 234p-145k, 360p-365k, 432p-730k, 432p-1100k (at most 30 fps); 540p-2000k, 720p-3000k, 720p-4500k (the source's).
        #expect(try Self.rungFrameRates("{ codec: h264 }") == ["30", "30", "30", "30", "-", "-", "-"])
        #expect(try Self.rungFrameRates("{ codec: h264, frame-rate: 50 }") == ["30", "30", "30", "30", "50", "50", "50"])
        #expect(try Self.rungFrameRates("{ codec: h264, frame-rate: 24 }") == ["24", "24", "24", "24", "24", "24", "24"])
        #expect(try Self.rungFrameRates("{ codec: h264, frame-rate: 30000/1001 }") == Array(repeating: "30000/1001", count: 7))
        #expect(try Self.rungFrameRates("{ codec: h264, frame-rate: source }") == ["30", "30", "30", "30", "source", "source", "source"])
        // Said at the ladder's line, as the rung's size and rate are.
        let r = try RecipeParser.parse(Self.head + """
                  - ladder: auto
                    inputs: [ { source: v, settings: { codec: h264, frame-rate: 60 } }, { source: a } ]
            """, file: "r.yaml").get()
        let e = try r.expandingLadders { $0.name == "v" ? (1280, 720) : nil }
        guard case .inline(let def) = e.outputs[0].writerInputs[0].settings else { Issue.record("not inline"); return }
        #expect(def.keyMarks.filter { $0.0 == "frame-rate" }.map { $0.1.description } == ["7:17"])
    }
}
