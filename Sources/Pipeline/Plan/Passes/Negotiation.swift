/// The planner's last pass: everything the run opens is opened now (`Rehearsal`), so what it
/// would refuse is refused before any decoding, and what the encoders really make replaces what
/// was only asked of them.
enum Negotiation {
    static func negotiate(_ plan: inout ConversionPlan) throws(MediaError) {
        let rehearsal = try Rehearsal.run(plan)
        plan.lanes = zip(plan.lanes, rehearsal.profiles).map { lane, real in lane.withEncoderProfile(real) }
    }
}
