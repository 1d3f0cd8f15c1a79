/// Finds where sounds start in a stream of (mono) samples, for `WSOLAKernel` to put each on its
/// sample: a 1 ms block whose energy is `ratio` times the mean of the 20 ms before it and above
/// -50 dBFS, placed on the first sample of it (or of the block before) that rises above a quarter
/// of the block's peak. One onset per `refractory` samples: the warp around one onset needs that
/// much room before the next.
struct OnsetDetector {
    let block: Int
    let refractory: Int64
    private let ratio: Double = 8
    private let floor: Double = 1e-5
    private var history: [Double]
    private var next = 0
    private var filled = 0
    /// Absolute index of the next block to look at (the input before it is scanned).
    private(set) var scanned: Int64 = 0
    private var last = Int64.min / 2

    init(sampleRate: Int32, refractory: Int64) {
        block = max(1, Int(sampleRate) / 1000)
        self.refractory = refractory
        history = Array(repeating: 0, count: 20)
    }

    /// Scans the whole blocks of `samples` (absolute index `base` at its start) up to `available`
    /// and returns the onsets found in them. The block before `scanned` must still be in `samples`.
    mutating func scan(_ samples: UnsafeBufferPointer<Float>, base: Int64, available: Int64) -> [Int64] {
        var found: [Int64] = []
        while scanned + Int64(block) <= available {
            let start = Int(scanned - base)
            var energy = 0.0, peak: Float = 0
            var i = start
            while i < start + block {
                let x = samples[i]
                energy += Double(x) * Double(x)
                peak = max(peak, abs(x))
                i += 1
            }
            energy /= Double(block)
            let mean = filled == 0 ? 0 : history.reduce(0, +) / Double(filled)
            if energy > floor, energy > ratio * mean, scanned - last >= refractory {
                let threshold = max(0.25 * peak, Float(3 * mean.squareRoot()))
                var t = max(scanned - Int64(block), base, 0)
                while t < scanned + Int64(block), abs(samples[Int(t - base)]) <= threshold { t += 1 }
                found.append(t)
                last = t
            }
            history[next] = energy
            next = (next + 1) % history.count
            filled = min(filled + 1, history.count)
            scanned += Int64(block)
        }
        return found
    }
}
