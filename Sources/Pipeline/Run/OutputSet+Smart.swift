/// Smart-rendered tracks among several outputs of one read. A smart track's lane copies the
/// source's samples and encodes only around the cuts, reading with readers of its own: it makes
/// no decoded pictures another output's track or a still could take. So a smart track must be
/// alone in its feed and give no stills; the compiler plans such a track as a full encode
/// (`smart: auto`) or refuses it (`require`), and the run refuses what slips past (a plan made
/// without the compiler). The copied sound of a smart-rendered output (`SmartSound`) makes no
/// decoded samples either: where another output's track takes the same sound, the compiler plans
/// it encoded whole, saying why (the sound has no `smart` key of its own to refuse at).
extension OutputSet {
    /// A smart-rendered video track whose read other outputs' tracks or stills also take.
    public struct SmartSharing: Sendable {
        /// The output (0-based) and its output track (in `lanes` order).
        public let plan: Int
        public let lane: Int
        /// The other outputs (0-based) its feed writes, in order.
        public let outputs: [Int]
        /// The stills (positions in the run's stills) taken from its pictures.
        public let stills: [Int]
        /// The track is a smart-rendered output's copied sound (`ConversionPlan.smartSound`),
        /// not its smart-rendered pictures.
        public var sound = false
    }

    /// Every smart-rendered track of `plans` that shares its feed with another output track or
    /// gives `stills` their pictures, as `feeds` and `stillFeeds` decide the run's lanes.
    public static func smartSharing(_ plans: [ConversionPlan], stills: [StillPlan]) -> [SmartSharing] {
        let feeds = feeds(plans)
        let riding = stillFeeds(plans, stills: stills)
        var found: [SmartSharing] = []
        for (f, feed) in feeds.enumerated() {
            let stillsHere = riding.indices.filter { riding[$0] == f }
            guard feed.members.count > 1 || !stillsHere.isEmpty else { continue }
            for member in feed.members {
                let plan = plans[member.plan]
                guard plan.smart[member.lane] != nil || plan.smartSound[member.lane] != nil else { continue }
                var others: [Int] = []
                for m in feed.members where m.plan != member.plan && !others.contains(m.plan) { others.append(m.plan) }
                found.append(SmartSharing(plan: member.plan, lane: member.lane, outputs: others, stills: stillsHere,
                                          sound: plan.smartSound[member.lane] != nil))
            }
        }
        return found
    }
}
