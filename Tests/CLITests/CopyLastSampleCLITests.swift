import Foundation
import Pipeline
import Recipe
import Testing

/// A copied stream keeps its last picture's length. FFmpeg's MP4 reader states no sample lengths
/// where the file has composition offsets (B frames); a muxer counts every other sample's length
/// from the next one's decode time, but the last one's only from what it is told. Told nothing,
/// the copy ended a picture early and its edit list ended where the last picture starts, so at
/// 25 fps (where that instant is whole milliseconds) every player dropped the last picture — in a
/// `codec: copy` track, a smart render's copied run and a chunked output's join alike.
@Suite("Copied streams keep their last picture", .serialized)
struct CopyLastSampleCLITests {
    /// 12 s at 25 fps in H.264 with B frames (300 pictures).
    static func source(_ dir: Scratch) throws -> String {
        let src = dir.file("src.mp4")
        let r = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25:d=12",
                                                         "-c:v", "libx264", "-preset", "ultrafast", "-bf", "3", "-g", "25", src])
        try #require(r.status == 0, "\(r.stderr)")
        return src
    }

    /// Pictures a decoder shows (ffprobe honours the edit list) and the file's length.
    static func shown(_ file: String) throws -> (frames: Int, duration: String) {
        let r = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                                                          "stream=nb_read_frames:format=duration", "-of", "default=nw=1:nk=1", file])
        let lines = r.stdout.split(separator: "\n").map(String.init)
        return (Int(lines.first ?? "") ?? -1, lines.last ?? "")
    }

    static func recipe(_ dir: Scratch, _ name: String, settings: String, parallel: String = "") throws -> String {
        let path = dir.file(name + ".yaml")
        try """
            recipe: 1
            output: "{dir}/\(name).mp4"
            reader:
              outputs:
                picture: { track: video }
            writer:
              inputs:
                - { source: picture, settings: \(settings) }
            \(parallel)
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("codec: copy of 25 fps H.264 with B frames: 300 pictures shown, 12.000 s, as the source")
    func passthrough() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        #expect(try Self.shown(src) == (300, "12.000000"))
        let r = try Binary.run(["run", try Self.recipe(dir, "copy", settings: "{ codec: copy }"), "-i", src, "--quiet"], timeLimit: 120, cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.shown(dir.file("copy.mp4")) == (300, "12.000000"))
    }

    @Test("a chunked encode (3 chunks, B frames) of the 25 fps source joins and passes its check: 300 pictures, 12.000 s, as the one-piece encode")
    func chunkJoin() throws {
        let dir = Scratch()
        let src = try Self.source(dir)
        let settings = "{ codec: h264, quality: 28, codec-options: { preset: veryfast } }"
        for (name, parallel) in [("whole", ""), ("chunked", "parallel: { chunks: 3 }")] {
            let r = try Binary.run(["run", try Self.recipe(dir, name, settings: settings, parallel: parallel), "-i", src, "--quiet"],
                                   timeLimit: 300, cwd: dir.path)
            #expect(r.status == 0, "\(name): \(r.stderr)")
            #expect(try Self.shown(dir.file(name + ".mp4")) == (300, "12.000000"), "\(name)")
        }
    }
}
