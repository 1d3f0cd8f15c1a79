import Recipe

/// A recipe's outputs planned against one loading of its source: the media files, and the
/// still images made from the same read (an entry of `outputs:` with `images:`).
public struct CompiledOutputs: Sendable {
    public let files: [CompiledRecipe]
    /// Each image output's stills, with its number in `outputs:`.
    public let images: [(number: Int, plan: StillPlan)]
    /// Image outputs left out, as warnings: their reader output is optional and the source has
    /// no such track.
    public let leftOut: [String]
}

extension RecipeCompiler {
    /// Every output of the recipe: `compileAll`'s files and the stills of its image outputs.
    public static func compileOutputs(_ recipe: Recipe, input: String? = nil, output: String? = nil,
                                      overwrite: Bool = false, assistant: SettingsAssistant = .system) throws -> CompiledOutputs {
        guard !recipe.imageOutputs.isEmpty else {
            return CompiledOutputs(files: try compileAll(recipe, input: input, output: output, overwrite: overwrite, assistant: assistant), images: [], leftOut: [])
        }
        try refuseSingleOutputPath(recipe, output: output)
        try refuseUnsupportedComposition(recipe)
        let read = try ReadSources.load(recipe, input: input)
        let compiled = try compileOutputs(recipe, reading: read, overwrite: overwrite, assistant: assistant)
        try refuseChunksBeside(recipe, outputs: compiled.files.count + compiled.images.count)
        // A smart track whose read also makes another output or stills is planned again, as a
        // full encode or refused: its stills then take the pictures the full encode decodes.
        let obstacles = smartSharingObstacles(compiled.files, images: compiled.images)
        return obstacles.isEmpty ? compiled : try compileOutputs(recipe, reading: read, overwrite: overwrite, assistant: assistant, smartObstacles: obstacles)
    }

    /// The media files and stills of `outputs:`, against the sources `read`.
    private static func compileOutputs(_ recipe: Recipe, reading read: ReadSources, overwrite: Bool, assistant: SettingsAssistant,
                                       smartObstacles: [Int: [Int: String]] = [:]) throws -> CompiledOutputs {
        var errors: [Diagnostic] = []
        var files: [CompiledRecipe] = []
        do {
            files = try compileFiles(recipe, reading: read, overwrite: overwrite, assistant: assistant, smartObstacles: smartObstacles)
        } catch let e as RecipeErrors { errors += e.diagnostics }
        var images: [(number: Int, plan: StillPlan)] = [], leftOut: [String] = []
        var mismatches: [Diagnostic] = []
        var drawing: ConversionPlan?
        for o in recipe.imageOutputs {
            do {
                // A composition's stills are its pictures at its render size: planned once the
                // media outputs are (their errors are the recipe's already).
                if recipe.composition != nil {
                    if errors.isEmpty {
                        images.append((o.number, try composedStillPlan(o, of: recipe, files: files, reading: read, drawing: &drawing,
                                                                       overwrite: overwrite, assistant: assistant)))
                    }
                    continue
                }
                switch try stillPlan(o, of: recipe, reading: read, overwrite: overwrite) {
                case .plan(let p): images.append((o.number, p))
                case .leftOut(let why): leftOut.append(why)
                }
            } catch let e as RecipeErrors { errors += e.diagnostics } catch let e as SourceMismatch { mismatches += e.diagnostics }
        }
        if !errors.isEmpty { throw RecipeErrors(errors) }
        if !mismatches.isEmpty { throw SourceMismatch(diagnostics: mismatches) }
        try refuseSharedPaths(files: files, images: images, in: recipe)
        return CompiledOutputs(files: files, images: images, leftOut: leftOut)
    }

    private enum StillOutcome {
        case plan(StillPlan)
        case leftOut(String)
    }

    /// One image output's stills, resolved against the source: its reader output's track, its
    /// instants within what the recipe reads. A refusal is said at the recipe line that causes it.
    private static func stillPlan(_ o: RecipeOutput, of recipe: Recipe, reading read: ReadSources, overwrite: Bool) throws -> StillOutcome {
        guard let images = o.images, let path = o.spec.path, let out = recipe.readerOutput(images.source.value) else {
            throw MediaError(.processing, "output \(o.number) is no image output")
        }
        let asset = read.asset
        let track: Track?
        switch out.track {
        case .kind(let kind, let n): track = MediaType(rawValue: kind.rawValue).flatMap { asset.track($0, ordinal: n) }
        case .index(let i): track = asset.track(index: i)
        }
        guard let track else {
            if out.optional { return .leftOut("\(read.primary): output \(o.number) (\(path.value)) is left out: it takes stills of reader output '\(out.name)', and the file has no \(out.track) track") }
            throw SourceMismatch(diagnostics: [recipe.diagnostic(out.mark, "reader output '\(out.name)' wants the \(out.track) track, but \(read.primary) has none (it has \(trackList(asset))); add 'optional: true' to convert without it")])
        }
        guard track.mediaType == .video else {
            throw SourceMismatch(diagnostics: [recipe.diagnostic(images.source.mark, "\(read.primary): track #\(track.index) is \(track.mediaType.rawValue): the stills of output \(o.number) are of a video track")])
        }
        if let tr = recipe.timeRange, let why = Planner.timeRangeRefusal(start: tr.start, in: asset) {
            throw RecipeErrors([recipe.diagnostic(tr.mark, why)])
        }
        var request = stillRequest(o, images, pattern: path.value, source: read.source, overwrite: overwrite)
        request.tolerance = images.tolerance
        request.track = track.index
        request.range = recipe.timeRange?.range
        request.protected = [ProtectedFile(recipe.file, role: "recipe")]
        do throws(MediaError) {
            return .plan(try StillPlanner.plan(request, asset: asset))
        } catch {
            // What the recipe wrote is refused at its line; the file system's refusals are as they are.
            guard error.kind == .usage else { throw error }
            let mark = error.setting == "time" ? images.timesMark : path.mark
            throw RecipeErrors([recipe.diagnostic(mark, "\(read.primary): \(error.message)")])
        }
    }

    /// What an image output asks of the pictures of `source`, whoever draws them: its times,
    /// size, quality, sheet and file names.
    private static func stillRequest(_ o: RecipeOutput, _ images: ImageOutputSpec, pattern: String, source: String, overwrite: Bool) -> StillRequest {
        var request = StillRequest(source: source, times: images.times)
        request.box = images.box
        request.quality = images.quality
        request.tiles = images.tiles
        request.storyboard = images.storyboard
        request.pattern = pattern
        request.overwrite = overwrite || o.spec.overwrite
        return request
    }

    /// One image output's stills of the composition, on its timeline, at its render size: of the
    /// pictures the first output's video track draws, where it draws them at that size (every
    /// output plays the composition from it); else of the composition drawn for the stills alone
    /// (`drawing`, compiled once for every image output). A refusal is said at the recipe line
    /// that causes it.
    private static func composedStillPlan(_ o: RecipeOutput, of recipe: Recipe, files: [CompiledRecipe], reading read: ReadSources,
                                          drawing: inout ConversionPlan?, overwrite: Bool, assistant: SettingsAssistant) throws -> StillPlan {
        guard let images = o.images, let path = o.spec.path else {
            throw MediaError(.processing, "output \(o.number) is no image output")
        }
        let drawn = try drawing ?? drawingPlan(o, of: recipe, reading: read, assistant: assistant)
        drawing = drawn
        guard let render = drawn.lanes.first(where: { $0.videoSettings != nil })?.videoSettings.map({ (width: $0.width, height: $0.height) }) else {
            throw RecipeErrors([recipe.diagnostic(images.source.mark, "the images of output \(o.number) are of the composition, which has no video to draw")])
        }
        let lead = files.first?.plan
        let shared = lead.map { drawsAtRenderSize($0, render: render) } ?? false
        var request = stillRequest(o, images, pattern: path.value, source: drawn.source.path, overwrite: overwrite)
        request.protected = [ProtectedFile(recipe.file, role: "recipe")] + drawn.protectedFiles
        do throws(MediaError) {
            let planned = shared && lead != nil ? try ComposedStillPlanner.plan(request, composition: lead!, output: 0, render: render)
                : try ComposedStillPlanner.plan(request, composition: drawn, output: 0, render: render, alone: true)
            guard let planned else { throw MediaError(.processing, "the composition's drawing has no video track") }
            return planned
        } catch {
            // What the recipe wrote is refused at its line; the file system's refusals are as they are.
            guard error.kind == .usage else { throw error }
            let mark = error.setting == "time" ? images.timesMark : path.mark
            throw RecipeErrors([recipe.diagnostic(mark, error.message)])
        }
    }

    /// Whether `lead` (the first output) encodes the composition's video from pictures the stills
    /// can take at the render size: a copy draws nothing, nor does a smart-rendered track (its
    /// runs read apart, most of them copied), and layers are drawn on its own canvas.
    private static func drawsAtRenderSize(_ lead: ConversionPlan, render: (width: Int, height: Int)) -> Bool {
        guard lead.isComposed, lead.smart.isEmpty, let s = lead.lanes.first(where: { $0.videoSettings != nil })?.videoSettings else { return false }
        return ExportSession.stillDrawing(lead) != .canvas || (s.width, s.height) == render
    }

    /// The composition's video as drawn for its stills alone: the recipe with one output whose
    /// writer input takes `o`'s reader output with the assistant's settings (`Recipe.drawingStills`).
    /// Its path, beside the stills, is never written.
    private static func drawingPlan(_ o: RecipeOutput, of recipe: Recipe, reading read: ReadSources, assistant: SettingsAssistant) throws -> ConversionPlan {
        guard let path = o.spec.path, let r = recipe.drawingStills(of: o, path: expand(path.value, source: read.source) + ".drawing.mp4") else {
            throw MediaError(.processing, "output \(o.number) is no image output")
        }
        return try compile(r, reading: read, output: nil, overwrite: true, assistant: assistant).plan
    }

    /// No two outputs make one file: a still named as a media output, or as another still.
    private static func refuseSharedPaths(files: [CompiledRecipe], images: [(number: Int, plan: StillPlan)], in recipe: Recipe) throws {
        var made: [String: Int] = [:]
        let numbers = recipe.outputs.filter { $0.images == nil }.map(\.number)
        // A ladder's rungs are outputs of their entry, known only once compiled: each says its number.
        for (k, c) in files.enumerated() { made[c.plan.outputPath] = c.number ?? (k < numbers.count ? numbers[k] : k + 1) }
        var errors: [Diagnostic] = []
        for (number, plan) in images {
            let paths = Set(plan.stills.map(\.path) + [plan.sheet?.webVTT].compactMap { $0 })
            let mark = recipe.outputs.first { $0.number == number }?.spec.path?.mark
            for path in paths.sorted() {
                if let first = made[path], first != number {
                    errors.append(recipe.diagnostic(mark, "output \(number) makes the same file as output \(first) (\(path)): each output is a file of its own"))
                    break
                }
                made[path] = number
            }
        }
        if !errors.isEmpty { throw RecipeErrors(errors) }
    }
}
