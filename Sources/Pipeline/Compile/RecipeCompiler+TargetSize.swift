import Recipe

/// An output's `target-size` and a video track's `passes`, checked without a source (`validate`
/// and `plan` alike); what needs the source (the duration, a target too small) is the planner's
/// (`TargetSizePass`).
extension RecipeCompiler {
    static func targetSizeRefusals(_ recipe: Recipe) -> [Diagnostic] {
        var errors: [Diagnostic] = []
        let target = recipe.output.limits.targetSize
        func at(_ m: Mark) -> String { "\(m.line):\(m.column)" }
        if let t = target, let limit = recipe.output.limits.fileLength {
            errors.append(recipe.diagnostic(t.mark, "'target-size' and 'file-length-limit' (\(at(limit.mark))) cannot be used together: the target already makes the whole file "
                                            + "that size (±3 %), and a limit under it would cut the end off the pictures the bitrate was spread over: keep one"))
        }
        for input in recipe.writerInputs {
            guard let out = recipe.readerOutput(input.source.value) else { continue }  // the parser said why
            let p: ResolvedPreset
            do throws(Diagnostic) { p = try recipe.resolvedSettings(of: input) ?? .empty } catch { continue }  // the parser said why
            switch out.track {
            case .kind(let k, _): guard k.rawValue == MediaType.video.rawValue else { continue }
            case .index: guard !p.videoOnlyKeys.isEmpty else { continue }
            }
            func mark(_ key: String) -> Mark? { p.keyMarks.last { $0.0 == key && $0.1.line > 0 }?.1 }
            let passesMark = mark("passes") ?? settingsMark(input)
            if !out.decode || p.video.codec == .copy {
                if let t = target {
                    errors.append(recipe.diagnostic(t.mark, "'target-size' sets the video bitrate, but writer input \(input.number) copies the video track ('\(input.source.value)') as it is: "
                                                    + "give it a codec to reencode it, or leave 'target-size' out"))
                } else if p.video.passes == 2 {
                    errors.append(recipe.diagnostic(passesMark, "'passes: 2' codes the video in two passes, but writer input \(input.number) copies it as it is"))
                }
                continue
            }
            if let t = target {
                if p.video.quality != nil {
                    errors.append(recipe.diagnostic(t.mark, "'target-size' sets the video bitrate from the size, but writer input \(input.number) asks for constant 'quality'"
                                                    + (mark("quality").map { " (\(at($0)))" } ?? "") + ": leave one of them out"))
                }
                if p.video.bitrate != nil {
                    errors.append(recipe.diagnostic(t.mark, "'target-size' sets the video bitrate from the size, but writer input \(input.number) asks for a 'bitrate'"
                                                    + (mark("bitrate").map { " (\(at($0)))" } ?? "") + ": leave one of them out"))
                }
            } else if p.video.passes == 2 && p.video.bitrate == nil {
                errors.append(recipe.diagnostic(passesMark, "'passes: 2' spends a bitrate in two passes, but writer input \(input.number) has none: "
                                                + "give it a 'bitrate', or the output a 'target-size'"))
            }
        }
        return errors
    }

    /// The output's target size as the request takes it; its video tracks then run two passes
    /// unless they say `passes: 1`.
    static func targetSize(_ recipe: Recipe) -> TargetSize? {
        recipe.output.limits.targetSize.map { TargetSize(bytes: $0.value, origin: "\(recipe.file):\($0.mark)") }
    }
}

extension RecipeCompiler {
    /// A video track under a target size: two passes, unless its settings say `passes: 1`.
    static func twoPassUnlessOne(_ track: TrackRequest) -> TrackRequest {
        guard case .video(var v) = track.mode else { return track }
        v.passes = v.passes ?? 2
        var t = track
        t.mode = .video(v)
        return t
    }
}
