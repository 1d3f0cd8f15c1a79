import Foundation
import Recipe

struct ValidateCommand: Command {
    static let name = "validate"
    static let abstract = "Check recipes without converting anything."
    static let usage = "reencode validate RECIPE..."
    static let help = """
        OVERVIEW: \(abstract) Every error is reported, each at its line and column.

        USAGE: \(usage)

        ARGUMENTS:
          RECIPE          A recipe file (docs/recipes.md).

        OPTIONS:
          -h, --help      Show help information.

        EXIT STATUS: 0 all valid, 65 any invalid, 66 a recipe file is missing.
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
            case .success: writeOut("\(path): ok")
            case .failure(let f): status = max(status, f.code)
            }
        }
        return status
    }
}
