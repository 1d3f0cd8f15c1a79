import Recipe

extension RecipeCompiler {
    /// A chunked output is its run's only output: its chunks are encoded before the read that
    /// would feed the others, so a recipe with `parallel:` and several outputs (or stills) is
    /// refused at `parallel` — at plan time, not when the run begins (from `--chunks`, as a usage error).
    static func refuseChunksBeside(_ recipe: Recipe, outputs: Int) throws {
        guard let parallel = recipe.parallel, outputs > 1 else { return }
        let message = "the output cannot be encoded in chunks: the recipe makes \(outputs) outputs, and chunks are encoded for a run's only output (make the others in a recipe of their own)"
        guard let mark = parallel.mark else { throw MediaError(.usage, "--chunks: \(message)", file: recipe.file) }
        throw RecipeErrors([recipe.diagnostic(mark, message)])
    }
}
