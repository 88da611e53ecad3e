#ifndef ANNOLINK_CSQLITE_SHIM_H
#define ANNOLINK_CSQLITE_SHIM_H
/// The session extension (changesets for the edit journal) is declared only when these are
/// defined before the header; Debian's libsqlite3 is built with both.
#define SQLITE_ENABLE_SESSION 1
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer; Swift cannot import it.
static inline sqlite3_destructor_type annolink_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_config and sqlite3_db_config are variadic; these wrap the calls annolink makes.
static inline int annolink_sqlite_db_config_defensive(sqlite3 *db, int on) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, (int *)0);
}

/// Sets (on = 0 or 1) or only reads (on = -1) the defensive flag; *current receives the flag's
/// value after the call.
static inline int annolink_sqlite_db_config_defensive_state(sqlite3 *db, int on, int *current) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, current);
}
#endif
