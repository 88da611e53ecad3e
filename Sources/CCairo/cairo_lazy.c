/*
 * The Cairo functions annolink calls, each a trampoline into libcairo loaded on first use
 * (include/CCairo.h says why; Sources/CLazyLibrary how). The prototypes are the library header's
 * own, so the compiler checks each against the installed header; add a function here when
 * annolink starts calling a new one (the link fails until then).
 */
#include "CCairo.h"
#include "CLazyLibrary.h"

static struct annolink_library cairo = ANNOLINK_LIBRARY("Cairo", "libcairo2", "libcairo.so.2", "libcairo.so");

int annolink_cairo_load(void) { return annolink_library_load(&cairo); }
const char *annolink_cairo_load_error(void) { return annolink_library_error(&cairo); }

ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_arc, (cairo_t *cr, double xc, double yc, double radius, double angle1, double angle2), (cr, xc, yc, radius, angle1, angle2))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_clip, (cairo_t *cr), (cr))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_close_path, (cairo_t *cr), (cr))
ANNOLINK_TRAMPOLINE(cairo, cairo_t *, cairo_create, (cairo_surface_t *target), (target))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_destroy, (cairo_t *cr), (cr))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_fill, (cairo_t *cr), (cr))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_font_face_destroy, (cairo_font_face_t *font_face), (font_face))
ANNOLINK_TRAMPOLINE(cairo, cairo_status_t, cairo_font_face_set_user_data, (cairo_font_face_t *font_face, const cairo_user_data_key_t *key, void *user_data, cairo_destroy_func_t destroy), (font_face, key, user_data, destroy))
ANNOLINK_TRAMPOLINE(cairo, cairo_status_t, cairo_font_face_status, (cairo_font_face_t *font_face), (font_face))
ANNOLINK_TRAMPOLINE(cairo, cairo_font_options_t *, cairo_font_options_create, (void), ())
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_font_options_destroy, (cairo_font_options_t *options), (options))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_font_options_set_hint_metrics, (cairo_font_options_t *options, cairo_hint_metrics_t hint_metrics), (options, hint_metrics))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_font_options_set_hint_style, (cairo_font_options_t *options, cairo_hint_style_t hint_style), (options, hint_style))
ANNOLINK_TRAMPOLINE(cairo, cairo_font_face_t *, cairo_ft_font_face_create_for_ft_face, (FT_Face face, int load_flags), (face, load_flags))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_identity_matrix, (cairo_t *cr), (cr))
ANNOLINK_TRAMPOLINE(cairo, cairo_surface_t *, cairo_image_surface_create, (cairo_format_t format, int width, int height), (format, width, height))
ANNOLINK_TRAMPOLINE(cairo, unsigned char *, cairo_image_surface_get_data, (cairo_surface_t *surface), (surface))
ANNOLINK_TRAMPOLINE(cairo, int, cairo_image_surface_get_stride, (cairo_surface_t *surface), (surface))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_line_to, (cairo_t *cr, double x, double y), (cr, x, y))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_matrix_init, (cairo_matrix_t *matrix, double xx, double yx, double xy, double yy, double x0, double y0), (matrix, xx, yx, xy, yy, x0, y0))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_move_to, (cairo_t *cr, double x, double y), (cr, x, y))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_new_path, (cairo_t *cr), (cr))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_new_sub_path, (cairo_t *cr), (cr))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_paint, (cairo_t *cr), (cr))
ANNOLINK_TRAMPOLINE(cairo, cairo_surface_t *, cairo_pdf_surface_create, (const char *filename, double width_in_points, double height_in_points), (filename, width_in_points, height_in_points))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_rectangle, (cairo_t *cr, double x, double y, double width, double height), (cr, x, y, width, height))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_restore, (cairo_t *cr), (cr))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_save, (cairo_t *cr), (cr))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_scale, (cairo_t *cr, double sx, double sy), (cr, sx, sy))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_select_font_face, (cairo_t *cr, const char *family, cairo_font_slant_t slant, cairo_font_weight_t weight), (cr, family, slant, weight))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_set_dash, (cairo_t *cr, const double *dashes, int num_dashes, double offset), (cr, dashes, num_dashes, offset))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_set_fill_rule, (cairo_t *cr, cairo_fill_rule_t fill_rule), (cr, fill_rule))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_set_font_face, (cairo_t *cr, cairo_font_face_t *font_face), (cr, font_face))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_set_font_options, (cairo_t *cr, const cairo_font_options_t *options), (cr, options))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_set_font_size, (cairo_t *cr, double size), (cr, size))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_set_line_width, (cairo_t *cr, double width), (cr, width))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_set_source_rgb, (cairo_t *cr, double red, double green, double blue), (cr, red, green, blue))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_set_source_rgba, (cairo_t *cr, double red, double green, double blue, double alpha), (cr, red, green, blue, alpha))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_show_glyphs, (cairo_t *cr, const cairo_glyph_t *glyphs, int num_glyphs), (cr, glyphs, num_glyphs))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_show_text, (cairo_t *cr, const char *utf8), (cr, utf8))
ANNOLINK_TRAMPOLINE(cairo, cairo_status_t, cairo_status, (cairo_t *cr), (cr))
ANNOLINK_TRAMPOLINE(cairo, const char *, cairo_status_to_string, (cairo_status_t status), (status))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_stroke, (cairo_t *cr), (cr))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_surface_destroy, (cairo_surface_t *surface), (surface))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_surface_finish, (cairo_surface_t *surface), (surface))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_surface_flush, (cairo_surface_t *surface), (surface))
ANNOLINK_TRAMPOLINE(cairo, cairo_status_t, cairo_surface_status, (cairo_surface_t *surface), (surface))
ANNOLINK_TRAMPOLINE(cairo, cairo_status_t, cairo_surface_write_to_png, (cairo_surface_t *surface, const char *filename), (surface, filename))
ANNOLINK_TRAMPOLINE(cairo, cairo_status_t, cairo_surface_write_to_png_stream, (cairo_surface_t *surface, cairo_write_func_t write_func, void *closure), (surface, write_func, closure))
ANNOLINK_TRAMPOLINE(cairo, cairo_surface_t *, cairo_svg_surface_create, (const char *filename, double width_in_points, double height_in_points), (filename, width_in_points, height_in_points))
ANNOLINK_TRAMPOLINE_VOID(cairo, cairo_transform, (cairo_t *cr, const cairo_matrix_t *matrix), (cr, matrix))
