#ifndef ANNOLINK_CCAIRO_SHIM_H
#define ANNOLINK_CCAIRO_SHIM_H
/* Cairo with its image (PNG), SVG and PDF surfaces, and its FreeType font backend so that text
 * is drawn with the FT_Face the text metrics measured (cairo-ft.h includes FreeType's and
 * fontconfig's headers). */
#include <cairo.h>
#include <cairo-ft.h>
#include <cairo-svg.h>
#include <cairo-pdf.h>
#endif
