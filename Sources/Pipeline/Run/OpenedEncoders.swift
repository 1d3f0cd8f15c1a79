/// Encoders the plan's rehearsal opened, kept for its run. An encoder opened with a configuration
/// and sent nothing is the one the run would open with it, and opening is not free: SVT-AV1
/// allocates hundreds of megabytes and must code a picture before it may close, so a run that
/// opened its encoders again paid for them twice. The run takes each one whose configuration is
/// a sink's (`EncoderSupply`) and closes the rest once its lanes are made (`closeRest`); a plan
/// that is never run closes them when its last copy goes.
// @unchecked Sendable: the encoders are reached only under `lock`, and each is used by one owner
// at a time — the rehearsal that opened it (on the planning thread, before the plan carrying this
// is handed on), then the one sink `take` moves it to.
final class OpenedEncoders: @unchecked Sendable {
    private let lock = Lock()
    private var idle: [(key: String, encoder: Encoder)] = []

    /// Keeps `encoder`, just opened with `configuration`, for a run. Two-pass encoders are not
    /// kept: the second pass opens with the first pass's statistics, which the rehearsal lacks.
    func keep(_ encoder: Encoder, openedWith configuration: EncoderConfiguration) {
        guard let key = Self.key(configuration) else { return }
        lock.withLock { idle.append((key, encoder)) }
    }

    /// An encoder opened with exactly `configuration`, moved out (nil: none kept).
    func take(_ configuration: EncoderConfiguration) -> Encoder? {
        guard let key = Self.key(configuration) else { return nil }
        return lock.withLock { () -> Encoder? in
            guard let k = idle.firstIndex(where: { $0.key == key }) else { return nil }
            return idle.remove(at: k).encoder
        }
    }

    /// Closes every encoder no sink took.
    func closeRest() {
        var rest: [(key: String, encoder: Encoder)] = []
        lock.withLock { swap(&rest, &idle) }
        // Freed here, outside the lock (SVT-AV1 codes a picture to close).
    }

    /// Every field the encoder is opened with, as text: equal keys open equal encoders.
    private static func key(_ c: EncoderConfiguration) -> String? {
        c.ratePass == nil ? String(reflecting: c) : nil
    }
}

extension ConversionPlan {
    /// The plan without the encoders its rehearsal opened, freed now where no other copy holds
    /// them: for a plan whose settings change after planning, or that is drawn or split but never
    /// encoded as it is — its encoders would only be held.
    func droppingOpenedEncoders() -> ConversionPlan {
        var plan = self
        plan.openedEncoders = nil
        return plan
    }
}

/// Where a lane's sinks get their encoders: one the rehearsal kept where its configuration is
/// the same, else one opened now — kept in turn when this is the rehearsal.
struct EncoderSupply: Sendable {
    /// What the rehearsals of the plans being run kept.
    var kept: [OpenedEncoders] = []
    /// The rehearsal's: what it opens is kept here for the run.
    var keeping: OpenedEncoders? = nil
    /// How many sinks took a kept encoder (tests: a run opens none its rehearsal opened).
    let taken = Locked(0)

    func open(_ configuration: EncoderConfiguration) throws(MediaError) -> Encoder {
        for box in kept {
            if let encoder = box.take(configuration) {
                taken.withLock { $0 += 1 }
                return encoder
            }
        }
        let encoder = try Encoder(configuration)
        keeping?.keep(encoder, openedWith: configuration)
        return encoder
    }
}
