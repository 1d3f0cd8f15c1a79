/// The DASH manifest of a package (ISO/IEC 23009-1, static, the live profile's
/// SegmentTemplate): one AdaptationSet per media type (and codec), a Representation per rendition, each
/// with a SegmentTimeline of its segments' presentation times and durations (the HLS playlists'
/// durations, in the track's timescale), over the same init and media segments.
enum DASHManifest {
    static let name = "manifest.mpd"

    static func manifest(_ renditions: [RenditionSegments]) -> String {
        let duration = renditions.map(\.duration).max() ?? 0
        let longest = renditions.map(\.longestSegment).max() ?? 0
        var lines = [
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>",
            "<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\" profiles=\"urn:mpeg:dash:profile:isoff-live:2011\" type=\"static\""
                + " mediaPresentationDuration=\"\(period(duration))\" minBufferTime=\"\(period(longest.rounded(.up)))\">",
            "  <Period id=\"0\" start=\"PT0S\">",
        ]
        // A player switches within an AdaptationSet only, and not between codecs: renditions of
        // one media type in another codec (HEVC beside H.264) are a set of their own.
        var sets: [(String, String, [RenditionSegments])] = []
        for (kind, mime, members) in [("video", "video/mp4", renditions.filter(\.hasVideo)), ("audio", "audio/mp4", renditions.filter { !$0.hasVideo })] {
            var entries: [String] = []
            for r in members where !entries.contains(r.main.sampleEntry) { entries.append(r.main.sampleEntry) }
            sets += entries.map { e in (kind, mime, members.filter { $0.main.sampleEntry == e }) }
        }
        for (id, set) in sets.enumerated() {
            lines.append("    <AdaptationSet id=\"\(id)\" contentType=\"\(set.0)\" mimeType=\"\(set.1)\" segmentAlignment=\"true\" startWithSAP=\"1\">")
            for r in set.2 { lines += representation(r) }
            lines.append("    </AdaptationSet>")
        }
        lines += ["  </Period>", "</MPD>"]
        return lines.joined(separator: "\n") + "\n"
    }

    private static func representation(_ r: RenditionSegments) -> [String] {
        var attributes = ["id=\"\(r.name)\"", "bandwidth=\"\(Int(r.peakBitrate.rounded(.up)))\"",
                          "codecs=\"\(r.tracks.compactMap(\.codec).joined(separator: ","))\""]
        if r.hasVideo {
            attributes.append("width=\"\(r.main.width)\" height=\"\(r.main.height)\"")
            if let rate = r.frameRate {
                let n = rate.samples * UInt64(r.timescale), g = gcd(n, rate.ticks)
                attributes.append("frameRate=\"\(n / g)/\(rate.ticks / g)\"")
            }
        }
        if let audio = r.audioTrack { attributes.append("audioSamplingRate=\"\(audio.timescale)\"") }
        var lines = ["      <Representation " + attributes.joined(separator: " ") + ">"]
        if let audio = r.audioTrack {
            lines.append("        <AudioChannelConfiguration schemeIdUri=\"urn:mpeg:dash:23003:3:audio_channel_configuration:2011\" value=\"\(audio.channels)\"/>")
        }
        lines.append("        <SegmentTemplate timescale=\"\(r.timescale)\" initialization=\"\(r.name)/init.mp4\" media=\"\(r.name)/seg-$Number$.m4s\" startNumber=\"1\">")
        lines.append("          <SegmentTimeline>")
        // A run of equal durations is one S with a repeat count.
        var k = 0
        while k < r.segments.count {
            let s = r.segments[k]
            var repeats = 0
            while k + repeats + 1 < r.segments.count, r.segments[k + repeats + 1].duration == s.duration,
                  r.segments[k + repeats + 1].start == r.segments[k + repeats].start + s.duration { repeats += 1 }
            lines.append("            <S t=\"\(s.start)\" d=\"\(s.duration)\"" + (repeats > 0 ? " r=\"\(repeats)\"/>" : "/>"))
            k += repeats + 1
        }
        lines += ["          </SegmentTimeline>", "        </SegmentTemplate>", "      </Representation>"]
        return lines
    }

    /// `PT12.345S`.
    private static func period(_ seconds: Double) -> String { "PT" + HLSPlaylists.decimal(seconds, places: 3) + "S" }

    private static func gcd(_ a: UInt64, _ b: UInt64) -> UInt64 { b == 0 ? max(a, 1) : gcd(b, a % b) }
}
