import Foundation
import Recipe

/// What a batch finds under its input folder: media files to consider, and what it had to leave
/// out and must say so (docs/batch.md, "What is picked").
struct SourceScan {
    struct Found {
        /// Relative to the input folder (the name the ledger and the output mirror use).
        let rel: String
        let path: String
        let identity: SourceIdentity
        /// The file itself (device + inode): names that reach one file are one source.
        let device: UInt64
        let inode: UInt64
        /// Seconds since 1970, to the microsecond: any write, rename or chmod moves it.
        let ctime: Double
        /// Reached through a symbolic link (the file's own name wins over a link's).
        let viaLink: Bool
    }

    /// A path left out on purpose, with the reason (a FIFO, an unreadable folder…).
    struct Skipped: Sendable, Equatable {
        let rel: String
        let reason: String
        /// `rel` is already escaped text (`NameText`): the name is not UTF-8.
        var escaped = false
    }

    var found: [Found] = []
    var skipped: [Skipped] = []
    /// Names dropped because another name of the same file won: (dropped, kept).
    var duplicates: [(rel: String, keptAs: String)] = []
    /// Files left out because they are this batch's own outputs (`OwnOutputs`).
    var ownOutputs: [String] = []

    /// What the walk leaves out besides hidden names: the output folder (by device and inode,
    /// whatever its name) and the files the ledger names as outputs.
    struct Outputs {
        let root: String
        let identity: [UInt64]?
        let own: OwnOutputs
    }

    /// Walks `root` (already resolved). Hidden names, the output folder and this batch's own
    /// outputs are left out; links are followed to files inside the tree, never into folders
    /// (their files are reached by their own names). Only regular files are ever opened later:
    /// anything else with a media extension is recorded as skipped. A shortage of the system's
    /// (EMFILE, ENFILE, ENOMEM) is thrown (`.resources`): a folder the run could not open then
    /// is not unreadable, and recording it so would leave its files out for good.
    static func walk(root: String, outputs: Outputs, extensions: Set<String>) throws -> SourceScan {
        var scan = SourceScan()
        try scan.visit(folder: root, rel: "", root: root, outputs: outputs, extensions: extensions)
        scan.dedupe()
        scan.found.sort { $0.rel < $1.rel }
        scan.skipped.sort { $0.rel < $1.rel }
        return scan
    }

    private mutating func visit(folder: String, rel: String, root: String, outputs: Outputs, extensions: Set<String>) throws {
        guard let d = opendir(folder) else {
            // Read once: judging a shortage may make other calls (ENOMEM reads /proc).
            let err = errno
            try Self.throwIfShort(err, "cannot open the folder", folder)
            skipped.append(Skipped(rel: rel.isEmpty ? "." : rel, reason: "unreadable folder: \(String(cString: strerror(err)))"))
            return
        }
        var names: [String] = []
        var folders: Set<String> = []
        var unnamed: [[UInt8]] = []
        while let e = readdir(d) {
            let bytes = withUnsafeBytes(of: e.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            guard bytes.first != UInt8(ascii: ".") else { continue }  // hidden, and . and ..
            guard NameText.isUTF8(bytes) else { unnamed.append(bytes); continue }
            let name = String(decoding: bytes, as: UTF8.self)
            names.append(name)
            // The entry's own type (no stat: the path may be too long for one).
            if e.pointee.d_type == UInt8(DT_DIR) || e.pointee.d_type == UInt8(DT_UNKNOWN) { folders.insert(name) }
        }
        closedir(d)
        for bytes in unnamed { skipUnnamed(bytes, folder: folder, rel: rel, extensions: extensions) }
        for name in names.sorted() {
            let childRel = rel.isEmpty ? name : rel + "/" + name
            let path = folder + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0 else {
                let err = errno
                try Self.throwIfShort(err, "cannot look at a file", path)
                // Gone since readdir: nothing to say. Anything else is said (a path too long to name).
                if err != ENOENT, Self.isMedia(name, extensions) || folders.contains(name) {
                    skipped.append(Skipped(rel: childRel, reason: Self.unreachable(err)))
                }
                continue
            }
            let isMedia = Self.isMedia(name, extensions)
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                if [UInt64(st.st_dev), UInt64(st.st_ino)] == outputs.identity { continue }
                try visit(folder: path, rel: childRel, root: root, outputs: outputs, extensions: extensions)
            case S_IFREG:
                guard isMedia else { continue }
                if outputs.own.contains(st) { ownOutputs.append(childRel); continue }
                add(childRel, path, st, viaLink: false)
            case S_IFLNK:
                guard isMedia else { continue }
                let real = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
                // A link out of the tree (or into an output folder inside it) is not followed.
                let out = outputs.root
                guard real.hasPrefix(root + "/"), !(out.hasPrefix(root + "/") && (real == out || real.hasPrefix(out + "/"))) else { continue }
                var target = stat()
                guard stat(path, &target) == 0 else {
                    let err = errno
                    try Self.throwIfShort(err, "cannot look at a file", path)
                    skipped.append(Skipped(rel: childRel, reason: "broken link"))
                    continue
                }
                switch target.st_mode & S_IFMT {
                case S_IFREG where outputs.own.contains(target): ownOutputs.append(childRel)
                case S_IFREG: add(childRel, path, target, viaLink: true)
                case S_IFDIR: continue
                default: skipped.append(Skipped(rel: childRel, reason: Self.notRegular(target.st_mode)))
                }
            default:
                if isMedia { skipped.append(Skipped(rel: childRel, reason: Self.notRegular(st.st_mode))) }
            }
        }
    }

    private mutating func add(_ rel: String, _ path: String, _ st: stat, viaLink: Bool) {
        let m = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec / 1000) / 1e6
        let c = Double(st.st_ctim.tv_sec) + Double(st.st_ctim.tv_nsec / 1000) / 1e6
        found.append(Found(rel: rel, path: path, identity: SourceIdentity(size: Int64(st.st_size), mtime: m),
                           device: UInt64(st.st_dev), inode: UInt64(st.st_ino), ctime: c, viaLink: viaLink))
    }

    /// One name per file: the file's own name over a link's, then the first in byte order of
    /// the relative path. Stable from run to run while the names stay.
    private mutating func dedupe() {
        var best: [[UInt64]: Found] = [:]
        for f in found {
            let key = [f.device, f.inode]
            guard let b = best[key] else { best[key] = f; continue }
            let better = (!f.viaLink && b.viaLink)
                || (f.viaLink == b.viaLink && Array(f.rel.utf8).lexicographicallyPrecedes(Array(b.rel.utf8)))
            if better { best[key] = f }
        }
        duplicates = found.compactMap { f in
            let kept = best[[f.device, f.inode]]?.rel ?? f.rel
            return kept == f.rel ? nil : (f.rel, kept)
        }
        found = Array(best.values)
    }

    /// A name that is not UTF-8 (an old SMB or FTP upload in Latin-1): reencode names files by
    /// UTF-8 paths (recipes, FFmpeg, the ledger), so such a file, or a folder and everything in
    /// it, is recorded as skipped under its escaped name (`NameText`), never dropped in silence.
    private mutating func skipUnnamed(_ bytes: [UInt8], folder: String, rel: String, extensions: Set<String>) {
        let shown = NameText.escaped(bytes: Array((rel.isEmpty ? "" : rel + "/").utf8) + bytes)
        var path = Array((folder + "/").utf8) + bytes
        path.append(0)
        var st = stat()
        let kind = path.withUnsafeBufferPointer { p in p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { stat($0, &st) } }
        let isDir = kind == 0 && st.st_mode & S_IFMT == S_IFDIR
        guard isDir || Self.isMedia(shown, extensions) else { return }
        let fix = "reencode reaches files by UTF-8 paths: rename it, e.g. convmv -f latin1 -t utf8"
        skipped.append(Skipped(rel: shown, reason: isDir ? "a folder whose name is not UTF-8: its files are not converted (\(fix))"
                                                         : "the name is not UTF-8: not converted (\(fix))", escaped: true))
    }

    private static func throwIfShort(_ code: Int32, _ what: String, _ path: String) throws {
        if let short = ResourceShortage.cause(ofErrno: code) { throw ResourceShortage.error(what, errno: short, file: path) }
    }

    static func isMedia(_ name: String, _ extensions: Set<String>) -> Bool {
        extensions.contains(FilePaths.pathExtension(of: name).lowercased())
    }

    /// Why a name listed in its folder could not be looked at.
    static func unreachable(_ err: Int32) -> String {
        err == ENAMETOOLONG ? "its path is longer than PATH_MAX (\(PATH_MAX) bytes): not converted"
            : "cannot look at it: \(String(cString: strerror(err)))"
    }

    /// "a FIFO (named pipe), not a regular file": the kinds are named as every command names them.
    static func notRegular(_ mode: mode_t) -> String {
        "\(nonRegularFileKind(mode) ?? "a special file"), not a regular file"
    }
}
