import Pipeline

/// The output's file metadata in `plan`: each item, where it comes from and what it is written as.
enum MetadataText {
    static func object(_ p: ConversionPlan) -> [String: Any] {
        ["keep": p.kept.policy?.rawValue ?? "all",
         "items": MetadataKeeping.listing(p.kept, format: p.format).map { i -> [String: Any] in
             ["key": i.key, "value": i.value, "origin": i.origin, "writtenAs": i.writtenAs]
         }]
    }

    /// Shown when the recipe has `metadata:` (JSON always has it).
    static func lines(_ p: ConversionPlan) -> [String] {
        guard let policy = p.kept.policy else { return [] }
        let items = MetadataKeeping.listing(p.kept, format: p.format)
        var lines = ["", "metadata  keep \(policy.rawValue), \(items.count) item\(items.count == 1 ? "" : "s")"]
        // Keys as long as QuickTime's (`com.apple.quicktime.location.ISO6709`) set the column.
        let width = min(40, items.map { PlanNotice.printable($0.key).count }.max() ?? 0)
        for i in items {
            lines.append("  \(padded(PlanNotice.printable(i.key), width))  \(padded(PlanNotice.printable(i.value), 24)) \(i.origin) → \(i.writtenAs)")
        }
        return lines
    }
}
