import Recipe

/// `ladder: auto` against the source: a package's ladder rendition becomes one rendition per rung
/// of Apple's HLS authoring specification that the source's displayed size fills; the plan of
/// each rung says where its size and rate came from, the top rung's lists the rungs dropped.
extension RecipeCompiler {
    /// `recipe` with its ladders made into rungs against the video of `read`'s source.
    static func expandingLadders(_ recipe: Recipe, reading read: ReadSources) throws -> Recipe {
        try recipe.expandingLadders { out in
            let track: Track?
            switch out.track {
            case .kind(let kind, let n): track = MediaType(rawValue: kind.rawValue).flatMap { read.asset.track($0, ordinal: n) }
            case .index(let i): track = read.asset.track(index: i)
            }
            guard let track, track.mediaType == .video, !track.isAttachedPicture else { return nil }
            let size = track.format.displaySize
            return size.width > 0 && size.height > 0 ? size : nil
        }
    }

    /// A compiled rung of a ladder: its bit rate said to come from the ladder (its size is the
    /// assistant's fit of the source into the rung's box, said as such), and on
    /// its ladder's top rung a notice per rung dropped (larger than the source).
    static func ladderRung(_ c: CompiledRecipe, role: PackageRole?) -> CompiledRecipe {
        guard let role, let rung = role.rung else { return c }
        let origin = "ladder auto (\(role.format.value.rawValue) rung \(rung.summary))"
        let origins = c.origins.map { o in
            var keyOrigins = o.keyOrigins
            for key in ["size", "bitrate"] where keyOrigins[key] != nil { keyOrigins[key] = origin }
            return LaneOrigin(writerInput: o.writerInput, readerOutput: o.readerOutput, presets: o.presets, explicitKeys: o.explicitKeys, keyOrigins: keyOrigins)
        }
        var plan = c.plan
        if role.rungs.last(where: \.kept) == rung {
            plan.notices += role.rungs.filter { !$0.kept }.map { dropped in
                PlanNotice(.dropped, "ladder-rung", "ladder rung \(dropped.rung.box) at \(dropped.kbps) kb/s dropped: \(dropped.reason)")
            }
        }
        return CompiledRecipe(plan: plan, origins: origins, number: c.number)
    }
}
