import Recipe

/// How long a chunked encode should take, beside the same output encoded in one piece (`plan`).
/// A speed model, not a measurement of this file: each encoder's speed in megapixels per
/// core-second, per encoder and preset, from a table measured once (below); an encoder given
/// `t` threads runs `min(t, useful)` times that fast, `useful` being one thread per 48 rows of
/// the picture, 16 at most (where x264's and x265's row and frame parallelism roughly stop
/// paying). The chunks go to the workers as `ChunkWorkers` hands them out — longest first, each
/// to the worker free first — so the chunk encodes end when the busiest worker does; then the
/// join, whose cost is its check's full decode of the written video (`ChunkJoinCheck`). Decoding
/// the source and making the sound are left out of both predictions (the same work either way).
public struct ChunkPrediction: Sendable {
    /// Seconds: the output's video encoded in one piece, on every core.
    public let onePiece: Double
    /// Seconds: the chunk encodes, `workers` at once; and the join after them.
    public let encodes: Double
    public let join: Double
    /// The encoder's speed the prediction assumed: megapixels per core-second.
    public let rate: Double
    /// The encoder and preset the rate is for.
    public let encoder: String

    /// Seconds: the chunked encode, the join included.
    public var chunked: Double { encodes + join }

    /// The prediction for `chunking` of a video made with `s` on `cores` cores; nil where the
    /// table has no rate for its encoder and preset.
    public static func predict(_ chunking: ChunkedEncode, settings s: ResolvedVideoSettings, cores: Int) -> ChunkPrediction? {
        let preset = s.codecOptions["preset"] ?? defaultPreset[s.encoderName] ?? ""
        guard let rate = encodeRates[s.encoderName]?[preset], let decode = decodeRates[s.codec] else { return nil }
        let pixels = Double(max(1, s.width * s.height)) / 1e6
        let useful = max(1, min(16, s.height / 48))
        func seconds(_ frames: Int, threads: Int) -> Double { Double(frames) * pixels / (rate * Double(min(threads, useful))) }
        var free = Array(repeating: 0.0, count: max(1, chunking.workers))
        for chunk in chunking.longestFirst.map({ chunking.chunks[$0] }) {
            let w = free.indices.min { free[$0] < free[$1] }!
            free[w] += seconds(chunk.frames, threads: chunking.threadsPerWorker)
        }
        let join = Double(chunking.frames) * pixels / (decode * Double(min(max(1, cores), useful)))
        return ChunkPrediction(onePiece: seconds(chunking.frames, threads: max(1, cores)), encodes: free.max() ?? 0, join: join,
                               rate: rate, encoder: "\(s.encoderName)\(preset.isEmpty ? "" : " " + preset)")
    }

    /// The preset an encoder uses when the recipe names none.
    static let defaultPreset = ["libx264": "medium", "libx265": "medium"]

    /// Megapixels per core-second: `ffmpeg -f lavfi -i testsrc2=s=640x360:r=30:d=2 -c:v ENCODER
    /// -preset P -threads 1 -f null -` (x265 with `pools=none:frame-threads=1`), its user CPU
    /// time less the test source's, on the project's build machine (AMD EPYC, 2 cores shared
    /// with other builds, so within perhaps ±30 %). Real pictures encode slower than testsrc2,
    /// so predictions are on the fast side; what matters most in `plan` is the ratio of the two.
    static let encodeRates: [String: [String: Double]] = [
        "libx264": ["ultrafast": 106, "superfast": 73, "veryfast": 48, "faster": 42, "fast": 35, "medium": 26,
                    "slow": 16, "slower": 8.8, "veryslow": 5.5, "placebo": 2.2],
        "libx265": ["ultrafast": 29, "superfast": 23, "veryfast": 15, "faster": 20, "fast": 12, "medium": 11,
                    "slow": 4.5, "slower": 1.25],
        // libvpx-vp9 measured at `-deadline good -cpu-used 4`, SVT-AV1 at `-preset 8`, ProRes 422 with prores_ks.
        "libvpx-vp9": ["": 10], "libsvtav1": ["": 5.7], "prores_ks": ["": 10],
    ]

    /// Megapixels per core-second decoding (the join's check): `ffmpeg -threads 1 -i F -f null -`
    /// of 4 s of 640x360 testsrc2 encoded at x264's and x265's `medium`, as above.
    static let decodeRates: [VideoCodec: Double] = [.h264: 160, .hevc: 120]
}

extension ConversionPlan {
    /// The chunked encode's predicted wall time beside the one-piece one (`ChunkPrediction`);
    /// nil where the output is not chunked or the speed table lacks its encoder.
    public var chunkPrediction: ChunkPrediction? {
        guard let c = chunking, let s = lanes[c.lane].videoSettings else { return nil }
        return ChunkPrediction.predict(c, settings: s, cores: c.cores)
    }
}
