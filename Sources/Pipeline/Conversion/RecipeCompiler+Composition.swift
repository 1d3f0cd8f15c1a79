import Recipe

extension RecipeCompiler {
    /// TEMPORARY, until the composition compiler lands: this build's engine converts one input, so
    /// a recipe with a composition is refused at its `composition:` line (exit 65) instead of
    /// converting the input alone as if the composition were not there.
    public static func refuseComposition(_ recipe: Recipe) throws(RecipeErrors) {
        guard let composition = recipe.composition else { return }
        throw RecipeErrors([recipe.diagnostic(composition.mark,
            "compositions are not yet supported by this build: 'validate' checks this recipe, but 'plan', 'run' and 'batch' cannot convert it yet")])
    }
}
