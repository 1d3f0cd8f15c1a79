import CFFmpeg

/// Pictures of one size and pixel format whose memory is reused: a picture's buffer goes back
/// to the pool when its last reference is dropped (the encoder may keep one a while) and the
/// next picture takes it. A stage that makes a picture per frame draws from its pool, so the hot
/// path allocates nothing per frame (and the kernel clears no fresh pages for it), as FFmpeg's
/// filters do.
// Not Sendable: belongs to the one stage (one lane's queue) that draws from it. Its buffers may
// outlive it: av_buffer_pool_uninit frees the pool when the last one comes back.
final class PicturePool {
    let width: Int32, height: Int32, format: AVPixelFormat
    private var pool: OpaquePointer?
    private var linesize: [Int32] = [0, 0, 0, 0]
    private var offset: [Int64] = [0, 0, 0, 0]

    init(width: Int32, height: Int32, format: AVPixelFormat) throws(MediaError) {
        self.width = width; self.height = height; self.format = format
        let size = rx_picture_layout(format, width, height, &linesize, &offset)
        guard size > 0, size <= Int64(Int32.max) else {
            throw MediaError(.unsupported, "cannot lay out a \(width)x\(height) \(pixelFormatName(format)) picture")
        }
        guard let p = av_buffer_pool_init(Int(size), nil) else {
            throw ResourceShortage.outOfMemory("a \(width)x\(height) picture pool")
        }
        pool = p
    }

    deinit { av_buffer_pool_uninit(&pool) }

    /// A picture of the pool's size and format; its pixels are whatever the buffer last held.
    func picture() throws(MediaError) -> Frame {
        let f = try Frame()
        f.pointer.pointee.width = width
        f.pointer.pointee.height = height
        f.pointer.pointee.format = format.rawValue
        try FFmpeg.check(rx_frame_take_picture(f.pointer, pool, linesize, offset), "cannot allocate a \(width)x\(height) frame")
        return f
    }

    func matches(width: Int32, height: Int32, format: AVPixelFormat) -> Bool {
        (self.width, self.height, self.format) == (width, height, format)
    }
}

/// Pools for the few picture sizes and formats a stage meets lately (a layer's turned picture,
/// a fade over pictures of the output's size), oldest dropped past `capacity`.
// Not Sendable: as PicturePool.
final class PicturePools {
    private var pools: [PicturePool] = []
    private let capacity: Int

    init(capacity: Int = 4) { self.capacity = capacity }

    func picture(width: Int32, height: Int32, format: AVPixelFormat) throws(MediaError) -> Frame {
        if let i = pools.firstIndex(where: { $0.matches(width: width, height: height, format: format) }) {
            return try pools[i].picture()
        }
        let pool = try PicturePool(width: width, height: height, format: format)
        if pools.count == capacity { pools.removeFirst() }
        pools.append(pool)
        return try pool.picture()
    }
}
