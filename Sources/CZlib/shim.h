#ifndef ANNOLINK_CZLIB_SHIM_H
#define ANNOLINK_CZLIB_SHIM_H
#include <zlib.h>

/// deflateInit2 is a macro, which Swift cannot call: a gzip stream (window bits 15 + 16) at
/// `level`, memory level 8.
static inline int annolink_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
#endif
