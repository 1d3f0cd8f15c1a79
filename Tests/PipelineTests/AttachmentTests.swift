import Foundation
@testable import Pipeline
import Recipe
import Testing

/// A Matroska file's attachments (the fonts its ASS subtitles are drawn with, images FFmpeg does
/// not take for cover art) are files no recipe track can take: Matroska keeps them as they are,
/// other containers say each one they drop, by name.
@Suite("Attachments: kept in Matroska, named where dropped")
struct AttachmentTests {
    static let font = Attachment(track: 0, fileName: "Caption Sans.ttf", mimeType: "font/ttf", bytes: Array("not really a font".utf8) + [0, 1, 2, 255])
    static let webp = Attachment(track: 0, fileName: "poster.webp", mimeType: "image/webp", bytes: [0x52, 0x49, 0x46, 0x46, 9, 9])

    func convert(_ src: String, _ out: String) throws -> ConversionPlan {
        let req = ConversionRequest(source: src, output: out, tracks: [TrackRequest(.type(.audio, 0), .audio(AudioSettings()))])
        let plan = try Planner.plan(req)
        try ExportSession(plan: plan).run()
        return plan
    }

    @Test("MKV → MKV keeps every attachment byte for byte, with its name and type, and a cover's own file name")
    func keptInMatroska() throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        var cover = try TestPicture.make(codec: "png")
        cover.fileName = "front.png"
        try KeptMedia.make(src, video: false, kept: KeptItems(pictures: [cover], attachments: [Self.font, Self.webp]))
        let source = try Asset.load(src)
        #expect(source.attachments.map(\.fileName) == ["Caption Sans.ttf", "poster.webp"])
        let out = dir.file("out.mkv")
        let plan = try convert(src, out)
        #expect(plan.notices == [])
        let kept = try Asset.load(out)
        #expect(kept.attachments.map { [$0.fileName, $0.mimeType] } == [["Caption Sans.ttf", "font/ttf"], ["poster.webp", "image/webp"]])
        #expect(kept.attachments.map(\.bytes) == [Self.font.bytes, Self.webp.bytes])
        #expect(kept.pictures.map(\.fileName) == ["front.png"])
        #expect(kept.pictures.map(\.bytes) == [cover.bytes])
    }

    @Test("MP4, MOV and M4A name each attachment they drop (not as a track a recipe could take)", arguments: ["mp4", "mov", "m4a"])
    func droppedAndSaid(ext: String) throws {
        let dir = Scratch()
        let src = dir.file("src.mkv")
        try KeptMedia.make(src, video: false, kept: KeptItems(attachments: [Self.font, Self.webp]))
        let plan = try convert(src, dir.file("out.\(ext)"))
        let why = "\(ext.uppercased()) files hold no attachments (.mkv keeps them)"
        #expect(plan.notices == [
            PlanNotice(.dropped, "attachment", track: 1, "the attachment \"Caption Sans.ttf\" (font/ttf, 21 bytes) is dropped: \(why)"),
            PlanNotice(.dropped, "attachment", track: 2, "the attachment \"poster.webp\" (image/webp, 6 bytes) is dropped: \(why)"),
        ])
    }
}
