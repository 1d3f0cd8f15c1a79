import Foundation
@testable import Pipeline
import Recipe
import Testing

/// Memory on long sources: an MP4 written index first builds its index once more in the trailer
/// (tens of bytes a sample). The lanes let go of their decoders, encoders and pictures as they
/// end, and the trailer is written after them, so that it reuses that memory instead of adding
/// to it. Counted by the decoders' thread budget, never by the process's memory.
@Suite("long sources: the trailer is written after the lanes let go")
struct TrailerMemoryTests {
    @Test("video and audio into MP4 (index first) and Matroska: no video decoder open when the trailer is written")
    func decodersGoBeforeTheTrailer() throws {
        let dir = Scratch()
        try LayerMemoryTests.clip(dir.file("in.mp4"), frames: 60, audio: true)
        for output in ["o.mp4", "o.mkv"] {
            let text = """
                recipe: 1
                reader: { outputs: { picture: { track: video }, sound: { track: audio } } }
                writer:
                  inputs:
                    - { source: picture, settings: { codec: h264, codec-options: { preset: ultrafast } } }
                    - { source: sound, settings: { codec: aac } }
                """
            let compiled = try RecipeCompiler.compile(try RecipePlanErrorTests.recipe(text), input: dir.file("in.mp4"), output: dir.file(output))
            let session = ExportSession(plan: compiled.plan)
            let result = try session.run()
            #expect(session.openDecodersAtTrailer == 0, "\(output): \(session.openDecodersAtTrailer) decoders open at the trailer")
            #expect(result.lanes.map(\.unitsOut).first == 60, "\(output): \(result.lanes.map(\.unitsOut)) units out")
            #expect(result.lanes.count == 2 && result.lanes[1].packetsWritten > 0)
        }
    }
}
