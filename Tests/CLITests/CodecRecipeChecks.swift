import Foundation
import Pipeline
import Testing

/// What recipes/av1-archive.yaml and recipes/podcast-opus.yaml make of RunCommandTests' clip
/// (3 s of 640x360 at 120 fps, a 48 kHz stereo sine at 0.3 in AAC), past what every recipe's
/// output is checked for: the codecs, depth and size they promise, and the sound they keep.
enum CodecRecipeChecks {
    /// Checks `out`, made by `recipe` (named `name`) from `source`, and what `plan` says of it;
    /// false: not one of these recipes.
    static func check(_ name: String, recipe: String, out: String, source: String) throws -> Bool {
        guard ["av1-archive.yaml", "podcast-opus.yaml"].contains(name) else { return false }
        let planned = try Binary.run(["plan", recipe, "-i", source])
        #expect(planned.status == 0, "\(planned.stderr)")
        let plan = planned.stdout
        switch name {
        case "av1-archive.yaml":
            let video = try PlanTruthCLITests.probe(out, "v:0", "codec_name,profile,pix_fmt,width,height")
            #expect(video == ["codec_name": "av1", "profile": "Main", "pix_fmt": "yuv420p10le", "width": "640", "height": "360"])
            #expect(try SampleReaderStamps.read(out) == (0..<360).map { Optional($0) }, "every source frame once, in order")
            // The sound copied: the source's very packets.
            let copied = try packets(source, "a:0")
            let written = try packets(out, "a:0")
            #expect(copied.count == 2 * 142 && written == copied, "3 s of AAC at 48 kHz and its priming: 142 packets")
            #expect(try PlanTruthCLITests.probe(out, "a:0", "codec_name") == ["codec_name": "aac"])
            let lines = plan.split(separator: "\n").map(String.init)
            #expect(lines.contains("  encoder         libsvtav1    encoder.preferred: SVT-AV1, AV1's first choice"), "\(plan)")
            #expect(lines.contains("  quality         20           preset av1-archive: constant quality as asked"), "\(plan)")
            #expect(lines.contains("  pixel-format    yuv420p10le  preset av1-archive"), "\(plan)")
            return true
        case "podcast-opus.yaml":
            #expect(try SlowMotionCompositionCLITests.ffprobe(["-show_entries", "stream=codec_type", "-of", "csv=p=0", out]) == ["audio"])
            let sound = try PlanTruthCLITests.probe(out, "a:0", "codec_name,sample_rate,channels")
            #expect(sound == ["codec_name": "opus", "sample_rate": "48000", "channels": "2"])
            // The sound at the source's level (a sine: what Opus at 64 kb/s keeps).
            let level = 20 * log10(try rms(out) / (try rms(source)))
            #expect(abs(level) < 0.5, "\(level) dB from the source's level")
            #expect(plan.split(separator: "\n").contains("  bitrate         64000        recipe"), "\(plan)")
            return true
        default:
            return false
        }
    }

    /// Each packet's size and checksum, in decode order (`flat`: a packet's side data, AAC's
    /// skipped samples, comes between its entries in the other forms).
    static func packets(_ file: String, _ stream: String) throws -> [String] {
        try SlowMotionCompositionCLITests.ffprobe(["-select_streams", stream, "-show_entries", "packet=size,data_hash", "-show_data_hash", "CRC32", "-of", "flat", file])
            .filter { $0.hasSuffix("\"") && ($0.contains(".size=") || $0.contains(".data_hash=")) && !$0.contains("side_data") }
    }

    /// The RMS of the first audio track's middle half, every channel.
    static func rms(_ file: String) throws -> Double {
        let reader = try SampleReader(path: file, track: .type(.audio, 0))
        var x: [Float] = []
        while let a = try reader.nextAudio() { x += a.samples }
        let middle = x[(x.count / 4)..<(x.count * 3 / 4)]
        return (middle.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(middle.count)).squareRoot()
    }
}
