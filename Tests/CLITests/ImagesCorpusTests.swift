import Foundation
import Pipeline
import Recipe
import Testing

/// `reencode images` on the real-world corpus (REENCODE_CORPUS): two stills of every file, or a
/// one-line error with a code from `ExitCode` and nothing written; never a crash or a hang.
@Suite("reencode images on the real-world corpus", .enabled(if: ProcessInfo.processInfo.environment["REENCODE_CORPUS"] != nil))
struct ImagesCorpusTests {
    static let corpus = ProcessInfo.processInfo.environment["REENCODE_CORPUS"] ?? ""

    @Test("every file gives its stills or fails cleanly, leaving nothing")
    func everyFile() throws {
        let files = CorpusTests.files()
        #expect(files.count > 0, "no files in \(Self.corpus)")
        var made = 0
        for name in files {
            let dir = Scratch()
            let r = try Binary.run(["images", Self.corpus + "/" + name, "--count", "2", "--size", "160x160", "-o", dir.file("{n}.jpg")], timeLimit: 120)
            #expect([0, 1, 64, 66, 73, 74, 75].contains(r.status), "\(name): status \(r.status) \(r.stderr)")
            if r.status == 0 {
                made += 1
                #expect(dir.contents == ["1.jpg", "2.jpg"], "\(name)")
                let p = try SampleReader(path: dir.file("1.jpg"), track: .type(.video, 0)).nextPicture()
                #expect(p.map { $0.width <= 160 && $0.height <= 160 } == true, "\(name)")
            } else {
                #expect(r.stderr.hasPrefix("error: ") && r.stderr.split(separator: "\n").count == 1, "\(name): \(r.stderr)")
                #expect(dir.contents.isEmpty, "\(name) left \(dir.contents)")
            }
        }
        #expect(made > 40, "stills of only \(made) files")
    }

    @Test("a transport stream cut between keyframes: an instant before its first keyframe shows that keyframe, said as such")
    func startsBetweenKeyframes() throws {
        let dir = Scratch()
        let r = try Binary.run(["images", Self.corpus + "/mediabunny/no-initial-keyframe.ts", "--at", "0.441s,2.21s", "--json", "-o", dir.file("{n}.png")])
        #expect(r.status == 0, "\(r.stderr)")
        let stills = try #require((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["stills"] as? [[String: Any]])
        #expect(stills.map { $0["frame"] as? String } == ["keyframe", "exact"])
        let first = try #require(stills.first?["time"] as? Double)
        #expect(abs(first - 2.136) < 0.001, "\(first)")
    }
}
