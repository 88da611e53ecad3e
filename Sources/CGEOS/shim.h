#ifndef ANNOLINK_CGEOS_SHIM_H
#define ANNOLINK_CGEOS_SHIM_H
/* Only the reentrant (_r) API: every call names its context, so several threads may each own one. */
#define GEOS_USE_ONLY_R_API
#include <geos_c.h>
#endif
