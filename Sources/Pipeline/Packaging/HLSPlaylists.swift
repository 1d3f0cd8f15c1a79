import Foundation

/// The HLS playlists of a package (RFC 8216, version 7 for fMP4 segments): a VOD media playlist
/// per rendition, and the master playlist naming the video renditions as variants with the
/// audio renditions as their `AUDIO` group. Every number in them is measured on the segments.
enum HLSPlaylists {
    static let master = "master.m3u8"
    static let media = "playlist.m3u8"
    static let audioGroup = "audio"

    /// The media playlist of `r`: each segment's exact duration.
    static func mediaPlaylist(_ r: RenditionSegments) -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7",
                     "#EXT-X-TARGETDURATION:\(targetDuration(r))",
                     "#EXT-X-MEDIA-SEQUENCE:0",
                     "#EXT-X-PLAYLIST-TYPE:VOD",
                     "#EXT-X-INDEPENDENT-SEGMENTS",
                     "#EXT-X-MAP:URI=\"init.mp4\""]
        for (k, s) in r.segments.enumerated() {
            lines.append("#EXTINF:\(decimal(r.seconds(s.duration), places: 6)),")
            lines.append("seg-\(k + 1).m4s")
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The longest segment rounded up to whole seconds: every segment is at most this.
    static func targetDuration(_ r: RenditionSegments) -> Int { max(1, Int(r.longestSegment.rounded(.up))) }

    /// The master playlist. Video renditions are the variants, the default first
    /// (`HLSVariantOrder`; `asked`: each rendition's asked video bit rate by name); renditions of
    /// sound alone are the audio group every variant plays with (without video renditions, each
    /// is a variant, in the recipe's order).
    static func masterPlaylist(_ renditions: [RenditionSegments], asked: [String: Int] = [:]) -> String {
        let video = renditions.filter(\.hasVideo)
        let audio = video.isEmpty ? [] : renditions.filter { !$0.hasVideo }
        var lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for (k, a) in audio.enumerated() {
            let channels = a.tracks.first(where: \.isAudio).map { ",CHANNELS=\"\($0.channels)\"" } ?? ""
            lines.append("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"\(audioGroup)\",NAME=\"\(a.name)\",DEFAULT=\(k == 0 ? "YES" : "NO"),AUTOSELECT=YES\(channels),URI=\"\(a.name)/\(media)\"")
        }
        // A variant plays with any of the group's renditions: its bandwidth counts the dearest.
        let audioPeak = audio.map(\.peakBitrate).max() ?? 0, audioAverage = audio.map(\.averageBitrate).max() ?? 0
        let audioCodecs = uniqued(audio.flatMap { $0.tracks.compactMap(\.codec) })
        for r in video.isEmpty ? renditions : HLSVariantOrder.ordered(video, asked: asked) {
            var attributes = ["BANDWIDTH=\(Int((r.peakBitrate + audioPeak).rounded(.up)))",
                              "AVERAGE-BANDWIDTH=\(Int((r.averageBitrate + audioAverage).rounded(.up)))",
                              "CODECS=\"\(uniqued(r.tracks.compactMap(\.codec) + audioCodecs).joined(separator: ","))\""]
            if r.hasVideo {
                attributes.append("RESOLUTION=\(r.main.width)x\(r.main.height)")
                if let rate = r.framesPerSecond { attributes.append("FRAME-RATE=\(decimal(rate, places: 3))") }
            }
            if !audio.isEmpty { attributes.append("AUDIO=\"\(audioGroup)\"") }
            lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            lines.append("\(r.name)/\(media)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func uniqued(_ codecs: [String]) -> [String] {
        var seen: Set<String> = []
        return codecs.filter { seen.insert($0).inserted }
    }

    /// `6.006000` (a point, whatever the locale).
    static func decimal(_ v: Double, places: Int) -> String { String(format: "%.\(places)f", v) }
}
