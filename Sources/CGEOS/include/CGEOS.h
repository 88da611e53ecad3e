#ifndef ANNOLINK_CGEOS_H
#define ANNOLINK_CGEOS_H
/*
 * GEOS's C API, loaded on first use. An attribute edit needs no geometry operation, and linking
 * libgeos_c loaded GEOS and its C++ runtime at every start. geos_lazy.c defines the GEOS
 * functions annolink calls; each loads libgeos_c with dlopen on its first call. Call
 * annolink_geos_load() before the first GEOS call to learn whether GEOS can be loaded at all.
 */
/* Only the reentrant (_r) API: every call names its context, so several threads may each own one. */
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>

/* Loads libgeos_c once. Returns 0 when it is loaded, -1 when it cannot be (see the message). */
int annolink_geos_load(void);

/* Why annolink_geos_load failed: dlopen's message; NULL when it did not fail. */
const char *annolink_geos_load_error(void);
#endif
