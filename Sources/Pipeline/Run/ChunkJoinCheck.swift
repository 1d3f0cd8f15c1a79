import Recipe

/// The check a chunked output passes before it is put in place (it fails closed: the run fails,
/// no output is written, and the message names the chunk). Its video track, read back from the
/// written file, holds exactly the plan's pictures, each at exactly its planned time — so no
/// picture was lost or doubled at a join, the times run on without a gap, and the track keeps
/// its place beside the sound, which is made whole as in a plain run — and it decodes from
/// first to last picture without a single error (damage is an error here, not concealed).
/// `ChunkJoin` already checked each chunk's first picture and set-up as it joined them.
enum ChunkJoinCheck {
    static func verify(_ file: String, plan: ConversionPlan) throws(MediaError) {
        guard let chunking = plan.chunking else { return }
        do throws(MediaError) {
            let input = try InputContainer(path: file)
            let index = (0..<input.streamCount).contains(chunking.lane) && input.stream(chunking.lane).mediaType == .video
                ? chunking.lane : try firstVideo(input)
            input.readOnly(stream: index)
            let stream = input.stream(index)
            let decoder = try Decoder(stream: stream, strict: true)
            var shown: [MediaTime] = []
            var decoded = 0
            let packet = try Packet()
            while try input.read(into: packet) {
                guard Int(packet.streamIndex) == index else { continue }
                let time = packet.shownTime(in: stream.timeBase)
                shown.append(time)
                decoded += try decode(packet, with: decoder, at: time, chunking: chunking)
            }
            decoded += try decode(nil, with: decoder, at: shown.last ?? .zero, chunking: chunking)
            shown.sort()
            try checkTimes(shown, timeBase: stream.timeBase, startSlack: startSlack(plan.format), chunking: chunking)
            guard decoded == chunking.frames else {
                throw MediaError(.processing, "the joined track decodes to \(decoded) pictures, the plan has \(chunking.frames)")
            }
        } catch {
            var e = error
            e.message = "the joined output fails its check: \(error.message); nothing is written"
            throw e.at(file: plan.outputPath)
        }
    }

    private static func firstVideo(_ input: InputContainer) throws(MediaError) -> Int {
        guard let i = (0..<input.streamCount).first(where: { input.stream($0).mediaType == .video }) else {
            throw MediaError(.processing, "it has no video track")
        }
        return i
    }

    /// Pictures decoded from `packet` (nil: drains the decoder); an error names the chunk.
    private static func decode(_ packet: Packet?, with decoder: Decoder, at time: MediaTime, chunking: ChunkedEncode) throws(MediaError) -> Int {
        var n = 0
        do throws(MediaError) {
            while try !decoder.send(packet) {
                while try decoder.receive() != nil { n += 1 }
            }
            while try decoder.receive() != nil { n += 1 }
        } catch {
            throw MediaError(.processing, "\(chunkName(at: time, chunking)) does not decode cleanly at \(time.secondsDescription): \(error.message)")
        }
        return n
    }

    /// How far the container may put a track's first picture from its time: MP4 and MOV state
    /// a track that starts after the file (a video after its sound) by an empty edit in the
    /// movie's timescale, which FFmpeg writes in milliseconds, rounded down — a one-piece
    /// encode's track starts there too. Other containers keep the track's own ticks.
    static func startSlack(_ format: ContainerFormat) -> MediaTime {
        format == .mp4 || format == .mov ? MediaTime(value: 1, timescale: 1000) : .zero
    }

    /// Every picture at its planned time: the first within the container's `startSlack` (and a
    /// tick), every other one as far from its planned time as the first, to the tick the
    /// container keeps (no gap, no overlap at a join).
    private static func checkTimes(_ shown: [MediaTime], timeBase: TimeBase, startSlack: MediaTime, chunking: ChunkedEncode) throws(MediaError) {
        let planned = chunking.frameTimes
        var shift: Int64 = 0
        let slack = try startSlack.ts(in: timeBase, rounding: .up) + 1
        for (i, want) in planned.enumerated() {
            guard i < shown.count else {
                throw MediaError(.processing, "it holds \(shown.count) pictures, the plan \(planned.count): \(chunkName(at: want, chunking)) lost its pictures from \(want.secondsDescription)")
            }
            let got = shown[i]
            let wantTicks = try want.ts(in: timeBase, rounding: .nearest), gotTicks = try got.ts(in: timeBase, rounding: .nearest)
            if i == 0, abs(gotTicks - wantTicks) <= slack { shift = gotTicks - wantTicks }
            guard abs(wantTicks + shift - gotTicks) <= 1 else {
                let moved = shift == 0 ? "" : ", moved \(shift) ticks with the track's start"
                throw MediaError(.processing, "picture \(i + 1) is at tick \(gotTicks) of \(timeBase) (\(got.secondsDescription)), "
                                 + "the plan puts it at tick \(wantTicks) (\(want.secondsDescription))\(moved) (\(chunkName(at: want, chunking)))")
            }
        }
        if shown.count > planned.count {
            throw MediaError(.processing, "it holds \(shown.count) pictures, the plan \(planned.count): an extra one at \(shown[planned.count].secondsDescription) (\(chunkName(at: shown[planned.count], chunking)))")
        }
    }

    /// "chunk N", the chunk whose output range holds `time`.
    static func chunkName(at time: MediaTime, _ chunking: ChunkedEncode) -> String {
        let chunk = chunking.chunks.last { $0.outputRange.start <= time } ?? chunking.chunks[0]
        return "chunk \(chunk.number)"
    }
}
