import CFFmpeg
import Recipe

/// Where a file starts, exactly. FFmpeg states a file's start in microseconds: the earliest of
/// its streams' starts, each rounded to the nearest microsecond. A stream's own start is exact in
/// its time base, and where that is 90 kHz (MPEG-TS) the rounding can land after it: a transport
/// stream whose first picture is at 132000/90000 s (1.4666…) starts at 1.466667 s, and a start
/// after the first picture leaves that picture out of every range read from the start. So the
/// file's start is the earliest stream start that rounds to FFmpeg's microseconds, in that
/// stream's own time base; FFmpeg's value where none does.
extension InputContainer {
    /// FFmpeg's start for the file, as exact as a stream states it (`startTime`, before any
    /// Matroska sound lead); nil where the file states none.
    var exactStart: MediaTime? {
        let stated = context.pointee.start_time
        guard stated != FFmpeg.noPTS else { return nil }
        let agreeing = (0..<streamCount).compactMap { i -> MediaTime? in
            let st = stream(i)
            guard st.pointer.pointee.start_time != FFmpeg.noPTS, st.timeBase.num > 0 else { return nil }
            let exact = st.startTime
            guard let rounded = try? exact.ts(in: .microseconds, rounding: .nearest), rounded == stated else { return nil }
            return exact
        }
        return agreeing.min() ?? MediaTime(ts: stated, timeBase: .microseconds)
    }
}
