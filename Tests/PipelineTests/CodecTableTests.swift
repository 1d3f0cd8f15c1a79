@testable import Pipeline
import Recipe
import Testing

/// The codec table (`VideoFamily` and its `VideoEncoder`s, `AudioFamily`): every row is whole and
/// true of this FFmpeg build, and what the assistant and the encoder do comes from the row: for
/// each encoder of a family, as this FFmpeg would be without the ones preferred to it.
@Suite("Codec table")
struct CodecTableTests {
    @Test("every codec a recipe names has exactly one row, and no two rows share a stream name or an encoder")
    func oneRowPerCodec() {
        for codec in VideoCodec.allCases where codec != .copy {
            #expect(VideoFamily.all.filter { $0.codec == codec }.count == 1, "\(codec)")
        }
        for codec in AudioCodec.allCases where codec != .copy {
            #expect(AudioFamily.all.filter { $0.codec == codec }.count == 1, "\(codec)")
        }
        #expect(Set(VideoFamily.all.map(\.streamCodec)).count == VideoFamily.all.count)
        let encoders = VideoEncoder.all.map(\.name) + AudioFamily.all.flatMap(\.encoders)
        #expect(Set(encoders).count == encoders.count)
        #expect(recipeCodecNames == ["h264", "hevc", "av1", "vp9", "prores", "aac", "opus", "vorbis", "flac", "alac", "pcm", "copy"])
    }

    @Test("each video row is whole: its default quality within its range, its profiles, levels and names consistent",
          arguments: VideoFamily.all.map(\.codec))
    func videoRowInvariants(_ codec: VideoCodec) throws {
        let row = try #require(VideoFamily.of(codec))
        #expect(!row.encoders.isEmpty)
        for e in row.encoders {
            // An encoder without a quality scale (prores_ks) refuses every rate setting, saying why.
            if let q = e.quality {
                #expect(q.range.contains(q.defaultValue), "\(e.name)")
                #expect(VideoFamily.qualityBounds.lowerBound <= q.range.lowerBound
                        && q.range.upperBound <= VideoFamily.qualityBounds.upperBound, "\(e.name)")
                #expect(q.option != e.parameters?.option)
            }
            #expect((row.rateRefusal(.quality, encoder: e) == nil) == (e.quality != nil), "\(e.name)")
            if let speed = e.speed { #expect(e.namedOptions.contains { $0.option == speed.option }) }
            for o in e.namedOptions { #expect(!o.names.isEmpty && Set(o.names).count == o.names.count, "\(e.name) \(o.option)") }
            #expect(VideoFamily.of(encoder: e.name)?.codec == codec)
        }
        let profiles = row.profiles.map(\.name)
        #expect(Set(profiles).count == profiles.count)
        for name in row.automaticProfiles { #expect(profiles.contains(name), "\(name)") }
        // The automatic profile for every format the assistant makes carries it.
        for (depth, chroma) in [(8, 420), (10, 420), (8, 422), (10, 422), (8, 444), (10, 444)]
        where row.profiles.contains(where: { $0.carries(chroma: chroma) }) {  // AV1: no 4:2:2 here
            let name = row.automaticProfile(depth: depth, chroma: chroma)
            let p = try #require(row.profiles.first { $0.name == name })
            #expect(p.depth >= depth && p.carries(chroma: chroma), "\(name) for \(depth)-bit \(chroma)")
        }
        #expect(Set(row.levels.names).count == row.levels.names.count)
    }

    @Test("each encoder of a row is in this FFmpeg and has its options: quality, speed, tune, parameter string with its HDR keys and level",
          arguments: VideoEncoder.all.map(\.name))
    func videoRowOptionsAreTheEncoders(_ name: String) throws {
        let row = try #require(VideoFamily.of(encoder: name))
        let encoder = try #require(row.encoder(named: name))
        #expect(CodecSupport.canEncode(name))
        var c = EncoderConfiguration(codecName: name, timeBase: TimeBase(num: 1, den: 25))
        (c.width, c.height, c.frameRate) = (64, 64, FrameRate(frames: 25))
        // 8-bit 4:2:0, or the automatic profile's own format where the profile fixes it (ProRes).
        let automatic = row.profiles.first { $0.name == row.automaticProfile(depth: 8, chroma: 420) }
        c.setPixelFormat(named: automatic?.pixelFormats.first ?? "yuv420p")
        // BT.2020 primaries, D65, 0.005–1000 cd/m² (in SEI units: 0.00002 and 0.0001 cd/m²).
        c.masteringDisplay = MasteringDisplay(red: .init(35400, 14600), green: .init(8500, 39850), blue: .init(6550, 2300),
                                              whitePoint: .init(15635, 16450), minLuminance: 50, maxLuminance: 10_000_000)
        c.contentLightLevel = ContentLightLevel(maxCLL: 1000, maxFALL: 400)
        let level = Levels.lowest(row, width: 64, height: 64, rate: FrameRate(frames: 25))
        var asked: [String: String] = [:]
        for o in encoder.namedOptions { asked[o.option] = o.names[0] }
        let options = encoder.options(asked, quality: encoder.quality?.defaultValue, level: level)
        c.options = options.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if let q = encoder.quality { #expect(options[q.option] == formatNumber(q.defaultValue)) }
        // Opened without a refusal: every name the row gives is the encoder's (an unknown one is
        // a settings error, an unparsed parameter-string entry too).
        _ = try Encoder(c)
        let params = c.optionsWithHDR.first { $0.0 == encoder.parameters?.option }?.1 ?? ""
        if let hdr = encoder.hdr {
            #expect(params.contains("\(hdr.masteringDisplay)=") && params.contains("\(hdr.contentLightLevel)="), "\(params)")
        } else {
            #expect(c.optionsWithHDR.map { "\($0.0)=\($0.1)" } == c.options.map { "\($0.0)=\($0.1)" })
        }
    }

    @Test("each audio row: its encoders are in this FFmpeg; its fallback rates include 48 and 44.1 kHz, or it takes any rate, or makes its own")
    func audioRows() {
        for row in AudioFamily.all {
            #expect(CodecSupport.canEncode(row.encoder(where: CodecSupport.canEncode)), "\(row.codec)")
            for e in row.encodersByDepth.values { #expect(CodecSupport.canEncode(e), "\(e)") }
            if let fixed = row.fixedRate {
                #expect(row.sampleRates.contains(fixed.rate), "\(row.codec)")
            } else {
                #expect(row.sampleRates.isEmpty || row.sampleRates.contains(48000) && row.sampleRates.contains(44100), "\(row.codec)")
            }
            #expect(row.lossless == row.sampleRates.isEmpty, "\(row.codec): a lossless codec takes any rate")
        }
    }

    @Test("the assistant takes the encoder, default quality, profile and level signalling from the row: each encoder as if those preferred to it were missing",
          arguments: VideoEncoder.all.map(\.name))
    func assistantAsksTheRow(_ name: String) throws {
        let row = try #require(VideoFamily.of(encoder: name))
        let codec = row.codec
        let encoder = try #require(row.encoder(named: name))
        let source = SettingsAssistantTests.video(1920, 1080)
        // Where this FFmpeg has none of the row's encoders, the preferred one is named (and
        // refused when opened); otherwise the first it has.
        let none = SettingsAssistant { _ in nil }
        #expect(try none.video(source: source, settings: VideoSettings(codec: codec)).encoderName == row.encoders[0].name)
        let r = try SettingsAssistant.missing(row.encoders.prefix { $0.name != name }.map(\.name))
            .video(source: source, settings: VideoSettings(codec: codec))
        #expect(r.encoderName == name)
        #expect(r.quality == encoder.quality?.defaultValue)
        #expect(r.decision("quality")?.reason == encoder.quality.map { "\(name)'s default constant quality (\($0.option.uppercased()))" }
                ?? "\(row.displayName) has no quality scale: each profile codes at its own data rate")
        #expect(r.profile == row.automaticProfile(depth: 8, chroma: 420))
        #expect(r.level == Levels.lowest(row, width: 1920, height: 1080, rate: FrameRate(frames: 30)))
        switch encoder.levelSignalling {
        case .option(let key):
            #expect(r.encoderLevel == r.level)
            #expect(VideoSink.encoderOptions(r).first { $0.0 == key }?.1 == r.level)
        case .parameterWhenAsked, .byEncoder:
            #expect(r.encoderLevel == nil)
        }
        let unnamed = try SettingsAssistant.system.video(source: source, settings: VideoSettings())
        #expect(unnamed.codec == VideoFamily.default.codec && unnamed.encoderName == VideoFamily.default.encoder(where: CodecSupport.canEncode).name)
    }

    @Test("automatic profiles: the lowest that carries the format, else the first of the deepest that carries its chroma")
    func automaticProfiles() {
        let h264 = VideoFamily.h264, hevc = VideoFamily.hevc
        #expect([8, 10, 12, 16].map { h264.automaticProfile(depth: $0, chroma: 420) } == ["high", "high10", "high444", "high444"])
        #expect([8, 10, 12].map { h264.automaticProfile(depth: $0, chroma: 422) } == ["high422", "high422", "high444"])
        #expect([8, 10, 12, 16].map { hevc.automaticProfile(depth: $0, chroma: 420) } == ["main", "main10", "main12", "main12"])
        #expect([8, 10, 12, 16].map { hevc.automaticProfile(depth: $0, chroma: 422) } == ["main422-10", "main422-10", "main422-12", "main422-12"])
        #expect([8, 10, 12, 16].map { hevc.automaticProfile(depth: $0, chroma: 444) } == ["main444-8", "main444-10", "main444-12", "main444-12"])
        // AV1's High has 4:2:0 and 4:4:4 but no 4:2:2: the chroma formats do not nest.
        let av1 = VideoFamily.av1
        #expect([8, 10].map { av1.automaticProfile(depth: $0, chroma: 420) } == ["main", "main"])
        #expect([8, 10].map { av1.automaticProfile(depth: $0, chroma: 444) } == ["high", "high"])
        #expect(av1.profiles.map { $0.carries(chroma: 422) } == [false, false])
    }

    @Test("an option the chosen encoder does not have, and a speed name it does not know, are refused with the nearest name",
          arguments: VideoEncoder.all.filter { $0.speed != nil }.map(\.name))
    func nearestNameThroughTheRow(_ encoderName: String) throws {
        let row = try #require(VideoFamily.of(encoder: encoderName))
        let speed = try #require(row.encoder(named: encoderName)?.speed)
        let assistant = SettingsAssistant.missing(row.encoders.prefix { $0.name != encoderName }.map(\.name))
        let source = SettingsAssistantTests.video(320, 240)
        func refusal(_ options: [String: String]) throws -> MediaError? {
            let r = try assistant.video(source: source, settings: VideoSettings(codec: row.codec, codecOptions: options))
            #expect(r.encoderName == encoderName)
            do { _ = try Encoder(EncoderConfiguration.standIn(r)); return nil } catch { return error }
        }
        let option = try #require(try refusal([speed.option + "t": speed.names[0]]))
        #expect(option.message == "the \(encoderName) encoder has no option '\(speed.option)t' (did you mean '\(speed.option)'?)")
        #expect(option.setting == "codec-options.\(speed.option)t")
        let wanted = speed.names[4]
        let name = try #require(try refusal([speed.option: wanted + "t"]))
        #expect(name.message == "the \(encoderName) encoder has no \(speed.option) '\(wanted)t' (did you mean '\(wanted)'?) (it has \(speed.names.joined(separator: ", ")))")
        #expect(name.setting == "codec-options.\(speed.option)")
    }
}
