#ifndef ANNOLINK_CPROJ_SHIM_H
#define ANNOLINK_CPROJ_SHIM_H
#include <proj.h>
#endif
