extension Recipe {
    /// The recipe as the drawing of its composition's stills sees it (no output draws them at the
    /// composition's render size): one output at `path` — never written — whose only writer input
    /// takes image output `o`'s reader output with the settings assistant's choices, so no size
    /// box: the composition's render size, at the rate an output without `frame-rate` has.
    public func drawingStills(of o: RecipeOutput, path: String) -> Recipe? {
        guard let images = o.images else { return nil }
        var r = self
        var spec = OutputSpec()
        spec.path = Located(path, o.mark)
        spec.overwrite = true
        r.output = spec
        r.writerInputs = [WriterInput(number: 1, source: images.source, settings: .none, mark: images.source.mark)]
        r.outputs = []
        return r
    }
}
