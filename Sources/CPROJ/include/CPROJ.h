#ifndef ANNOLINK_CPROJ_H
#define ANNOLINK_CPROJ_H
/*
 * PROJ's API, loaded on first use. Most annolink commands never reproject, and linking libproj
 * at start-up loads 34 shared libraries with it (curl, GnuTLS, Kerberos, libtiff, ...), a third of
 * a whole attribute edit's time (docs/benchmarks.md). proj_lazy.c defines the PROJ functions
 * annolink calls; each loads libproj with dlopen on its first call. Call annolink_proj_load()
 * before the first PROJ call to learn whether PROJ can be loaded at all.
 */
#include <proj.h>

/* Loads libproj once. Returns 0 when it is loaded, -1 when it cannot be (see the message). */
int annolink_proj_load(void);

/* Why annolink_proj_load failed: dlopen's or dlsym's message; NULL when it did not fail. */
const char *annolink_proj_load_error(void);
#endif
