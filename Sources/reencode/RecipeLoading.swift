import Foundation
import Pipeline
import Recipe

/// Reads and parses a recipe file, printing every diagnostic.
func loadRecipe(_ path: String) -> Result<Recipe, ExitFailure> {
    loadRecipeAndText(path).map(\.recipe)
}

/// The recipe and the text it was parsed from (batch hashes the text).
func loadRecipeAndText(_ path: String) -> Result<(recipe: Recipe, text: String), ExitFailure> {
    let text: String
    switch readRecipeText(path) { case .success(let t): text = t; case .failure(let f): return .failure(f) }
    switch RecipeParser.parse(text, file: path) {
    case .success(let r): return .success((r, text))
    case .failure(let e): return .failure(ExitFailure(e.diagnostics.map(\.description), code: ExitCode.invalidRecipe))
    }
}

/// A recipe's text. Only a regular file is read (a folder, FIFO, device or socket is named for
/// what it is; a FIFO is never opened, so nothing blocks), and one larger than the parser's
/// limit is refused before it is read.
func readRecipeText(_ path: String) -> Result<String, ExitFailure> {
    func fail(_ why: String, _ code: Int32) -> Result<String, ExitFailure> {
        .failure(ExitFailure(["error: \(path.isEmpty ? "''" : path): \(why)"], code: code))
    }
    var st = stat()
    guard !path.isEmpty, stat(path, &st) == 0 else {
        let err = path.isEmpty ? ENOENT : errno
        return fail("cannot read the recipe: \(err == ENOENT || err == ENOTDIR ? "no such file" : String(cString: strerror(err)).lowercased())", ExitCode.noInput)
    }
    if let kind = nonRegularFileKind(st.st_mode) { return fail("is \(kind), not a recipe file", ExitCode.noInput) }
    let limit = YAMLParser.maxBytes
    if st.st_size > limit { return fail("the recipe is \(st.st_size) bytes, larger than the limit of 1 MiB (\(limit) bytes)", ExitCode.invalidRecipe) }
    // O_NONBLOCK: should it have been swapped for a FIFO since the stat, open does not wait.
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard fd >= 0 else {
        let err = errno
        // Out of descriptors is the system's, not a missing recipe: try again later (75).
        if let short = ResourceShortage.cause(ofErrno: err) {
            return fail(ResourceShortage.error("cannot read the recipe", errno: short).message, ExitCode.temporaryFailure)
        }
        return fail("cannot read the recipe: \(String(cString: strerror(err)).lowercased())", ExitCode.noInput)
    }
    defer { close(fd) }
    guard fstat(fd, &st) == 0 else { return fail("cannot read the recipe: \(String(cString: strerror(errno)).lowercased())", ExitCode.io) }
    if let kind = nonRegularFileKind(st.st_mode) { return fail("is \(kind), not a recipe file", ExitCode.noInput) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while bytes.count <= limit {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n == 0 { break }
        if n < 0 {
            if errno == EINTR || errno == EAGAIN { continue }
            return fail("cannot read the recipe: \(String(cString: strerror(errno)).lowercased())", ExitCode.io)
        }
        bytes += chunk[0..<n]
    }
    if bytes.count > limit { return fail("the recipe is larger than the limit of 1 MiB (\(limit) bytes)", ExitCode.invalidRecipe) }
    return RecipeText.decode(bytes, file: path).mapError { ExitFailure([$0.description], code: ExitCode.invalidRecipe) }
}

/// A failure already explained: `message` holds the lines printed on stderr (for a final JSON
/// event), `code` is the exit code.
struct ExitFailure: Error {
    let code: Int32
    let message: String
    /// The failed call's own number (FFmpeg's or errno), where the failure is a media error with one.
    var number: MediaError.Code?

    /// Prints `lines` on stderr.
    init(_ lines: [String], code: Int32) {
        for l in lines { printError(l) }
        self.code = code
        message = lines.joined(separator: "\n")
    }

    /// Already printed.
    init(code: Int32, message: String, number: MediaError.Code? = nil) {
        self.code = code
        self.message = message
        self.number = number
    }
}

/// Compiles a recipe against its source, each of its outputs; prints what went wrong and gives the exit code.
func compileRecipe(_ recipe: Recipe, input: String?, output: String?, overwrite: Bool) -> Result<CompiledOutputs, ExitFailure> {
    do {
        return .success(try RecipeCompiler.compileOutputs(recipe, input: input, output: output, overwrite: overwrite))
    } catch let e as RecipeErrors {
        return .failure(ExitFailure(e.diagnostics.map(\.description), code: ExitCode.invalidRecipe))
    } catch let e as SourceMismatch {
        return .failure(ExitFailure(e.diagnostics.map(\.description), code: ExitCode.noInput))
    } catch let e as MediaError {
        return .failure(ExitFailure(code: report(e), message: "error: \(e)", number: e.code))
    } catch {
        return .failure(ExitFailure(["error: \(error)"], code: ExitCode.failure))
    }
}
