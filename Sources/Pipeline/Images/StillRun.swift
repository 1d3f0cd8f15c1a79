/// A recipe's still images when it writes no media file beside them: each image output decoded
/// on its own (only the frames its stills show and what those reference), all files moved into
/// place together or none. `cancel` stops it from any thread.
public final class StillRun: Sendable {
    public let plans: [StillPlan]
    private let cancellation = Cancellation()

    public init(plans: [StillPlan]) {
        self.plans = plans
    }

    public func cancel() { cancellation.cancel() }

    /// Makes every plan's stills, blocking the calling thread.
    @discardableResult
    public func run() throws(MediaError) -> [ImageGenerator.Statistics] {
        try ImageGenerator.run(plans, cancellation: cancellation) { self.cancellation.isCancelled }
    }
}
