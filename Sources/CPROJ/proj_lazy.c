/*
 * The PROJ functions annolink calls, each a trampoline into libproj loaded with dlopen on first
 * use (see include/CPROJ.h for why). The prototypes are proj.h's own, so the compiler checks
 * every one against the installed header. Written once by hand from PROJ 9.1's proj.h; add a
 * function here when the engine starts calling a new one (the link fails until then).
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
    if (!fn) fn = (const char * (*)(PJ_CONTEXT *ctx, const PJ *obj, PJ_WKT_TYPE type, const char* const *options))symbol("proj_as_wkt");
    return fn(ctx, obj, type, options);
}

PJ_CONTEXT * proj_context_create(void) {
    static PJ_CONTEXT * (*fn)(void);
    if (!fn) fn = (PJ_CONTEXT * (*)(void))symbol("proj_context_create");
    return fn();
}

PJ_CONTEXT * proj_context_destroy(PJ_CONTEXT *ctx) {
    static PJ_CONTEXT * (*fn)(PJ_CONTEXT *ctx);
    if (!fn) fn = (PJ_CONTEXT * (*)(PJ_CONTEXT *ctx))symbol("proj_context_destroy");
    return fn(ctx);
}

int proj_context_errno(PJ_CONTEXT *ctx) {
    static int (*fn)(PJ_CONTEXT *ctx);
    if (!fn) fn = (int (*)(PJ_CONTEXT *ctx))symbol("proj_context_errno");
    return fn(ctx);
}

const char * proj_context_errno_string(PJ_CONTEXT *ctx, int err) {
    static const char * (*fn)(PJ_CONTEXT *ctx, int err);
    if (!fn) fn = (const char * (*)(PJ_CONTEXT *ctx, int err))symbol("proj_context_errno_string");
    return fn(ctx, err);
}

PJ_COORD proj_coord(double x, double y, double z, double t) {
    static PJ_COORD (*fn)(double x, double y, double z, double t);
    if (!fn) fn = (PJ_COORD (*)(double x, double y, double z, double t))symbol("proj_coord");
    return fn(x, y, z, t);
}

PJ * proj_create(PJ_CONTEXT *ctx, const char *definition) {
    static PJ * (*fn)(PJ_CONTEXT *ctx, const char *definition);
    if (!fn) fn = (PJ * (*)(PJ_CONTEXT *ctx, const char *definition))symbol("proj_create");
    return fn(ctx, definition);
}

PJ * proj_create_crs_to_crs_from_pj(PJ_CONTEXT *ctx, const PJ *source_crs, const PJ *target_crs, PJ_AREA *area, const char* const *options) {
    static PJ * (*fn)(PJ_CONTEXT *ctx, const PJ *source_crs, const PJ *target_crs, PJ_AREA *area, const char* const *options);
    if (!fn) fn = (PJ * (*)(PJ_CONTEXT *ctx, const PJ *source_crs, const PJ *target_crs, PJ_AREA *area, const char* const *options))symbol("proj_create_crs_to_crs_from_pj");
    return fn(ctx, source_crs, target_crs, area, options);
}

PJ * proj_crs_get_coordinate_system(PJ_CONTEXT *ctx, const PJ *crs) {
    static PJ * (*fn)(PJ_CONTEXT *ctx, const PJ *crs);
    if (!fn) fn = (PJ * (*)(PJ_CONTEXT *ctx, const PJ *crs))symbol("proj_crs_get_coordinate_system");
    return fn(ctx, crs);
}

PJ * proj_crs_get_sub_crs(PJ_CONTEXT *ctx, const PJ *crs, int index) {
    static PJ * (*fn)(PJ_CONTEXT *ctx, const PJ *crs, int index);
    if (!fn) fn = (PJ * (*)(PJ_CONTEXT *ctx, const PJ *crs, int index))symbol("proj_crs_get_sub_crs");
    return fn(ctx, crs, index);
}

int proj_cs_get_axis_info(PJ_CONTEXT *ctx, const PJ *cs, int index, const char **out_name, const char **out_abbrev, const char **out_direction, double *out_unit_conv_factor, const char **out_unit_name, const char **out_unit_auth_name, const char **out_unit_code) {
    static int (*fn)(PJ_CONTEXT *ctx, const PJ *cs, int index, const char **out_name, const char **out_abbrev, const char **out_direction, double *out_unit_conv_factor, const char **out_unit_name, const char **out_unit_auth_name, const char **out_unit_code);
    if (!fn) fn = (int (*)(PJ_CONTEXT *ctx, const PJ *cs, int index, const char **out_name, const char **out_abbrev, const char **out_direction, double *out_unit_conv_factor, const char **out_unit_name, const char **out_unit_auth_name, const char **out_unit_code))symbol("proj_cs_get_axis_info");
    return fn(ctx, cs, index, out_name, out_abbrev, out_direction, out_unit_conv_factor, out_unit_name, out_unit_auth_name, out_unit_code);
}

PJ_COORDINATE_SYSTEM_TYPE proj_cs_get_type(PJ_CONTEXT *ctx, const PJ *cs) {
    static PJ_COORDINATE_SYSTEM_TYPE (*fn)(PJ_CONTEXT *ctx, const PJ *cs);
    if (!fn) fn = (PJ_COORDINATE_SYSTEM_TYPE (*)(PJ_CONTEXT *ctx, const PJ *cs))symbol("proj_cs_get_type");
    return fn(ctx, cs);
}

PJ * proj_destroy(PJ *P) {
    static PJ * (*fn)(PJ *P);
    if (!fn) fn = (PJ * (*)(PJ *P))symbol("proj_destroy");
    return fn(P);
}

int proj_errno(const PJ *P) {
    static int (*fn)(const PJ *P);
    if (!fn) fn = (int (*)(const PJ *P))symbol("proj_errno");
    return fn(P);
}

int proj_errno_reset(const PJ *P) {
    static int (*fn)(const PJ *P);
    if (!fn) fn = (int (*)(const PJ *P))symbol("proj_errno_reset");
    return fn(P);
}

const char * proj_get_id_auth_name(const PJ *obj, int index) {
    static const char * (*fn)(const PJ *obj, int index);
    if (!fn) fn = (const char * (*)(const PJ *obj, int index))symbol("proj_get_id_auth_name");
    return fn(obj, index);
}

const char * proj_get_id_code(const PJ *obj, int index) {
    static const char * (*fn)(const PJ *obj, int index);
    if (!fn) fn = (const char * (*)(const PJ *obj, int index))symbol("proj_get_id_code");
    return fn(obj, index);
}

const char * proj_get_name(const PJ *obj) {
    static const char * (*fn)(const PJ *obj);
    if (!fn) fn = (const char * (*)(const PJ *obj))symbol("proj_get_name");
    return fn(obj);
}

PJ * proj_get_source_crs(PJ_CONTEXT *ctx, const PJ *obj) {
    static PJ * (*fn)(PJ_CONTEXT *ctx, const PJ *obj);
    if (!fn) fn = (PJ * (*)(PJ_CONTEXT *ctx, const PJ *obj))symbol("proj_get_source_crs");
    return fn(ctx, obj);
}

PJ_TYPE proj_get_type(const PJ *obj) {
    static PJ_TYPE (*fn)(const PJ *obj);
    if (!fn) fn = (PJ_TYPE (*)(const PJ *obj))symbol("proj_get_type");
    return fn(obj);
}

PJ_INFO proj_info(void) {
    static PJ_INFO (*fn)(void);
    if (!fn) fn = (PJ_INFO (*)(void))symbol("proj_info");
    return fn();
}

int proj_is_crs(const PJ *obj) {
    static int (*fn)(const PJ *obj);
    if (!fn) fn = (int (*)(const PJ *obj))symbol("proj_is_crs");
    return fn(obj);
}

void proj_log_func(PJ_CONTEXT *ctx, void *app_data, PJ_LOG_FUNCTION logf) {
    static void (*fn)(PJ_CONTEXT *ctx, void *app_data, PJ_LOG_FUNCTION logf);
    if (!fn) fn = (void (*)(PJ_CONTEXT *ctx, void *app_data, PJ_LOG_FUNCTION logf))symbol("proj_log_func");
    fn(ctx, app_data, logf);
}

PJ * proj_normalize_for_visualization(PJ_CONTEXT *ctx, const PJ *obj) {
    static PJ * (*fn)(PJ_CONTEXT *ctx, const PJ *obj);
    if (!fn) fn = (PJ * (*)(PJ_CONTEXT *ctx, const PJ *obj))symbol("proj_normalize_for_visualization");
    return fn(ctx, obj);
}

PJ_COORD proj_trans(PJ *P, PJ_DIRECTION direction, PJ_COORD coord) {
    static PJ_COORD (*fn)(PJ *P, PJ_DIRECTION direction, PJ_COORD coord);
    if (!fn) fn = (PJ_COORD (*)(PJ *P, PJ_DIRECTION direction, PJ_COORD coord))symbol("proj_trans");
    return fn(P, direction, coord);
}
