import Recipe

/// An output's limits (`output: { file-length-limit, max-duration }`) as the request takes them.
extension RecipeCompiler {
    /// The time range the output takes: the recipe's, ended at its `max-duration` (from its
    /// start) where that is earlier than the range's or the file's end.
    static func limitedRange(_ recipe: Recipe, asset: Asset) -> TimeRange? {
        let range = recipe.timeRange?.range
        guard let most = recipe.output.limits.maxDuration?.value else { return range }
        let wanted = range ?? TimeRange(start: .zero, duration: .positiveInfinity)
        let fileLength = asset.duration.isNumeric && asset.duration > .zero ? asset.duration : MediaTime.positiveInfinity
        guard most < .min(wanted.duration, fileLength - wanted.start) else { return range }
        return TimeRange(start: wanted.start, duration: most)
    }

    /// A composition is as long as its segments say: `max-duration` has nothing to shorten there.
    static func maxDurationRefusal(_ recipe: Recipe) -> Diagnostic? {
        guard recipe.composition != nil, let most = recipe.output.limits.maxDuration else { return nil }
        return recipe.diagnostic(most.mark, "'max-duration' ends a source's time range; a composition is as long as its segments: shorten those instead")
    }

    static func fileLengthLimit(_ recipe: Recipe) -> FileLengthLimit? {
        recipe.output.limits.fileLength.map { FileLengthLimit(bytes: $0.value, origin: "\(recipe.file):\($0.mark)") }
    }
}
