/*
 * The FreeType and fontconfig functions annolink calls, each a trampoline into its library
 * loaded on first use (include/CFreeType.h says why; Sources/CLazyLibrary how). The prototypes
 * are the library headers' own, so the compiler checks each against the installed header; add a
 * function here when annolink starts calling a new one (the link fails until then).
 */
#include "CFreeType.h"
#include "CLazyLibrary.h"

static struct annolink_library freetype = ANNOLINK_LIBRARY("FreeType", "libfreetype6", "libfreetype.so.6", "libfreetype.so");
static struct annolink_library fontconfig = ANNOLINK_LIBRARY("fontconfig", "libfontconfig1", "libfontconfig.so.1", "libfontconfig.so");

int annolink_freetype_load(void) { return annolink_library_load(&freetype); }
const char *annolink_freetype_load_error(void) { return annolink_library_error(&freetype); }
int annolink_fontconfig_load(void) { return annolink_library_load(&fontconfig); }
const char *annolink_fontconfig_load_error(void) { return annolink_library_error(&fontconfig); }

ANNOLINK_TRAMPOLINE(freetype, FT_Error, FT_Done_Face, (FT_Face face), (face))
ANNOLINK_TRAMPOLINE(freetype, FT_Error, FT_Done_FreeType, (FT_Library library), (library))
ANNOLINK_TRAMPOLINE(freetype, const char *, FT_Error_String, (FT_Error error_code), (error_code))
ANNOLINK_TRAMPOLINE(freetype, FT_UInt, FT_Get_Char_Index, (FT_Face face, FT_ULong charcode), (face, charcode))
ANNOLINK_TRAMPOLINE(freetype, FT_Error, FT_Get_Kerning, (FT_Face face, FT_UInt left_glyph, FT_UInt right_glyph, FT_UInt kern_mode, FT_Vector *akerning), (face, left_glyph, right_glyph, kern_mode, akerning))
ANNOLINK_TRAMPOLINE(freetype, void *, FT_Get_Sfnt_Table, (FT_Face face, FT_Sfnt_Tag tag), (face, tag))
ANNOLINK_TRAMPOLINE(freetype, FT_Error, FT_Init_FreeType, (FT_Library *alibrary), (alibrary))
ANNOLINK_TRAMPOLINE(freetype, FT_Error, FT_Load_Glyph, (FT_Face face, FT_UInt glyph_index, FT_Int32 load_flags), (face, glyph_index, load_flags))
ANNOLINK_TRAMPOLINE(freetype, FT_Error, FT_Load_Sfnt_Table, (FT_Face face, FT_ULong tag, FT_Long offset, FT_Byte *buffer, FT_ULong *length), (face, tag, offset, buffer, length))
ANNOLINK_TRAMPOLINE(freetype, FT_Error, FT_New_Face, (FT_Library library, const char *filepathname, FT_Long face_index, FT_Face *aface), (library, filepathname, face_index, aface))

ANNOLINK_TRAMPOLINE(fontconfig, FcBool, FcConfigAppFontAddFile, (FcConfig *config, const FcChar8 *file), (config, file))
ANNOLINK_TRAMPOLINE(fontconfig, FcConfig *, FcConfigCreate, (void), ())
ANNOLINK_TRAMPOLINE_VOID(fontconfig, FcConfigDestroy, (FcConfig *config), (config))
ANNOLINK_TRAMPOLINE(fontconfig, FcStrList *, FcConfigGetFontDirs, (FcConfig *config), (config))
ANNOLINK_TRAMPOLINE(fontconfig, FcBool, FcConfigSubstitute, (FcConfig *config, FcPattern *p, FcMatchKind kind), (config, p, kind))
ANNOLINK_TRAMPOLINE_VOID(fontconfig, FcDefaultSubstitute, (FcPattern *pattern), (pattern))
ANNOLINK_TRAMPOLINE(fontconfig, FcPattern *, FcFontMatch, (FcConfig *config, FcPattern *p, FcResult *result), (config, p, result))
ANNOLINK_TRAMPOLINE(fontconfig, FcConfig *, FcInitLoadConfigAndFonts, (void), ())
ANNOLINK_TRAMPOLINE(fontconfig, FcBool, FcPatternAddInteger, (FcPattern *p, const char *object, int i), (p, object, i))
ANNOLINK_TRAMPOLINE(fontconfig, FcBool, FcPatternAddString, (FcPattern *p, const char *object, const FcChar8 *s), (p, object, s))
ANNOLINK_TRAMPOLINE(fontconfig, FcPattern *, FcPatternCreate, (void), ())
ANNOLINK_TRAMPOLINE_VOID(fontconfig, FcPatternDestroy, (FcPattern *p), (p))
ANNOLINK_TRAMPOLINE(fontconfig, FcResult, FcPatternGetInteger, (const FcPattern *p, const char *object, int n, int *i), (p, object, n, i))
ANNOLINK_TRAMPOLINE(fontconfig, FcResult, FcPatternGetString, (const FcPattern *p, const char *object, int n, FcChar8 **s), (p, object, n, s))
ANNOLINK_TRAMPOLINE_VOID(fontconfig, FcStrListDone, (FcStrList *list), (list))
ANNOLINK_TRAMPOLINE(fontconfig, FcChar8 *, FcStrListNext, (FcStrList *list), (list))
