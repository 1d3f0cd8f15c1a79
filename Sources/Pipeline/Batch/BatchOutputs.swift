import Foundation
import Recipe

/// What a batch makes of one source: every output of the recipe (`outputs:`, else the one
/// `output`), each named by its path's last part with the source's tokens filled in, in the
/// mirror of the source's folder (docs/batch.md, "Output names").
extension BatchRunner {
    /// Each output's file name template, in the recipe's order.
    var outputTemplates: [String] {
        let recipe = options.recipe
        func name(_ spec: OutputSpec) -> String {
            // FilePaths, not NSString: its path methods trap on one-letter names.
            spec.path.map { FilePaths.name(of: $0.value) } ?? "{stem}.\(spec.format?.value.rawValue ?? "mp4")"
        }
        guard !recipe.outputs.isEmpty else { return [name(recipe.output)] }
        // A streaming package is one output, its folder, however many renditions it has.
        var packages = Set<Int>()
        return recipe.outputs.compactMap { o in
            guard let role = o.spec.package else { return name(o.spec) }
            return packages.insert(o.number).inserted ? FilePaths.name(of: role.folder.value) : nil
        }
    }

    /// The outputs of the source at `rel`, relative to the output folder, in the recipe's order:
    /// a file's path, or for a series of stills its pattern with `{n}` and `{time}` left in (its
    /// files are named once the source's length is known: `BatchConversion.outputs`).
    func outputRelativePaths(for rel: String) -> [String] {
        let folder = rel.contains("/") ? FilePaths.folder(of: rel) + "/" : ""
        let name = FilePaths.name(of: rel)
        return outputTemplates.map { folder + RecipeCompiler.expand($0, source: name) }
    }

    /// The first output's name: the one the source's claim is named by.
    func outputRelativePath(for rel: String) -> String { outputRelativePaths(for: rel)[0] }

    /// Plans the item's conversion against its source. Every output may replace a file as
    /// planned; `BatchConversion.replacingOwn` then allows it only where a file is there (the
    /// source's own, once `refusal` has found none that is not).
    func plan(_ item: Item) throws -> BatchConversion {
        var recipe = options.recipe
        recipe.output.overwrite = false
        guard !recipe.outputs.isEmpty else {
            let c = try RecipeCompiler.compile(recipe, input: item.path, output: item.outputPath, overwrite: true)
            return BatchConversion(files: [c.plan], stills: [], leftOut: [], outputs: [item.outputRel], several: false)
        }
        let folder = FilePaths.folder(of: item.outputPath)
        for i in recipe.outputs.indices {
            recipe.outputs[i].spec.overwrite = false
            if let role = recipe.outputs[i].spec.package {
                // A package's folder goes into the output folder, its renditions inside it.
                let moved = role.moved(to: Located(folder + "/" + FilePaths.name(of: role.folder.value), role.folder.mark))
                recipe.outputs[i].spec.package = moved
                if let p = recipe.outputs[i].spec.path { recipe.outputs[i].spec.path = Located(FilePaths.join(moved.folder.value, role.rendition), p.mark) }
            } else if let p = recipe.outputs[i].spec.path {
                recipe.outputs[i].spec.path = Located(folder + "/" + FilePaths.name(of: p.value), p.mark)
            }
        }
        let compiled = try RecipeCompiler.compileOutputs(recipe, input: item.path, overwrite: true)
        let mediaNumbers = recipe.outputs.filter { $0.images == nil }.map(\.number)
        // A package's renditions are one output, its folder (a ladder's are known only now).
        var numbered = compiled.files.enumerated().map { k, c in (number: c.number ?? (k < mediaNumbers.count ? mediaNumbers[k] : k + 1), paths: [c.plan.package?.folder ?? c.plan.outputPath]) }
        numbered += compiled.images.map { (number: $0.number, paths: BatchConversion.files(of: $0.plan)) }
        var listed = Set<String>()
        let outputs = numbered.sorted { $0.number < $1.number }.flatMap(\.paths).filter { listed.insert($0).inserted }.map(relative)
        return BatchConversion(files: compiled.files.map(\.plan), stills: compiled.images.map(\.plan), leftOut: compiled.leftOut,
                               outputs: outputs, several: true)
    }

    /// A path under the output folder, relative to it (as the ledger names outputs).
    func relative(_ path: String) -> String {
        path.hasPrefix(options.outputDir + "/") ? String(path.dropFirst(options.outputDir.count + 1)) : path
    }
}

/// One source's conversion as planned by a batch: its media files (run together from one read)
/// and its stills, committed all together or not at all.
struct BatchConversion {
    var files: [ConversionPlan]
    var stills: [StillPlan]
    /// Image outputs left out (an optional track the source lacks), as warnings.
    let leftOut: [String]
    /// Every file it makes, relative to the output folder, in the recipe's order.
    let outputs: [String]
    /// The recipe has `outputs:`: the ledger lists them (`LedgerEntry.outputs`).
    let several: Bool

    /// A still plan's files, each once, in order: its stills (or contact sheet) and storyboard.
    static func files(of plan: StillPlan) -> [String] {
        var seen = Set<String>()
        return (plan.stills.map(\.path) + [plan.sheet?.webVTT].compactMap { $0 }).filter { seen.insert($0).inserted }
    }

    /// Only a file that is there now is replaced (the source's own: `refusal` found no other);
    /// a new output is linked into place without replacing one that appears meanwhile. A still
    /// series replaces its files together, when any of them is there.
    mutating func replacingOwn() {
        for i in files.indices { files[i].overwrite = access(files[i].package?.folder ?? files[i].outputPath, F_OK) == 0 }
        for i in stills.indices { stills[i].overwrite = Self.files(of: stills[i]).contains { access($0, F_OK) == 0 } }
    }

    /// What the outputs do not keep, per media file (named when there are several).
    func warnings(source: String, relative: (String) -> String) -> [BatchReport.Warning] {
        files.flatMap { plan in
            plan.notices.map { BatchReport.Warning(source: source, notice: $0, output: several ? relative(plan.outputPath) : nil) }
        }
    }
}
