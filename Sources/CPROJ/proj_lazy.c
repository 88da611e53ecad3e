/*
 * The PROJ functions annolink calls, each a trampoline into libproj loaded on first use
 * (include/CPROJ.h says why; Sources/CLazyLibrary how). The prototypes are the library header's
 * own, so the compiler checks each against the installed header; add a function here when
 * annolink starts calling a new one (the link fails until then).
 */
#include "CPROJ.h"
#include "CLazyLibrary.h"

static struct annolink_library proj = ANNOLINK_LIBRARY("PROJ", "libproj25", "libproj.so.25", "libproj.so");

int annolink_proj_load(void) { return annolink_library_load(&proj); }
const char *annolink_proj_load_error(void) { return annolink_library_error(&proj); }

ANNOLINK_TRAMPOLINE(proj, const char *, proj_as_wkt, (PJ_CONTEXT *ctx, const PJ *obj, PJ_WKT_TYPE type, const char* const *options), (ctx, obj, type, options))
ANNOLINK_TRAMPOLINE(proj, PJ_CONTEXT *, proj_context_create, (void), ())
ANNOLINK_TRAMPOLINE(proj, PJ_CONTEXT *, proj_context_destroy, (PJ_CONTEXT *ctx), (ctx))
ANNOLINK_TRAMPOLINE(proj, int, proj_context_errno, (PJ_CONTEXT *ctx), (ctx))
ANNOLINK_TRAMPOLINE(proj, const char *, proj_context_errno_string, (PJ_CONTEXT *ctx, int err), (ctx, err))
ANNOLINK_TRAMPOLINE(proj, int, proj_context_set_enable_network, (PJ_CONTEXT *ctx, int enabled), (ctx, enabled))
ANNOLINK_TRAMPOLINE(proj, PJ_COORD, proj_coord, (double x, double y, double z, double t), (x, y, z, t))
ANNOLINK_TRAMPOLINE(proj, PJ *, proj_create, (PJ_CONTEXT *ctx, const char *definition), (ctx, definition))
ANNOLINK_TRAMPOLINE(proj, PJ *, proj_create_crs_to_crs_from_pj, (PJ_CONTEXT *ctx, const PJ *source_crs, const PJ *target_crs, PJ_AREA *area, const char* const *options), (ctx, source_crs, target_crs, area, options))
ANNOLINK_TRAMPOLINE(proj, PJ *, proj_crs_get_coordinate_system, (PJ_CONTEXT *ctx, const PJ *crs), (ctx, crs))
ANNOLINK_TRAMPOLINE(proj, PJ *, proj_crs_get_sub_crs, (PJ_CONTEXT *ctx, const PJ *crs, int index), (ctx, crs, index))
ANNOLINK_TRAMPOLINE(proj, int, proj_cs_get_axis_info, (PJ_CONTEXT *ctx, const PJ *cs, int index, const char **out_name, const char **out_abbrev, const char **out_direction, double *out_unit_conv_factor, const char **out_unit_name, const char **out_unit_auth_name, const char **out_unit_code), (ctx, cs, index, out_name, out_abbrev, out_direction, out_unit_conv_factor, out_unit_name, out_unit_auth_name, out_unit_code))
ANNOLINK_TRAMPOLINE(proj, PJ_COORDINATE_SYSTEM_TYPE, proj_cs_get_type, (PJ_CONTEXT *ctx, const PJ *cs), (ctx, cs))
ANNOLINK_TRAMPOLINE(proj, PJ *, proj_destroy, (PJ *P), (P))
ANNOLINK_TRAMPOLINE(proj, int, proj_errno, (const PJ *P), (P))
ANNOLINK_TRAMPOLINE(proj, int, proj_errno_reset, (const PJ *P), (P))
ANNOLINK_TRAMPOLINE(proj, const char *, proj_get_id_auth_name, (const PJ *obj, int index), (obj, index))
ANNOLINK_TRAMPOLINE(proj, const char *, proj_get_id_code, (const PJ *obj, int index), (obj, index))
ANNOLINK_TRAMPOLINE(proj, const char *, proj_get_name, (const PJ *obj), (obj))
ANNOLINK_TRAMPOLINE(proj, PJ *, proj_get_source_crs, (PJ_CONTEXT *ctx, const PJ *obj), (ctx, obj))
ANNOLINK_TRAMPOLINE(proj, PJ_TYPE, proj_get_type, (const PJ *obj), (obj))
ANNOLINK_TRAMPOLINE(proj, PJ_INFO, proj_info, (void), ())
ANNOLINK_TRAMPOLINE(proj, int, proj_is_crs, (const PJ *obj), (obj))
ANNOLINK_TRAMPOLINE_VOID(proj, proj_log_func, (PJ_CONTEXT *ctx, void *app_data, PJ_LOG_FUNCTION logf), (ctx, app_data, logf))
ANNOLINK_TRAMPOLINE(proj, PJ *, proj_normalize_for_visualization, (PJ_CONTEXT *ctx, const PJ *obj), (ctx, obj))
ANNOLINK_TRAMPOLINE(proj, PJ_COORD, proj_trans, (PJ *P, PJ_DIRECTION direction, PJ_COORD coord), (P, direction, coord))
ANNOLINK_TRAMPOLINE(proj, int, proj_get_area_of_use, (PJ_CONTEXT *ctx, const PJ *obj, double *out_west_lon_degree, double *out_south_lat_degree, double *out_east_lon_degree, double *out_north_lat_degree, const char **out_area_name), (ctx, obj, out_west_lon_degree, out_south_lat_degree, out_east_lon_degree, out_north_lat_degree, out_area_name))
