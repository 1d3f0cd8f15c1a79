import Dispatch
import Foundation
import Recipe
import Synchronization

/// What a finished conversion produced.
public struct ConversionResult: Sendable {
    public let outputPath: String
    public let duration: MediaTime
    public let bytes: Int
    /// Wall-clock seconds.
    public let elapsed: Double
    public let lanes: [LaneStatistics]
    /// Where the output was ended at its file-length limit; nil: it was not.
    public internal(set) var limitStop: LimitStop?
    /// A chunked output's chunks, as they were encoded (`ChunkTimes`); nil: not chunked.
    public internal(set) var chunkTimes: ChunkTimes?

    /// Output media seconds per wall-clock second.
    public var speed: Double { elapsed > 0 ? duration.seconds / elapsed : 0 }
}

/// Runs one plan, or several outputs' plans from one read: one lane per output track on its own
/// serial queue, joined by a dispatch group; a track that several outputs take alike is read
/// and decoded once and fed to each output's sink (`TeeSink`). Still images beside them take
/// their frames from a lane that decodes their track at the source's times (`StillSink`), and
/// any frame it does not hand over is decoded on its own afterwards. Each output is written to a
/// temp file beside its target, and all — stills too — are moved into place only when every lane
/// drained and every trailer is written. A failed or cancelled run leaves no output file behind, none of them.
public final class ExportSession: Sendable {
    /// The outputs it writes, in order; all read the first one's source (`OutputSet`).
    public let plans: [ConversionPlan]
    /// Still images made from the same read, in order.
    public let stills: [StillPlan]
    /// The first output's plan: the reading every output shares.
    public var plan: ConversionPlan { plans[0] }
    private let cancellation = Cancellation()
    private let activeReader = Locked<ReaderPool?>(nil)
    /// The statistics pass of a two-pass run while it runs (`TwoPassRun`): a cancel stops it too.
    private let firstPass = Locked<ExportSession?>(nil)
    /// The chunk encoders of a chunked run while they run (`ChunkedRun`): a cancel stops them too.
    private let chunkEncoders = Locked<ChunkWorkers?>(nil)
    /// The most readers the last run had open at once (tests: flat in the number of segments).
    private let readersHighWater = Locked(0)
    var mostOpenReaders: Int { readersHighWater.withLock { $0 } }
    /// The most video decoder threads the last run held at once (tests: bounded per layer).
    private let threadsHighWater = Locked(0)
    var mostDecoderThreads: Int { threadsHighWater.withLock { $0 } }
    /// The lanes the last run ran: with several outputs, one per track read (tests: a track that
    /// several outputs take alike is decoded once).
    private let lanesRun = Locked(0)
    var lanesInLastRun: Int { lanesRun.withLock { $0 } }
    private let encodersRun = Locked(0)
    /// Picture and sound encoders the last run opened (tests: one encode shared by outputs alike).
    var encodersInLastRun: Int { encodersRun.withLock { $0 } }
    /// Of those, the ones its plans' rehearsals had opened (`OpenedEncoders`).
    private let encodersKept = Locked(0)
    var encodersKeptInLastRun: Int { encodersKept.withLock { $0 } }
    /// Packets the last run decoded for stills apart from the lanes (tests: none where a lane
    /// hands over every frame the stills show).
    private let stillPacketsAlone = Locked(0)
    var stillPacketsDecodedAlone: Int { stillPacketsAlone.withLock { $0 } }
    /// Video decoders still open when the last run wrote its trailer (tests: none, the lanes let go first).
    private let decodersAtTrailer = Locked(0)
    var openDecodersAtTrailer: Int { decodersAtTrailer.withLock { $0 } }

    /// The cores its video decoders divide (`DecoderThreads`); nil, the machine's.
    let decoderCores: Int?

    public convenience init(plan: ConversionPlan) {
        self.init(plans: [plan], decoderCores: nil)
    }

    /// Several outputs of one read (`OutputSet.check` says whether they can share it).
    /// With `stills`: still images of the same source made from the same decode where it can.
    public convenience init(plans: [ConversionPlan], stills: [StillPlan] = []) {
        self.init(plans: plans, stills: stills, decoderCores: nil)
    }

    /// Tests pin `decoderCores`: a layer's decoder threads, and with them the pictures it still
    /// has in flight when the layer ends (all decoded and counted), are then not the machine's.
    convenience init(plan: ConversionPlan, decoderCores: Int?) {
        self.init(plans: [plan], decoderCores: decoderCores)
    }

    private init(plans: [ConversionPlan], stills: [StillPlan] = [], decoderCores: Int?) {
        precondition(!plans.isEmpty, "an export session writes at least one output")
        self.plans = plans
        self.stills = stills
        self.decoderCores = decoderCores
    }

    /// Stops a running conversion from any thread: every lane stops within a sample or two,
    /// `run` throws `.cancelled` and removes the temp files.
    public func cancel() {
        cancellation.cancel()
        activeReader.withLock { $0?.stop(.cancelled(file: plan.source.path)) }
        firstPass.withLock { $0?.cancel() }
        chunkEncoders.withLock { $0?.cancel() }
    }

    public var isCancelled: Bool { cancellation.isCancelled }

    /// Converts, blocking the calling thread. Progress arrives on a serial reporting queue.
    /// With several outputs, the first one's result (`runAll` has each one's).
    @discardableResult
    public func run(progress: (@Sendable (ConversionProgress) -> Void)? = nil) throws(MediaError) -> ConversionResult {
        try runAll(progress: progress)[0]
    }

    /// Converts every output, blocking the calling thread: one result per output, in order.
    @discardableResult
    public func runAll(progress: (@Sendable (ConversionProgress) -> Void)? = nil) throws(MediaError) -> [ConversionResult] {
        let started = DispatchTime.now().uptimeNanoseconds
        try OutputSet.check(plans)
        let packages = PackageRun(plans)
        try packages.check(plans)
        for p in plans where p.package == nil {
            try OutputLocation.check(p.outputPath, protecting: p.protectedFiles, overwrite: p.overwrite, format: p.format)
            TempFile.removeStale(for: p.outputPath)
        }
        var folders = OutputFolders()
        do throws(MediaError) {
            for p in plans where p.package == nil { try folders.make(for: p.outputPath) }
            try packages.make(&folders)
        } catch { folders.removeMade(); throw error }
        var temps = plans.indices.map { packages.file(for: $0, plans) ?? TempFile.path(for: plans[$0].outputPath) }
        let stillFiles = StillFiles()
        var passes: String?
        defer { passes.map(TwoPassRun.removeFolder) }
        var chunks: String?
        defer { chunks.map(ChunkedRun.removeFolder) }
        var chunkPasses = 2
        var chunkTimes: ChunkTimes?
        do throws(MediaError) {
            var plans = self.plans
            if ChunkedRun.isNeeded(plans) {
                guard plans.count == 1, stills.isEmpty else {
                    throw MediaError(.unsupported, "an output encoded in chunks is its run's only output (no other outputs or stills beside it)",
                                     file: plan.outputPath, setting: "parallel")
                }
                let folder = try ChunkedRun.makeFolder(for: plans[0])
                chunks = folder
                // The chunks open encoders of their own (a share of the cores each): the whole
                // output's, opened by its rehearsal, are not held meanwhile.
                plans[0].openedEncoders?.closeRest()
                // A bitrate-coded output's budgets come from a first pass over the chunks (`ChunkBudgets`).
                if ChunkBudgets.isNeeded(plans[0]) {
                    chunkPasses = 3
                    plans[0] = try measureChunks(plans[0], folder: folder, progress: progress.map { ExportSession.reporting(pass: 1, of: 3, to: $0) })
                }
                let encoding = chunkPasses
                chunkTimes = try runChunks(plans[0], folder: folder, progress: progress.map { ExportSession.reporting(pass: encoding - 1, of: encoding, to: $0) })
                // A budgeted chunk that missed its budget by much is coded once more (`ChunkBudgets.correction`).
                if let again = try ChunkBudgets.correction(plans[0], folder: folder) { _ = try runChunks(again, folder: folder, progress: nil) }
                plans[0] = ChunkedRun.joinPlan(plans[0], folder: folder)
            }
            if TwoPassRun.isNeeded(plans) {
                let folder = try TwoPassRun.makeFolder()
                passes = folder
                try runStatisticsPass(plans, folder: folder, progress: progress)
                plans = TwoPassRun.finalPlans(plans, folder: folder)
            }
            let makers = try stills.map { (still) throws(MediaError) in try StillMaker(still, into: stillFiles) }
            stillPacketsAlone.withLock { $0 = 0 }
            let last = chunks == nil ? 2 : chunkPasses
            let lanes = try runLanes(plans, temps: temps, makers: makers,
                                     progress: passes == nil && chunks == nil ? progress : progress.map { ExportSession.reporting(pass: last, of: last, to: $0) })
            // A joined output is checked before it is put in place (however its chunks were made).
            for (temp, p) in zip(temps, plans) where p.chunking?.files != nil { try ChunkJoinCheck.verify(temp, plan: p) }
            // A composition's stills no output draws: drawn for them alone, nothing encoded.
            try ComposedStillDrawing.draw(makers, cancellation: cancellation)
            let stops = try cutToLimits(&temps)
            for maker in makers {
                do throws(MediaError) {
                    // A composition's pictures exist only as a lane draws them: none is decoded alone.
                    if maker.plan.composition == nil {
                        let alone = try ImageGenerator.decodeMissing(maker) { self.isCancelled }
                        stillPacketsAlone.withLock { $0 += alone.packetsDecoded }
                    }
                    try maker.finish()
                } catch { throw error.at(file: maker.plan.source) }
            }
            if cancellation.isCancelled { throw MediaError.cancelled(file: plan.source.path) }
            try packages.build(temps, plans)
            let files = zip(temps, plans).filter { $1.package == nil }.map { ($0, $1.outputPath, $1.overwrite) } + stillFiles.unplaced
            if !files.isEmpty { try TempFile.commit(files) }
            stillFiles.forgetPlaced()
            try packages.place()
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            return zip(plans, zip(lanes, stops)).map { p, made in
                var info = stat()
                let bytes = p.package != nil ? PackageFolder.bytes(under: p.outputPath) : stat(p.outputPath, &info) == 0 ? Int(info.st_size) : 0
                return ConversionResult(outputPath: p.outputPath, duration: made.1?.end ?? p.duration, bytes: bytes, elapsed: elapsed,
                                        lanes: made.0, limitStop: made.1, chunkTimes: p.chunking != nil ? chunkTimes : nil)
            }
        } catch {
            temps.forEach(TempFile.remove)
            packages.discard()
            stillFiles.discard()
            // Folders this run made go too; one something else was put in stays.
            folders.removeMade()
            throw error
        }
    }

    /// The first of two passes (`TwoPassRun`): the two-pass video tracks alone, their statistics
    /// kept in `folder`; its progress reported as pass 1 of 2.
    private func runStatisticsPass(_ plans: [ConversionPlan], folder: String, progress: (@Sendable (ConversionProgress) -> Void)?) throws(MediaError) {
        let first = ExportSession(plans: try TwoPassRun.statisticsPlans(plans, folder: folder))
        firstPass.withLock { $0 = first }
        defer { firstPass.withLock { $0 = nil } }
        if cancellation.isCancelled { throw MediaError.cancelled(file: plan.source.path) }
        do throws(MediaError) {
            try first.runAll(progress: progress.map { Self.reporting(pass: 1, to: $0) })
        } catch {
            throw error.kind == .cancelled ? MediaError.cancelled(file: plan.source.path) : error
        }
    }

    /// A chunked run's chunks (`ChunkWorkers`), each encoded into its file in `folder`; progress
    /// reported as pass 1 of 2 (the join, with every other track, is pass 2).
    private func runChunks(_ plan: ConversionPlan, folder: String, progress: (@Sendable (ConversionProgress) -> Void)?) throws(MediaError) -> ChunkTimes {
        let workers = ChunkWorkers(plan: plan, folder: folder)
        chunkEncoders.withLock { $0 = workers }
        defer { chunkEncoders.withLock { $0 = nil } }
        if cancellation.isCancelled { throw MediaError.cancelled(file: plan.source.path) }
        try workers.run(progress: progress)
        return workers.times()
    }

    /// A bitrate-coded chunked run's first pass (`ChunkBudgets`): the chunks coded fast at one
    /// quality in `folder`'s first-pass folder, their sizes measured; `plan` with each chunk's budget.
    private func measureChunks(_ plan: ConversionPlan, folder: String, progress: (@Sendable (ConversionProgress) -> Void)?) throws(MediaError) -> ConversionPlan {
        let measuring = try ChunkBudgets.measuringPlan(plan, folder: folder)
        _ = try runChunks(measuring, folder: ChunkBudgets.measuringFolder(folder), progress: progress)
        return try ChunkBudgets.budgeted(plan, measuring: measuring, folder: folder)
    }

    /// The lane is the first of two passes (`TwoPassRun`): its statistics are what it makes.
    static func isStatisticsPass(_ lane: LanePlan) -> Bool {
        if case .statistics? = lane.videoSettings?.ratePass { return true }
        return false
    }

    /// `handler`, told which of the passes each report is of (only the last pass's last report is the run's).
    private static func reporting(pass: Int, of passes: Int = 2, to handler: @escaping @Sendable (ConversionProgress) -> Void) -> @Sendable (ConversionProgress) -> Void {
        { report in
            var p = report
            (p.pass, p.passes) = (pass, passes)
            if pass < passes { p.isFinal = false }
            handler(p)
        }
    }

    /// Each output with a file-length limit, cut to it (`LengthCut`): its temp file is replaced
    /// by the cut one. Per output, where it was ended (nil: it fits whole, or has no limit).
    private func cutToLimits(_ temps: inout [String]) throws(MediaError) -> [LimitStop?] {
        var stops: [LimitStop?] = []
        for (k, p) in plans.enumerated() {
            guard let limit = p.fileLengthLimit else { stops.append(nil); continue }
            let cut = TempFile.path(for: p.outputPath)
            do throws(MediaError) {
                let stop = try LengthCut.cut(temps[k], into: cut, limit: limit, plan: p)
                if stop != nil { TempFile.remove(temps[k]); temps[k] = cut } else { TempFile.remove(cut) }
                stops.append(stop)
            } catch { TempFile.remove(cut); throw error }
        }
        return stops
    }

    /// Ends the reading once every output has passed its file-length limit (nothing read after
    /// that could be kept); a composition is read whole (its segments' readers open as it goes).
    private static func endAtLimits(_ plans: [ConversionPlan], writers: [AssetWriter], reader: ReaderPool) {
        let limits = plans.compactMap { $0.fileLengthLimit?.bytes }
        guard limits.count == plans.count, !plans[0].isComposed else { return }
        let passed = Locked(0)
        for (writer, bytes) in zip(writers, limits) {
            writer.whenPassing(bytes) {
                if passed.withLock({ (n: inout Int) -> Int in n += 1; return n }) == limits.count { reader.end() }
            }
        }
    }

    /// An output track's work as made, with the formats its stages were made for.
    struct MadeLane {
        let work: any LaneWork
        /// What its first source stage gives; nil for a copied or subtitle track.
        var offered: EdgeFormat?
        /// What its sink takes; nil for a copied or subtitle track.
        var sinkInput: EdgeFormat?
    }

    /// The work of output `i`: its decoder and encoder opened (or its stream copied), its writer
    /// input added. Also what a rehearsal opens, so that plan and run negotiate alike: in the
    /// rehearsal (no graph yet) the sink is opened for what the first source offers, and that is
    /// what the plan's graph then holds; a run opens it for the graph's edge, and fails if the
    /// source offers anything else. A composition's later segments are made when the lane reaches them.
    /// With `tee`, the track is also made for other outputs: their sinks take the same frames.
    static func laneWork(_ plan: ConversionPlan, output i: Int, env: LaneEnvironment, tee: Tee? = nil) throws(MediaError) -> MadeLane {
        let lp = plan.lanes[i]
        do throws(MediaError) {
            guard plan.chains.indices.contains(i) else {
                throw MediaError(.processing, "the plan says nothing of how to make this track")
            }
            let chain = plan.chains[i]
            if let chunking = plan.chunking, chunking.lane == i, let files = chunking.files {
                return MadeLane(work: try chunkLane(plan, output: i, chunking: chunking, files: files, env: env, tee: tee))
            }
            if let render = plan.smart[i] { return MadeLane(work: try smartLane(plan, output: i, render: render, env: env, tee: tee)) }
            if let lane = try smartSoundLane(plan, output: i, env: env, tee: tee) { return MadeLane(work: lane) }
            switch lp.kind {
            case .video(let s):
                let inputs = try sourceInputs(plan, lane: i).map { $0.reading(tee?.readerOutput) }
                let make: SequenceCombiner.Maker = { (k: SourceInput) throws(MediaError) -> any SourceStage in
                    do throws(MediaError) {
                        return try VideoSource(env: env, tap: try env.readers.tap(group: k.group, output: k.output), track: k.track,
                                               segment: k.segment, frameRate: s.frameRate, fillsRange: plan.isComposed, holdsEdges: k.holdsEdges,
                                               deinterlace: s.deinterlace)
                    } catch { throw error.at(file: k.file, track: k.track.index) }
                }
                guard let firstInput = inputs.first, let first = try make(firstInput) as? VideoSource else {
                    throw MediaError(.processing, "the plan reads no source for this track")
                }
                let offered = first.pictureFormat
                if !plan.videoLayers.isEmpty {
                    let canvas = try agreed(plan, output: i, offered: offered, input: layerCanvas(s, timing: offered))
                    let work = try layeredLane(plan, output: i, env: env, settings: s, inputs: inputs, first: first, canvas: canvas, tee: tee, make: make)
                    return MadeLane(work: work, offered: .pictures(offered), sinkInput: .pictures(canvas))
                }
                let input = try agreed(plan, output: i, offered: offered, input: offered)
                let taps = try composedStillTaps(tee, plan: plan, settings: s, env: env)
                let stillSinks = (tee?.stills ?? []).map { (sink: StillSink($0, timeBase: first.sourceTimeBase) { env.cancellation.isCancelled } as any SinkStage,
                                                            file: $0.plan.sheet?.path ?? $0.plan.stills[0].path) }
                let sink = try sinks(plan, lane: i, env: env, tee, also: stillSinks) { (other, j, destinations) throws(MediaError) -> any SinkStage in
                    guard case .video(let os) = other.lanes[j].kind else { throw MediaError(.processing, "a tee feeds pictures to a track that is not video") }
                    let edge = try agreed(other, output: j, offered: offered, input: offered)
                    if let drawn = tee?.stillsDrawn { return DrawnStillSink(stills: taps, input: edge, drawnAll: drawn) }
                    return try VideoSink(destinations, settings: os, input: edge, pictures: pictures(other), fades: other.pictureFades,
                                         stills: other.outputPath == plan.outputPath ? taps : [])
                }
                var stage: any SourceStage = first
                if plan.isComposed {
                    let end = s.frameRate.flatMap { rate in TimeMapping.slotCount(to: plan.duration, frameDuration: rate.frameDuration) }
                    stage = SequenceCombiner(first: first, rest: Array(inputs.dropFirst()), make: make,
                                             constantRate: s.frameRate != nil, end: plan.duration.isNumeric ? end : nil)
                }
                return MadeLane(work: StagedLane(env: env, track: lp.track.index, stage: stage, sink: sink),
                                offered: .pictures(offered), sinkInput: .pictures(input))
            case .audio(let s):
                let rate = Int32(s.sampleRate)
                let stretches = plan.audioStretches
                let inputs = try sourceInputs(plan, lane: i).map { $0.reading(tee?.readerOutput) }
                let make: SequenceCombiner.Maker = { (k: SourceInput) throws(MediaError) -> any SourceStage in
                    do throws(MediaError) {
                        return try AudioSource(env: env, tap: try env.readers.tap(group: k.group, output: k.output), track: k.track,
                                               segment: k.segment, outputRate: rate, stretch: stretches[k.timelineSegment])
                    } catch { throw error.at(file: k.file, track: k.track.index) }
                }
                guard let firstInput = inputs.first else { throw MediaError(.processing, "the plan reads no source for this track") }
                let sink = try sinks(plan, lane: i, env: env, tee) { (other, j, destinations) throws(MediaError) -> any SinkStage in
                    guard case .audio(let os) = other.lanes[j].kind else { throw MediaError(.processing, "a tee feeds sound to a track that is not audio") }
                    return try AudioSink(destinations, settings: os)
                }
                // The sink converts each block to the encoder's format as it comes (a composition's
                // files differ): it takes sound as its source or mixer gives it.
                let offered = EdgeFormat.sound(Self.sound(of: firstInput.track, rate: s.sampleRate))
                guard plan.isComposed else {
                    return MadeLane(work: StagedLane(env: env, track: lp.track.index, stage: try make(firstInput), sink: sink),
                                    offered: offered, sinkInput: offered)
                }
                let end = plan.duration.isNumeric ? TimeMapping.samplePosition(atOrAfter: plan.duration, rate: rate) : nil
                // One sequence per composition track; with a mix, the mixer sums them.
                let layers = Array(Set(inputs.map(\.layer))).sorted()
                var sequences: [(layer: Int, stage: any SourceStage)] = []
                for layer in layers {
                    let own = inputs.filter { $0.layer == layer }
                    let first = try make(own[0])
                    sequences.append((layer, SequenceCombiner(first: first, rest: Array(own.dropFirst()), make: make, outputRate: rate, end: end)))
                }
                guard let mix = plan.audioMix else {
                    return MadeLane(work: StagedLane(env: env, track: lp.track.index, stage: sequences[0].stage, sink: sink),
                                    offered: offered, sinkInput: offered)
                }
                let mixer = try AudioMixer(inputs: sequences.map { AudioMixer.Input(stage: $0.stage, volume: mix.volume(of: $0.layer), fade: mix.fade(of: $0.layer)) },
                                           rate: rate, layout: s.channelLayout, limit: mix.limit, end: end, master: mix.master)
                let mixed = SoundFormat(sampleRate: s.sampleRate, sampleFormat: "fltp", channelLayout: s.channelLayout, timeBase: Ratio(1, s.sampleRate))
                return MadeLane(work: StagedLane(env: env, track: lp.track.index, stage: mixer, sink: sink), offered: offered, sinkInput: .sound(mixed))
            case .passthrough where lp.track.mediaType == .subtitle:
                // Copied subtitles are cut to the range too (and read from the file's start).
                return MadeLane(work: try subtitleLane(plan, output: i, env: env, conversion: nil, tee: tee))
            case .passthrough:
                let source: any PacketSourceStage, stream: SourceStream, stamps: TimeBase
                if plan.isComposed {
                    let inputs = try sourceInputs(plan, lane: i).map { $0.reading(tee?.readerOutput) }
                    let joined = try CopiedSequence(env: env, inputs: inputs)
                    (source, stream, stamps) = (joined, joined.stream, joined.timeBase)
                } else {
                    let tap = try env.readers.tap(group: 0, output: tee?.readerOutput ?? i)
                    let copied = try CopiedSource(env: env, tap: tap, track: lp.track, segment: try chain.onlySegment())
                    (source, stream, stamps) = (copied, copied.stream, copied.timeBase)
                }
                let input = try env.writer.addPassthroughInput(from: stream, stampedIn: stamps, rotation: lp.track.format.rotation,
                                                               metadata: lp.track.outputMetadata)
                return MadeLane(work: PacketLane(env: env, track: lp.track.index, stage: source, sink: PacketSink(env: env, output: i, input: input)))
            case .subtitle(let s):
                return MadeLane(work: try subtitleLane(plan, output: i, env: env, conversion: s, tee: tee))
            }
        } catch { throw error.at(file: plan.source.path, track: lp.track.index) }
    }

    /// A smart-rendered video track's lane (`SmartSequence`): its runs read with readers of their
    /// own; a plain conversion's shared reading of the track is let go at once.
    private static func smartLane(_ plan: ConversionPlan, output i: Int, render: SmartRender, env: LaneEnvironment,
                                  tee: Tee?) throws(MediaError) -> PacketLane {
        let track = plan.lanes[i].track
        if !plan.isComposed { try env.readers.tap(group: 0, output: tee?.readerOutput ?? i).detach() }
        let sequence = try SmartSequence(env: env, render: render, sources: plan.sources)
        let input = try env.writer.addPassthroughInput(from: sequence.stream, rotation: track.format.rotation, metadata: track.outputMetadata)
        // As a full encode states it: the copied pictures' SEI carries it, the source's container may not.
        let settings = plan.lanes[i].videoSettings
        try env.writer.stateHDR(input: input, masteringDisplay: settings?.masteringDisplay, contentLightLevel: settings?.contentLightLevel)
        return PacketLane(env: env, track: track.index, stage: sequence, sink: PacketSink(env: env, output: i, input: input))
    }

    /// A chunked video track's lane (`ChunkJoin`): the chunk files joined; the shared reading of
    /// the source's track is let go at once.
    private static func chunkLane(_ plan: ConversionPlan, output i: Int, chunking: ChunkedEncode, files: [String], env: LaneEnvironment,
                                  tee: Tee?) throws(MediaError) -> PacketLane {
        let track = plan.lanes[i].track
        try env.readers.tap(group: 0, output: tee?.readerOutput ?? i).detach()
        let join = try ChunkJoin(env: env, plan: chunking, files: files)
        let input = try env.writer.addPassthroughInput(from: join.stream, rotation: track.format.rotation, metadata: track.outputMetadata)
        return PacketLane(env: env, track: track.index, stage: join, sink: PacketSink(env: env, output: i, input: input))
    }

    /// A subtitle track's lane: its samples cut to the range, copied or coded again (`conversion`).
    private static func subtitleLane(_ plan: ConversionPlan, output i: Int, env: LaneEnvironment, conversion: SubtitleConversion?,
                                     tee: Tee?) throws(MediaError) -> PacketLane {
        let track = plan.lanes[i].track
        let source = try SubtitleSource(env: env, track: track, segment: try plan.chains[i].onlySegment(), conversion: conversion,
                                        fromStart: plan.cutsStart, readerOutput: tee?.readerOutput ?? i)
        let input = try source.addInput(metadata: track.outputMetadata)
        return PacketLane(env: env, track: track.index, stage: source, sink: PacketSink(env: env, output: i, input: input))
    }

    /// The other outputs a lane's track also goes to, and what it reads.
    struct Tee {
        /// The reader output the lane reads: in a run of several outputs, the run's own
        /// numbering (`OutputSet.readers`), not the plan's; nil: the plan's.
        let readerOutput: Int?
        /// Each other output's plan, its output track fed alike, and its environment (its writer).
        var others: [(plan: ConversionPlan, lane: Int, env: LaneEnvironment)] = []
        /// The outputs (0: the lane's own, k: `others[k - 1]`) grouped by encode: each group's
        /// tracks are one encode written into each of their files (`OutputSet`).
        var encodes: [[Int]] = [[0]]
        /// Stills taken from the lane's pictures.
        var stills: [StillMaker] = []
        /// Stills of the composition the lane plays, taken from the pictures its own output's
        /// sink is given (`ComposedStillTap`).
        var composedStills: [StillMaker] = []
        /// Set: the lane draws the composition for `composedStills` only, its sink encodes
        /// nothing (`DrawnStillSink`), and this is set once every still is made.
        var stillsDrawn: Locked<Bool>? = nil
    }

    /// The sink of output track `i` of `plan` alone, or — with a tee — in a tee with the sinks of
    /// the other outputs it feeds, one per encode (`Tee.encodes`), and `also` after them (sinks
    /// that write no track of an output: stills). `make(plan, track, destinations)` opens the
    /// sink of one encode, as the plan and track of its first destination say.
    private static func sinks(_ plan: ConversionPlan, lane i: Int, env: LaneEnvironment, _ tee: Tee?,
                              also: [(sink: any SinkStage, file: String)] = [],
                              make: (ConversionPlan, Int, [SinkDestination]) throws(MediaError) -> any SinkStage) throws(MediaError) -> any SinkStage {
        let members = [(plan: plan, lane: i, env: env)] + (tee?.others ?? [])
        var entries: [TeeSink.Entry] = []
        for group in tee?.encodes ?? [[0]] {
            let m = members[group[0]]
            let destinations = group.map { SinkDestination(env: members[$0].env, output: members[$0].lane, track: members[$0].plan.lanes[members[$0].lane].track) }
            do throws(MediaError) {
                entries.append(TeeSink.Entry(sink: try make(m.plan, m.lane, destinations), file: m.plan.outputPath, outputs: group))
            } catch {
                // The lane's own output's errors are named as the lane's (the caller's).
                throw group[0] == 0 ? error : error.at(file: m.plan.outputPath, track: m.plan.lanes[m.lane].track.index)
            }
        }
        guard members.count > 1 || !also.isEmpty else { return entries[0].sink }
        return TeeSink(entries + also.map { TeeSink.Entry(sink: $0.sink, file: $0.file, outputs: []) })
    }

    /// One chain input of a lane, ready to be made into its source stage.
    struct SourceInput {
        /// Its reader group and output (`ConversionPlan.readerTap`).
        let group: Int
        var output: Int
        let track: Track
        let segment: TimeSegment
        /// Which segment of the plan's timeline.
        let timelineSegment: Int
        let file: String
        /// Its composition track: 0 the lane's own, j ≥ 1 mix input j.
        var layer = 0
        /// Its video layer, when the pictures are drawn as layers (`ConversionPlan.videoLayers`).
        var videoLayer = 0
        /// It shows its edge pictures where its file has none (`StageChain.Input.holdsEdges`).
        var holdsEdges = false

        /// Reading reader output `output` instead (nil: as planned).
        func reading(_ output: Int?) -> SourceInput {
            var input = self
            if let output { input.output = output }
            return input
        }
    }

    /// The edge into output `i`'s sink: in a run, the plan's (and the source must offer the
    /// timing it was agreed for); in the rehearsal, which makes the graph, `input`.
    private static func agreed(_ plan: ConversionPlan, output i: Int, offered: PictureFormat, input: PictureFormat) throws(MediaError) -> PictureFormat {
        guard let graph = plan.graph else { return input }
        guard let edge = graph.sinkInput(i)?.pictures else {
            throw MediaError(.processing, "the plan agreed on no picture format for output track \(i + 1)")
        }
        guard edge.sameTiming(as: offered) else {
            throw MediaError(.processing, "the plan agreed on \(edge) for output track \(i + 1), but its source gives \(offered)")
        }
        return edge
    }

    /// What a plan's pictures still need when they reach its sink (without layers).
    private static func pictures(_ plan: ConversionPlan) -> VideoSink.Pictures {
        plan.extraSources.isEmpty ? .asDecoded : .fitted
    }

    /// The compositor's pictures: the output's size and pixel format, on the sources' timing.
    private static func layerCanvas(_ s: ResolvedVideoSettings, timing: PictureFormat) -> PictureFormat {
        PictureFormat(width: s.width, height: s.height, pixelFormat: s.pixelFormat, timeBase: timing.timeBase, frameRate: timing.frameRate)
    }

    /// Sound as `track`'s decoder gives it, stamped in samples of `rate`.
    static func sound(of track: Track, rate: Int) -> SoundFormat {
        let f = track.format
        return SoundFormat(sampleRate: f.sampleRate, sampleFormat: f.sampleFormat ?? "none", channelLayout: f.channelLayout ?? "\(f.channels) channels",
                           timeBase: Ratio(1, rate))
    }

    /// A video lane whose pictures are drawn as layers: one sequence per layer (pictures only
    /// where its segments are) into the compositor, into the sink (opened for `canvas`). `first`
    /// is `inputs[0]`'s stage, made already.
    private static func layeredLane(_ plan: ConversionPlan, output i: Int, env: LaneEnvironment, settings s: ResolvedVideoSettings,
                                    inputs: [SourceInput], first: VideoSource, canvas: PictureFormat, tee: Tee?,
                                    make: @escaping SequenceCombiner.Maker) throws(MediaError) -> any LaneWork {
        let lp = plan.lanes[i]
        guard let rate = s.frameRate, let format = PixelFormat(named: s.pixelFormat) else {
            throw MediaError(.processing, "layers are drawn on a constant frame rate in a known pixel format")
        }
        let end = plan.duration.isNumeric ? TimeMapping.slotCount(to: plan.duration, frameDuration: rate.frameDuration) : nil
        // Other outputs take the canvas as drawn, scaled to their size (`OutputSet.compositionRefusal`).
        let taps = try composedStillTaps(tee, plan: plan, settings: s, env: env)
        let sink = try sinks(plan, lane: i, env: env, tee) { (other, j, destinations) throws(MediaError) -> any SinkStage in
            guard case .video(let os) = other.lanes[j].kind else { throw MediaError(.processing, "a tee feeds pictures to a track that is not video") }
            // Output paths differ (`OutputSet.check`): the plan's own track is opened for the canvas itself.
            let own = other.outputPath == plan.outputPath
            let edge = own ? canvas : try agreed(other, output: j, offered: canvas, input: layerCanvas(os, timing: canvas))
            if let drawn = tee?.stillsDrawn { return DrawnStillSink(stills: taps, input: edge, drawnAll: drawn) }
            return try VideoSink(destinations, settings: os, input: edge, pictures: .finished, fades: other.pictureFades, stills: own ? taps : [])
        }
        var layers: [VideoCompositor.Layer] = []
        for (j, style) in plan.videoLayers.enumerated() {
            let own = inputs.filter { $0.videoLayer == j }
            guard let head = own.first else { continue }
            // A layer is opened when it is first shown, not at the start: 200 layers would
            // otherwise hold 200 decoders, readers and pictures for the whole run.
            let shared = head.timelineSegment == inputs[0].timelineSegment
            let stage = SequenceCombiner(first: shared ? first : nil, rest: Array(own.dropFirst(shared ? 1 : 0)), make: make,
                                         constantRate: true, end: end, leavesGaps: true)
            // A slot early rather than late: the layer's own mapping says which slot is its first.
            let firstSlot = shared ? 0 : max(0, (TimeMapping.slotCount(to: head.segment.targetStart, frameDuration: rate.frameDuration) ?? 0) - 1)
            layers.append(VideoCompositor.Layer(stage: stage, style: style, firstSlot: firstSlot))
        }
        // The canvas in the output's colours: a source picture's (full range, another matrix) is converted as it is drawn.
        let painter = try LayerPainter(width: Int32(s.width), height: Int32(s.height), format: format, background: plan.background,
                                       outputColor: (s.colorRange, s.colorMatrix, s.colorPrimaries, s.colorTransfer))
        let compositor = VideoCompositor(layers: layers, painter: painter, toneMapping: s.toneMapping.map { PictureToneMapping($0, target: format) },
                                         end: end, frameDuration: rate.frameDuration)
        return StagedLane(env: env, track: lp.track.index, stage: compositor, sink: sink)
    }

    /// Lane `lane`'s chain inputs, in order.
    static func sourceInputs(_ plan: ConversionPlan, lane: Int) throws(MediaError) -> [SourceInput] {
        let chain = plan.chains[lane]
        let segments = try chain.segments()
        var inputs: [SourceInput] = []
        for j in segments.indices {
            let input = chain.inputs[j]
            let asset = plan.sources[input.source]
            guard let at = plan.readerTap(lane: lane, input: j) else {
                throw MediaError(.processing, "the plan reads no source for input \(j) of this track")
            }
            guard let track = asset.track(index: input.track) else {
                throw MediaError(.processing, "\(asset.path) has no track #\(input.track)")
            }
            inputs.append(SourceInput(group: at.group, output: at.output, track: track, segment: segments[j],
                                      timelineSegment: input.segment, file: asset.path, layer: input.mixInput ?? plan.layer(of: input.segment),
                                      videoLayer: plan.videoLayer(of: input.segment), holdsEdges: input.holdsEdges))
        }
        return inputs
    }

    /// Runs every lane; each output's lane statistics, in output order.
    private func runLanes(_ planned: [ConversionPlan], temps: [String], makers: [StillMaker], progress: (@Sendable (ConversionProgress) -> Void)?) throws(MediaError) -> [[LaneStatistics]] {
        // The run executes the graph each plan agreed on; a plan made without the planner (tests)
        // is negotiated first.
        var plans = planned
        for k in plans.indices where plans[k].graph == nil { try Negotiation.negotiate(&plans[k]) }
        // The compiler plans a smart track whose read makes more as a full encode (or refuses
        // it); a plan made without it is refused here, before anything is written.
        if let s = OutputSet.smartSharing(plans, stills: stills).first {
            let track = plans[s.plan].lanes[s.lane].track.index
            if s.sound {
                throw MediaError(.unsupported, "a smart-rendered output's copied sound is written to one output: give the other outputs their own recipe",
                                 file: plans[s.plan].outputPath, track: track)
            }
            throw MediaError(.unsupported, "a smart-rendered track is written to one output and draws no stills: give the other outputs their own recipe",
                             file: plans[s.plan].outputPath, track: track, setting: "smart")
        }
        let feeds = OutputSet.feeds(plans)
        let stillFeeds = OutputSet.stillFeeds(plans, stills: stills)
        let reader = OutputSet.readers(plans, feeds: feeds)
        var writers: [AssetWriter] = []
        for (k, p) in plans.enumerated() { writers.append(try AssetWriter(path: temps[k], format: p.format, names: p.outputPath)) }
        Self.endAtLimits(plans, writers: writers, reader: reader)
        // Every output moves at the pace of the first (they are pulled together): its progress is the run's.
        let trackers = plans.enumerated().map { k, p in
            ProgressTracker(lanes: p.lanes.map { LaneProgress(track: $0.track.index, mediaType: $0.track.mediaType, outputTime: .zero, frames: 0) },
                            duration: p.duration, handler: k == 0 ? progress : nil)
        }
        let env = LaneEnvironment(readers: reader, file: plan.source.path, writer: writers[0],
                                  cutsStart: plan.cutsStart, cutsEnd: plan.cutsEnd,
                                  progress: trackers[0], cancellation: cancellation, selectiveDecode: plan.selectiveDecode,
                                  decoderThreads: decoderCores.map { DecoderThreads(cores: $0) } ?? DecoderThreads(),
                                  encoders: EncoderSupply(kept: plans.compactMap(\.openedEncoders)))
        let envs = [env] + zip(writers, trackers).dropFirst().map { env.writing(to: $0, progress: $1) }

        // Negotiate: every decoder and encoder opens, and every header is written, before data flows.
        var lanes: [Lane] = []
        var encoders = 0
        for (f, feed) in feeds.enumerated() {
            let (k, i) = feed.members[0]
            let riding = zip(makers, stillFeeds).filter { $0.1 == f }.map(\.0)
            // A composition's lanes read as the first output's plan says (`OutputSet.readers`).
            let tee = plans.count == 1 && riding.isEmpty ? nil
                : Tee(readerOutput: plans.count == 1 || plans[0].isComposed ? nil : f, others: feed.members.dropFirst().map { (plans[$0.plan], $0.lane, envs[$0.plan]) },
                      encodes: feed.encodes, stills: riding.filter { $0.plan.composition == nil },
                      composedStills: riding.filter { $0.plan.composition != nil })
            let work = try Self.laneWork(plans[k], output: i, env: envs[k], tee: tee).work
            encoders += work.encoders
            lanes.append(Lane(name: "\(f)-track\(plans[k].lanes[i].track.index)", work: work))
        }
        for (k, writer) in writers.enumerated() {
            do throws(MediaError) {
                try writer.start(kept: plans[k].kept, optimizeForNetwork: plans[k].optimizeForNetwork, fragments: plans[k].fragments)
            } catch { throw error.at(file: plans[k].outputPath) }
        }
        // What the rehearsals opened and no sink took is not held through the run.
        for p in plans { p.openedEncoders?.closeRest() }

        activeReader.withLock { $0 = reader }
        lanesRun.withLock { $0 = lanes.count }
        encodersRun.withLock { $0 = encoders }
        encodersKept.withLock { $0 = env.encoders.taken.withLock { $0 } }
        defer {
            activeReader.withLock { $0 = nil }
            readersHighWater.withLock { $0 = reader.mostOpenReaders }
            threadsHighWater.withLock { $0 = env.decoderThreads.mostHeld }
        }
        if cancellation.isCancelled { reader.stop(.cancelled(file: plan.source.path)) }

        let failure = Locked<MediaError?>(nil)
        let group = DispatchGroup()
        reader.lanesStarted()
        for lane in lanes {
            lane.start(in: group) { error in
                // The first error wins; it stops every other lane through the reader.
                let first = failure.withLock { f -> Bool in
                    if f == nil || f?.kind == .cancelled && error.kind != .cancelled { f = error; return true }
                    return false
                }
                if first { reader.stop(error) }
            }
        }
        let finished = DispatchSemaphore(value: 0)
        group.notify(queue: DispatchQueue(label: "reencode.finish")) {
            // A track that produced nothing would make a file that plays as empty: that is a
            // failure, never a result.
            if failure.withLock({ $0 }) == nil && !self.cancellation.isCancelled {
                for (lane, feed) in zip(lanes, feeds) {
                    for (member, statistics) in zip(feed.members, lane.outputStatistics) where statistics.packetsWritten == 0 {
                        let p = plans[member.plan], track = p.lanes[member.lane].track
                        // A subtitle track may rightly have nothing to show in the time range; a
                        // statistics pass gives statistics, and libvpx's and libaom's no pictures.
                        guard track.mediaType != .subtitle, !Self.isStatisticsPass(p.lanes[member.lane]) else { continue }
                        let read = statistics.packetsRead
                        let why = read == 0 ? "the file holds no samples for it" : "none of its \(read) samples decoded to anything in the time range"
                        failure.withLock { $0 = $0 ?? MediaError(.processing, "nothing to convert: \(why)", file: p.source.path, track: track.index) }
                    }
                }
            }
            finished.signal()
        }
        finished.wait()
        // The lanes let go of their codecs and readers as they ended; the trailer builds the index
        // it writes first here, on the thread that probed the source, reusing that memory.
        decodersAtTrailer.withLock { $0 = env.decoderThreads.openDecoders }
        if failure.withLock({ $0 }) == nil && !cancellation.isCancelled {
            for (k, writer) in writers.enumerated() {
                do throws(MediaError) { try writer.finish() } catch { throw error.at(file: plans[k].outputPath) }
            }
        }
        if cancellation.isCancelled { throw MediaError.cancelled(file: plan.source.path) }
        if let error = failure.withLock({ $0 }) { throw error }
        trackers.forEach { $0.finish() }
        var statistics: [[LaneStatistics?]] = plans.map { Array(repeating: nil, count: $0.lanes.count) }
        for (lane, feed) in zip(lanes, feeds) {
            for (member, s) in zip(feed.members, lane.outputStatistics) { statistics[member.plan][member.lane] = s }
        }
        return statistics.map { $0.compactMap { $0 } }
    }
}
