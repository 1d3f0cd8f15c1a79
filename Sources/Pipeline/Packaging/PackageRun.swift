import Recipe

/// The packages among a run's outputs (`PackageMember`): each rendition's fragmented MP4 goes
/// into its package's temporary folder instead of beside a file of its own; once every lane has
/// drained, the files are split into segments and the playlists written, and the folders are put
/// in place after the run's other outputs.
struct PackageRun {
    private(set) var folders: [PackageFolder] = []

    init(_ plans: [ConversionPlan]) {
        var order: [String] = [], members: [String: [Int]] = [:], first: [String: ConversionPlan] = [:]
        for (k, plan) in plans.enumerated() {
            guard let m = plan.package else { continue }
            if members[m.folder] == nil { order.append(m.folder); first[m.folder] = plan }
            members[m.folder, default: []].append(k)
        }
        folders = order.map { f in
            PackageFolder(folder: f, format: first[f]!.package!.format, overwrite: first[f]!.overwrite, members: members[f]!)
        }
    }

    var isEmpty: Bool { folders.isEmpty }

    /// Each package can be made where it goes.
    func check(_ plans: [ConversionPlan]) throws(MediaError) {
        for f in folders {
            try PackageFolder.check(f.folder, format: f.format, protecting: plans[f.members[0]].protectedFiles, overwrite: f.overwrite)
        }
    }

    /// Makes each package's temporary folder; `made` collects the folders it made above them.
    func make(_ made: inout OutputFolders) throws(MediaError) {
        var done: [PackageFolder] = []
        do throws(MediaError) {
            for f in folders { try f.make(&made); done.append(f) }
        } catch {
            done.forEach { $0.discard() }
            throw error
        }
    }

    /// Where output `k` is written: its package's temporary folder; nil: not a rendition.
    func file(for k: Int, _ plans: [ConversionPlan]) -> String? {
        guard let m = plans[k].package, let f = folders.first(where: { $0.folder == m.folder }) else { return nil }
        return f.file(of: m.rendition)
    }

    /// Splits the renditions' files (`temps`, the run's per output) and writes the playlists.
    func build(_ temps: [String], _ plans: [ConversionPlan]) throws(MediaError) {
        for f in folders {
            var asked: [String: Int] = [:]
            for k in f.members { asked[plans[k].package!.rendition] = plans[k].lanes.lazy.compactMap(\.videoSettings).first?.bitrate }
            try f.build(files: f.members.map { temps[$0] }, renditions: f.members.map { plans[$0].package!.rendition },
                        segment: plans[f.members[0]].package!.segment, asked: asked)
        }
    }

    /// Puts every package in place, in order (after the run's files: those are placed together).
    func place() throws(MediaError) {
        for f in folders { try f.place() }
    }

    func discard() { folders.forEach { $0.discard() } }
}
