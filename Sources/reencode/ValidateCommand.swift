import Foundation
import Pipeline
import Recipe

struct ValidateCommand: Command {
    static let name = "validate"
    static let abstract = "Check recipes without converting anything."
    static let usage = "reencode validate RECIPE..."
    static let help = """
        OVERVIEW: \(abstract)
        Every error is reported, each at its line and column. Whatever 'plan' refuses for
        every source is refused here: an output extension that names no container, a track
        written twice, settings for another kind of track, a copy in a composition. Beyond the recipe's own rules,
        every writer input that encodes opens its encoder with its settings (for a stand-in
        128x96 25 fps source, 48 kHz stereo audio), and the container the recipe names takes
        their streams: an encoder option that does not exist, a value the encoder refuses, a
        profile, level, pixel format or channel layout it cannot make are caught here. What
        depends on a source (its tracks, its size, copying a codec into the container) is
        checked by 'plan'. What has no effect (a source no segment uses) is a warning on
        stderr, at its line; the recipe is still valid.

        USAGE: \(usage)

        ARGUMENTS:
          RECIPE          A recipe file (docs/recipes.md).

        OPTIONS:
          -h, --help      Show help information.

        EXIT STATUS: 0 all valid, 64 usage, 65 any invalid, 66 a recipe file is missing, 75 the
        system was short of threads or memory to open an encoder (try again later).
        """

    let recipes: [String]

    init(arguments: [String]) throws(UsageError) {
        let a = try ArgumentScanner(arguments, flags: [], options: [], usage: Self.usage)
        guard !a.positionals.isEmpty else { throw UsageError(message: "missing RECIPE", usage: Self.usage) }
        recipes = a.positionals
    }

    func run() -> Int32 {
        var status = ExitCode.ok
        for path in recipes {
            switch loadRecipe(path) {
            case .success(let r):
                do {
                    try RecipeCompiler.validate(r)
                    // What has no effect is said (warning: at its line), and the recipe is valid.
                    for w in r.warnings { printError(w.description) }
                    writeOut("\(path): ok")
                } catch let error as RecipeErrors {
                    for d in error.diagnostics { printError(d.description) }
                    status = max(status, ExitCode.invalidRecipe)
                } catch let error as MediaError {
                    status = max(status, report(error))
                } catch {
                    status = max(status, report(MediaError(.processing, "\(error)", file: path)))
                }
            case .failure(let f): status = max(status, f.code)
            }
        }
        return status
    }
}
