import Foundation
import Testing

/// `format: cmaf`: the HLS playlists and a DASH manifest over one set of segments, read by
/// ffmpeg's DASH and HLS demuxers and GStreamer's dashdemux; an HEVC rendition named from its hvcC.
@Suite("reencode run: a CMAF package (HLS and DASH over the same segments) with an H.264 and an HEVC rendition", .serialized)
struct DASHPackageCLITests {
    struct Made: Sendable {
        let path: String
        let status: Int32
        let stderr: String
        func file(_ name: String) -> String { path + "/" + name }
    }

    /// 7 s at 30 fps in 3 s segments: 3, 3 and 1 s (its folder is left in the temporary folder).
    static let made: Made = {
        let path = NSTemporaryDirectory() + "reencode-cli-tests/cmaf-\(UInt32.random(in: 0...UInt32.max))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try! PackageTools.source(path + "/s.mp4", seconds: 7)
        try! """
            recipe: 1
            reader: { outputs: { v: { track: video }, a: { track: audio } } }
            outputs:
              - path: \(path)/pkg
                format: cmaf
                segment: 3s
                renditions:
                  - { name: avc, inputs: [ { source: v, settings: { codec: h264, width: 640, height: 360, codec-options: { preset: ultrafast } } } ] }
                  - { name: hevc, inputs: [ { source: v, settings: { codec: hevc, width: 320, height: 180, codec-options: { preset: ultrafast } } } ] }
                  - { name: snd, inputs: [ { source: a, settings: { codec: aac, bitrate: 64k } } ] }
            """.write(toFile: path + "/r.yaml", atomically: true, encoding: .utf8)
        let r = try! Binary.run(["run", path + "/r.yaml", "-i", path + "/s.mp4"], timeLimit: 300, cwd: path)
        return Made(path: path, status: r.status, stderr: r.stderr)
    }()
    static var package: WrittenPackage { WrittenPackage(folder: made.file("pkg")) }

    @Test("manifest.mpd: an AdaptationSet per media type and codec, each Representation's SegmentTimeline the HLS playlist's durations, its codecs the master's")
    func manifest() throws {
        #expect(Self.made.status == 0, "\(Self.made.stderr)")
        let mpd = try Self.package.text("manifest.mpd")
        // H.264 and HEVC in sets of their own (a player switches within one), then the sound.
        #expect(mpd.contains("<AdaptationSet id=\"0\" contentType=\"video\"") && mpd.contains("<AdaptationSet id=\"1\" contentType=\"video\"")
                && mpd.contains("<AdaptationSet id=\"2\" contentType=\"audio\""))
        let codecs = try Self.package.variants().map { $0.attributes["CODECS"]! }
        for (name, codec) in zip(["avc", "hevc"], codecs) {
            #expect(mpd.contains("<Representation id=\"\(name)\"") && mpd.contains("codecs=\"\(codec.split(separator: ",")[0])\""), "\(name) \(codec)")
        }
        // Each Representation's timeline in its timescale, expanded, against the playlist's EXTINFs.
        for name in ["avc", "hevc", "snd"] {
            let block = String(mpd[mpd.range(of: "<Representation id=\"\(name)\"")!.lowerBound...].prefix { _ in true })
            let template = block[block.range(of: "timescale=\"")!.upperBound...]
            let timescale = Double(template.prefix { $0 != "\"" })!
            var durations: [Double] = []
            for line in block.split(separator: "\n").prefix(while: { !$0.contains("</SegmentTimeline>") }) where line.contains("<S ") {
                func attribute(_ key: String) -> Double? {
                    line.range(of: " \(key)=\"").map { Double(line[$0.upperBound...].prefix { $0 != "\"" })! }
                }
                durations += Array(repeating: attribute("d")! / timescale, count: Int(attribute("r") ?? 0) + 1)
            }
            let hls = try Self.package.media(name).durations
            #expect(durations.count == hls.count && zip(durations, hls).allSatisfy { abs($0 - $1) < 1e-6 }, "\(name): \(durations) vs \(hls)")
        }
        #expect(try Self.package.media("avc").durations == [3, 3, 1])
    }

    @Test("CODECS of the HEVC rendition: hvc1 (Apple's sample entry), its profile, tier, level and constraints as the SPS says them")
    func hevcCodec() throws {
        let dir = Scratch()
        try Self.package.joined("hevc", segments: [1], into: dir.file("h.mp4"))
        let probe = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_tag_string",
                                                               "-of", "csv=p=0", dir.file("h.mp4")])
        #expect(probe.stdout == "hvc1\n", "\(probe.stdout)")
        let sps = try #require(try PackageTools.hevcFromSPS(dir.file("h.mp4")))
        #expect(sps.hasPrefix("hvc1.1.6.L"), "\(sps)")
        let variants = try Self.package.variants()
        #expect(variants.count == 2 && variants[1].attributes["CODECS"] == "\(sps),mp4a.40.2", "\(sps) \(variants.map(\.attributes))")
    }

    @Test("ffmpeg's DASH demuxer reads manifest.mpd and its HLS demuxer master.m3u8 to the end without an error: 210 pictures per rendition")
    func ffmpegReads() throws {
        for playlist in ["manifest.mpd", "master.m3u8"] {
            let r = try Binary.runTool(PackageTools.ffmpeg, ["-v", "error", "-i", Self.package.file(playlist), "-map", "0", "-f", "null", "-"])
            #expect(r.status == 0 && r.stderr.isEmpty, "\(playlist): \(r.stderr)")
            let probe = try Binary.runTool(PackageTools.ffprobe, ["-v", "error", "-count_frames", "-show_entries", "stream=codec_type,nb_read_frames,width",
                                                                   "-of", "csv=p=0", Self.package.file(playlist)])
            let lines = Set(probe.stdout.split(separator: "\n").map(String.init))
            #expect(lines.contains("video,640,210") && lines.contains("video,320,210"), "\(playlist): \(probe.stdout) \(probe.stderr)")
        }
    }

    @Test("GStreamer (playbin: dashdemux) plays manifest.mpd to its end without an error: the last picture at 209/30 s")
    func gstreamerPlays() throws {
        let r = try Binary.runTool(HLSPackageCLITests.gstPlay, [Self.package.file("manifest.mpd")])
        if r.status == 77 { print("GStreamer check skipped: \(r.stderr)"); return }
        #expect(r.status == 0, "\(r.stderr)")
        let fields = r.stdout.split(separator: " ").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        #expect(fields.count == 6 && Double(fields[3]).map { abs($0 - 209.0 / 30) < 1e-6 } == true, "\(r.stdout)")
    }
}
