#ifndef ANNOLINK_CFREETYPE_SHIM_H
#define ANNOLINK_CFREETYPE_SHIM_H
/* FreeType's headers are included through macros (FT_FREETYPE_H), which Swift cannot import. */
#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_TRUETYPE_TABLES_H
#include <fontconfig/fontconfig.h>
#endif
