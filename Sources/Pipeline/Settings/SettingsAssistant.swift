import Recipe

/// Fills every value a recipe leaves open from the source format, and records why
/// (AVOutputSettingsAssistant in our words). Pure: no FFmpeg calls, so its rules are table-tested.
public struct SettingsAssistant: Sendable {
    public var capabilities: @Sendable (String) -> EncoderCapabilities?

    public init(capabilities: @escaping @Sendable (String) -> EncoderCapabilities?) {
        self.capabilities = capabilities
    }

    static let defaultMaxChannels = 2
    /// The most channels an output track has (the standard layouts go up to 7.1).
    static let mostChannels = 8
    static let gopSeconds: Int64 = 2

    // MARK: Video

    /// `container`: the output's, whose own default codec (WebM's VP9) stands where none is asked.
    /// `keyframes`: the output's grid of closed GOPs (its fragments' starts), if it has one.
    public func video(source: FormatDescription, settings s: VideoSettings, container: ContainerFormat? = nil,
                      keyframes grid: KeyframeGrid? = nil) throws(MediaError) -> ResolvedVideoSettings {
        var decisions: [Decision] = []
        func decide(_ setting: String, _ value: String, _ rule: String, _ reason: String) {
            decisions.append(Decision(setting: setting, value: value, rule: rule, reason: reason))
        }
        let codec = Self.codec(asked: s.codec, container: container?.defaultVideoCodec, rule: "codec", decide: decide,
                               otherwise: (VideoFamily.default.codec, "no codec asked for: \(VideoFamily.default.displayName) plays everywhere"))
        guard let family = VideoFamily.of(codec) else { throw MediaError(.invalidSettings, "codec 'copy' needs no settings assistant") }
        try Self.checkHeld(family.displayName, codec: codec.rawValue, streams: [family.streamCodec], in: container)
        let encoder: VideoEncoder
        if s.passes == 2 {
            encoder = try twoPassEncoder(of: family, decide: decide)
        } else if let (able, why) = pixelFormatEncoder(of: family, wanted: wantedPixelFormat(source: source, settings: s, family: family)) {
            encoder = able
            decide("encoder", able.name, "encoder.pixel-format", why)
        } else {
            encoder = family.encoder { capabilities($0) != nil }
            chooseEncoder(encoder, of: family, decide: decide)
        }

        // Size.
        let (dw, dh) = source.displaySize
        guard dw > 0, dh > 0 else { throw MediaError(.unsupported, "the video track has no picture size") }
        var (ow, oh) = (dw, dh)
        // The stored size, turned as displayed: kept with the source's pixel aspect where nothing
        // asks for another size, so anamorphic pictures (PAL DV 720x576 at 16:15) are not resampled.
        let (sw, sh) = source.rotation % 180 == 90 ? (source.height, source.width) : (source.width, source.height)
        let anamorphic = !source.pixelAspect.isSquare && source.pixelAspect.num > 0 && source.pixelAspect.den > 0
        var pixelAspect = Ratio.square
        func keepStored(_ rule: String, _ reason: String) {
            (ow, oh) = (sw, sh)
            pixelAspect = source.pixelAspect
            decide("size", "\(even(sw))x\(even(sh))", rule, reason)
            decide("pixel-aspect", "\(source.pixelAspect)", "pixel-aspect.source",
                   "the source's: its pictures keep their stored size and are shown at \(dw)x\(dh), as the source's are")
        }
        if s.width != nil || s.height != nil {
            var bw = s.width, bh = s.height
            // A box is orientation-free: a portrait source fits a landscape box turned upright.
            if let w = bw, let h = bh, (dh > dw) != (h > w), w != h { (bw, bh) = (h, w) }
            let fits = dw <= (bw ?? .max) && dh <= (bh ?? .max)
            if fits && anamorphic && sw <= (bw ?? .max) && sh <= (bh ?? .max) {
                keepStored("size.no-upscale", "the source (\(sw)x\(sh) stored, \(dw)x\(dh) as displayed) already fits inside \(boxText(s)); never upscaled")
            } else if fits {
                decide("size", "\(even(dw))x\(even(dh))", "size.no-upscale",
                       "the source (\(dw)x\(dh) as displayed) already fits inside \(boxText(s)); never upscaled")
                if anamorphic {
                    decide("pixel-aspect", "1:1", "pixel-aspect.square",
                           "the source's stored \(sw)x\(sh) (pixel aspect \(source.pixelAspect)) does not fit inside \(boxText(s)): resized to its displayed size in square pixels")
                }
            } else {
                // Limited by width when the box is relatively narrower than the picture.
                let widthLimited: Bool
                switch (bw, bh) {
                case let (w?, h?): widthLimited = Int64(dw) * Int64(h) >= Int64(dh) * Int64(w)
                case (_?, nil): widthLimited = true
                default: widthLimited = false
                }
                if widthLimited, let w = bw {
                    ow = w
                    oh = Int((Int64(dh) * Int64(w) + Int64(dw) / 2) / Int64(dw))
                } else if let h = bh {
                    oh = h
                    ow = Int((Int64(dw) * Int64(h) + Int64(dh) / 2) / Int64(dh))
                }
                decide("size", "\(even(ow))x\(even(oh))", "size.fit-box",
                       "the source (\(dw)x\(dh) as displayed) fitted inside \(boxText(s)), display aspect kept")
                if anamorphic {
                    decide("pixel-aspect", "1:1", "pixel-aspect.square",
                           "the pictures are resized to fit the box: made square pixels (the source's are \(source.pixelAspect))")
                }
            }
        } else if anamorphic {
            keepStored("size.source", "the source's stored size" + (even(sw) != sw || even(sh) != sh ? " (\(sw)x\(sh)) made even, as 4:2:0 needs" : ""))
        } else {
            // An odd size is made even: the plan must not call 320x240 a 321x241 source's size.
            let odd = even(dw) != dw || even(dh) != dh
            decide("size", "\(even(dw))x\(even(dh))", "size.source",
                   "the source's size" + (odd ? " (\(dw)x\(dh)) made even, as 4:2:0 needs" : ""))
        }
        ow = even(ow); oh = even(oh)
        // Pixels are encoded upright-as-stored; the rotation stays a display matrix.
        let (cw, ch) = source.rotation % 180 == 90 ? (oh, ow) : (ow, oh)
        if source.rotation != 0 {
            decide("rotation", "\(source.rotation)", "rotation.kept", "kept as the display matrix; pixels are not turned")
        }
        if let sizes = encoder.pictureSizes, !sizes.allows(width: cw, height: ch) {
            throw MediaError(s.width == nil && s.height == nil ? .unsupported : .invalidSettings,
                             "\(encoder.library) (codec \(codec.rawValue)) takes pictures from \(sizes.description), not \(cw)x\(ch)",
                             setting: s.width != nil ? "width" : s.height != nil ? "height" : nil)
        }
        let fields = try interlacing(source: source, settings: s, family: family, encoder: encoder, size: (cw, ch), decide: decide)

        // HDR: kept where the output can carry it (10 bits), else tone-mapped to SDR.
        if s.hdr == .keep, let why = HDRSetting.keepRefusal(codec: codec, pixelFormat: s.pixelFormat) {
            throw MediaError(.invalidSettings, why, setting: "hdr")
        }
        let range = source.dynamicRange
        let keepHDR = range != .sdr && (s.hdr == .keep || (s.hdr == nil && HDRSetting.keepRefusal(codec: codec, pixelFormat: s.pixelFormat) == nil))

        // Pixel format (and, where the profile fixes it, the profile it comes from).
        let caps = capabilities(encoder.name)
        let pixelFormat: String
        var profileChoice: Decision? = nil
        if let asked = s.pixelFormat {
            if let caps, !caps.pixelFormats.isEmpty, !caps.pixelFormats.contains(asked) {
                throw MediaError(.invalidSettings, "pixel format '\(asked)' is not supported by \(encoder.name) (it takes \(caps.pixelFormats.joined(separator: ", ")))",
                                 setting: "pixel-format")
            }
            pixelFormat = asked
            decide("pixel-format", asked, Origin.settings, "as asked")
        } else if (s.smart ?? .off) != .off, let kept = source.pixelFormat, kept.hasPrefix("yuvj"), caps?.pixelFormats.contains(kept) ?? false {
            // Smart rendering copies the source's pictures: the encoded ones keep their range.
            pixelFormat = kept
            decide("pixel-format", kept, "pixel-format.smart", "the source's (full range): smart rendering joins encoded pictures to its copied ones")
        } else {
            switch family.pixelFormats {
            case .keepDepthAndChroma(let tenBitProfile):
                pixelFormat = keptPixelFormat(source: source, family: family, encoder: encoder.name, tenBitProfile: tenBitProfile, keepHDR: keepHDR,
                                              supported: caps?.pixelFormats ?? [], decide: decide)
            case .eightBit420:
                pixelFormat = eightBit420(source: source, family: family, decide: decide)
            case .ofProfile:
                (pixelFormat, profileChoice) = profilePixelFormat(source: source, family: family, asked: s.profile ?? s.codecOptions["profile"], decide: decide)
            }
        }

        let color = colorTags(source: source, settings: s, keepHDR: keepHDR, pixelFormat: pixelFormat, decide: decide)
        let chromaLocation = ChromaSiting.resolve(source: source, width: cw, height: ch, pixelFormat: pixelFormat,
                                                  toneMapped: color.toneMapping != nil, decide: decide)

        // Frame rate: a picture per field is twice the source's frame rate.
        let rate: FrameRate?
        if fields.deinterlace == .field, let f = fieldRate(source: source, settings: s, decide: decide) {
            if let r = f.rate { rate = r } else { rate = try frameRate(source: f.source, settings: s, decide: decide) }
        } else {
            rate = try frameRate(source: source, settings: s, decide: decide)
        }

        // Rate control.
        var quality: Double? = nil
        // An encoder without a quality scale (prores_ks) takes no rate either: the profile sets it.
        for key in [SettingKey.quality, .bitrate, .maxBitrate] where s.setKeys.contains(key) {
            if let why = family.rateRefusal(key, encoder: encoder) { throw MediaError(.invalidSettings, why, setting: key.rawValue) }
        }
        if let b = s.bitrate {
            decide("bitrate", "\(b)", Origin.settings, "as asked" + (s.maxBitrate.map { ", peaks up to \($0)" } ?? ""))
        } else if let q = s.quality, let scale = encoder.quality?.range {
            // The recipe's check knows only the widest scale when it reads the number.
            guard scale.contains(q) else {
                throw MediaError(.invalidSettings, "'quality' for \(family.displayName) must be from \(formatNumber(scale.lowerBound)) (best) to \(formatNumber(scale.upperBound)) (smallest), not \(formatNumber(q))",
                                 setting: "quality")
            }
            quality = q
            decide("quality", formatNumber(q), Origin.settings, "constant quality as asked")
        } else if let scale = encoder.quality {
            quality = scale.defaultValue
            decide("quality", formatNumber(scale.defaultValue), "quality.default",
                   "\(encoder.name)'s default constant quality (\(scale.option.uppercased()))")
        } else {
            decide("quality", "by profile", "quality.by-profile", "\(family.displayName) has no quality scale: each profile codes at its own data rate")
        }

        if s.passes == 2 {
            decide("passes", "2", Origin.settings, "a statistics pass over the pictures, then the encode that spends the bitrate by them (\(encoder.library)'s two-pass rate control)")
        }

        // Speed: the row's default where the library's own is not the one to use.
        var codecOptions = s.codecOptions
        if let speed = encoder.speed, let d = speed.defaultName {
            let names = speed.names
            if let asked = s.codecOptions[speed.option] {
                if let cap = encoder.smallPictureSpeed, cw * ch < cap.lumaSamples,
                   let a = names.firstIndex(of: asked), let f = names.firstIndex(of: cap.fastest), a < f {
                    codecOptions[speed.option] = cap.fastest
                    decide("speed", cap.fastest, "speed.small-picture",
                           "\(speed.option) \(asked) asked: \(encoder.library) runs \(cap.fastest), its fastest for \(cap.sizeName) pictures (\(cw)x\(ch))")
                } else {
                    decide("speed", asked, Origin.settings, "as asked (\(speed.option))")
                }
            } else {
                decide("speed", d, "speed.default", "\(encoder.library)'s \(speed.option) \(d): its balance of speed and size")
            }
        }

        // GOP.
        let gopRate = rate ?? source.averageFrameRate ?? FrameRate(frames: 30)
        let gop: Int
        if let why = family.intraOnlyReason {
            // An asked GOP is said to have no effect (IgnoredSettings).
            gop = 1
            decide("gop", "1", "gop.intra-only", why)
        } else {
            switch s.gop {
            case .frames(let n)?:
                gop = n
                decide("gop", "\(n)", Origin.settings, "as asked")
            case .duration(let d)?:
                // The encoder's field is 32 bits: a hostile source rate cannot make it overflow.
                gop = Int(min(max(1, WideArithmetic.mulDiv(d.value, Int64(gopRate.frames), Int64(d.timescale) * Int64(gopRate.seconds))), Int64(Int32.max)))
                decide("gop", "\(gop)", Origin.settings, "\(d.secondsDescription) at \(gopRate.decimalDescription) fps")
            case nil:
                gop = Int(min(max(1, WideArithmetic.mulDiv(Self.gopSeconds, Int64(gopRate.frames), Int64(gopRate.seconds))), Int64(Int32.max)))
                decide("gop", "\(gop)", "gop.two-seconds", "a keyframe about every 2 s at \(gopRate.decimalDescription) fps: quick seeking, small cost")
            }
        }

        if let grid { try keyframes(grid, family: family, encoder: encoder, rate: gopRate, decide: decide) }

        // Tiles and threads: as many columns as the width has room for, each on its own threads.
        if let tiles = encoder.tileColumns {
            if let asked = s.codecOptions[tiles.option] {
                decide("tiles", asked, Origin.settings, "as asked (\(tiles.option), the log2 of the columns)")
            } else {
                let n = tiles.log2(width: cw)
                codecOptions[tiles.option] = String(n)
                decide("tiles", "\(1 << n) columns", "tiles.by-width",
                       "\(tiles.option) \(n): the most columns at least \(tiles.minimumWidth) pixels wide that \(cw) pixels hold, coded side by side")
            }
        }
        for f in encoder.fixedOptions {
            if let asked = s.codecOptions[f.option] { decide(f.option, asked, Origin.settings, "as asked") }
            else { decide(f.option, f.value, "\(f.option).\(family.codec.rawValue)", f.reason) }
        }

        // Profile and level.
        // The encoder's own `profile` option (and its level, `VideoEncoder.level(in:)`) among
        // codec-options is what it gets: the asked one, checked and shown like `profile:`.
        let profile: String
        if let p = s.profile ?? s.codecOptions["profile"] {
            profile = p
            decide("profile", p, Origin.settings, "as asked")
        } else if let choice = profileChoice {
            profile = choice.value
            decisions.append(choice)
        } else {
            profile = family.automaticProfile(depth: pixelFormatBitDepth(pixelFormat), chroma: pixelFormatChroma(pixelFormat))
            decide("profile", profile, "profile.from-pixel-format", "the profile \(pixelFormat) needs")
        }
        var level = s.level ?? encoder.level(in: s.codecOptions)
        let encoderLevel: String?
        let toldOnlyWhenAsked = encoder.levelSignalling.isToldOnlyWhenAsked
        if let l = level {
            // A level the encoder does not know, or one too low for the picture, is refused here:
            // x265 would fail with its own line on stderr, x264 would write a stream that breaks it.
            try Levels.check(l, family: family, width: cw, height: ch, rate: gopRate)
            let capped = encoder.levelSignalling.capsRateWhenTold && s.bitrate == nil && s.maxBitrate == nil
            decide("level", l, Origin.settings, capped ? "as asked: \(encoder.library) keeps the quality-coded stream within it by capping its rate at the level's maximum (slower, and not the same bits run to run)"
                   : encoder.levelSignalling.isToldOnlyWhenAsked && !encoder.levelSignalling.capsRateWhenTold
                   ? "as asked: the picture fits it; \(encoder.library) is not told it and signals the level it codes itself" : "as asked")
            if case .byEncoder = encoder.levelSignalling { encoderLevel = nil } else { encoderLevel = l }
        } else {
            // An encoder told only an asked level signals the lowest level itself, where one it is
            // told turns on rate capping for a quality-coded stream (x265: 7 % more CPU on bench
            // (i), other bits).
            level = Levels.lowest(family, width: cw, height: ch, rate: gopRate)
            if let l = level {
                decide("level", l, "level.from-size-and-rate", "the lowest level that allows \(cw)x\(ch) at \(gopRate.decimalDescription) fps"
                       + (toldOnlyWhenAsked ? " (\(encoder.library) works it out and signals it itself)" : ""))
            }
            encoderLevel = toldOnlyWhenAsked ? nil : level
        }

        return ResolvedVideoSettings(codec: codec, encoderName: encoder.name, width: cw, height: ch, pixelAspect: pixelAspect, pixelFormat: pixelFormat,
                                     frameRate: rate, quality: quality, bitrate: s.bitrate, maxBitrate: s.maxBitrate,
                                     gopFrames: gop, keyframeGrid: grid, profile: profile, level: level, encoderLevel: encoderLevel, codecOptions: codecOptions,
                                     colorPrimaries: color.primaries, colorTransfer: color.transfer, colorMatrix: color.matrix,
                                     colorRange: color.range, chromaLocation: chromaLocation, toneMapping: color.toneMapping,
                                     masteringDisplay: keepHDR ? source.hdr.masteringDisplay : nil,
                                     contentLightLevel: keepHDR ? source.hdr.contentLightLevel : nil,
                                     deinterlace: fields.deinterlace, fieldOrder: fields.keptFields,
                                     passes: s.passes ?? 1, smart: s.smart ?? .off, decisions: decisions)
    }

    /// Says where the grid's closed GOPs start, or refuses an encoder that cannot be told
    /// (`VideoEncoder.keyframes`).
    private func keyframes(_ grid: KeyframeGrid, family: VideoFamily, encoder: VideoEncoder, rate: FrameRate,
                           decide: (String, String, String, String) -> Void) throws(MediaError) {
        if case .refused(let why) = encoder.keyframes { throw MediaError(.invalidSettings, why, setting: "keyframes") }
        if grid.interval < rate.frameDuration {
            throw MediaError(.invalidSettings, "\(grid.unit)s of \(grid.interval.secondsDescription) are shorter than one frame at \(rate.decimalDescription) fps (\(rate.frameDuration.secondsDescription)): each \(grid.unit) starts with a picture of its own",
                             setting: "keyframes")
        }
        decide("keyframes", grid.description, "keyframes.grid", family.intraOnly
               ? "\(family.displayName) codes every picture on its own: each starts a \(grid.unit) cleanly"
               : "a closed GOP from an IDR at the first picture at or after every \(grid.interval.secondsDescription) of the output (where \(grid.unit)s start); \(encoder.library) may add keyframes between")
    }

    /// Says which encoder makes a family with more than one, and why: the first this FFmpeg has.
    /// The first of the family's encoders this FFmpeg has that runs two passes
    /// (`VideoEncoder.twoPass`): AV1 by libaom where SVT-AV1's wrapper has none. Refused, naming
    /// the encoder, where none can.
    private func twoPassEncoder(of family: VideoFamily, decide: (String, String, String, String) -> Void) throws(MediaError) -> VideoEncoder {
        let preferred = family.encoder { capabilities($0) != nil }
        if preferred.twoPass.isSupported {
            chooseEncoder(preferred, of: family, decide: decide)
            return preferred
        }
        guard let able = family.encoders.first(where: { capabilities($0.name) != nil && $0.twoPass.isSupported }) else {
            let why: String
            if case .unsupported(let reason) = preferred.twoPass { why = reason } else { why = "" }
            throw MediaError(.invalidSettings, "'passes: 2' needs two-pass rate control, which \(family.displayName) by \(preferred.library) (\(preferred.name)) does not have: \(why); "
                             + "use codec h264, hevc or vp9, or one pass ('passes: 1' with a bitrate)", setting: "passes")
        }
        decide("encoder", able.name, "encoder.two-pass",
               "\(preferred.library) (\(preferred.name)) runs one pass only under FFmpeg 5.1: \(able.library), the \(family.displayName) encoder that runs two")
        return able
    }

    private func chooseEncoder(_ chosen: VideoEncoder, of family: VideoFamily, decide: (String, String, String, String) -> Void) {
        guard family.encoders.count > 1 else { return }
        let missing = family.encoders.prefix { $0.name != chosen.name }.map { "\($0.name) (\($0.library))" }
        if missing.isEmpty {
            decide("encoder", chosen.name, "encoder.preferred", "\(chosen.library), \(family.displayName)'s first choice")
        } else {
            decide("encoder", chosen.name, "encoder.fallback",
                   "this FFmpeg has no \(missing.joined(separator: " or ")): \(chosen.library), \(family.displayName)'s next choice")
        }
    }

    /// SDR output peak below which a source's stated peak is not believed (a mastering display of
    /// 0.1 cd/m² is a muxer's mistake, not a display).
    static let plausiblePeak = 100.0...10_000.0
    /// BT.2100's reference display for HLG, and the peak assumed for PQ without metadata.
    static let defaultPeak = 1000.0

    private struct ColorTags {
        var primaries, transfer, matrix, range: String?
        var toneMapping: ToneMapping?
    }

    /// The output's colour tags, and tone mapping when HDR cannot stay HDR. Tags only ever say
    /// what the pixels will be: the source's own for SDR and kept HDR, BT.709 after tone mapping.
    private func colorTags(source: FormatDescription, settings s: VideoSettings, keepHDR: Bool, pixelFormat: String,
                           decide: (String, String, String, String) -> Void) -> ColorTags {
        let range = source.dynamicRange
        // Full-range "J" formats are converted to the output's range by the scaler.
        var outRange = source.colorRange
        let sourceJ = source.pixelFormat?.hasPrefix("yuvj") == true, outputJ = pixelFormat.hasPrefix("yuvj")
        if sourceJ != outputJ { outRange = outputJ ? "pc" : "tv" }
        let tags = [source.colorPrimaries, source.colorTransfer, source.colorMatrix].map { $0 ?? "unspecified" }.joined(separator: "/")
        if range == .sdr {
            if let asked = s.hdr {
                decide("hdr", "none", "hdr.sdr-source", "the source is SDR: 'hdr: \(asked.rawValue)' has nothing to do")
            }
            // RGB pictures made Y'CbCr (or back) change matrix: libswscale converts with BT.601's.
            let rgbSource = source.colorMatrix == "gbr" || isRGB(source.pixelFormat), rgbOutput = isRGB(pixelFormat)
            if rgbSource != rgbOutput {
                let matrix = rgbOutput ? "gbr" : "smpte170m"
                let converted = [source.colorPrimaries ?? "unspecified", source.colorTransfer ?? "unspecified", matrix].joined(separator: "/")
                decide("color", converted, "color.matrix-converted",
                       rgbOutput ? "Y'CbCr pictures are made RGB" : "RGB pictures are made Y'CbCr with BT.601's matrix (libswscale's)")
                return ColorTags(primaries: source.colorPrimaries, transfer: source.colorTransfer, matrix: matrix, range: rgbOutput ? nil : (outputJ ? "pc" : "tv"))
            }
            decide("color", tags, "color.source", source.colorTransfer == nil && source.colorPrimaries == nil
                   ? "the source states no colour tags: none are claimed" : "the source's colour tags, as its pixels are")
            return ColorTags(primaries: source.colorPrimaries, transfer: source.colorTransfer, matrix: source.colorMatrix, range: outRange)
        }
        if keepHDR {
            if s.hdr == .keep { decide("hdr", "keep", Origin.settings, "as asked") }
            else { decide("hdr", "keep", "hdr.keep-10-bit", "the \(range.name) source stays HDR: the \(pixelFormat) output carries it") }
            var kept: [String] = []
            if let m = source.hdr.masteringDisplay { kept.append("mastering display \(m)") }
            if let c = source.hdr.contentLightLevel { kept.append("MaxCLL \(c.maxCLL), MaxFALL \(c.maxFALL)") }
            decide("color", tags, "color.hdr-kept", "the source's HDR tags" + (kept.isEmpty ? "" : "; " + kept.joined(separator: "; ")))
            return ColorTags(primaries: source.colorPrimaries, transfer: source.colorTransfer, matrix: source.colorMatrix, range: outRange)
        }
        if s.hdr == .toneMap { decide("hdr", "tone-map", Origin.settings, "as asked") }
        else {
            decide("hdr", "tone-map", "hdr.tone-map-8-bit",
                   "an 8-bit output cannot carry the \(range.name) source's HDR: tone-mapped to BT.709 SDR, as Apple's export presets do")
        }
        let mapping = Self.toneMapping(source: source)
        decide("color", "bt709/bt709/bt709", "color.tone-mapped-bt709",
               "SDR pictures are tagged BT.709 (the \(range.name) source's peak: \(formatNumber(mapping?.peakLuminance ?? Self.defaultPeak)) cd/m²)")
        return ColorTags(primaries: "bt709", transfer: "bt709", matrix: "bt709", range: outputJ ? "pc" : "tv", toneMapping: mapping)
    }

    /// How an HDR source's pictures become SDR: by its transfer, from its peak (PQ: its mastering
    /// display's, else its MaxCLL, where plausible; HLG: the reference display's); nil for SDR.
    static func toneMapping(source: FormatDescription) -> ToneMapping? {
        let range = source.dynamicRange
        guard range != .sdr else { return nil }
        var peak = Self.defaultPeak
        if range == .pq {
            if let p = source.hdr.masteringDisplay?.peak, Self.plausiblePeak.contains(p) { peak = p }
            else if let c = source.hdr.contentLightLevel, Self.plausiblePeak.contains(Double(c.maxCLL)) { peak = Double(c.maxCLL) }
        }
        return ToneMapping(transfer: range, sourcePrimaries: source.colorPrimaries, sourceMatrix: source.colorMatrix, sourceRange: source.colorRange, peakLuminance: peak)
    }

    /// `PixelFormatRule.eightBit420`: what every player of the codec takes.
    private func eightBit420(source: FormatDescription, family: VideoFamily, decide: (String, String, String, String) -> Void) -> String {
        let pixelFormat = "yuv420p"
        let chroma = ChromaFormat.sourceName(source.pixelFormat).flatMap { $0 == "4:2:0" ? nil : $0 }
        if source.isHighBitDepth || chroma != nil {
            let what = [source.isHighBitDepth ? "\(source.bitDepth ?? 10)-bit" : nil, chroma].compactMap { $0 }.joined(separator: " ")
            // The way out: a family that keeps depth and chroma.
            let keeper = VideoFamily.all.first { $0.pixelFormats.keepsDepth }.map { ", or 'codec: \($0.codec.rawValue)'" } ?? ""
            decide("pixel-format", pixelFormat, "pixel-format.\(family.codec.rawValue)-\(source.isHighBitDepth ? "8-bit" : "420")",
                   "\(family.displayName) players expect 8-bit 4:2:0; the \(what) source is reduced (a 'pixel-format' keeps more\(keeper))")
        } else {
            decide("pixel-format", pixelFormat, "pixel-format.8-bit-420", "8-bit 4:2:0 plays everywhere")
        }
        return pixelFormat
    }

    /// `PixelFormatRule.keepDepthAndChroma`: the source's bit depth (10 bits for anything deeper,
    /// and for HDR) and its chroma format (`ChromaFormat`), where this encoder takes them.
    private func keptPixelFormat(source: FormatDescription, family: VideoFamily, encoder: String, tenBitProfile: String, keepHDR: Bool,
                                 supported: [String], decide: (String, String, String, String) -> Void) -> String {
        let tenBit = source.isHighBitDepth || keepHDR
        let chroma = ChromaFormat.kept(from: source.pixelFormat) ?? 420
        let named = ChromaFormat.sourceName(source.pixelFormat)
        let wanted = ChromaFormat.pixelFormat(chroma: chroma, tenBit: tenBit)
        if chroma != 420 {
            let taken = supported.isEmpty || supported.contains(wanted)
            guard taken, family.profiles.contains(where: { $0.carries(chroma: chroma) }) else {
                let fallback = ChromaFormat.pixelFormat(chroma: 420, tenBit: tenBit)
                let carried = [420, 422, 444].filter { c in family.profiles.contains { $0.carries(chroma: c) } }.map(ChromaFormat.name)
                let why = taken ? "\(family.displayName)'s profiles here (\(family.profiles.map(\.name).joined(separator: ", "))) carry \(carried.joined(separator: " or ")) only"
                    : "this \(encoder) does not take \(wanted)"
                decide("pixel-format", fallback, "pixel-format.\(family.codec.rawValue)-420-only",
                       "the source is \(named ?? ChromaFormat.name(chroma)), but \(why): made 4:2:0")
                return fallback
            }
            let how = named == ChromaFormat.name(chroma) ? "\(family.displayName) keeps it"
                : "\(family.displayName) has no \(named ?? "such") format: \(ChromaFormat.name(chroma)) holds every chroma sample"
            let depth = source.isHighBitDepth ? "\(source.bitDepth ?? 10)-bit " : ""
            decide("pixel-format", wanted, "pixel-format.keep-chroma",
                   "the source is \(depth)\(named ?? ChromaFormat.name(chroma)): \(how)" + (keepHDR && !source.isHighBitDepth ? " (in 10 bits for HDR)" : ""))
            return wanted
        }
        if source.isHighBitDepth {
            decide("pixel-format", wanted, "pixel-format.keep-10-bit", "the source is \(source.bitDepth ?? 10)-bit and \(family.displayName) \(tenBitProfile) keeps it")
        } else if keepHDR {
            decide("pixel-format", wanted, "pixel-format.hdr-10-bit", "HDR needs 10 bits: \(family.displayName) \(tenBitProfile)")
        } else {
            decide("pixel-format", wanted, "pixel-format.8-bit-420", "8-bit 4:2:0 plays everywhere" + (named == nil && source.pixelFormat != nil ? " (the source's \(source.pixelFormat!) is made Y'CbCr 4:2:0)" : ""))
        }
        return wanted
    }

    /// nil keeps the source's timing.
    private func frameRate(source: FormatDescription, settings s: VideoSettings,
                           decide: (String, String, String, String) -> Void) throws(MediaError) -> FrameRate? {
        guard case .rate(let target)? = s.frameRate else {
            decide("frame-rate", "source", s.frameRate == nil ? "frame-rate.default-source" : Origin.settings,
                   "the source's own timing is kept" + (source.averageFrameRate.map { " (about \($0.decimalDescription) fps)" } ?? ""))
            return nil
        }
        let policy = s.frameRatePolicy ?? .cap
        guard let average = source.averageFrameRate else {
            decide("frame-rate", target.description, "frame-rate.unknown-source", "the source's rate is unknown: the target is used")
            return target
        }
        var src = average
        if source.isVariableFrameRate && policy != .exact {
            // The average of uneven frames is no rate to convert to: the standard rate nearest
            // the rate the frames mostly come at is the source's rate here.
            let measured = source.nominalFrameRate ?? source.baseFrameRate ?? average
            src = Self.nearestStandardRate(measured)
            if policy == .cap {
                let about = "the variable-frame-rate source (\(average.decimalDescription) fps on average, frames mostly at \(measured.decimalDescription) fps)"
                if src < target {
                    decide("frame-rate", src.description, "frame-rate.vfr-nominal",
                           "\(about) gets \(src.decimalDescription), the standard rate nearest its nominal rate, below the \(target.decimalDescription) fps cap")
                    return src
                }
                // The cap's 1001-family twin only where it is itself standard (not 24.975, 49.95);
                // a whole-number cap is at most 1000 fps, so the product fits.
                if src.isNTSC && target.seconds == 1,
                   case let ntsc = FrameRate(frames: target.frames * 1000, seconds: 1001), Self.standardRates.contains(ntsc) {
                    decide("frame-rate", ntsc.description, "frame-rate.vfr-cap-ntsc",
                           "\(about) is capped to the 1001-family rate \(ntsc.decimalDescription) (its nominal rate is \(src.decimalDescription))")
                    return ntsc
                }
                decide("frame-rate", target.description, "frame-rate.vfr-cap",
                       "\(about) is capped to \(target.decimalDescription) fps (its nominal rate is \(src.decimalDescription))")
                return target
            }
        }
        switch policy {
        case .exact:
            decide("frame-rate", target.description, "frame-rate.exact",
                   src == target ? "the source is already \(target.decimalDescription) fps" : "always \(target.decimalDescription) fps (\(src.decimalDescription) fps source: frames are \(src < target ? "repeated" : "dropped"))")
            return target
        case .cap:
            if src <= target {
                decide("frame-rate", src.description, "frame-rate.cap-keep", "the source's \(src.decimalDescription) fps is at or below the \(target.decimalDescription) fps cap")
                return src
            }
            // As for variable-rate sources: the 1001-family twin only where it is a standard
            // rate (29.97 capped at 25 gives 25, not 24.975).
            if src.isNTSC && target.seconds == 1,
               case let ntsc = FrameRate(frames: target.frames * 1000, seconds: 1001), Self.standardRates.contains(ntsc) {
                decide("frame-rate", ntsc.description, "frame-rate.cap-ntsc", "the \(src.decimalDescription) fps source is capped to the 1001-family rate \(ntsc.decimalDescription)")
                return ntsc
            }
            decide("frame-rate", target.description, "frame-rate.cap", "the \(src.decimalDescription) fps source is capped to \(target.decimalDescription) fps")
            return target
        case .divisor:
            // n = ceil(src / target), exactly.
            let num = Int64(src.frames) * Int64(target.seconds)
            let den = Int64(src.seconds) * Int64(target.frames)
            let n = max(1, (num + den - 1) / den)
            // A source rate beyond any camera's (a hostile file) could need a divisor whose
            // product leaves Int32: keep the target then.
            guard let seconds = Int32(exactly: Int64(src.seconds) * n) else {
                decide("frame-rate", target.description, "frame-rate.divisor", "the \(src.decimalDescription) fps source is converted to \(target.decimalDescription) fps")
                return target
            }
            let rate = FrameRate(frames: src.frames, seconds: seconds)
            decide("frame-rate", rate.description, "frame-rate.divisor",
                   n == 1 ? "the source's \(src.decimalDescription) fps is at or below \(target.decimalDescription)" : "every \(n)th frame of the \(src.decimalDescription) fps source: \(rate.decimalDescription) fps")
            return rate
        }
    }

    /// The rates a variable-frame-rate source is given: what cameras, editors and players use.
    static let standardRates: [FrameRate] = [
        FrameRate(frames: 15), FrameRate(frames: 24000, seconds: 1001), FrameRate(frames: 24), FrameRate(frames: 25),
        FrameRate(frames: 30000, seconds: 1001), FrameRate(frames: 30), FrameRate(frames: 48), FrameRate(frames: 50),
        FrameRate(frames: 60000, seconds: 1001), FrameRate(frames: 60), FrameRate(frames: 90), FrameRate(frames: 100),
        FrameRate(frames: 120000, seconds: 1001), FrameRate(frames: 120), FrameRate(frames: 240),
    ]

    /// The codec asked for, else the container's own (WebM's VP9), else the table's default; the
    /// decision says which (`RULE.container`, `RULE.default`).
    static func codec<C: RawRepresentable<String>>(asked: C?, container: (codec: C, why: String)?, rule: String,
                                                 decide: (String, String, String, String) -> Void, otherwise: (C, String)) -> C {
        if let asked {
            decide("codec", asked.rawValue, Origin.settings, "as asked")
            return asked
        }
        if let (own, why) = container {
            decide("codec", own.rawValue, "\(rule).container", "no codec asked for: \(why)")
            return own
        }
        decide("codec", otherwise.0.rawValue, "\(rule).default", otherwise.1)
        return otherwise.0
    }

    /// The standard rate nearest `r` by ratio (a tie goes to the lower rate).
    static func nearestStandardRate(_ r: FrameRate) -> FrameRate {
        let x = r.framesPerSecond
        func distance(_ c: FrameRate) -> Double { max(c.framesPerSecond, x) / min(c.framesPerSecond, x) }
        var best = standardRates[0]
        for c in standardRates.dropFirst() where distance(c) < distance(best) { best = c }
        return best
    }

    // MARK: Audio

    /// `container`: the output's, whose own default codec (WebM's Opus) stands where none is asked.
    public func audio(source: FormatDescription, settings s: AudioSettings, container: ContainerFormat? = nil) throws(MediaError) -> ResolvedAudioSettings {
        var decisions: [Decision] = []
        func decide(_ setting: String, _ value: String, _ rule: String, _ reason: String) {
            decisions.append(Decision(setting: setting, value: value, rule: rule, reason: reason))
        }
        let codec = Self.codec(asked: s.codec, container: container?.defaultAudioCodec, rule: "audio-codec", decide: decide,
                               otherwise: (AudioFamily.default.codec, "\(AudioFamily.default.displayName) plays everywhere MP4 does"))
        guard let family = AudioFamily.of(codec) else { throw MediaError(.invalidSettings, "codec 'copy' needs no settings assistant") }
        try Self.checkHeld(family.displayName, codec: codec.rawValue, streams: family.streamCodecs, in: container)
        let depth = family.lossless ? bitDepth(source: source, family: family, decide: decide) : nil
        let encoder = family.encoder(bitDepth: depth) { capabilities($0) != nil }

        let rate = try sampleRate(source: source, settings: s, family: family, encoder: encoder, decide: decide)

        // A lossless copy keeps every channel it is given; a lossy one for playing, stereo.
        let maxChannels = s.channels ?? (family.lossless ? Self.mostChannels : Self.defaultMaxChannels)
        let srcChannels = max(1, source.channels)
        let channels: Int
        let layout: String
        if let asked = s.channelLayout {
            // A named layout fixes the count: the output has exactly its channels.
            guard let n = Self.standardLayouts[asked] else {
                throw MediaError(.invalidSettings, "unknown channel layout '\(asked)'" + suggestion(asked, among: Self.standardLayoutNames)
                                 + " (layouts up to 8 channels: \(Self.standardLayoutNames.joined(separator: ", ")))", setting: "channel-layout")
            }
            if let most = s.channels, n > most {
                throw MediaError(.invalidSettings, "channel layout '\(asked)' has \(n) channels, more than 'channels: \(most)' allows", setting: "channel-layout")
            }
            channels = n
            layout = asked
            decide("channels", "\(n)", "channels.from-layout",
                   "the \(asked) layout has \(n) channel\(n == 1 ? "" : "s") (the source has \(srcChannels)" + (n > srcChannels ? ": more than it has, as asked)" : ")"))
            decide("channel-layout", asked, Origin.settings, "as asked")
        } else {
            if srcChannels <= maxChannels {
                channels = srcChannels
                decide("channels", "\(channels)", "channels.kept", "the source's \(srcChannels) channel\(srcChannels == 1 ? "" : "s") fit\(srcChannels == 1 ? "s" : "") within \(maxChannels)")
            } else {
                channels = maxChannels
                decide("channels", "\(channels)", "channels.downmix", "the source's \(srcChannels) channels are downmixed to \(maxChannels)")
            }
            layout = Self.defaultLayoutName(channels)
            decide("channel-layout", layout, "channel-layout.default", "the standard layout for \(channels) channel\(channels == 1 ? "" : "s")")
        }

        let bitrate: Int
        if family.lossless {
            decide("bitrate", "lossless", "audio-bitrate.lossless", "\(family.displayName) is lossless: its size follows the sound")
            bitrate = 0
        } else {
            bitrate = try limitedAudioBitrate(source: source, settings: s, family: family, channels: channels, sampleRate: rate, decide: decide)
        }
        var resolved = ResolvedAudioSettings(codec: codec, encoderName: encoder, sampleRate: rate, channels: channels,
                                             channelLayout: layout, bitrate: bitrate, codecOptions: s.codecOptions,
                                             decisions: decisions)
        resolved.sampleFormat = sampleFormat(encoder: encoder, bitDepth: depth)
        resolved.bitDepth = depth
        if let target = s.loudness {
            // The gain itself is the plan's to find: it measures the sound (`LoudnessPass`).
            resolved.loudness = target
            resolved.decisions.append(Decision(setting: "loudness", value: "\(LoudnessTarget.decibels(target.integrated)) LUFS", rule: Origin.settings,
                                               reason: "true peak at most \(LoudnessTarget.decibels(target.truePeak)) dBTP"))
        }
        return resolved
    }

    /// FFmpeg's standard layout for a channel count (what `av_channel_layout_default` gives), by
    /// the name the audio lane opens it with.
    static func defaultLayoutName(_ channels: Int) -> String {
        switch channels {
        case 1: return "mono"
        case 2: return "stereo"
        case 3: return "2.1"
        case 4: return "4.0"
        case 5: return "5.0"
        case 6: return "5.1"
        case 7: return "6.1"
        default: return "7.1"
        }
    }

    /// FFmpeg's named channel layouts of up to 8 channels (the most an output track has), with
    /// their channel counts.
    static let standardLayouts: [String: Int] = [
        "mono": 1, "stereo": 2, "downmix": 2, "2.1": 3, "3.0": 3, "3.0(back)": 3, "4.0": 4, "quad": 4, "quad(side)": 4,
        "3.1": 4, "5.0": 5, "5.0(side)": 5, "4.1": 5, "5.1": 6, "5.1(side)": 6, "6.0": 6, "6.0(front)": 6,
        "hexagonal": 6, "6.1": 7, "6.1(back)": 7, "6.1(front)": 7, "7.0": 7, "7.0(front)": 7, "7.1": 8,
        "7.1(wide)": 8, "7.1(wide-side)": 8, "octagonal": 8,
    ]
    static let standardLayoutNames = standardLayouts.sorted { ($0.value, $0.key) < ($1.value, $1.key) }.map(\.key)
}

/// The chroma sampling of a pixel format by its FFmpeg name: 444, 422 or 420.
func pixelFormatChroma(_ name: String) -> Int {
    let n = name.lowercased()
    if isRGB(n) || n.contains("444") || ["nv24", "nv42", "p41", "ayuv", "vuya", "vuyx"].contains(where: n.hasPrefix) { return 444 }
    if n.contains("422") || ["nv16", "nv20", "p21", "yuyv", "uyvy", "yvyu", "y210"].contains(where: n.hasPrefix) { return 422 }
    return 420
}

/// An RGB pixel format by its FFmpeg name (`gbrp`, `rgb24`, `bgra`, `argb`, `x2rgb10le` …).
func isRGB(_ name: String?) -> Bool {
    guard let n = name?.lowercased() else { return false }
    return ["rgb", "bgr", "gbr", "argb", "abgr", "0rgb", "0bgr", "x2rgb", "x2bgr"].contains { n.hasPrefix($0) }
}

/// Even, not above `x` (4:2:0 needs even sizes), at least 2.
func even(_ x: Int) -> Int { max(2, x & ~1) }

private func boxText(_ s: VideoSettings) -> String {
    "the \(s.width.map(String.init) ?? "any")x\(s.height.map(String.init) ?? "any") box"
}

