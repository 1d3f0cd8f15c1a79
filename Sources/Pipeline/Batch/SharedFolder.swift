import Foundation
import Recipe

/// Output folders are shared by every run converting into them (other slices, other hosts), and a
/// run removes the folders it made that stayed empty. Another run may remove a folder between
/// our making it and our temp file's creation inside it (once the temp file exists the folder is
/// not empty and stays).
public enum SharedFolder {
    /// Runs `convert`; when it fails because the output could not be created and the output's
    /// folder is gone, makes the folder again with `make` and runs it once more.
    public static func retryingIfRemoved<T>(output: String, make: () throws -> Void, _ convert: () throws -> T) throws -> T {
        do {
            return try convert()
        } catch let e as MediaError where e.kind == .cannotCreateOutput && !folderExists(FilePaths.folder(of: output)) {
            try make()
            return try convert()
        }
    }

    static func folderExists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }
}
