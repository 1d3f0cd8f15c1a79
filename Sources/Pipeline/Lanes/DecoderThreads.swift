import Foundation

/// The threads that the video decoders open at once in one run share.
///
/// Left to itself FFmpeg gives every decoder its automatic count (the machine's cores + 1, at
/// most 16), and a frame-threaded decoder keeps a copy of its state and its pictures in flight
/// per thread: 16 layers shown at once held 16 times that. So a decoder opened while none is
/// open gets FFmpeg's automatic count, as before; one opened while k others are open gets the
/// cores divided among k + 1 (at least 1). A lone decoder keeps FFmpeg's choice: every plain
/// conversion, and each segment of a sequence (`SequenceCombiner` lets one go before it opens
/// the next). A count is fixed when the decoder opens: a layer opened beside another keeps
/// its smaller count after that one ends. Decoded pictures do not depend on the count.
final class DecoderThreads: Sendable {
    private struct State {
        var open = 0
        var held = 0
        var mostHeld = 0
    }

    private let state = Locked(State())
    /// The cores divided among the decoders open at once.
    let cores: Int

    init(cores: Int = ProcessInfo.processInfo.activeProcessorCount) {
        self.cores = max(1, cores)
    }

    /// A share for a decoder about to open: hold it as long as the decoder.
    func lease() -> Lease {
        let open = state.withLock { s -> Int in
            s.open += 1
            return s.open - 1
        }
        return Lease(budget: self, request: Self.request(cores: cores, alreadyOpen: open))
    }

    /// The count asked for when `alreadyOpen` decoders are open: 0 is FFmpeg's automatic count.
    static func request(cores: Int, alreadyOpen: Int) -> Int32 {
        alreadyOpen == 0 ? 0 : Int32(max(1, cores / (alreadyOpen + 1)))
    }

    /// The most decoder threads that were held at once (what FFmpeg gave each, summed).
    var mostHeld: Int { state.withLock { $0.mostHeld } }

    /// The decoders open now.
    var openDecoders: Int { state.withLock { $0.open } }

    fileprivate func hold(_ threads: Int) {
        state.withLock { s in
            s.held += threads
            s.mostHeld = max(s.mostHeld, s.held)
        }
    }

    fileprivate func release(_ threads: Int) {
        state.withLock { s in
            s.open -= 1
            s.held -= threads
        }
    }

    /// One decoder's share, given back when it goes.
    // Not Sendable: it belongs to the stage that owns the decoder, on that lane's queue.
    final class Lease {
        private let budget: DecoderThreads
        /// What to pass as the decoder's thread count.
        let request: Int32
        private var threads = 0

        fileprivate init(budget: DecoderThreads, request: Int32) {
            self.budget = budget
            self.request = request
        }

        /// The decoder opened with `threads` (what FFmpeg settled on).
        func opened(threads: Int32) {
            self.threads = Int(threads)
            budget.hold(self.threads)
        }

        deinit { budget.release(threads) }
    }
}
