import CFFmpeg
import Glibc

/// libavfilter, loaded when a kernel first needs it (the `spectral` time stretch, deinterlacing), not at start.
/// Linked, it and the 31 libraries it brings (librubberband, libplacebo, librsvg, flite's
/// voices …) cost every run 12 MB of resident memory and about 20 ms of loading — a passthrough
/// remux then took 1.26 × ffmpeg's peak memory — where most runs never filter. So the binary does
/// not link it: its headers give the types, and these are the few calls the filter chain makes,
/// looked up once from the library the headers are of (same major version), kept for the
/// process's life.
struct FilterLibrary: @unchecked Sendable {  // C function pointers, set once at load and never changed
    typealias GetByName = @convention(c) (UnsafePointer<CChar>?) -> UnsafePointer<AVFilter>?
    typealias GraphAlloc = @convention(c) () -> UnsafeMutablePointer<AVFilterGraph>?
    typealias GraphFree = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterGraph>?>?) -> Void
    typealias CreateFilter = @convention(c) (UnsafeMutablePointer<UnsafeMutablePointer<AVFilterContext>?>?, UnsafePointer<AVFilter>?,
                                             UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?,
                                             UnsafeMutablePointer<AVFilterGraph>?) -> Int32
    typealias Link = @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UInt32, UnsafeMutablePointer<AVFilterContext>?, UInt32) -> Int32
    typealias GraphConfig = @convention(c) (UnsafeMutablePointer<AVFilterGraph>?, UnsafeMutableRawPointer?) -> Int32
    typealias AddFrame = @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?, Int32) -> Int32
    typealias GetFrame = @convention(c) (UnsafeMutablePointer<AVFilterContext>?, UnsafeMutablePointer<AVFrame>?) -> Int32
    typealias SinkValue = @convention(c) (UnsafePointer<AVFilterContext>?) -> Int32

    let getByName: GetByName
    let graphAlloc: GraphAlloc
    let graphFree: GraphFree
    let createFilter: CreateFilter
    let link: Link
    let graphConfig: GraphConfig
    let addFrame: AddFrame
    let getFrame: GetFrame
    let sinkFormat: SinkValue
    let sinkSampleRate: SinkValue

    /// The soname of the libavfilter whose headers this was built with.
    static let soname = "libavfilter.so.\(LIBAVFILTER_VERSION_MAJOR)"

    /// Loaded on first use (thread-safe: a static's initializer runs once).
    static let shared: Result<FilterLibrary, MediaError> = load(soname)

    static func load(_ name: String) -> Result<FilterLibrary, MediaError> {
        // Never closed: its filters' code must stay mapped while any graph lives, and it is one
        // library for the process's life.
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
            let why = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(MediaError(.unsupported, "the spectral time stretch and deinterlacing need FFmpeg's \(name) (package libavfilter\(LIBAVFILTER_VERSION_MAJOR)), which cannot be loaded: \(why)"))
        }
        var missing: [String] = []
        func symbol<T>(_ s: String, _: T.Type) -> T? {
            guard let p = dlsym(handle, s) else { missing.append(s); return nil }
            return unsafeBitCast(p, to: T.self)
        }
        typealias Version = @convention(c) () -> UInt32
        let version = symbol("avfilter_version", Version.self)
        let lib = (symbol("avfilter_get_by_name", GetByName.self), symbol("avfilter_graph_alloc", GraphAlloc.self),
                   symbol("avfilter_graph_free", GraphFree.self), symbol("avfilter_graph_create_filter", CreateFilter.self),
                   symbol("avfilter_link", Link.self), symbol("avfilter_graph_config", GraphConfig.self),
                   symbol("av_buffersrc_add_frame_flags", AddFrame.self), symbol("av_buffersink_get_frame", GetFrame.self),
                   symbol("av_buffersink_get_format", SinkValue.self), symbol("av_buffersink_get_sample_rate", SinkValue.self))
        guard missing.isEmpty, let version, let a = lib.0, let b = lib.1, let c = lib.2, let d = lib.3, let e = lib.4,
              let f = lib.5, let g = lib.6, let h = lib.7, let i = lib.8, let j = lib.9 else {
            return .failure(MediaError(.unsupported, "\(name) lacks \(missing.joined(separator: ", ")): not the libavfilter this was built for"))
        }
        let major = version() >> 16
        guard major == LIBAVFILTER_VERSION_MAJOR else {
            return .failure(MediaError(.unsupported, "\(name) is libavfilter \(major), not the \(LIBAVFILTER_VERSION_MAJOR) this was built for"))
        }
        return .success(FilterLibrary(getByName: a, graphAlloc: b, graphFree: c, createFilter: d, link: e, graphConfig: f,
                                      addFrame: g, getFrame: h, sinkFormat: i, sinkSampleRate: j))
    }

    /// Creates the filters of a straight chain (name, arguments) in `graph`, each linked to the one
    /// before, and configures the graph; the graph owns them. `what` names the chain in errors
    /// ("audio filter"), `purpose` what needs it ("the time stretch").
    func chain(_ filters: [(name: String, args: String)], in graph: UnsafeMutablePointer<AVFilterGraph>,
               what: String, purpose: String) throws(MediaError) -> [UnsafeMutablePointer<AVFilterContext>] {
        var contexts: [UnsafeMutablePointer<AVFilterContext>] = []
        for (i, (name, args)) in filters.enumerated() {
            guard let filter = getByName(name) else {
                throw MediaError(.unsupported, "this FFmpeg has no '\(name)' \(what) (needed for \(purpose))")
            }
            var ctx: UnsafeMutablePointer<AVFilterContext>? = nil
            let rc = "\(name)\(i)".withCString { label in
                args.withCString { a in createFilter(&ctx, filter, label, args.isEmpty ? nil : a, nil, graph) }
            }
            try FFmpeg.check(rc, "\(what) '\(name)=\(args)'")
            guard let ctx else { throw MediaError(.processing, "\(what) '\(name)': not created") }
            if let previous = contexts.last {
                try FFmpeg.check(link(previous, 0, ctx, 0), "\(what) link to '\(name)'")
            }
            contexts.append(ctx)
        }
        try FFmpeg.check(graphConfig(graph, nil), "\(what) graph")
        return contexts
    }
}
