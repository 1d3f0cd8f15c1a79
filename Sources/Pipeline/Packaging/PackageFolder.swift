import Foundation
import Recipe

/// Where a package is built and put: a folder made whole under a temporary name beside its
/// target (`.NAME.reencode-tmp-HOST-PID-TOKEN`, as `TempFile` names files) and renamed into
/// place only when every segment and playlist is in it, so a package folder that exists is
/// complete: a failed or interrupted run removes its temporary folder, and a killed run's is
/// removed by the next run for that folder.
struct PackageFolder {
    let folder: String
    let format: PackageFormat
    let overwrite: Bool
    /// The plans (positions in the run) of its renditions, in recipe order.
    let members: [Int]
    let temp: String

    init(folder: String, format: PackageFormat, overwrite: Bool, members: [Int]) {
        self.folder = folder; self.format = format; self.overwrite = overwrite; self.members = members
        temp = TempFile.path(for: folder)
    }

    /// The package can be made at `folder`: not an existing file (nor a source or the recipe),
    /// not an existing folder unless `overwrite` and it is a package (its master playlist or
    /// manifest in it: nothing else is ever replaced), and the nearest existing folder above it
    /// is writable (`OutputLocation`).
    static func check(_ folder: String, format: PackageFormat, protecting protected: [ProtectedFile], overwrite: Bool) throws(MediaError) {
        var st = stat()
        if stat(folder, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else {
                throw MediaError(.cannotCreateOutput, "is a file: \(article(format)) \(format.rawValue) output is a folder of segments and playlists; name another path or remove the file", file: folder)
            }
            guard overwrite else { throw MediaError(.outputExists, "already exists (use --overwrite to replace it)", file: folder) }
            guard isPackage(folder) else {
                throw MediaError(.cannotCreateOutput, "is a folder without \(HLSPlaylists.master) or \(DASHManifest.name): only a package folder is replaced; name another path", file: folder)
            }
        }
        for file in protected where FileIdentity(path: file.path) != nil && FileIdentity(path: file.path) == FileIdentity(path: folder) {
            throw MediaError(.cannotCreateOutput, "is the \(file.role) \(file.path) (the same file): the output may never replace it; name another output", file: folder)
        }
        var above = FilePaths.folder(of: folder)
        while access(above, F_OK) != 0 {
            let parent = FilePaths.folder(of: above)
            if parent == above { break }
            above = parent
        }
        guard stat(above, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { throw MediaError(.cannotCreateOutput, "\(above) is not a folder", file: folder) }
        guard access(above, W_OK) == 0 else { throw MediaError(.cannotCreateOutput, "the folder \(above) is not writable", file: folder) }
    }

    private static func article(_ f: PackageFormat) -> String { f == .hls ? "an" : "a" }

    static func isPackage(_ folder: String) -> Bool {
        [HLSPlaylists.master, DASHManifest.name].contains { access(FilePaths.join(folder, $0), F_OK) == 0 }
    }

    /// Makes the temporary folder (the folders above it first: `folders` removes them on failure).
    func make(_ folders: inout OutputFolders) throws(MediaError) {
        Self.removeStale(for: folder)
        try folders.make(for: folder)
        if mkdir(temp, 0o777) != 0 {
            let err = errno
            throw ResourceShortage.error(err, "cannot create the package's temporary folder", otherwise: .cannotCreateOutput, file: folder)
        }
    }

    /// Where rendition `name`'s fragmented MP4 is written before it is split.
    func file(of rendition: String) -> String { FilePaths.join(temp, rendition + ".fmp4") }

    /// Splits every rendition's file (`files`, in `members` order) into its segments and writes
    /// the playlists (`asked`: each rendition's asked video bit rate, which orders HLS's
    /// variants); the files are removed once split.
    func build(files: [String], renditions names: [String], segment: MediaTime, asked: [String: Int] = [:]) throws(MediaError) {
        var renditions: [RenditionSegments] = []
        for (file, name) in zip(files, names) {
            renditions.append(try RenditionSegments.split(file, into: FilePaths.join(temp, name), name: name))
            unlink(file)
        }
        try PackageCheck.aligned(renditions, folder: folder)
        if format.writesHLS {
            for r in renditions { try write(HLSPlaylists.mediaPlaylist(r), to: FilePaths.join(FilePaths.join(temp, r.name), HLSPlaylists.media)) }
            try write(HLSPlaylists.masterPlaylist(renditions, asked: asked), to: FilePaths.join(temp, HLSPlaylists.master))
        }
        if format != .hls {
            try write(DASHManifest.manifest(renditions), to: FilePaths.join(temp, DASHManifest.name))
        }
    }

    private func write(_ text: String, to path: String) throws(MediaError) {
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) } catch {
            throw MediaError(.io, "cannot write the playlist: \(error.localizedDescription)", file: path)
        }
    }

    /// Renames the finished folder into place; with `overwrite`, the package it replaces is
    /// moved aside first and removed after.
    func place() throws(MediaError) {
        var old: String?
        if access(folder, F_OK) == 0 {
            guard overwrite, Self.isPackage(folder) else { throw MediaError(.outputExists, "already exists (use --overwrite to replace it)", file: folder) }
            let aside = TempFile.path(for: folder)
            guard rename(folder, aside) == 0 else {
                let err = errno
                throw MediaError(.cannotCreateOutput, "cannot move the package it replaces aside: \(String(cString: strerror(err)))", file: folder, code: .errno(err))
            }
            old = aside
        }
        guard rename(temp, folder) == 0 else {
            let err = errno
            if let old { rename(old, folder) }
            throw MediaError(.cannotCreateOutput, "cannot move the finished package into place: \(String(cString: strerror(err)))", file: folder, code: .errno(err))
        }
        if let old { try? FileManager.default.removeItem(atPath: old) }
    }

    /// Removes the temporary folder and all in it.
    func discard() { try? FileManager.default.removeItem(atPath: temp) }

    /// Removes temporary package folders of `folder` left by processes of this host that no
    /// longer exist (a kill -9, a crash); a live process's, or another host's, stays.
    static func removeStale(for folder: String) {
        let prefix = "." + FilePaths.name(of: folder) + TempFile.marker + TempFile.host + "-"
        let parent = FilePaths.folder(of: folder)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: parent) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
            guard rest.count == 2, let pid = pid_t(rest[0]), pid > 0, kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(atPath: FilePaths.join(parent, name))
        }
    }

    /// Bytes of every file under `path` (a rendition's folder).
    static func bytes(under path: String) -> Int {
        guard let names = FileManager.default.enumerator(atPath: path) else { return 0 }
        var total = 0
        for case let name as String in names {
            var st = stat()
            if stat(FilePaths.join(path, name), &st) == 0, (st.st_mode & S_IFMT) == S_IFREG { total += Int(st.st_size) }
        }
        return total
    }
}
