import Foundation
import Recipe

/// The outputs a batch made, found again under its input folder: never sources. When the output
/// folder is the input folder (by any name: a link, a bind mount) or the input folder holds the
/// output tree's files in another way (the input inside the output folder), each output would
/// otherwise be converted again on the next run (`a-proxy.mp4`, `a-proxy-proxy.mp4`, …).
struct OwnOutputs {
    /// Device and inode of each file now at an output path the ledger names.
    private(set) var files: Set<[UInt64]> = []

    /// The files at the output paths the ledger records (`started` or `done`), looked up only
    /// when the two folders overlap: a stat per output, paid only by such a layout.
    init(root: String, outRoot: String, outputs: Set<String>) {
        guard Self.overlap(root, outRoot) else { return }
        for rel in outputs {
            var st = stat()
            if stat(outRoot + "/" + rel, &st) == 0 { files.insert([UInt64(st.st_dev), UInt64(st.st_ino)]) }
        }
    }

    func contains(_ st: stat) -> Bool { files.contains([UInt64(st.st_dev), UInt64(st.st_ino)]) }

    /// One folder is the other or lies inside it, judged by device and inode (resolved paths
    /// miss bind mounts).
    static func overlap(_ a: String, _ b: String) -> Bool {
        guard let ia = identity(a), let ib = identity(b) else { return false }
        return ancestors(a).contains(ib) || ancestors(b).contains(ia)
    }

    /// The folder's own identity, then its parents' up to `/` (the path is resolved: no links).
    private static func ancestors(_ path: String) -> [[UInt64]] {
        var found: [[UInt64]] = []
        var p = path
        while true {
            if let i = identity(p) { found.append(i) }
            if p == "/" || p == "." || p.isEmpty { break }
            p = FilePaths.folder(of: p)
        }
        return found
    }

    static func identity(_ path: String) -> [UInt64]? {
        var st = stat()
        return stat(path, &st) == 0 ? [UInt64(st.st_dev), UInt64(st.st_ino)] : nil
    }
}
