import Foundation
import Pipeline
import Recipe

struct InspectCommand: Command {
    static let name = "inspect"
    static let abstract = "Show a media file's tracks and formats."
    static let usage = "reencode inspect [--json] [--loudness] FILE..."
    static let help = """
        OVERVIEW: \(abstract)

        USAGE: \(usage)

        ARGUMENTS:
          FILE            A media file (mp4, mov, m4a, mkv, …).

        OPTIONS:
          --json          Print a JSON object per file (an array for several); see docs/inspect-json.md.
          --loudness      Also decode every audio track whole and report its integrated loudness
                          (LUFS), loudness range (LU) and true peak (dBTP), as ITU-R BS.1770-4 and
                          EBU R128 measure them ('loudness' in JSON).
          -h, --help      Show help information.

        EXIT STATUS: 0 ok, 66 a file is missing or not media.
        """

    let files: [String]
    let json: Bool
    let loudness: Bool

    init(arguments: [String]) throws(UsageError) {
        let a = try ArgumentScanner(arguments, flags: ["--json", "--loudness"], options: [], usage: Self.usage)
        guard !a.positionals.isEmpty else { throw UsageError(message: "missing FILE", usage: Self.usage) }
        files = a.positionals
        json = a.flag("--json")
        loudness = a.flag("--loudness")
    }

    func run() -> Int32 {
        var objects: [[String: Any]] = []
        var status = ExitCode.ok
        for file in files {
            do throws(MediaError) {
                let asset = try Asset.load(file)
                let measured = loudness ? try LoudnessReading.measure(path: file) : nil
                if json {
                    var o = AssetJSON.object(asset)
                    if let measured { o["loudness"] = LoudnessText.object(measured) }
                    objects.append(o)
                } else {
                    writeOut(AssetText.describe(asset) + (measured.map { "\n" + LoudnessText.lines($0).joined(separator: "\n") } ?? ""))
                }
            } catch {
                status = report(error)
            }
        }
        if json && !objects.isEmpty { writeOut(jsonString(files.count == 1 ? objects[0] as Any : objects as Any)) }
        return status
    }
}

/// The documented JSON form of an asset (docs/inspect-json.md).
enum AssetJSON {
    static func object(_ a: Asset) -> [String: Any] {
        var o: [String: Any] = [
            "file": a.path,
            "format": a.formatName,
            "formatName": a.formatLongName,
            "startTime": seconds(a.startTime),
            "duration": seconds(a.duration),
            "metadata": a.metadata,
            "tracks": a.tracks.map(track),
        ]
        if let b = a.bitRate { o["bitRate"] = b }
        if let s = InspectSlowMotion.object(a) { o["slowMotion"] = s }
        return o
    }

    static func track(_ t: Track) -> [String: Any] {
        let f = t.format
        var o: [String: Any] = [
            "index": t.index,
            "type": f.mediaType.rawValue,
            "ordinal": t.ordinal ?? NSNull(),
            "codec": f.codec,
            "startTime": seconds(t.startTime),
            "duration": seconds(t.duration),
            "timeBase": t.timeBase.description,
            "metadata": t.metadata,
        ]
        if let p = f.profile { o["profile"] = p }
        if let b = f.bitRate { o["bitRate"] = b }
        if let l = t.language { o["language"] = l }
        if t.isAttachedPicture { o["attachedPicture"] = true }
        switch f.mediaType {
        case .video:
            let d = f.displaySize
            o["width"] = f.width
            o["height"] = f.height
            o["displayWidth"] = d.width
            o["displayHeight"] = d.height
            o["pixelAspect"] = f.pixelAspect.description
            o["rotation"] = f.rotation
            if let v = f.pixelFormat { o["pixelFormat"] = v }
            if let v = f.bitDepth { o["bitDepth"] = v }
            if let v = f.colorPrimaries { o["colorPrimaries"] = v }
            if let v = f.colorTransfer { o["colorTransfer"] = v }
            if let v = f.colorMatrix { o["colorMatrix"] = v }
            if let v = f.colorRange { o["colorRange"] = v }
            if let v = f.chromaLocation { o["chromaLocation"] = v }
            if let v = f.fieldOrder { o["fieldOrder"] = v.rawValue }
            if let h = hdrObject(f.hdr) { o["hdr"] = h }
            if let r = f.averageFrameRate {
                o["frameRate"] = r.description
                o["framesPerSecond"] = r.framesPerSecond
                o["averageFrameDuration"] = r.frameDuration.description
            }
            if let m = f.minFrameDuration { o["minFrameDuration"] = m.description }
            if let n = f.frameCount { o["frameCount"] = n }
        case .audio:
            o["sampleRate"] = f.sampleRate
            o["channels"] = f.channels
            if let v = f.channelLayout { o["channelLayout"] = v }
            if let v = f.sampleFormat { o["sampleFormat"] = v }
            if let n = f.frameCount { o["frameCount"] = n }
        default:
            break
        }
        return o
    }

    /// Seconds as a number, or null when not numeric.
    static func seconds(_ t: MediaTime) -> Any { t.isNumeric ? t.seconds : NSNull() }
}

/// The human form of an asset.
enum AssetText {
    static func describe(_ a: Asset) -> String {
        var head = "\(a.path)  (\(a.formatLongName), \(length(a.duration))"
        if let b = a.bitRate { head += ", \(kbps(b))" }
        var lines = [head + ")"]
        for t in a.tracks {
            let f = t.format
            var parts = ["  #\(t.index) \(f.mediaType.rawValue)", f.codec + (f.profile.map { " \($0)" } ?? "")]
            switch f.mediaType {
            case .video:
                var size = "\(f.width)x\(f.height)"
                if !f.pixelAspect.isSquare { size += " (SAR \(f.pixelAspect), shown \(f.displaySize.width)x\(f.displaySize.height))" }
                parts.append(size)
                if let r = f.averageFrameRate { parts.append("\(r.decimalDescription) fps") }
                if let o = f.fieldOrder, o.isInterlaced { parts.append(o.description) }
                if let p = f.pixelFormat { parts.append(p + (f.bitDepth.map { " \($0)-bit" } ?? "")) }
                let colour = [f.colorPrimaries, f.colorTransfer, f.colorMatrix].compactMap { $0 }
                if !colour.isEmpty { parts.append(colour.joined(separator: "/")) }
                if let m = f.hdr.masteringDisplay { parts.append("mastering \(formatLuminance(m.minLuminance))-\(formatLuminance(m.maxLuminance)) cd/m²") }
                if let c = f.hdr.contentLightLevel { parts.append("MaxCLL \(c.maxCLL) MaxFALL \(c.maxFALL)") }
                if f.hdr.hasHDR10Plus { parts.append("HDR10+") }
                if let dv = f.hdr.dolbyVision { parts.append("Dolby Vision \(dv)") }
                if f.rotation != 0 { parts.append("rotated \(f.rotation)°") }
                if let n = f.frameCount { parts.append("\(n) frames") }
                if t.isAttachedPicture { parts.append("cover art") }
            case .audio:
                parts.append("\(f.sampleRate) Hz")
                parts.append(f.channelLayout ?? "\(f.channels) ch")
            default:
                break
            }
            if let b = f.bitRate { parts.append(kbps(b)) }
            parts.append(length(t.duration))
            if let l = t.language { parts.append("[\(l)]") }
            lines.append(parts.joined(separator: "  "))
        }
        lines += InspectSlowMotion.lines(a)
        for (k, v) in a.metadata.sorted(by: { $0.key < $1.key }) { lines.append("  \(k): \(v)") }
        return lines.joined(separator: "\n")
    }


    /// A file's or track's length; a raw elementary stream states none (FFmpeg would have to read
    /// it whole to know).
    static func length(_ t: MediaTime) -> String { t.isNumeric ? t.secondsDescription : "length not stated" }
}

/// A track's HDR items for `inspect --json` (nil when it has none).
private func hdrObject(_ h: HDRItems) -> [String: Any]? {
    var o: [String: Any] = [:]
    if let m = h.masteringDisplay {
        func point(_ p: MasteringDisplay.Point) -> [String: Any] { ["x": "\(p.x)/50000", "y": "\(p.y)/50000"] }
        o["masteringDisplay"] = ["red": point(m.red), "green": point(m.green), "blue": point(m.blue), "whitePoint": point(m.whitePoint),
                                 "minLuminance": "\(m.minLuminance)/10000", "maxLuminance": "\(m.maxLuminance)/10000"] as [String: Any]
    }
    if let c = h.contentLightLevel { o["contentLightLevel"] = ["maxCLL": c.maxCLL, "maxFALL": c.maxFALL] }
    if h.hasHDR10Plus { o["hdr10Plus"] = true }
    if let dv = h.dolbyVision { o["dolbyVision"] = ["profile": dv.profile, "level": dv.level, "compatibilityID": dv.compatibilityID] }
    return o.isEmpty ? nil : o
}

/// 1/10000 cd/m² units as a plain number (`0.005`, `1000`).
private func formatLuminance(_ v: Int) -> String {
    v % 10000 == 0 ? String(v / 10000) : String(Double(v) / 10000)
}
