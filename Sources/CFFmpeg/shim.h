#ifndef REENCODE_CFFMPEG_SHIM_H
#define REENCODE_CFFMPEG_SHIM_H
// The one place where FFmpeg's macros and version differences are hidden from Swift.
// Everything here is `static inline` with the `rx_` prefix; FFmpeg 5.1 (Debian 12) is the floor.

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/imgutils.h>
#include <libavutil/mathematics.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

// MARK: - Macros Swift cannot import

static inline int rx_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int rx_averror_eof(void) { return AVERROR_EOF; }
static inline int rx_averror_enospc(void) { return AVERROR(ENOSPC); }
static inline int rx_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
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

#endif
