#ifndef ANNOLINK_CLIBPQ_SHIM_H
#define ANNOLINK_CLIBPQ_SHIM_H
/// PostgreSQL's client library (Debian's libpq-dev; pkg-config libpq puts its folder,
/// /usr/include/postgresql, on the include path).
#include <libpq-fe.h>
#endif
