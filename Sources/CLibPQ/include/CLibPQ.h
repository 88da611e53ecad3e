#ifndef ANNOLINK_CLIBPQ_H
#define ANNOLINK_CLIBPQ_H
/*
 * PostgreSQL's client library, loaded on first use as GEOS and PROJ are (Sources/CGEOS): only the
 * PostGIS commands need it, and linking libpq loaded it and its dependencies (GSSAPI, LDAP,
 * OpenSSL) at every start, even for `annolink --version`. pq_lazy.c defines the libpq functions
 * annolink calls; each loads libpq.so.5 with dlopen on its first call. The declarations are
 * Debian's libpq-dev's, included by their path under /usr/include.
 * Call annolink_pq_load() before the first libpq call to learn whether libpq can be loaded.
 */
#include <postgresql/libpq-fe.h>

/* Loads libpq once. Returns 0 when it is loaded, -1 when it cannot be (see the message). */
int annolink_pq_load(void);

/* Why annolink_pq_load failed: dlopen's message; NULL when it did not fail. */
const char *annolink_pq_load_error(void);
#endif
