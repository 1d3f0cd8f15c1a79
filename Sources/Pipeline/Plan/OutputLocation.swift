import Foundation
import Recipe

/// A file as the kernel knows it: device and inode, after following links. Two paths name the
/// same file exactly when their identities are equal, however they are spelled (`./s.mp4`,
/// `d/../s.mp4`, a symlink, a symlinked folder, a hard link).
public struct FileIdentity: Equatable, Sendable {
    let device: UInt64
    let inode: UInt64

    /// nil when nothing (reachable) is there.
    public init?(path: String) {
        var st = stat()
        guard !path.isEmpty, stat(path, &st) == 0 else { return nil }
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }
}

/// A file an output may never replace, and what it is to the conversion (`source`, `recipe`).
public struct ProtectedFile: Sendable, Equatable {
    public let path: String
    public let role: String
    public init(_ path: String, role: String) { self.path = path; self.role = role }
}

extension ConversionRequest {
    /// Every file the output may never replace: the files the conversion reads, then `protected`.
    var protectedFiles: [ProtectedFile] { ([source] + sources).map { ProtectedFile($0, role: "source") } + protected }
}

/// Where an output may go: checked when a recipe is compiled, when the plan is made and again
/// when the conversion starts, each time by `check` with the request's `protectedFiles`.
enum OutputLocation {
    /// The container for `out`: the one asked for, else the one its extension names. A name
    /// whose extension says another container than the one asked for is refused: an M4A file
    /// named .webm would be opened by the wrong program.
    static func format(for out: String, requested: ContainerFormat?) throws(MediaError) -> ContainerFormat {
        try checkSpelling(out)
        let ext = FilePaths.pathExtension(of: out)
        if let requested {
            guard ext.isEmpty || ContainerFormat(pathExtension: ext) == requested else {
                throw MediaError(.invalidSettings, "the extension '.\(ext)' contradicts the format \(requested.rawValue): name the output .\(requested.rawValue)"
                                 + (ContainerFormat(pathExtension: ext).map { ", or ask for \($0.rawValue)" } ?? ""), file: out)
            }
            return requested
        }
        guard !ext.isEmpty else {
            throw MediaError(.invalidSettings, "has no extension to tell the container from: end it in \(ContainerFormat.namesList(prefix: ".")), or name the format", file: out)
        }
        guard let format = ContainerFormat(pathExtension: ext) else {
            throw MediaError(.invalidSettings, "cannot tell the container from the extension '.\(ext)': use \(ContainerFormat.namesList()), or name the format", file: out)
        }
        return format
    }

    /// The output can be made: it is none of `protected` (the sources, the recipe), it is not a
    /// folder, it does not exist unless `overwrite`, and the nearest existing folder above it is
    /// a writable folder (missing ones are made when the conversion starts). `format`, where
    /// known, names the example file of a folder's refusal.
    static func check(_ out: String, protecting protected: [ProtectedFile], overwrite: Bool, format: ContainerFormat?) throws(MediaError) {
        try checkSpelling(out)
        if let target = FileIdentity(path: out) {
            for file in protected where FileIdentity(path: file.path) == target {
                throw MediaError(.cannotCreateOutput, "is the \(file.role) \(file.path) (the same file): the output may never replace it; name another output", file: out)
            }
        }
        let fm = FileManager.default
        var isDir: ObjCBool = false
        var st = stat()
        if stat(out, &st) == 0 {
            // Only a regular file is ever replaced: renaming over /dev/stdout or a FIFO would
            // replace the device's name, not write to it.
            if (st.st_mode & S_IFMT) == S_IFDIR {
                throw MediaError(.cannotCreateOutput, "is a folder: the output must name a file (such as \(FilePaths.join(out, "out.\((format ?? .mp4).rawValue)")))", file: out)
            }
            if let kind = nonRegularFileKind(st.st_mode) {
                throw MediaError(.cannotCreateOutput, "is \(kind): only a regular file can be an output", file: out)
            }
            if !overwrite { throw MediaError(.outputExists, "already exists (use --overwrite to replace it)", file: out) }
        }
        var dir = FilePaths.folder(of: out)
        while !fm.fileExists(atPath: dir, isDirectory: &isDir) {
            let parent = FilePaths.folder(of: dir)
            if parent == dir { break }
            dir = parent
        }
        guard isDir.boolValue else {
            throw MediaError(.cannotCreateOutput, "\(dir) is not a folder", file: out)
        }
        guard fm.isWritableFile(atPath: dir) else {
            throw MediaError(.cannotCreateOutput, "the folder \(dir) is not writable", file: out)
        }
        let tempName = FilePaths.name(of: TempFile.path(for: out))
        if tempName.utf8.count > Int(NAME_MAX) {
            throw MediaError(.cannotCreateOutput, "the file name is too long (\(FilePaths.name(of: out).utf8.count) bytes; at most \(Int(NAME_MAX) - (tempName.utf8.count - FilePaths.name(of: out).utf8.count)) here, as it is first written under a longer temporary name)", file: out)
        }
    }

    /// Paths that cannot name a file at all.
    private static func checkSpelling(_ out: String) throws(MediaError) {
        if out.isEmpty { throw MediaError(.cannotCreateOutput, "the output path is empty", file: "''") }
        if out.hasSuffix("/") || FilePaths.name(of: out) == "." || FilePaths.name(of: out) == ".." {
            throw MediaError(.cannotCreateOutput, "names a folder, not a file: end it with a file name such as out.mp4", file: out)
        }
        if out.utf8.contains(0) { throw MediaError(.cannotCreateOutput, "contains a NUL byte", file: out) }
    }
}
