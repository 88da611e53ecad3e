/*
 * The GEOS functions annolink calls, each a trampoline into libgeos_c loaded with dlopen on
 * first use: an attribute edit needs no GEOS, and linking it loaded libgeos and libstdc++ at
 * every start (see include/CGEOS.h). The prototypes are geos_c.h's own, so the compiler checks
 * each against the installed header. Written from GEOS 3.11's geos_c.h; add a function here
 * when the engine starts calling a new one (the link fails until then).
 *
 * Each trampoline keeps the address it looked up in a static pointer read and written atomically
 * (acquire/release), so that threads making their first call at once each see a whole address.
 */
#include "CGEOS.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *library;
static char load_error[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    const char *names[] = {"libgeos_c.so.1", "libgeos_c.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (library) return;
    }
    const char *why = dlerror();
    snprintf(load_error, sizeof load_error, "cannot load GEOS (libgeos_c.so.1): %s", why ? why : "unknown error");
}

int annolink_geos_load(void) {
    pthread_once(&once, load);
    return library ? 0 : -1;
}

const char *annolink_geos_load_error(void) {
    pthread_once(&once, load);
    return library ? NULL : load_error;
}

/* The address of `name` in libgeos_c. The engine calls annolink_geos_load before its first GEOS
   call and throws a typed error when it fails, so a failure here is a program bug. */
static void *symbol(const char *name) {
    if (annolink_geos_load() != 0) {
        fprintf(stderr, "error: %s\n", load_error);
        abort();
    }
    void *address = dlsym(library, name);
    if (!address) {
        fprintf(stderr, "error: GEOS has no %s\n", name);
        abort();
    }
    return address;
}


int GEOSArea_r(GEOSContextHandle_t handle, const GEOSGeometry* g, double *area) {
    static int (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g, double *area);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(GEOSContextHandle_t handle, const GEOSGeometry* g, double *area))symbol("GEOSArea_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g, area);
}

GEOSGeometry * GEOSBufferWithStyle_r(GEOSContextHandle_t handle, const GEOSGeometry* g, double width, int quadsegs, int endCapStyle, int joinStyle, double mitreLimit) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g, double width, int quadsegs, int endCapStyle, int joinStyle, double mitreLimit);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, const GEOSGeometry* g, double width, int quadsegs, int endCapStyle, int joinStyle, double mitreLimit))symbol("GEOSBufferWithStyle_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g, width, quadsegs, endCapStyle, joinStyle, mitreLimit);
}

GEOSMessageHandler_r GEOSContext_setErrorMessageHandler_r(GEOSContextHandle_t extHandle, GEOSMessageHandler_r ef, void *userData) {
    static GEOSMessageHandler_r (*fn)(GEOSContextHandle_t extHandle, GEOSMessageHandler_r ef, void *userData);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSMessageHandler_r (*)(GEOSContextHandle_t extHandle, GEOSMessageHandler_r ef, void *userData))symbol("GEOSContext_setErrorMessageHandler_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(extHandle, ef, userData);
}

GEOSMessageHandler_r GEOSContext_setNoticeMessageHandler_r(GEOSContextHandle_t extHandle, GEOSMessageHandler_r nf, void *userData) {
    static GEOSMessageHandler_r (*fn)(GEOSContextHandle_t extHandle, GEOSMessageHandler_r nf, void *userData);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSMessageHandler_r (*)(GEOSContextHandle_t extHandle, GEOSMessageHandler_r nf, void *userData))symbol("GEOSContext_setNoticeMessageHandler_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(extHandle, nf, userData);
}

GEOSCoordSequence * GEOSCoordSeq_copyFromBuffer_r(GEOSContextHandle_t handle, const double* buf, unsigned int size, int hasZ, int hasM) {
    static GEOSCoordSequence * (*fn)(GEOSContextHandle_t handle, const double* buf, unsigned int size, int hasZ, int hasM);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSCoordSequence * (*)(GEOSContextHandle_t handle, const double* buf, unsigned int size, int hasZ, int hasM))symbol("GEOSCoordSeq_copyFromBuffer_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, buf, size, hasZ, hasM);
}

int GEOSCoordSeq_copyToBuffer_r(GEOSContextHandle_t handle, const GEOSCoordSequence* s, double* buf, int hasZ, int hasM) {
    static int (*fn)(GEOSContextHandle_t handle, const GEOSCoordSequence* s, double* buf, int hasZ, int hasM);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(GEOSContextHandle_t handle, const GEOSCoordSequence* s, double* buf, int hasZ, int hasM))symbol("GEOSCoordSeq_copyToBuffer_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, s, buf, hasZ, hasM);
}

GEOSCoordSequence * GEOSCoordSeq_create_r(GEOSContextHandle_t handle, unsigned int size, unsigned int dims) {
    static GEOSCoordSequence * (*fn)(GEOSContextHandle_t handle, unsigned int size, unsigned int dims);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSCoordSequence * (*)(GEOSContextHandle_t handle, unsigned int size, unsigned int dims))symbol("GEOSCoordSeq_create_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, size, dims);
}

void GEOSCoordSeq_destroy_r(GEOSContextHandle_t handle, GEOSCoordSequence* s) {
    static void (*fn)(GEOSContextHandle_t handle, GEOSCoordSequence* s);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (void (*)(GEOSContextHandle_t handle, GEOSCoordSequence* s))symbol("GEOSCoordSeq_destroy_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(handle, s);
}

int GEOSCoordSeq_getSize_r(GEOSContextHandle_t handle, const GEOSCoordSequence* s, unsigned int *size) {
    static int (*fn)(GEOSContextHandle_t handle, const GEOSCoordSequence* s, unsigned int *size);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(GEOSContextHandle_t handle, const GEOSCoordSequence* s, unsigned int *size))symbol("GEOSCoordSeq_getSize_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, s, size);
}

int GEOSCoordSeq_getXY_r(GEOSContextHandle_t handle, const GEOSCoordSequence* s, unsigned int idx, double *x, double *y) {
    static int (*fn)(GEOSContextHandle_t handle, const GEOSCoordSequence* s, unsigned int idx, double *x, double *y);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(GEOSContextHandle_t handle, const GEOSCoordSequence* s, unsigned int idx, double *x, double *y))symbol("GEOSCoordSeq_getXY_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, s, idx, x, y);
}

char GEOSDistanceWithin_r(GEOSContextHandle_t handle, const GEOSGeometry* g1, const GEOSGeometry* g2, double dist) {
    static char (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g1, const GEOSGeometry* g2, double dist);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (char (*)(GEOSContextHandle_t handle, const GEOSGeometry* g1, const GEOSGeometry* g2, double dist))symbol("GEOSDistanceWithin_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g1, g2, dist);
}

int GEOSDistance_r(GEOSContextHandle_t handle, const GEOSGeometry* g1, const GEOSGeometry* g2, double *dist) {
    static int (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g1, const GEOSGeometry* g2, double *dist);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(GEOSContextHandle_t handle, const GEOSGeometry* g1, const GEOSGeometry* g2, double *dist))symbol("GEOSDistance_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g1, g2, dist);
}

void GEOSFree_r(GEOSContextHandle_t handle, void *buffer) {
    static void (*fn)(GEOSContextHandle_t handle, void *buffer);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (void (*)(GEOSContextHandle_t handle, void *buffer))symbol("GEOSFree_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(handle, buffer);
}

int GEOSGeomTypeId_r(GEOSContextHandle_t handle, const GEOSGeometry* g) {
    static int (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(GEOSContextHandle_t handle, const GEOSGeometry* g))symbol("GEOSGeomTypeId_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g);
}

GEOSGeometry * GEOSGeom_createCollection_r(GEOSContextHandle_t handle, int type, GEOSGeometry* *geoms, unsigned int ngeoms) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, int type, GEOSGeometry* *geoms, unsigned int ngeoms);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, int type, GEOSGeometry* *geoms, unsigned int ngeoms))symbol("GEOSGeom_createCollection_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, type, geoms, ngeoms);
}

GEOSGeometry * GEOSGeom_createEmptyCollection_r(GEOSContextHandle_t handle, int type) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, int type);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, int type))symbol("GEOSGeom_createEmptyCollection_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, type);
}

GEOSGeometry * GEOSGeom_createEmptyPoint_r(GEOSContextHandle_t handle) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle))symbol("GEOSGeom_createEmptyPoint_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle);
}

GEOSGeometry * GEOSGeom_createEmptyPolygon_r(GEOSContextHandle_t handle) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle))symbol("GEOSGeom_createEmptyPolygon_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle);
}

GEOSGeometry * GEOSGeom_createLineString_r(GEOSContextHandle_t handle, GEOSCoordSequence* s) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, GEOSCoordSequence* s);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, GEOSCoordSequence* s))symbol("GEOSGeom_createLineString_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, s);
}

GEOSGeometry * GEOSGeom_createLinearRing_r(GEOSContextHandle_t handle, GEOSCoordSequence* s) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, GEOSCoordSequence* s);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, GEOSCoordSequence* s))symbol("GEOSGeom_createLinearRing_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, s);
}

GEOSGeometry * GEOSGeom_createPointFromXY_r(GEOSContextHandle_t handle, double x, double y) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, double x, double y);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, double x, double y))symbol("GEOSGeom_createPointFromXY_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, x, y);
}

GEOSGeometry * GEOSGeom_createPolygon_r(GEOSContextHandle_t handle, GEOSGeometry* shell, GEOSGeometry** holes, unsigned int nholes) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, GEOSGeometry* shell, GEOSGeometry** holes, unsigned int nholes);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, GEOSGeometry* shell, GEOSGeometry** holes, unsigned int nholes))symbol("GEOSGeom_createPolygon_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, shell, holes, nholes);
}

void GEOSGeom_destroy_r(GEOSContextHandle_t handle, GEOSGeometry* g) {
    static void (*fn)(GEOSContextHandle_t handle, GEOSGeometry* g);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (void (*)(GEOSContextHandle_t handle, GEOSGeometry* g))symbol("GEOSGeom_destroy_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(handle, g);
}

const GEOSCoordSequence * GEOSGeom_getCoordSeq_r(GEOSContextHandle_t handle, const GEOSGeometry* g) {
    static const GEOSCoordSequence * (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (const GEOSCoordSequence * (*)(GEOSContextHandle_t handle, const GEOSGeometry* g))symbol("GEOSGeom_getCoordSeq_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g);
}

int GEOSGeom_getExtent_r(GEOSContextHandle_t handle, const GEOSGeometry* g, double* xmin, double* ymin, double* xmax, double* ymax) {
    static int (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g, double* xmin, double* ymin, double* xmax, double* ymax);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(GEOSContextHandle_t handle, const GEOSGeometry* g, double* xmin, double* ymin, double* xmax, double* ymax))symbol("GEOSGeom_getExtent_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g, xmin, ymin, xmax, ymax);
}

const GEOSGeometry * GEOSGetExteriorRing_r(GEOSContextHandle_t handle, const GEOSGeometry* g) {
    static const GEOSGeometry * (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (const GEOSGeometry * (*)(GEOSContextHandle_t handle, const GEOSGeometry* g))symbol("GEOSGetExteriorRing_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g);
}

const GEOSGeometry * GEOSGetGeometryN_r(GEOSContextHandle_t handle, const GEOSGeometry* g, int n) {
    static const GEOSGeometry * (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g, int n);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (const GEOSGeometry * (*)(GEOSContextHandle_t handle, const GEOSGeometry* g, int n))symbol("GEOSGetGeometryN_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g, n);
}

const GEOSGeometry * GEOSGetInteriorRingN_r(GEOSContextHandle_t handle, const GEOSGeometry* g, int n) {
    static const GEOSGeometry * (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g, int n);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (const GEOSGeometry * (*)(GEOSContextHandle_t handle, const GEOSGeometry* g, int n))symbol("GEOSGetInteriorRingN_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g, n);
}

int GEOSGetNumGeometries_r(GEOSContextHandle_t handle, const GEOSGeometry* g) {
    static int (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(GEOSContextHandle_t handle, const GEOSGeometry* g))symbol("GEOSGetNumGeometries_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g);
}

int GEOSGetNumInteriorRings_r(GEOSContextHandle_t handle, const GEOSGeometry* g) {
    static int (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(GEOSContextHandle_t handle, const GEOSGeometry* g))symbol("GEOSGetNumInteriorRings_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g);
}

GEOSGeometry * GEOSInterpolateNormalized_r(GEOSContextHandle_t handle, const GEOSGeometry *g, double d) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, const GEOSGeometry *g, double d);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, const GEOSGeometry *g, double d))symbol("GEOSInterpolateNormalized_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g, d);
}

GEOSGeometry * GEOSInterpolate_r(GEOSContextHandle_t handle, const GEOSGeometry *line, double d) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, const GEOSGeometry *line, double d);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, const GEOSGeometry *line, double d))symbol("GEOSInterpolate_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, line, d);
}

char GEOSIntersects_r(GEOSContextHandle_t handle, const GEOSGeometry* g1, const GEOSGeometry* g2) {
    static char (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g1, const GEOSGeometry* g2);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (char (*)(GEOSContextHandle_t handle, const GEOSGeometry* g1, const GEOSGeometry* g2))symbol("GEOSIntersects_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g1, g2);
}

int GEOSLength_r(GEOSContextHandle_t handle, const GEOSGeometry* g, double *length) {
    static int (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g, double *length);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(GEOSContextHandle_t handle, const GEOSGeometry* g, double *length))symbol("GEOSLength_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g, length);
}

GEOSMakeValidParams * GEOSMakeValidParams_create_r(GEOSContextHandle_t extHandle) {
    static GEOSMakeValidParams * (*fn)(GEOSContextHandle_t extHandle);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSMakeValidParams * (*)(GEOSContextHandle_t extHandle))symbol("GEOSMakeValidParams_create_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(extHandle);
}

void GEOSMakeValidParams_destroy_r(GEOSContextHandle_t handle, GEOSMakeValidParams* parms) {
    static void (*fn)(GEOSContextHandle_t handle, GEOSMakeValidParams* parms);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (void (*)(GEOSContextHandle_t handle, GEOSMakeValidParams* parms))symbol("GEOSMakeValidParams_destroy_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(handle, parms);
}

int GEOSMakeValidParams_setKeepCollapsed_r(GEOSContextHandle_t handle, GEOSMakeValidParams* p, int style) {
    static int (*fn)(GEOSContextHandle_t handle, GEOSMakeValidParams* p, int style);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(GEOSContextHandle_t handle, GEOSMakeValidParams* p, int style))symbol("GEOSMakeValidParams_setKeepCollapsed_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, p, style);
}

int GEOSMakeValidParams_setMethod_r(GEOSContextHandle_t handle, GEOSMakeValidParams* p, enum GEOSMakeValidMethods method) {
    static int (*fn)(GEOSContextHandle_t handle, GEOSMakeValidParams* p, enum GEOSMakeValidMethods method);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (int (*)(GEOSContextHandle_t handle, GEOSMakeValidParams* p, enum GEOSMakeValidMethods method))symbol("GEOSMakeValidParams_setMethod_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, p, method);
}

GEOSGeometry * GEOSMakeValidWithParams_r(GEOSContextHandle_t handle, const GEOSGeometry* g, const GEOSMakeValidParams* makeValidParams) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g, const GEOSMakeValidParams* makeValidParams);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, const GEOSGeometry* g, const GEOSMakeValidParams* makeValidParams))symbol("GEOSMakeValidWithParams_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g, makeValidParams);
}

GEOSCoordSequence * GEOSNearestPoints_r(GEOSContextHandle_t handle, const GEOSGeometry* g1, const GEOSGeometry* g2) {
    static GEOSCoordSequence * (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g1, const GEOSGeometry* g2);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSCoordSequence * (*)(GEOSContextHandle_t handle, const GEOSGeometry* g1, const GEOSGeometry* g2))symbol("GEOSNearestPoints_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g1, g2);
}

const GEOSPreparedGeometry* GEOSPrepare_r(GEOSContextHandle_t handle, const GEOSGeometry* g) {
    static const GEOSPreparedGeometry* (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (const GEOSPreparedGeometry* (*)(GEOSContextHandle_t handle, const GEOSGeometry* g))symbol("GEOSPrepare_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g);
}

void GEOSPreparedGeom_destroy_r(GEOSContextHandle_t handle, const GEOSPreparedGeometry* g) {
    static void (*fn)(GEOSContextHandle_t handle, const GEOSPreparedGeometry* g);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (void (*)(GEOSContextHandle_t handle, const GEOSPreparedGeometry* g))symbol("GEOSPreparedGeom_destroy_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(handle, g);
}

char GEOSPreparedIntersects_r(GEOSContextHandle_t handle, const GEOSPreparedGeometry* pg1, const GEOSGeometry* g2) {
    static char (*fn)(GEOSContextHandle_t handle, const GEOSPreparedGeometry* pg1, const GEOSGeometry* g2);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (char (*)(GEOSContextHandle_t handle, const GEOSPreparedGeometry* pg1, const GEOSGeometry* g2))symbol("GEOSPreparedIntersects_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, pg1, g2);
}

double GEOSProjectNormalized_r(GEOSContextHandle_t handle, const GEOSGeometry *g, const GEOSGeometry *p) {
    static double (*fn)(GEOSContextHandle_t handle, const GEOSGeometry *g, const GEOSGeometry *p);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (double (*)(GEOSContextHandle_t handle, const GEOSGeometry *g, const GEOSGeometry *p))symbol("GEOSProjectNormalized_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g, p);
}

double GEOSProject_r(GEOSContextHandle_t handle, const GEOSGeometry *line, const GEOSGeometry *point) {
    static double (*fn)(GEOSContextHandle_t handle, const GEOSGeometry *line, const GEOSGeometry *point);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (double (*)(GEOSContextHandle_t handle, const GEOSGeometry *line, const GEOSGeometry *point))symbol("GEOSProject_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, line, point);
}

GEOSGeometry * GEOSSimplify_r(GEOSContextHandle_t handle, const GEOSGeometry* g, double tolerance) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g, double tolerance);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, const GEOSGeometry* g, double tolerance))symbol("GEOSSimplify_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g, tolerance);
}

GEOSGeometry * GEOSTopologyPreserveSimplify_r(GEOSContextHandle_t handle, const GEOSGeometry* g, double tolerance) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g, double tolerance);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, const GEOSGeometry* g, double tolerance))symbol("GEOSTopologyPreserveSimplify_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g, tolerance);
}

GEOSWKBReader * GEOSWKBReader_create_r(GEOSContextHandle_t handle) {
    static GEOSWKBReader * (*fn)(GEOSContextHandle_t handle);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSWKBReader * (*)(GEOSContextHandle_t handle))symbol("GEOSWKBReader_create_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle);
}

void GEOSWKBReader_destroy_r(GEOSContextHandle_t handle, GEOSWKBReader* reader) {
    static void (*fn)(GEOSContextHandle_t handle, GEOSWKBReader* reader);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (void (*)(GEOSContextHandle_t handle, GEOSWKBReader* reader))symbol("GEOSWKBReader_destroy_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(handle, reader);
}

GEOSGeometry * GEOSWKBReader_read_r(GEOSContextHandle_t handle, GEOSWKBReader* reader, const unsigned char *wkb, size_t size) {
    static GEOSGeometry * (*fn)(GEOSContextHandle_t handle, GEOSWKBReader* reader, const unsigned char *wkb, size_t size);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSGeometry * (*)(GEOSContextHandle_t handle, GEOSWKBReader* reader, const unsigned char *wkb, size_t size))symbol("GEOSWKBReader_read_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, reader, wkb, size);
}

GEOSWKBWriter * GEOSWKBWriter_create_r(GEOSContextHandle_t handle) {
    static GEOSWKBWriter * (*fn)(GEOSContextHandle_t handle);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSWKBWriter * (*)(GEOSContextHandle_t handle))symbol("GEOSWKBWriter_create_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle);
}

void GEOSWKBWriter_destroy_r(GEOSContextHandle_t handle, GEOSWKBWriter* writer) {
    static void (*fn)(GEOSContextHandle_t handle, GEOSWKBWriter* writer);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (void (*)(GEOSContextHandle_t handle, GEOSWKBWriter* writer))symbol("GEOSWKBWriter_destroy_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(handle, writer);
}

void GEOSWKBWriter_setByteOrder_r(GEOSContextHandle_t handle, GEOSWKBWriter* writer, int byteOrder) {
    static void (*fn)(GEOSContextHandle_t handle, GEOSWKBWriter* writer, int byteOrder);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (void (*)(GEOSContextHandle_t handle, GEOSWKBWriter* writer, int byteOrder))symbol("GEOSWKBWriter_setByteOrder_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(handle, writer, byteOrder);
}

unsigned char * GEOSWKBWriter_write_r(GEOSContextHandle_t handle, GEOSWKBWriter* writer, const GEOSGeometry* g, size_t *size) {
    static unsigned char * (*fn)(GEOSContextHandle_t handle, GEOSWKBWriter* writer, const GEOSGeometry* g, size_t *size);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (unsigned char * (*)(GEOSContextHandle_t handle, GEOSWKBWriter* writer, const GEOSGeometry* g, size_t *size))symbol("GEOSWKBWriter_write_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, writer, g, size);
}

void GEOS_finish_r(GEOSContextHandle_t handle) {
    static void (*fn)(GEOSContextHandle_t handle);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (void (*)(GEOSContextHandle_t handle))symbol("GEOS_finish_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(handle);
}

GEOSContextHandle_t GEOS_init_r(void) {
    static GEOSContextHandle_t (*fn)(void);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (GEOSContextHandle_t (*)(void))symbol("GEOS_init_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f();
}

char GEOSisEmpty_r(GEOSContextHandle_t handle, const GEOSGeometry* g) {
    static char (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (char (*)(GEOSContextHandle_t handle, const GEOSGeometry* g))symbol("GEOSisEmpty_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g);
}

char GEOSisValidDetail_r(GEOSContextHandle_t handle, const GEOSGeometry* g, int flags, char** reason, GEOSGeometry** location) {
    static char (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g, int flags, char** reason, GEOSGeometry** location);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (char (*)(GEOSContextHandle_t handle, const GEOSGeometry* g, int flags, char** reason, GEOSGeometry** location))symbol("GEOSisValidDetail_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g, flags, reason, location);
}

char * GEOSisValidReason_r(GEOSContextHandle_t handle, const GEOSGeometry* g) {
    static char * (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (char * (*)(GEOSContextHandle_t handle, const GEOSGeometry* g))symbol("GEOSisValidReason_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g);
}

char GEOSisValid_r(GEOSContextHandle_t handle, const GEOSGeometry* g) {
    static char (*fn)(GEOSContextHandle_t handle, const GEOSGeometry* g);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (char (*)(GEOSContextHandle_t handle, const GEOSGeometry* g))symbol("GEOSisValid_r"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(handle, g);
}

const char * GEOSversion(void) {
    static const char * (*fn)(void);
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (const char * (*)(void))symbol("GEOSversion"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f();
}
