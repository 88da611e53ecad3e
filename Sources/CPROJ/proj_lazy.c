/*
 * The PROJ functions annolink calls, each a trampoline into libproj loaded with dlopen on first
 * use (see include/CPROJ.h for why). The prototypes are proj.h's own, so the compiler checks
 * every one against the installed header. Written once by hand from PROJ 9.1's proj.h; add a
 * function here when the engine starts calling a new one (the link fails until then).
 *
 * Each trampoline keeps the address it looked up in a static pointer read and written atomically
 * (acquire/release), so that threads making their first call at once each see a whole address.
 */
#include "CPROJ.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *library;
static char load_error[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    const char *names[] = {"libproj.so.25", "libproj.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (library) return;
    }
    const char *why = dlerror();
    snprintf(load_error, sizeof load_error, "cannot load PROJ (libproj.so.25): %s", why ? why : "unknown error");
}

int annolink_proj_load(void) {
    pthread_once(&once, load);
    return library ? 0 : -1;
}

const char *annolink_proj_load_error(void) {
    pthread_once(&once, load);
    return library ? NULL : load_error;
}

/* The address of `name` in libproj. A missing library or symbol cannot be reported through
   PROJ's own API, so it ends the process with the reason; the engine calls annolink_proj_load
   first and throws a typed error instead, so this is reached only by a program bug. */
static void *symbol(const char *name) {
    if (annolink_proj_load() != 0) {
        fprintf(stderr, "error: %s\n", load_error);
        abort();
    }
    void *address = dlsym(library, name);
    if (!address) {
        fprintf(stderr, "error: PROJ has no %s\n", name);
        abort();
    }
    return address;
}


const char * proj_as_wkt(PJ_CONTEXT *ctx, const PJ *obj, PJ_WKT_TYPE type, const char* const *options) {
    static const char * (*fn)(PJ_CONTEXT *ctx, const PJ *obj, PJ_WKT_TYPE type, const char* const *options);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (const char * (*)(PJ_CONTEXT *ctx, const PJ *obj, PJ_WKT_TYPE type, const char* const *options))symbol("proj_as_wkt"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx, obj, type, options);
}

PJ_CONTEXT * proj_context_create(void) {
    static PJ_CONTEXT * (*fn)(void);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ_CONTEXT * (*)(void))symbol("proj_context_create"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f();
}

PJ_CONTEXT * proj_context_destroy(PJ_CONTEXT *ctx) {
    static PJ_CONTEXT * (*fn)(PJ_CONTEXT *ctx);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ_CONTEXT * (*)(PJ_CONTEXT *ctx))symbol("proj_context_destroy"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx);
}

int proj_context_errno(PJ_CONTEXT *ctx) {
    static int (*fn)(PJ_CONTEXT *ctx);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(PJ_CONTEXT *ctx))symbol("proj_context_errno"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx);
}

const char * proj_context_errno_string(PJ_CONTEXT *ctx, int err) {
    static const char * (*fn)(PJ_CONTEXT *ctx, int err);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (const char * (*)(PJ_CONTEXT *ctx, int err))symbol("proj_context_errno_string"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx, err);
}

int proj_context_set_enable_network(PJ_CONTEXT *ctx, int enabled) {
    static int (*fn)(PJ_CONTEXT *ctx, int enabled);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(PJ_CONTEXT *ctx, int enabled))symbol("proj_context_set_enable_network"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx, enabled);
}

PJ_COORD proj_coord(double x, double y, double z, double t) {
    static PJ_COORD (*fn)(double x, double y, double z, double t);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ_COORD (*)(double x, double y, double z, double t))symbol("proj_coord"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(x, y, z, t);
}

PJ * proj_create(PJ_CONTEXT *ctx, const char *definition) {
    static PJ * (*fn)(PJ_CONTEXT *ctx, const char *definition);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ * (*)(PJ_CONTEXT *ctx, const char *definition))symbol("proj_create"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx, definition);
}

PJ * proj_create_crs_to_crs_from_pj(PJ_CONTEXT *ctx, const PJ *source_crs, const PJ *target_crs, PJ_AREA *area, const char* const *options) {
    static PJ * (*fn)(PJ_CONTEXT *ctx, const PJ *source_crs, const PJ *target_crs, PJ_AREA *area, const char* const *options);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ * (*)(PJ_CONTEXT *ctx, const PJ *source_crs, const PJ *target_crs, PJ_AREA *area, const char* const *options))symbol("proj_create_crs_to_crs_from_pj"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx, source_crs, target_crs, area, options);
}

PJ * proj_crs_get_coordinate_system(PJ_CONTEXT *ctx, const PJ *crs) {
    static PJ * (*fn)(PJ_CONTEXT *ctx, const PJ *crs);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ * (*)(PJ_CONTEXT *ctx, const PJ *crs))symbol("proj_crs_get_coordinate_system"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx, crs);
}

PJ * proj_crs_get_sub_crs(PJ_CONTEXT *ctx, const PJ *crs, int index) {
    static PJ * (*fn)(PJ_CONTEXT *ctx, const PJ *crs, int index);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ * (*)(PJ_CONTEXT *ctx, const PJ *crs, int index))symbol("proj_crs_get_sub_crs"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx, crs, index);
}

int proj_cs_get_axis_info(PJ_CONTEXT *ctx, const PJ *cs, int index, const char **out_name, const char **out_abbrev, const char **out_direction, double *out_unit_conv_factor, const char **out_unit_name, const char **out_unit_auth_name, const char **out_unit_code) {
    static int (*fn)(PJ_CONTEXT *ctx, const PJ *cs, int index, const char **out_name, const char **out_abbrev, const char **out_direction, double *out_unit_conv_factor, const char **out_unit_name, const char **out_unit_auth_name, const char **out_unit_code);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(PJ_CONTEXT *ctx, const PJ *cs, int index, const char **out_name, const char **out_abbrev, const char **out_direction, double *out_unit_conv_factor, const char **out_unit_name, const char **out_unit_auth_name, const char **out_unit_code))symbol("proj_cs_get_axis_info"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx, cs, index, out_name, out_abbrev, out_direction, out_unit_conv_factor, out_unit_name, out_unit_auth_name, out_unit_code);
}

PJ_COORDINATE_SYSTEM_TYPE proj_cs_get_type(PJ_CONTEXT *ctx, const PJ *cs) {
    static PJ_COORDINATE_SYSTEM_TYPE (*fn)(PJ_CONTEXT *ctx, const PJ *cs);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ_COORDINATE_SYSTEM_TYPE (*)(PJ_CONTEXT *ctx, const PJ *cs))symbol("proj_cs_get_type"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx, cs);
}

PJ * proj_destroy(PJ *P) {
    static PJ * (*fn)(PJ *P);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ * (*)(PJ *P))symbol("proj_destroy"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(P);
}

int proj_errno(const PJ *P) {
    static int (*fn)(const PJ *P);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(const PJ *P))symbol("proj_errno"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(P);
}

int proj_errno_reset(const PJ *P) {
    static int (*fn)(const PJ *P);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(const PJ *P))symbol("proj_errno_reset"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(P);
}

const char * proj_get_id_auth_name(const PJ *obj, int index) {
    static const char * (*fn)(const PJ *obj, int index);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (const char * (*)(const PJ *obj, int index))symbol("proj_get_id_auth_name"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(obj, index);
}

const char * proj_get_id_code(const PJ *obj, int index) {
    static const char * (*fn)(const PJ *obj, int index);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (const char * (*)(const PJ *obj, int index))symbol("proj_get_id_code"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(obj, index);
}

const char * proj_get_name(const PJ *obj) {
    static const char * (*fn)(const PJ *obj);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (const char * (*)(const PJ *obj))symbol("proj_get_name"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(obj);
}

PJ * proj_get_source_crs(PJ_CONTEXT *ctx, const PJ *obj) {
    static PJ * (*fn)(PJ_CONTEXT *ctx, const PJ *obj);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ * (*)(PJ_CONTEXT *ctx, const PJ *obj))symbol("proj_get_source_crs"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx, obj);
}

PJ_TYPE proj_get_type(const PJ *obj) {
    static PJ_TYPE (*fn)(const PJ *obj);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ_TYPE (*)(const PJ *obj))symbol("proj_get_type"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(obj);
}

PJ_INFO proj_info(void) {
    static PJ_INFO (*fn)(void);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ_INFO (*)(void))symbol("proj_info"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f();
}

int proj_is_crs(const PJ *obj) {
    static int (*fn)(const PJ *obj);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(const PJ *obj))symbol("proj_is_crs"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(obj);
}

void proj_log_func(PJ_CONTEXT *ctx, void *app_data, PJ_LOG_FUNCTION logf) {
    static void (*fn)(PJ_CONTEXT *ctx, void *app_data, PJ_LOG_FUNCTION logf);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (void (*)(PJ_CONTEXT *ctx, void *app_data, PJ_LOG_FUNCTION logf))symbol("proj_log_func"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(ctx, app_data, logf);
}

PJ * proj_normalize_for_visualization(PJ_CONTEXT *ctx, const PJ *obj) {
    static PJ * (*fn)(PJ_CONTEXT *ctx, const PJ *obj);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ * (*)(PJ_CONTEXT *ctx, const PJ *obj))symbol("proj_normalize_for_visualization"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx, obj);
}

PJ_COORD proj_trans(PJ *P, PJ_DIRECTION direction, PJ_COORD coord) {
    static PJ_COORD (*fn)(PJ *P, PJ_DIRECTION direction, PJ_COORD coord);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (PJ_COORD (*)(PJ *P, PJ_DIRECTION direction, PJ_COORD coord))symbol("proj_trans"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(P, direction, coord);
}

int proj_get_area_of_use(PJ_CONTEXT *ctx, const PJ *obj, double *out_west_lon_degree, double *out_south_lat_degree, double *out_east_lon_degree, double *out_north_lat_degree, const char **out_area_name) {
    static int (*fn)(PJ_CONTEXT *ctx, const PJ *obj, double *out_west_lon_degree, double *out_south_lat_degree, double *out_east_lon_degree, double *out_north_lat_degree, const char **out_area_name);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(PJ_CONTEXT *ctx, const PJ *obj, double *out_west_lon_degree, double *out_south_lat_degree, double *out_east_lon_degree, double *out_north_lat_degree, const char **out_area_name))symbol("proj_get_area_of_use"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(ctx, obj, out_west_lon_degree, out_south_lat_degree, out_east_lon_degree, out_north_lat_degree, out_area_name);
}
