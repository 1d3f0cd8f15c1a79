import CFFmpeg
import Foundation
import Recipe

/// What one pass of two-pass rate control asks of the encoder, as its row says
/// (`VideoEncoder.twoPass`): the pass flag, the statistics file among its options or parameter
/// string, or the first pass's statistics in `stats_in`.
struct EncoderPass {
    /// AV_CODEC_FLAG_PASS1 or AV_CODEC_FLAG_PASS2; 0 where the pass is told in the options.
    var flags: Int32 = 0
    /// The statistics the second pass reads from `stats_in` (`TwoPass.codecStatistics`).
    var statisticsIn: String?
    /// The first pass collects `stats_out` and writes it to this file once drained.
    var collectsInto: String?

    /// `c` made ready for its pass: options added, and what the context takes besides.
    static func prepare(_ c: inout EncoderConfiguration) throws(MediaError) -> EncoderPass {
        guard let pass = c.ratePass, let encoder = VideoEncoder.named(c.codecName) else { return EncoderPass() }
        let first: Bool
        switch pass {
        case .statistics: first = true
        case .final: first = false
        }
        var made = EncoderPass()
        switch encoder.twoPass {
        case .codecStatistics:
            made.flags = first ? AV_CODEC_FLAG_PASS1 : AV_CODEC_FLAG_PASS2
            if first {
                made.collectsInto = pass.file
            } else {
                guard let text = try? String(contentsOfFile: pass.file, encoding: .utf8), !text.isEmpty else {
                    throw MediaError(.processing, "the statistics pass of the \(c.codecName) encoder left no statistics", file: pass.file)
                }
                made.statisticsIn = text
            }
        case .statisticsFile(let option):
            made.flags = first ? AV_CODEC_FLAG_PASS1 : AV_CODEC_FLAG_PASS2
            c.options.removeAll { $0.0 == option }
            c.options.append((option, pass.file))
        case .parameters(let passKey, let fileKey):
            guard let parameters = encoder.parameters else { break }
            let entries = "\(passKey)=\(first ? 1 : 2):\(fileKey)=\(pass.file)"
            if let i = c.options.firstIndex(where: { $0.0 == parameters.option }) {
                c.options[i].1 += ":" + entries
            } else {
                c.options.append((parameters.option, entries))
            }
        case .unsupported(let why):
            throw MediaError(.invalidSettings, "the \(c.codecName) encoder cannot run two passes: \(why)", setting: "passes")
        }
        return made
    }

    /// Sets the flag and `stats_in` on a context not yet opened; `stats_in` is the caller's to
    /// free (FFmpeg: "allocated/set/freed by user"), which `EncoderClosing.free` does.
    func apply(to ctx: UnsafeMutablePointer<AVCodecContext>) throws(MediaError) {
        ctx.pointee.flags |= flags
        if let statisticsIn {
            guard let copy = av_strdup(statisticsIn) else { throw ResourceShortage.outOfMemory("the second pass's statistics") }
            ctx.pointee.stats_in = copy
        }
    }
}

extension Encoder {
    /// After each packet and once drained: libvpx and libaom leave the whole pass's statistics
    /// so far in `stats_out` (base64), set anew each time; the last one read is the pass's.
    func collectStatistics() {
        guard pass.collectsInto != nil, let out = context.pointee.stats_out else { return }
        statistics = String(cString: out)
    }

    /// The first pass, drained: its statistics written where the second pass reads them.
    func writeStatistics() throws(MediaError) {
        guard let file = pass.collectsInto else { return }
        collectStatistics()
        guard let text = statistics, !text.isEmpty else {
            throw MediaError(.processing, "the \(codecName) encoder gave no statistics in its first pass", file: file)
        }
        do { try text.write(toFile: file, atomically: false, encoding: .utf8) } catch {
            throw MediaError(.io, "cannot write the first pass's statistics: \(error.localizedDescription)", file: file)
        }
    }
}
