import Pipeline
import Recipe
import Testing

/// The settings assistant's HDR rules on made-up sources (no FFmpeg).
@Suite("Settings assistant: HDR rules")
struct HDRSettingsTests {
    static let assistant = SettingsAssistantTests.assistant

    static func source(_ transfer: String?, primaries: String? = "bt2020", matrix: String? = "bt2020nc", bitDepth: Int = 10,
                       hdr: HDRItems = HDRItems()) -> FormatDescription {
        var f = SettingsAssistantTests.video(1920, 1080, bitDepth: bitDepth)
        f.codec = "hevc"
        f.colorTransfer = transfer; f.colorPrimaries = primaries; f.colorMatrix = matrix; f.colorRange = "tv"
        f.hdr = hdr
        return f
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let source: FormatDescription
        let settings: VideoSettings
        let hdr: String?, rule: String?
        let color: String, pixelFormat: String, toneMapped: Bool
        var testDescription: String { "\(source.colorTransfer ?? "none") \(settings.codec?.rawValue ?? "default") \(settings.hdr?.rawValue ?? "") → \(hdr ?? "-")" }
    }

    @Test("HDR is kept where the output has 10 bits, tone-mapped to bt709 where it has 8", arguments: [
        Case(source: source("arib-std-b67"), settings: VideoSettings(codec: .hevc), hdr: "keep", rule: "hdr.keep-10-bit",
             color: "bt2020/arib-std-b67/bt2020nc", pixelFormat: "yuv420p10le", toneMapped: false),
        Case(source: source("smpte2084"), settings: VideoSettings(codec: .hevc), hdr: "keep", rule: "hdr.keep-10-bit",
             color: "bt2020/smpte2084/bt2020nc", pixelFormat: "yuv420p10le", toneMapped: false),
        Case(source: source("arib-std-b67"), settings: VideoSettings(), hdr: "tone-map", rule: "hdr.tone-map-8-bit",
             color: "bt709/bt709/bt709", pixelFormat: "yuv420p", toneMapped: true),
        Case(source: source("smpte2084"), settings: VideoSettings(codec: .h264), hdr: "tone-map", rule: "hdr.tone-map-8-bit",
             color: "bt709/bt709/bt709", pixelFormat: "yuv420p", toneMapped: true),
        // HEVC asked for 8 bits cannot carry it.
        Case(source: source("smpte2084"), settings: VideoSettings(codec: .hevc, pixelFormat: "yuv420p"), hdr: "tone-map", rule: "hdr.tone-map-8-bit",
             color: "bt709/bt709/bt709", pixelFormat: "yuv420p", toneMapped: true),
        // 10-bit H.264 asked for: kept.
        Case(source: source("arib-std-b67"), settings: VideoSettings(codec: .h264, pixelFormat: "yuv420p10le"), hdr: "keep", rule: "hdr.keep-10-bit",
             color: "bt2020/arib-std-b67/bt2020nc", pixelFormat: "yuv420p10le", toneMapped: false),
        // An 8-bit HDR source into HEVC: made 10-bit to keep it.
        Case(source: source("arib-std-b67", bitDepth: 8), settings: VideoSettings(codec: .hevc), hdr: "keep", rule: "hdr.keep-10-bit",
             color: "bt2020/arib-std-b67/bt2020nc", pixelFormat: "yuv420p10le", toneMapped: false),
        // Asked for: tone-map into 10-bit HEVC.
        Case(source: source("arib-std-b67"), settings: VideoSettings(codec: .hevc, hdr: .toneMap), hdr: "tone-map", rule: "settings",
             color: "bt709/bt709/bt709", pixelFormat: "yuv420p10le", toneMapped: true),
        // SDR: the source's tags, whatever they are; none claimed when it states none.
        Case(source: source("bt709", primaries: "bt709", matrix: "bt709", bitDepth: 8), settings: VideoSettings(), hdr: nil, rule: nil,
             color: "bt709/bt709/bt709", pixelFormat: "yuv420p", toneMapped: false),
        Case(source: source(nil, primaries: nil, matrix: nil, bitDepth: 8), settings: VideoSettings(), hdr: nil, rule: nil,
             color: "unspecified/unspecified/unspecified", pixelFormat: "yuv420p", toneMapped: false),
        Case(source: source("bt709", primaries: "bt709", matrix: "bt709", bitDepth: 8), settings: VideoSettings(hdr: .toneMap), hdr: "none", rule: "hdr.sdr-source",
             color: "bt709/bt709/bt709", pixelFormat: "yuv420p", toneMapped: false),
    ])
    func rules(_ c: Case) throws {
        let r = try Self.assistant.video(source: c.source, settings: c.settings)
        #expect(r.decision("hdr")?.value == c.hdr)
        #expect(r.decision("hdr")?.rule == c.rule)
        #expect(r.decision("color")?.value == c.color)
        #expect(r.pixelFormat == c.pixelFormat)
        #expect((r.toneMapping != nil) == c.toneMapped)
        let tags = [r.colorPrimaries, r.colorTransfer, r.colorMatrix].map { $0 ?? "unspecified" }.joined(separator: "/")
        #expect(tags == c.color)
    }

    @Test("hdr: keep with an 8-bit output is refused, naming the setting, for any source")
    func keepRefused() {
        for transfer in ["arib-std-b67", "bt709"] {
            #expect(throws: MediaError.self) { try Self.assistant.video(source: Self.source(transfer), settings: VideoSettings(hdr: .keep)) }
            do {
                _ = try Self.assistant.video(source: Self.source(transfer), settings: VideoSettings(codec: .h264, hdr: .keep))
            } catch {
                #expect(error.setting == "hdr")
                #expect(error.message == HDRSetting.keepRefusal(codec: .h264, pixelFormat: nil))
            }
        }
    }

    @Test("HDR10 metadata is kept with HDR and dropped with tone mapping; the tone-mapping peak comes from it when plausible")
    func metadataAndPeak() throws {
        var items = HDRItems()
        items.masteringDisplay = MasteringDisplay(red: .init(35400, 14600), green: .init(8500, 39850), blue: .init(6550, 2300),
                                                  whitePoint: .init(15635, 16450), minLuminance: 1, maxLuminance: 4_000_0000)
        items.contentLightLevel = ContentLightLevel(maxCLL: 2500, maxFALL: 300)
        let kept = try Self.assistant.video(source: Self.source("smpte2084", hdr: items), settings: VideoSettings(codec: .hevc))
        #expect(kept.masteringDisplay == items.masteringDisplay && kept.contentLightLevel == items.contentLightLevel)
        let mapped = try Self.assistant.video(source: Self.source("smpte2084", hdr: items), settings: VideoSettings())
        #expect(mapped.masteringDisplay == nil && mapped.contentLightLevel == nil)
        #expect(mapped.toneMapping?.peakLuminance == 4000)
        // A mastering peak of 0.1 cd/m² is not believed: MaxCLL then, else 1000.
        items.masteringDisplay?.maxLuminance = 1000
        #expect(try Self.assistant.video(source: Self.source("smpte2084", hdr: items), settings: VideoSettings()).toneMapping?.peakLuminance == 2500)
        items.contentLightLevel = nil
        #expect(try Self.assistant.video(source: Self.source("smpte2084", hdr: items), settings: VideoSettings()).toneMapping?.peakLuminance == 1000)
    }
}
