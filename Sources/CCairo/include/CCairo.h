#ifndef ANNOLINK_CCAIRO_H
#define ANNOLINK_CCAIRO_H
/*
 * Cairo with its image (PNG), SVG and PDF surfaces, and its FreeType font backend so that text
 * is drawn with the FT_Face the text metrics measured (cairo-ft.h includes FreeType's and
 * fontconfig's headers; CFreeType gives their include path).
 *
 * Cairo is loaded on first use as GEOS, PROJ and libpq are (Sources/CLazyLibrary): only `render`,
 * `check --render` and the service's exported image draw, and linking libcairo loaded it and
 * the twenty libraries it needs (pixman, libpng, X11's xcb and Xrender, …) at every start.
 * cairo_lazy.c defines the functions annolink calls. Call annolink_cairo_load() before the first
 * Cairo call to learn whether the library can be loaded.
 */
#include <cairo/cairo.h>
#include <cairo/cairo-ft.h>
#include <cairo/cairo-svg.h>
#include <cairo/cairo-pdf.h>

/* Loads libcairo once. Returns 0 when it is loaded, -1 when it cannot be (see the message). */
int annolink_cairo_load(void);

/* Why annolink_cairo_load failed, naming the package to install; NULL when it did not fail. */
const char *annolink_cairo_load_error(void);
#endif
