extension RecipeCompiler {
    /// Per output (its position in `files`), per output track, why a track planned smart (its
    /// pictures, or its sound copied: `ConversionPlan.smartSound`) cannot be: its read also makes
    /// another output's track or stills (`OutputSet.smartSharing`), which no single output's plan
    /// can see. Empty: every smart track is alone with its read. Decided here once, from the
    /// first planning, so that `plan` says what the run does: a sound planned again so is encoded
    /// whole (`SmartSoundPass`), and the run gives its decoded samples to every output that shares them.
    static func smartSharingObstacles(_ files: [CompiledRecipe], images: [(number: Int, plan: StillPlan)]) -> [Int: [Int: String]] {
        let sharing = OutputSet.smartSharing(files.map(\.plan), stills: images.map(\.plan))
        var obstacles: [Int: [Int: String]] = [:]
        for s in sharing {
            let outputs = s.outputs.map { files[$0].number ?? $0 + 1 }
            let stills = s.stills.map { images[$0].number }
            obstacles[s.plan, default: [:]][s.lane] = s.sound ? smartSoundSharingReason(outputs: outputs)
                : smartSharingReason(outputs: outputs, stills: stills)
        }
        return obstacles
    }

    /// `output 2 takes its pictures from the same read (a smart-rendered track is written to
    /// one output alone)`, for a notice or an error to end with.
    private static func smartSharingReason(outputs: [Int], stills: [Int]) -> String {
        let outputs = outputs.reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
        let stills = stills.reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
        func numbers(_ n: [Int]) -> String {
            n.count == 1 ? "output \(n[0])" : "outputs " + n.dropLast().map(String.init).joined(separator: ", ") + " and \(n[n.count - 1])"
        }
        var made: [String] = []
        if !outputs.isEmpty { made.append(numbers(outputs)) }
        if !stills.isEmpty { made.append("the stills of " + numbers(stills)) }
        guard !made.isEmpty else {
            return "another track of this output takes its pictures from the same read (a smart-rendered track is written once)"
        }
        let verb = stills.isEmpty && outputs.count == 1 ? "takes" : "take"
        let rule = stills.isEmpty ? "is written to one output alone" : outputs.isEmpty ? "draws no stills" : "is written to one output alone and draws no stills"
        return "\(made.joined(separator: " and ")) \(verb) its pictures from the same read (a smart-rendered track \(rule))"
    }

    /// `output 2 takes its sound from the same read (a copied sound is written to one output
    /// alone)`, for the plan's line of a smart-rendered output's sound encoded whole.
    private static func smartSoundSharingReason(outputs: [Int]) -> String {
        let outputs = outputs.reduce(into: [Int]()) { if !$0.contains($1) { $0.append($1) } }
        let rule = "(a copied sound is written to one output alone)"
        guard let last = outputs.last else { return "another track of this output takes its sound from the same read \(rule)" }
        let named = outputs.count == 1 ? "output \(last) takes" : "outputs " + outputs.dropLast().map(String.init).joined(separator: ", ") + " and \(last) take"
        return "\(named) its sound from the same read \(rule)"
    }
}
