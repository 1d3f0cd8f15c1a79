/// One value the assistant chose, with the rule that chose it: what `reencode plan` prints.
public struct Decision: Sendable, Hashable, CustomStringConvertible {
    public let setting: String
    public let value: String
    /// A stable rule name (`size.fit-box`, `frame-rate.cap-ntsc`) tests and scripts can rely on.
    public let rule: String
    public let reason: String

    public var description: String { "\(setting) = \(value)  [\(rule)] \(reason)" }
}

/// Where a value came from, for settings that were not derived.
enum Origin {
    static let settings = "settings"
}
