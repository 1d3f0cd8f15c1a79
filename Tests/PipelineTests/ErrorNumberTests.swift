import Foundation
@testable import Pipeline
import Testing

/// An error made from a failed call keeps the call's own number beside its message: FFmpeg's
/// return code, or the OS's errno (`MediaError.code`), whatever the wording says.
@Suite("Errors keep FFmpeg's and errno's numbers")
struct ErrorNumberTests {
    @Test("FFmpeg's return code: a refused call, a full disk, a dictionary entry, a file that is not media")
    func ffmpegCodes() throws {
        let refused = FFmpeg.error(-22, "cannot open the encoder")
        #expect(refused.code == .ffmpeg(-22))
        #expect(refused.message == "cannot open the encoder: Invalid argument")
        let full = FFmpeg.error(-ENOSPC, "cannot write")
        #expect((full.kind, full.code) == (.io, .ffmpeg(-ENOSPC)))
        #expect(FFmpeg.entryError(-12, key: "title", in: "the file's metadata").code == .ffmpeg(-12))
        let dir = Scratch()
        let text = dir.file("notes.mp4")
        try Data("not media at all\n".utf8).write(to: URL(fileURLWithPath: text))
        // AVERROR_INVALIDDATA ('INDA').
        #expect(DamageTests.loadError(text)?.withoutDetail == MediaError(.notMedia, "not a media file FFmpeg can read: Invalid data found when processing input",
                                                                          file: text, code: .ffmpeg(-1094995529)))
    }

    @Test("errno: a shortage, a source that cannot be looked at, an output that cannot be moved into place")
    func errnoCodes() throws {
        #expect(ResourceShortage.error("cannot open", errno: EMFILE).code == .errno(EMFILE))
        #expect(ResourceShortage.error(EIO, "cannot read", otherwise: .io).code == .errno(EIO))
        let dir = Scratch()
        let long = dir.file(String(repeating: "x", count: 300) + ".mp4")
        #expect(throws: MediaError(.inputMissing, "cannot read: the path is too long", file: long, code: .errno(ENAMETOOLONG))) {
            _ = try Asset.load(long)
        }
        let temp = dir.file("t.mp4")
        try Data([0]).write(to: URL(fileURLWithPath: temp))
        let out = dir.file("missing/o.mp4")
        #expect(throws: MediaError(.cannotCreateOutput, "cannot move the finished output into place: No such file or directory",
                                   file: out, code: .errno(ENOENT))) { try TempFile.commit(temp, to: out, overwrite: true) }
    }
}
