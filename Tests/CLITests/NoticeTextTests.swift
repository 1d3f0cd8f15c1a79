import Foundation
import Pipeline
import Recipe
import Testing

/// Warnings quote the source (chapter titles, track titles, tag and file names): a hostile file's
/// control characters are shown escaped, so each warning stays one line and cannot drive the
/// terminal.
@Suite("Warnings: what they quote of the source is printable")
struct NoticeTextTests {
    @Test("a chapter title and an attachment's file name with escape sequences and line breaks are escaped in plan's text and run's warnings")
    func escaped() throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        var v = GeneratedVideoFormat(width: 64, height: 48, frameRate: FrameRate(frames: 10))
        v.codecOptions = ["preset": "ultrafast"]
        let chapters = [Chapter(start: .zero, end: MediaTime(seconds: 1), title: "Intro\u{1B}[2J\nwarning: fake"),
                        Chapter(start: MediaTime(seconds: 1), end: MediaTime(seconds: 3), title: "Main")]
        let s = try FrameSource(path: src, video: v, audio: nil, kept: KeptItems(chapters: chapters, attachments: [
            Attachment(track: 0, fileName: "font\u{1B}]0;owned\u{07}.ttf", mimeType: "font/ttf", bytes: [1, 2, 3]),
        ]))
        for i in 0..<30 { try s.appendPicture(at: MediaTime(value: Int64(i), timescale: 10)) { TestPattern.draw(index: i, into: $0) } }
        try s.finish()
        let recipe = dir.file("r.yaml")
        try """
            recipe: 1
            reader: { outputs: { picture: { track: video } } }
            writer: { inputs: [ { source: picture, settings: { codec: h264, codec-options: { preset: ultrafast } } } ] }
            session: { time-range: { start: 1.5s } }
            """.write(toFile: recipe, atomically: true, encoding: .utf8)
        let want = [
            #"warning: 1 of 2 chapters lie outside the time range: "Intro\u{1B}[2J\u{A}warning: fake""#,
            #"warning: track #1: the attachment "font\u{1B}]0;owned\u{7}.ttf" (font/ttf, 3 bytes) is dropped: MP4 files hold no attachments (.mkv keeps them)"#,
        ]
        let plan = try Binary.run(["plan", recipe, "-i", src, "-o", dir.file("out.mp4")])
        #expect(plan.status == 0)
        #expect(Set(plan.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("warning:") }) == Set(want))
        let run = try Binary.run(["run", recipe, "-i", src, "-o", dir.file("out.mp4"), "--quiet"])
        #expect(run.status == 0)
        #expect(Set(run.stderr.split(separator: "\n").map(String.init)) == Set(want.map { $0.replacingOccurrences(of: "warning: ", with: "warning: \(src): ", options: .anchored) }))
        #expect(!run.stderr.contains("\u{1B}"))
    }
}
