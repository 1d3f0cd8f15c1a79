import CMalloc
import Foundation
import Pipeline
import Recipe

// reencode-bench: media generation and engine measurements for bench/ scripts (commands: `usage`).

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
let usage = """
    usage: reencode-bench COMMAND …
      make-source OUT --seconds N [--width W --height H --fps R] [--droppable | --structure droppable|ippp|layers]
                  (layers: HEVC with temporal sub-layers, as phones write high frame rates)
                  [--texture] [--no-audio] [--audio-only] [--music] [--audio-rate HZ] [--tone HZ]
      convert SRC OUT [--fps R] [--preset P] [--no-selective]
      cycles N SRC   open/convert/close N times, printing RSS and heap in use after each
    """

/// The operands left once the options are taken: an unknown option is refused, never taken for a
/// file name (`make-source --help` once wrote a 5 MB file called `--help`).
@MainActor func operands(_ count: Int, _ what: String) -> [String] {
    if let unknown = args.first(where: { $0.hasPrefix("-") }) { fail("unknown option '\(unknown)'\n\(usage)") }
    guard args.count == count else { fail("\(what)\n\(usage)") }
    return args
}

func fail(_ s: String) -> Never {
    FileHandle.standardError.write(Data("reencode-bench: \(s)\n".utf8))
    exit(64)
}

/// A panning texture with noise: what a camera sees, harder to encode than flat test patterns.
/// Rows are copied from a precomputed texture at a per-frame offset, so making it is cheap.
struct Texture {
    let width: Int, height: Int
    let luma: [UInt8], chroma: [UInt8]
    static let margin = 512

    init(width: Int, height: Int) {
        self.width = width + Self.margin
        self.height = height + Self.margin
        var rng = SeededRandom(seed: 42)
        var y = [UInt8](repeating: 0, count: self.width * self.height)
        for r in 0..<self.height {
            for c in 0..<self.width {
                let smooth = 128 + 60 * sin(Double(c) * 0.013 + Double(r) * 0.007) + 30 * sin(Double(r) * 0.031 - Double(c) * 0.021)
                let noise = Double(Int(rng.next() % 25) - 12)
                y[r * self.width + c] = UInt8(max(16, min(235, smooth + noise)))
            }
        }
        luma = y
        var uv = [UInt8](repeating: 128, count: (self.width / 2) * (self.height / 2))
        for r in 0..<(self.height / 2) {
            for c in 0..<(self.width / 2) { uv[r * (self.width / 2) + c] = UInt8(128 + 20 * sin(Double(c + r) * 0.02)) }
        }
        chroma = uv
    }

    /// `pingPong`: the pan turns back at the margin instead of jumping to its start. The jump is a
    /// cut, where x265 ends a group of pictures early even with scenecut=0: the layered HEVC
    /// input would lose its fixed pattern (a reference picture every 8th frame).
    func draw(frame i: Int, into p: borrowing PictureBuffer, pingPong: Bool = false) {
        func pan(_ x: Int) -> Int {
            guard pingPong else { return x % Self.margin }
            let period = 2 * (Self.margin - 1), q = x % period
            return q < Self.margin ? q : period - q
        }
        let dx = pan(i * 3), dy = pan(i * 2)
        luma.withUnsafeBufferPointer { t in
            for r in 0..<p.height {
                p.setRow(plane: 0, y: r, UnsafeBufferPointer(rebasing: t[((r + dy) * width + dx)..<((r + dy) * width + dx + p.width)]))
            }
        }
        let cw = width / 2
        chroma.withUnsafeBufferPointer { t in
            for r in 0..<p.chromaHeight {
                let row = UnsafeBufferPointer(rebasing: t[((r + dy / 2) * cw + dx / 2)..<((r + dy / 2) * cw + dx / 2 + p.chromaWidth)])
                p.setRow(plane: 1, y: r, row)
                p.setRow(plane: 2, y: r, row)
            }
        }
        // Keep the frame-number band so outputs can be matched to source frames.
        let band = max(2, (p.height / 8) & ~1)
        for bit in 0..<TestPattern.bits {
            let x0 = bit * p.width / TestPattern.bits, x1 = (bit + 1) * p.width / TestPattern.bits
            let on = (i >> (TestPattern.bits - 1 - bit)) & 1 == 1
            p.fill(plane: 0, x: x0, y: 0, width: x1 - x0, height: band, value: on ? 235 : 16)
        }
    }
}

func makeSource(_ out: String, seconds: Int, width: Int, height: Int, fps: FrameRate, structure: String, texture: Bool, audio: Bool, audioRate: Int = 48000,
                tone: Double = 440) throws {
    var v: GeneratedVideoFormat
    switch structure {
    case "droppable":
        v = .droppableH264(width: width, height: height, frameRate: fps)
    case "ippp":
        // Every picture referenced: nothing a decoder may skip.
        v = GeneratedVideoFormat(width: width, height: height, frameRate: fps)
        v.codecOptions = ["preset": "ultrafast", "bf": "0"]
        v.gop = Int(fps.frames / fps.seconds)
    case "layers":
        // HEVC with temporal sub-layers, the structure phones write at high frame rates: groups of
        // 8 (I/P then 7 B frames, no pyramid), the B frames unreferenced in temporal layer 1.
        v = GeneratedVideoFormat(width: width, height: height, frameRate: fps)
        v.codec = .hevc
        v.gop = Int(fps.frames / fps.seconds) / 8 * 8
        v.codecOptions = ["preset": "ultrafast", "x265-params": "bframes=7:b-adapt=0:b-pyramid=0:temporal-layers=1:scenecut=0"]
    default:
        v = GeneratedVideoFormat(width: width, height: height, frameRate: fps)
        v.codecOptions = ["preset": "ultrafast"]
    }
    if texture {
        // Encoded as cameras do (CABAC, deblocking: x264 veryfast), so decoding costs what it costs
        // on real footage; ultrafast (CAVLC, no deblocking) would make every decoder look cheap.
        v.quality = 16
        v.codecOptions["preset"] = "veryfast"
    }
    let pattern = texture ? Texture(width: width, height: height) : nil
    let source = try FrameSource(path: out, video: v, audio: audio ? GeneratedAudioFormat(sampleRate: audioRate, channels: 2) : nil)
    let frames = seconds * Int(fps.frames) / Int(fps.seconds)
    var samples = 0
    for i in 0..<frames {
        let t = fps.frameDuration * Int64(i)
        try source.appendPicture(at: t) { p in
            if let pattern { pattern.draw(frame: i, into: p, pingPong: structure == "layers") } else { TestPattern.draw(index: i, into: p) }
        }
        if audio {
            let rate = audioRate
            let until = Int(WideArithmetic.mulDiv(t.value + Int64(fps.seconds), Int64(rate), Int64(t.timescale)))
            if until > samples {
                // A tone (440 Hz unless --tone) with a click every second: something to encode, and to
                // find again; two clips with different tones make a cross-fade's sound measurable.
                try source.appendAudio(count: until - samples) { _, n in
                    n % Int64(rate) < Int64(rate / 100) ? 0.6 : Float(0.2 * sin(Double(n) * 2 * Double.pi * tone / Double(rate)))
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
    if args.contains("--help") || args.contains("-h") {
        print(usage, terminator: "")
        exit(0)
    }
    guard let command = args.first else { fail(usage) }
    args.removeFirst()
    switch command {
    case "make-source":
        let seconds = Int(option("--seconds") ?? "10")!
        let width = Int(option("--width") ?? "1280")!, height = Int(option("--height") ?? "720")!
        guard let fps = TimeParsing.frameRate(option("--fps") ?? "60") else { fail("bad --fps") }
        let structure = flag("--droppable") ? "droppable" : (option("--structure") ?? "default")
        let texture = flag("--texture"), noAudio = flag("--no-audio"), audioOnly = flag("--audio-only")
        guard let audioRate = Int(option("--audio-rate") ?? "48000"), (8000...192000).contains(audioRate) else { fail("bad --audio-rate") }
        guard let tone = Double(option("--tone") ?? "440"), tone > 0, tone < Double(audioRate) / 2 else { fail("bad --tone") }
        let music = flag("--music")
        let out = operands(1, "make-source needs OUT")[0]
        if music {
            // AAC at 44.1 kHz: a soft A-minor chord (220, 261.6, 329.6 Hz) that swells every 2 s,
            // no clicks: a music bed that cannot be taken for the clips' 440 Hz tone.
            let s = try FrameSource(path: out, video: nil, audio: GeneratedAudioFormat(sampleRate: 44100, channels: 2))
            try s.appendAudio(count: 44100 * seconds) { _, n in
                let t = Double(n) / 44100
                let chord = [220.0, 261.63, 329.63].reduce(0.0) { $0 + sin(2 * Double.pi * $1 * t) } / 3
                return Float(0.25 * (0.75 + 0.25 * sin(Double.pi * t)) * chord)
            }
            try s.finish()
        } else if audioOnly {
            // AAC at 44.1 kHz: a tone with a click every second.
            let s = try FrameSource(path: out, video: nil, audio: GeneratedAudioFormat(sampleRate: 44100, channels: 2))
            for _ in 0..<seconds {
                try s.appendAudio(count: 44100) { _, n in n % 44100 < 441 ? 0.6 : Float(0.2 * sin(Double(n) * 2 * Double.pi * 440 / 44100)) }
            }
            try s.finish()
        } else {
            try makeSource(out, seconds: seconds, width: width, height: height, fps: fps, structure: structure, texture: texture,
                           audio: !noAudio, audioRate: audioRate, tone: tone)
        }
    case "convert":
        let fps = option("--fps").flatMap(TimeParsing.frameRate)
        let preset = option("--preset") ?? "veryfast"
        let selective = !flag("--no-selective")
        _ = operands(2, "convert needs SRC OUT")
        let r = try convert(args[0], args[1], fps: fps, preset: preset, selective: selective)
        let v = r.lanes[0]
        print("converted \(r.duration.secondsDescription) in \(String(format: "%.2f", r.elapsed)) s; video packets read \(v.packetsRead), decoded \(v.packetsDecoded); peak RSS \(rss().peak) kB")
    case "cycles":
        guard let n = Int(operands(2, "cycles needs N SRC")[0]) else { fail("cycles needs N SRC") }
        let out = NSTemporaryDirectory() + "reencode-bench-cycle-\(getpid()).mp4"
        defer { unlink(out) }
        for i in 1...n {
            _ = try convert(args[1], out, fps: FrameRate(frames: 30), preset: "ultrafast", selective: true)
            // Heap bytes in use over all malloc arenas: RSS moves in arena-sized steps as dispatch
            // threads come and go, which says nothing about leaks.
            // Let the lanes' queues finish releasing what they held before sampling.
            Thread.sleep(forTimeInterval: 0.05)
            print("cycle \(i) rss_kb \(rss().current) heap_bytes \(rx_heap_in_use())")
        }
    default:
        fail("unknown command '\(command)'")
    }
} catch let e as MediaError {
    FileHandle.standardError.write(Data("error: \(e)\n".utf8))
    exit(e.exitCode)
}
