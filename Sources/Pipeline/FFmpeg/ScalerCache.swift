import CFFmpeg

/// The Scalers a picture drawer keeps between frames: one per source size and format and target
/// seen lately (a composition alternates a few sources), the least recently used given up first.
/// Making a SwsContext costs far more than a frame's scaling, so each is made once per source.
// Not Sendable: owned by one drawer on one lane's queue.
final class ScalerCache {
    private var scalers: [Scaler] = []
    private let capacity: Int

    init(capacity: Int) { self.capacity = max(capacity, 1) }

    /// A scaler from `frame`'s size and format to `target`: a kept one, or a new one kept in
    /// place of the least recently used.
    func scaler(from frame: Frame, to target: (Int32, Int32, AVPixelFormat)) throws(MediaError) -> Scaler {
        if let i = scalers.firstIndex(where: { $0.matches(frame) && ($0.width, $0.height, $0.format) == target }) {
            let s = scalers.remove(at: i)
            scalers.append(s)
            return s
        }
        let s = try Scaler(from: (frame.width, frame.height, frame.pixelFormat), to: target)
        if scalers.count == capacity { scalers.removeFirst() }
        scalers.append(s)
        return s
    }
}
