@testable import Pipeline
import Recipe
import Testing

/// The settings assistant's interlacing rules: an interlaced source is deinterlaced at its frame
/// rate unless the recipe says `field-rate` (a picture per field) or `off` (fields kept, H.264 at
/// the source's size); a progressive one is left alone. `plan` says which, and why.
@Suite("Interlacing decisions")
struct InterlacingTests {
    static func source(_ order: FieldOrder?, fps: FrameRate? = FrameRate(frames: 25), _ w: Int = 720, _ h: Int = 576) -> FormatDescription {
        var f = SettingsAssistantTests.video(w, h)
        f.averageFrameRate = fps
        f.fieldOrder = order
        return f
    }

    static func resolve(_ f: FormatDescription, _ s: VideoSettings = VideoSettings()) throws -> ResolvedVideoSettings {
        try NeverRaisedTests.assistant.video(source: f, settings: s)
    }

    @Test("interlaced: deinterlaced at the frame rate unless asked, and the plan says why")
    func auto() throws {
        let r = try Self.resolve(Self.source(.tt))
        #expect(r.deinterlace == .frame && r.fieldOrder == nil && r.frameRate == nil)
        #expect(r.decision("deinterlace")?.description
                == "deinterlace = frame-rate  [deinterlace.auto] the source is interlaced, top field first and the output is progressive: each frame's two fields are made one picture (bwdif), at the source's 25 fps ('deinterlace: field-rate' keeps every field's motion; 'off' keeps the fields)")
        let bottom = try Self.resolve(Self.source(.bb), VideoSettings(codec: .hevc, deinterlace: .auto))
        #expect(bottom.deinterlace == .frame)
        #expect(bottom.decision("deinterlace")?.reason.hasPrefix("the source is interlaced, bottom field first and the output is progressive") == true)
    }

    @Test("progressive or unstated: nothing done, and said only where the recipe asked", arguments: [FieldOrder.progressive, nil])
    func progressive(_ order: FieldOrder?) throws {
        let plain = try Self.resolve(Self.source(order))
        #expect(plain.deinterlace == nil && plain.fieldOrder == nil && plain.decision("deinterlace") == nil)
        let asked = try Self.resolve(Self.source(order), VideoSettings(deinterlace: .fieldRate))
        #expect(asked.deinterlace == nil && asked.frameRate == nil)
        #expect(asked.decision("deinterlace")?.reason
                == "the source \(order == nil ? "states no field order" : "is progressive"): 'deinterlace: field-rate' has nothing to do")
    }

    @Test("field-rate: a picture per field, at twice the rate; a frame-rate rule then applies to the field rate", arguments: [
        (FrameRate(frames: 25), nil as FrameRate?, FrameRate(frames: 50), "frame-rate.field-rate"),
        (FrameRate(frames: 30000, seconds: 1001), nil, FrameRate(frames: 60000, seconds: 1001), "frame-rate.field-rate"),
        (FrameRate(frames: 30000, seconds: 1001), FrameRate(frames: 30), FrameRate(frames: 30000, seconds: 1001), "frame-rate.cap-ntsc"),
        (FrameRate(frames: 25), FrameRate(frames: 60), FrameRate(frames: 50), "frame-rate.cap-keep"),
    ])
    func fieldRate(_ source: FrameRate, _ cap: FrameRate?, _ expected: FrameRate, _ rule: String) throws {
        let r = try Self.resolve(Self.source(.tt, fps: source), VideoSettings(frameRate: cap.map { .rate($0) }, deinterlace: .fieldRate))
        #expect(r.deinterlace == .field)
        #expect(r.frameRate == expected)
        #expect(r.decision("frame-rate")?.rule == rule)
        #expect(r.decision("deinterlace")?.rule == "deinterlace.field-rate")
    }

    @Test("field-rate on a source whose rate is unknown: deinterlaced at its frame rate, and said so")
    func fieldRateUnknown() throws {
        let r = try Self.resolve(Self.source(.tt, fps: nil), VideoSettings(deinterlace: .fieldRate))
        #expect(r.deinterlace == .frame)
        #expect(r.decision("deinterlace")?.rule == "deinterlace.field-rate-unknown")
    }

    @Test("off: the fields are kept and their order stated (top first for tt and bt)", arguments: [
        (FieldOrder.tt, FieldOrder.tt), (.bt, .tt), (.bb, .bb), (.tb, .bb),
    ])
    func off(_ order: FieldOrder, _ kept: FieldOrder) throws {
        let r = try Self.resolve(Self.source(order), VideoSettings(deinterlace: .off))
        #expect(r.deinterlace == nil && r.fieldOrder == kept)
        #expect(r.decision("deinterlace")?.description
                == "deinterlace = off  [deinterlace.off] as asked: the \(order.description) source's fields are kept and coded as fields (x264 interlaced), and the output states the order")
    }

    @Test("off where fields cannot be kept: HEVC, or pictures resized — refused at 'deinterlace'")
    func offRefused() throws {
        #expect(throws: MediaError(.invalidSettings, "'deinterlace: off' keeps the interlaced, top field first source's fields, but x265 codes no interlaced pictures here: use 'codec: h264' to keep them, or let them be deinterlaced ('deinterlace: auto' or 'field-rate')", setting: "deinterlace")) {
            try Self.resolve(Self.source(.tt), VideoSettings(codec: .hevc, deinterlace: .off))
        }
        #expect(throws: MediaError(.invalidSettings, "'deinterlace: off' keeps the interlaced, bottom field first source's fields, but its pictures are resized (720x576 → 480x384), which blends them: keep the source's size, or let them be deinterlaced ('deinterlace: auto' or 'field-rate')", setting: "deinterlace")) {
            try Self.resolve(Self.source(.bb), VideoSettings(width: 480, deinterlace: .off))
        }
        // A progressive source has no fields to keep: nothing to refuse.
        #expect(try Self.resolve(Self.source(.progressive), VideoSettings(codec: .hevc, deinterlace: .off)).fieldOrder == nil)
    }
}
