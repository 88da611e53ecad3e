#ifndef ANNOLINK_CFREETYPE_H
#define ANNOLINK_CFREETYPE_H
/*
 * FreeType, which measures label text, and fontconfig, which finds a font by family name.
 *
 * Both are loaded on first use as GEOS, PROJ and Cairo are (Sources/CLazyLibrary): linking them
 * loaded them and what they need (libpng, brotli, expat) at every start, even for commands that
 * never measure text. freetype_lazy.c defines the functions annolink calls. Call
 * annolink_freetype_load() before the first FreeType call, annolink_fontconfig_load() before the
 * first fontconfig call, to learn whether the library can be loaded.
 *
 * FreeType's headers include each other as <freetype/...> under /usr/include/freetype2, so
 * every target that compiles this header is given that folder (Package.swift, freeTypeHeaders).
 * They are included through macros (FT_FREETYPE_H), which Swift cannot import, hence this header.
 */
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_TRUETYPE_TABLES_H
#include <fontconfig/fontconfig.h>

/* Loads libfreetype once. Returns 0 when it is loaded, -1 when it cannot be (see the message). */
int annolink_freetype_load(void);

/* Why annolink_freetype_load failed, naming the package to install; NULL when it did not fail. */
const char *annolink_freetype_load_error(void);

/* Loads libfontconfig once. Returns 0 when it is loaded, -1 when it cannot be. */
int annolink_fontconfig_load(void);

/* Why annolink_fontconfig_load failed, naming the package to install; NULL when it did not fail. */
const char *annolink_fontconfig_load_error(void);
#endif
