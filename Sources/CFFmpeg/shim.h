#ifndef REENCODE_CFFMPEG_SHIM_H
#define REENCODE_CFFMPEG_SHIM_H
// The one place where FFmpeg's macros and version differences are hidden from Swift.
// Everything here is `static inline` with the `rx_` prefix; FFmpeg 5.1 (Debian 12) is the floor.

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/dovi_meta.h>
#include <libavutil/mastering_display_metadata.h>
#include <libavutil/imgutils.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

// MARK: - Macros Swift cannot import

static inline int rx_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int rx_averror_eof(void) { return AVERROR_EOF; }
static inline int rx_averror_enospc(void) { return AVERROR(ENOSPC); }
static inline int rx_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int rx_averror_external(void) { return AVERROR_EXTERNAL; }
static inline int64_t rx_nopts(void) { return AV_NOPTS_VALUE; }

// MARK: - Log capture
// The callback itself is Swift (Pipeline/FFmpeg/FFmpegLog.swift): a header cannot own storage
// that Swift would emit.

// MARK: - Frames and planes

static inline uint8_t *rx_frame_plane(const AVFrame *f, int i) { return f->data[i]; }
static inline int rx_frame_linesize(const AVFrame *f, int i) { return f->linesize[i]; }

static inline int64_t rx_frame_duration(const AVFrame *f) {
#if LIBAVUTIL_VERSION_INT >= AV_VERSION_INT(57, 30, 100)
    return f->duration;
#else
    return f->pkt_duration;
#endif
}

static inline int rx_sws_scale_frame(struct SwsContext *ctx, const AVFrame *src, AVFrame *dst) {
    return sws_scale(ctx, (const uint8_t *const *)src->data, src->linesize, 0, src->height,
                     dst->data, dst->linesize);
}

/// One field of an interlaced picture, each side seen as a half-height picture: every other line
/// (`field` 0: the top field's, from the first line; 1: the bottom field's), lines twice as far
/// apart. `ctx` converts half-height pictures.
static inline int rx_sws_scale_field(struct SwsContext *ctx, const AVFrame *src, AVFrame *dst, int field) {
    const uint8_t *in[4] = {0};
    uint8_t *out[4] = {0};
    int inStride[4] = {0}, outStride[4] = {0};
    for (int i = 0; i < 4; i++) {
        if (src->data[i]) { in[i] = src->data[i] + field * src->linesize[i]; inStride[i] = 2 * src->linesize[i]; }
        if (dst->data[i]) { out[i] = dst->data[i] + field * dst->linesize[i]; outStride[i] = 2 * dst->linesize[i]; }
    }
    return sws_scale(ctx, in, inStride, 0, src->height / 2, out, outStride);
}

static inline int rx_fifo_write_frame(AVAudioFifo *fifo, const AVFrame *f) {
    return av_audio_fifo_write(fifo, (void **)f->extended_data, f->nb_samples);
}

static inline int rx_fifo_read_frame(AVAudioFifo *fifo, AVFrame *f, int nb_samples) {
    return av_audio_fifo_read(fifo, (void **)f->extended_data, nb_samples);
}

// MARK: - Display matrix (stream side data moved into codecpar in FFmpeg 6.1)

static inline const int32_t *rx_stream_display_matrix(const AVStream *st) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    const AVPacketSideData *sd = av_packet_side_data_get(st->codecpar->coded_side_data,
        st->codecpar->nb_coded_side_data, AV_PKT_DATA_DISPLAYMATRIX);
    if (!sd || sd->size < 36) return NULL;
    return (const int32_t *)sd->data;
#else
    size_t size = 0;
    const uint8_t *data = av_stream_get_side_data((AVStream *)st, AV_PKT_DATA_DISPLAYMATRIX, &size);
    if (!data || size < 36) return NULL;
    return (const int32_t *)data;
#endif
}

/// Writes a display matrix turning the picture `degrees` clockwise for display
/// (av_display_rotation_set's convention; av_display_rotation_get answers counter-clockwise).
static inline int rx_stream_set_rotation(AVStream *st, double degrees) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    AVPacketSideData *sd = av_packet_side_data_new(&st->codecpar->coded_side_data,
        &st->codecpar->nb_coded_side_data, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t), 0);
    if (!sd) return AVERROR(ENOMEM);
    av_display_rotation_set((int32_t *)sd->data, degrees);
    return 0;
#else
    uint8_t *data = av_stream_new_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, 9 * sizeof(int32_t));
    if (!data) return AVERROR(ENOMEM);
    av_display_rotation_set((int32_t *)data, degrees);
    return 0;
#endif
}

// MARK: - Stream side data (HDR10, Dolby Vision): in codecpar from FFmpeg 6.1

static inline const uint8_t *rx_stream_side_data(const AVStream *st, enum AVPacketSideDataType type, size_t *size) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    const AVPacketSideData *sd = av_packet_side_data_get(st->codecpar->coded_side_data,
        st->codecpar->nb_coded_side_data, type);
    if (!sd) return NULL;
    *size = sd->size;
    return sd->data;
#else
    return av_stream_get_side_data((AVStream *)st, type, size);
#endif
}

/// Adds (or replaces) side data of `type` on `st`, copying `size` bytes.
static inline int rx_stream_put_side_data(AVStream *st, enum AVPacketSideDataType type, const uint8_t *data, size_t size) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    AVPacketSideData *sd = av_packet_side_data_new(&st->codecpar->coded_side_data,
        &st->codecpar->nb_coded_side_data, type, size, 0);
    if (!sd) return AVERROR(ENOMEM);
    memcpy(sd->data, data, size);
    return 0;
#else
    uint8_t *dst = av_stream_new_side_data(st, type, size);
    if (!dst) return AVERROR(ENOMEM);
    memcpy(dst, data, size);
    return 0;
#endif
}

/// Copies every side data item of `src` but the display matrix (rotation is set on its own) to
/// `dst`: avcodec_parameters_copy leaves stream side data behind before FFmpeg 6.1.
static inline int rx_stream_copy_side_data(AVStream *dst, const AVStream *src) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(60, 29, 100)
    // avcodec_parameters_copy has copied codecpar's coded side data already.
    (void)dst; (void)src;
    return 0;
#else
    const AVPacketSideData *all = src->side_data;
    int n = src->nb_side_data;
    for (int i = 0; i < n; i++) {
        if (all[i].type == AV_PKT_DATA_DISPLAYMATRIX) continue;
        int rc = rx_stream_put_side_data(dst, all[i].type, all[i].data, all[i].size);
        if (rc < 0) return rc;
    }
    return 0;
#endif
}

/// A mastering display as 10 integers: R, G, B, white point (x, y) in 1/50000, then min and max
/// luminance in 1/10000 cd/m². Returns 0 unless both primaries and luminance are there.
static inline int rx_mastering_get(const AVMasteringDisplayMetadata *m, int64_t out[10]) {
    if (!m->has_primaries || !m->has_luminance) return 0;
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 2; k++)
            out[c * 2 + k] = llrint(av_q2d(m->display_primaries[c][k]) * 50000);
    out[6] = llrint(av_q2d(m->white_point[0]) * 50000);
    out[7] = llrint(av_q2d(m->white_point[1]) * 50000);
    out[8] = llrint(av_q2d(m->min_luminance) * 10000);
    out[9] = llrint(av_q2d(m->max_luminance) * 10000);
    return 1;
}

static inline int rx_stream_set_mastering(AVStream *st, const int64_t v[10]) {
    AVMasteringDisplayMetadata m;
    memset(&m, 0, sizeof m);
    for (int c = 0; c < 3; c++)
        for (int k = 0; k < 2; k++)
            m.display_primaries[c][k] = av_make_q((int)v[c * 2 + k], 50000);
    m.white_point[0] = av_make_q((int)v[6], 50000);
    m.white_point[1] = av_make_q((int)v[7], 50000);
    m.min_luminance = av_make_q((int)v[8], 10000);
    m.max_luminance = av_make_q((int)v[9], 10000);
    m.has_primaries = 1;
    m.has_luminance = 1;
    return rx_stream_put_side_data(st, AV_PKT_DATA_MASTERING_DISPLAY_METADATA, (const uint8_t *)&m, sizeof m);
}

static inline int rx_stream_set_content_light(AVStream *st, unsigned max_cll, unsigned max_fall) {
    AVContentLightMetadata c;
    memset(&c, 0, sizeof c);
    c.MaxCLL = max_cll;
    c.MaxFALL = max_fall;
    return rx_stream_put_side_data(st, AV_PKT_DATA_CONTENT_LIGHT_LEVEL, (const uint8_t *)&c, sizeof c);
}

// MARK: - Encoder capabilities (AVCodec.pix_fmts & co. are deprecated from FFmpeg 7.1)

static inline const enum AVPixelFormat *rx_codec_pix_fmts(const AVCodec *c) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    const void *out = NULL; int n = 0;
    if (avcodec_get_supported_config(NULL, c, AV_CODEC_CONFIG_PIX_FORMAT, 0, &out, &n) < 0) return NULL;
    return (const enum AVPixelFormat *)out;
#else
    return c->pix_fmts;
#endif
}

static inline const enum AVSampleFormat *rx_codec_sample_fmts(const AVCodec *c) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    const void *out = NULL; int n = 0;
    if (avcodec_get_supported_config(NULL, c, AV_CODEC_CONFIG_SAMPLE_FORMAT, 0, &out, &n) < 0) return NULL;
    return (const enum AVSampleFormat *)out;
#else
    return c->sample_fmts;
#endif
}

static inline const int *rx_codec_sample_rates(const AVCodec *c) {
#if LIBAVCODEC_VERSION_INT >= AV_VERSION_INT(61, 13, 100)
    const void *out = NULL; int n = 0;
    if (avcodec_get_supported_config(NULL, c, AV_CODEC_CONFIG_SAMPLE_RATE, 0, &out, &n) < 0) return NULL;
    return (const int *)out;
#else
    return c->supported_samplerates;
#endif
}

// MARK: - Channel layouts (the AVChannelLayout API exists from FFmpeg 5.1 on)

static inline int rx_channel_layout_describe(const AVChannelLayout *l, char *buf, int size) {
    return av_channel_layout_describe(l, buf, (size_t)size);
}

// MARK: - Pictures from a buffer pool

/// The layout av_frame_get_buffer(f, 0) gives a w×h picture of `fmt` (FFmpeg 5.1's frame.c:
/// line sizes aligned to 32, planes one after another in one buffer, 32 bytes apart, 4 × 32 bytes
/// of padding in all: SIMD may read past a plane's end): plane i at `offset[i]` (-1: none).
/// Returns the buffer's size, or < 0: an error code.
static inline int64_t rx_picture_layout(enum AVPixelFormat fmt, int w, int h, int linesize[4], int64_t offset[4]) {
    const int align = 32, padding = 32;
    int ret = av_image_check_size(w, h, 0, NULL);
    if (ret < 0) return ret;
    for (int i = 1; i <= align; i += i) {
        ret = av_image_fill_linesizes(linesize, fmt, FFALIGN(w, i));
        if (ret < 0) return ret;
        if (!(linesize[0] & (align - 1))) break;
    }
    for (int i = 0; i < 4 && linesize[i]; i++) linesize[i] = FFALIGN(linesize[i], align);
    ptrdiff_t lines[4];
    size_t sizes[4];
    for (int i = 0; i < 4; i++) lines[i] = linesize[i];
    ret = av_image_fill_plane_sizes(sizes, fmt, FFALIGN(h, 32), lines);
    if (ret < 0) return ret;
    int64_t at = 0;
    for (int i = 0; i < 4; i++) {
        offset[i] = sizes[i] ? at + i * padding : -1;
        at += (int64_t)sizes[i];
    }
    return at + 4 * padding;
}

/// Makes `f` (empty; width, height and format set) a picture in a buffer from `pool`, laid out by
/// rx_picture_layout. The buffer goes back to the pool when f's last reference is dropped.
static inline int rx_frame_take_picture(AVFrame *f, AVBufferPool *pool, const int linesize[4], const int64_t offset[4]) {
    AVBufferRef *buf = av_buffer_pool_get(pool);
    if (!buf) return AVERROR(ENOMEM);
    f->buf[0] = buf;
    for (int i = 0; i < 4; i++) {
        f->data[i] = offset[i] < 0 ? NULL : buf->data + offset[i];
        f->linesize[i] = offset[i] < 0 ? 0 : linesize[i];
    }
    f->extended_data = f->data;
    return 0;
}

#endif
