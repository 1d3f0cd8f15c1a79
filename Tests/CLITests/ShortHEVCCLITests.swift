import Foundation
import Pipeline
import Testing

/// x265 stamps the decode times of an encode of one or two pictures from a delay it never
/// measured, so a 2-frame clip to HEVC failed or not by what the heap held ("pts/dts pair
/// unsupported", "pts (0) < dts (6148914691236517206)"). glibc's MALLOC_PERTURB_ fills new
/// memory with a pattern, which makes that failure happen every time.
@Suite("reencode run: HEVC of one or two pictures")
struct ShortHEVCCLITests {
    @Test("a 1- or 2-frame trim to HEVC converts whatever the heap holds, decode times = presentation times",
          arguments: [("0.08s", 2), ("0.04s", 1)], ["165", "85", "0"])
    func shortTrim(_ trim: (String, Int), _ perturb: String) throws {
        let dir = Scratch()
        try BatchFixture.clip(dir.file("src.mp4"), seconds: 1)
        try """
        recipe: 1
        reader:
          outputs:
            picture: { track: video }
        writer:
          inputs:
            - { source: picture, settings: { codec: hevc, codec-options: { preset: ultrafast } } }
        session:
          time-range: { start: 0.4s, duration: \(trim.0) }
        """.write(toFile: dir.file("r.yaml"), atomically: true, encoding: .utf8)
        let r = try Binary.run(["run", dir.file("r.yaml"), "-i", dir.file("src.mp4"), "-o", dir.file("out.mp4"), "--progress", "none"],
                               timeLimit: 60, environment: ["MALLOC_PERTURB_": perturb])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try BatchFixture.frames(dir.file("out.mp4")) == Array(12..<(12 + trim.1)).map { Optional($0) })
        // Decode times as the file holds them (ffprobe, where installed).
        let probe = "/usr/bin/ffprobe"
        guard FileManager.default.isExecutableFile(atPath: probe) else { return }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: probe)
        p.arguments = ["-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts,dts", "-of", "csv=p=0", dir.file("out.mp4")]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let rows = out.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
        #expect(rows.count == trim.1, "\(out)")
        for row in rows { #expect(row.count == 2 && row[0] == row[1], "\(out)") }
    }
}
