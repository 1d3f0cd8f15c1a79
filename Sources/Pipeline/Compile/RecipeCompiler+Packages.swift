extension RecipeCompiler {
    /// A package's renditions each take some of the source's tracks (the video one rendition, the
    /// sound another): a track another rendition of the same package writes is written, so the
    /// "not written" notice is left out for it; one no rendition takes keeps it.
    static func packageNotices(_ compiled: [CompiledRecipe]) -> [CompiledRecipe] {
        var written: [String: Set<Int>] = [:]
        for c in compiled {
            if let m = c.plan.package { written[m.folder, default: []].formUnion(c.plan.lanes.map(\.track.index)) }
        }
        return compiled.map { c in
            guard let m = c.plan.package, let w = written[m.folder] else { return c }
            var plan = c.plan
            plan.notices.removeAll { $0.item == "track" && $0.kind == .dropped && $0.file == nil && $0.sourceTrack.map(w.contains) == true }
            return CompiledRecipe(plan: plan, origins: c.origins, number: c.number)
        }
    }
}
