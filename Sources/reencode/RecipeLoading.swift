import Foundation
import Pipeline
import Recipe

/// Reads and parses a recipe file, printing every diagnostic. nil with the exit code on failure.
func loadRecipe(_ path: String) -> Result<Recipe, ExitFailure> {
    guard let data = FileManager.default.contents(atPath: path) else {
        printError("error: \(path): cannot read the recipe: \(FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file")")
        return .failure(ExitFailure(code: ExitCode.noInput))
    }
    guard let text = String(data: data, encoding: .utf8) else {
        printError("\(path): error: the recipe is not UTF-8 text")
        return .failure(ExitFailure(code: ExitCode.invalidRecipe))
    }
    switch RecipeParser.parse(text, file: path) {
    case .success(let r): return .success(r)
    case .failure(let e):
        for d in e.diagnostics { printError(d.description) }
        return .failure(ExitFailure(code: ExitCode.invalidRecipe))
    }
}

struct ExitFailure: Error { let code: Int32 }

/// Compiles a recipe against its source; prints what went wrong and gives the exit code.
func compileRecipe(_ recipe: Recipe, input: String?, output: String?, overwrite: Bool) -> Result<CompiledRecipe, ExitFailure> {
    do {
        return .success(try RecipeCompiler.compile(recipe, input: input, output: output, overwrite: overwrite))
    } catch let e as RecipeErrors {
        for d in e.diagnostics { printError(d.description) }
        return .failure(ExitFailure(code: ExitCode.invalidRecipe))
    } catch let e as SourceMismatch {
        for d in e.diagnostics { printError(d.description) }
        return .failure(ExitFailure(code: ExitCode.noInput))
    } catch let e as MediaError {
        return .failure(ExitFailure(code: report(e)))
    } catch {
        printError("error: \(error)")
        return .failure(ExitFailure(code: ExitCode.failure))
    }
}
