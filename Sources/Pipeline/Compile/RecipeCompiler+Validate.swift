import Recipe

extension RecipeCompiler {
    /// What can be checked without a source: every refusal of `plan` that does not depend on the
    /// source (`sourceFreeRefusals`: the output's container, a track written twice, settings for
    /// another kind of track, a copy in a composition, what this build cannot compose); every
    /// writer input that encodes opens its encoder
    /// with its settings resolved for a stand-in source (128x96 at 25 fps, 8-bit 4:2:0, small
    /// enough for every level; 48 kHz stereo), and when the recipe names its container, the container takes every
    /// encoder's stream. A codec option the encoder does not have, a value it refuses, a profile
    /// or pixel format it cannot make: each is an error at the recipe line that set it. What
    /// depends on the source (its tracks, a copy the container cannot hold) is for `plan`.
    /// Throws `RecipeErrors`, or the `MediaError` of a shortage of the system's (`.resources`,
    /// 75): an encoder that could not open for want of threads or memory says nothing of the recipe.
    /// With `outputs:`, each output is checked so, and every error of every output is said.
    public static func validate(_ recipe: Recipe, assistant: SettingsAssistant = .system) throws {
        var errors: [Diagnostic] = []
        for r in recipe.eachOutput {
            do { try validateOutput(r, assistant: assistant) } catch let e as RecipeErrors { errors += e.diagnostics }
        }
        // An image format this FFmpeg cannot write (WebP without libwebp).
        for o in recipe.imageOutputs {
            guard let path = o.spec.path else { continue }
            do throws(MediaError) { _ = try StillPlanner.imageFormat(of: path.value) } catch { errors.append(recipe.diagnostic(path.mark, error.message)) }
        }
        if !errors.isEmpty { throw RecipeErrors(errors) }
    }

    /// One output (`recipe`'s `output` and writer inputs).
    private static func validateOutput(_ recipe: Recipe, assistant: SettingsAssistant) throws {
        let (format, refused, sourceFree) = sourceFreeRefusals(recipe)
        var errors = sourceFree
        var encoders: [(Encoder, WriterInput, [(String, Mark)])] = []
        for input in recipe.writerInputs {
            guard let out = recipe.readerOutput(input.source.value) else { continue }
            guard out.decode, !refused.contains(input.number) else { continue }
            let resolved: ResolvedPreset?
            do throws(Diagnostic) { resolved = try recipe.resolvedSettings(of: input) } catch { continue }  // the parser said why
            let p = resolved ?? .empty
            let (video, audio, keys, videoOnly, audioOnly) = (p.video, p.audio, p.keyMarks, p.videoOnlyKeys, p.audioOnlyKeys)
            // The track's kind: from the reader output, else from the settings' own keys.
            let kind: MediaType
            switch out.track {
            case .kind(let k, _): kind = MediaType(rawValue: k.rawValue) ?? .unknown
            case .index: kind = !videoOnly.isEmpty ? .video : !audioOnly.isEmpty ? .audio : .unknown
            }
            do throws(MediaError) {
                let config: EncoderConfiguration
                switch kind {
                case .video where video.codec != .copy:
                    config = EncoderConfiguration.standIn(try assistant.video(source: standInVideo, settings: video, container: format, keyframes: keyframeGrid(of: recipe)))
                case .audio where audio.codec != .copy:
                    config = EncoderConfiguration.audio(try assistant.audio(source: standInAudio(for: audio, container: format), settings: audio, container: format))
                default:
                    continue
                }
                var c = config
                c.globalHeader = true  // every container reencode writes wants it
                encoders.append((try Encoder(c), input, keys))
            } catch {
                if error.kind == .resources { throw error.at(file: recipe.file) }
                let grid = error.setting == "keyframes" ? recipe.output.fragment?.mark : nil
                let mark = grid ?? error.setting.flatMap { key in keys.last { $0.0 == key && $0.1.line > 0 }?.1 } ?? settingsMark(input)
                errors.append(recipe.diagnostic(mark, error.message))
            }
        }
        if errors.isEmpty, let format, !encoders.isEmpty,
           let writer = try? AssetWriter(path: "validate.\(format.rawValue)", format: format, rehearsal: true) {
            for (encoder, _, _) in encoders { _ = try? writer.addInput(encoder: encoder, rotation: 0, metadata: [:]) }
            do throws(MediaError) { try writer.start(metadata: [:], optimizeForNetwork: false) } catch {
                let (i, why) = writer.refusedInput() ?? (0, error)
                let input = encoders[min(i, encoders.count - 1)].1
                errors.append(recipe.diagnostic(settingsMark(input), "\(format.rawValue) cannot hold what writer input \(input.number) encodes: \(why.message)"))
            }
        }
        if !errors.isEmpty { throw RecipeErrors(errors) }
    }

    private static var standInVideo: FormatDescription {
        var f = FormatDescription(mediaType: .video, codec: "h264")
        (f.width, f.height, f.pixelFormat, f.bitDepth) = (128, 96, "yuv420p", 8)
        f.averageFrameRate = FrameRate(frames: 25)
        return f
    }
}

extension EncoderConfiguration {
    /// The encoder a video lane opens for these settings, for a source of constant rate (what
    /// `validate` opens: no source, so no colour tags and the settings' own rate).
    static func standIn(_ s: ResolvedVideoSettings) -> EncoderConfiguration {
        let rate = s.frameRate ?? FrameRate(frames: 25)
        var c = EncoderConfiguration(codecName: s.encoderName, timeBase: TimeBase(framesOf: rate))
        c.frameRate = rate
        c.width = Int32(s.width)
        c.height = Int32(s.height)
        c.setPixelFormat(named: s.pixelFormat)
        c.gopSize = Int32(s.gopFrames)
        c.profile = s.profile
        if let b = s.bitrate { c.bitRate = Int64(b) }
        if let m = s.maxBitrate { c.maxBitRate = Int64(m) }
        c.options = VideoSink.encoderOptions(s)
        return c
    }

    /// The encoder an audio lane opens for these settings (the lane adds the container's
    /// global-header flag).
    static func audio(_ s: ResolvedAudioSettings) -> EncoderConfiguration {
        var c = EncoderConfiguration(codecName: s.encoderName, timeBase: TimeBase(num: 1, den: Int32(s.sampleRate)))
        c.sampleRate = Int32(s.sampleRate)
        c.setSampleFormat(named: s.sampleFormat)
        c.bitsPerSample = Int32(s.bitDepth ?? 0)
        c.channels = Int32(s.channels)
        c.channelLayout = s.channelLayout
        c.bitRate = Int64(s.bitrate)
        c.options = s.codecOptions.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        return c
    }
}
