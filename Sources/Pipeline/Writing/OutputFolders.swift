import Foundation
import Recipe

/// The folders an output needs that are missing, made outermost first, and given up again when
/// the output is not made: a failed run leaves no folder it made behind (one something else was
/// put in meanwhile stays).
struct OutputFolders {
    /// The folders this made, outermost first.
    private(set) var made: [String] = []

    /// Makes the missing folders above `output`.
    mutating func make(for output: String) throws(MediaError) {
        var missing: [String] = []
        var folder = FilePaths.folder(of: output)
        while access(folder, F_OK) != 0 && errno == ENOENT {
            missing.append(folder)
            let parent = FilePaths.folder(of: folder)
            if parent == folder { break }
            folder = parent
        }
        for f in missing.reversed() {
            if mkdir(f, 0o777) == 0 { made.append(f); continue }
            let err = errno
            if err == EEXIST { continue }  // made by someone else meanwhile
            throw ResourceShortage.error(err, "cannot create the folder \(f)", otherwise: .cannotCreateOutput, file: output)
        }
    }

    /// Removes the folders made, innermost first (only where empty).
    mutating func removeMade() {
        for folder in made.reversed() { rmdir(folder) }
        made = []
    }
}
