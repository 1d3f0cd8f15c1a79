import CMalloc
import Foundation
import Pipeline
import Recipe

// reencode-bench: media generation and engine measurements for bench/ scripts.
//   make-source OUT --seconds N [--width W --height H --fps R] [--droppable] [--no-audio]
//   convert SRC OUT [--fps R] [--preset P] [--no-selective]
//   cycles N SRC            open/convert/close N times, printing RSS and heap in use after each

func rss() -> (current: Int, peak: Int) {
    guard let s = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func kb(_ key: String) -> Int {
        guard let line = s.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first { !$0.isEmpty }.map(String.init)?.trimmingCharacters(in: .whitespaces) ?? "0") ?? 0
    }
    return (kb("VmRSS:"), kb("VmHWM:"))
}

var args = Array(CommandLine.arguments.dropFirst())
@MainActor func option(_ name: String) -> String? {
    guard let i = args.firstIndex(of: name), i + 1 < args.count else { return nil }
    let v = args[i + 1]
    args.removeSubrange(i...(i + 1))
    return v
}
@MainActor func flag(_ name: String) -> Bool {
    guard let i = args.firstIndex(of: name) else { return false }
    args.remove(at: i)
    return true
}
func fail(_ s: String) -> Never {
    FileHandle.standardError.write(Data("reencode-bench: \(s)\n".utf8))
    exit(64)
}

func makeSource(_ out: String, seconds: Int, width: Int, height: Int, fps: FrameRate, droppable: Bool, audio: Bool) throws {
    var v = droppable ? GeneratedVideoFormat.droppableH264(width: width, height: height, frameRate: fps)
                      : GeneratedVideoFormat(width: width, height: height, frameRate: fps)
    if !droppable { v.codecOptions = ["preset": "ultrafast"] }
    let source = try FrameSource(path: out, video: v, audio: audio ? GeneratedAudioFormat() : nil)
    let frames = seconds * Int(fps.frames) / Int(fps.seconds)
    var samples = 0
    for i in 0..<frames {
        let t = fps.frameDuration * Int64(i)
        try source.appendPicture(at: t) { TestPattern.draw(index: i, into: $0) }
        if audio {
            let until = Int(WideArithmetic.mulDiv(t.value + Int64(fps.seconds), 48000, Int64(t.timescale)))
            if until > samples {
                // A 440 Hz tone with a click every second: something to encode, and to find again.
                try source.appendAudio(count: until - samples) { _, n in
                    n % 48000 < 480 ? 0.6 : Float(0.2 * sin(Double(n) * 2 * Double.pi * 440 / 48000))
                }
                samples = until
            }
        }
    }
    try source.finish()
}

func convert(_ src: String, _ out: String, fps: FrameRate?, preset: String, selective: Bool) throws -> ConversionResult {
    let asset = try Asset.load(src)
    var tracks = [TrackRequest(.type(.video, 0), .video(VideoSettings(codec: .h264, frameRate: fps.map { .rate($0) }, codecOptions: ["preset": preset])))]
    if !asset.audioTracks.isEmpty { tracks.append(TrackRequest(.type(.audio, 0), .audio(AudioSettings()))) }
    var req = ConversionRequest(source: src, output: out, tracks: tracks)
    req.overwrite = true
    req.selectiveDecode = selective
    return try ExportSession(plan: Planner.plan(req, asset: asset)).run()
}

do {
    guard let command = args.first else { fail("usage: reencode-bench make-source|convert|cycles …") }
    args.removeFirst()
    switch command {
    case "make-source":
        let seconds = Int(option("--seconds") ?? "10")!
        let width = Int(option("--width") ?? "1280")!, height = Int(option("--height") ?? "720")!
        guard let fps = TimeParsing.frameRate(option("--fps") ?? "60") else { fail("bad --fps") }
        let droppable = flag("--droppable"), noAudio = flag("--no-audio")
        guard let out = args.first else { fail("make-source needs OUT") }
        try makeSource(out, seconds: seconds, width: width, height: height, fps: fps, droppable: droppable, audio: !noAudio)
    case "convert":
        let fps = option("--fps").flatMap(TimeParsing.frameRate)
        let preset = option("--preset") ?? "veryfast"
        let selective = !flag("--no-selective")
        guard args.count == 2 else { fail("convert needs SRC OUT") }
        let r = try convert(args[0], args[1], fps: fps, preset: preset, selective: selective)
        let v = r.lanes[0]
        print("converted \(r.duration.secondsDescription) in \(String(format: "%.2f", r.elapsed)) s; video packets read \(v.packetsRead), decoded \(v.packetsDecoded); peak RSS \(rss().peak) kB")
    case "cycles":
        guard args.count == 2, let n = Int(args[0]) else { fail("cycles needs N SRC") }
        let out = NSTemporaryDirectory() + "reencode-bench-cycle-\(getpid()).mp4"
        defer { unlink(out) }
        for i in 1...n {
            _ = try convert(args[1], out, fps: FrameRate(frames: 30), preset: "ultrafast", selective: true)
            // Heap bytes in use over all malloc arenas: RSS moves in arena-sized steps as dispatch
            // threads come and go, which says nothing about leaks.
            print("cycle \(i) rss_kb \(rss().current) heap_bytes \(rx_heap_in_use())")
        }
    default:
        fail("unknown command '\(command)'")
    }
} catch let e as MediaError {
    FileHandle.standardError.write(Data("error: \(e)\n".utf8))
    exit(e.exitCode)
}
