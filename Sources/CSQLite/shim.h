#ifndef ANNOLINK_CSQLITE_SHIM_H
#define ANNOLINK_CSQLITE_SHIM_H
/// The session extension (changesets for the edit journal) is declared only when these are
/// defined before the header; Debian's libsqlite3 is built with both.
#define SQLITE_ENABLE_SESSION 1
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a destructor pointer; Swift cannot import it.
static inline sqlite3_destructor_type annolink_sqlite_transient(void) { return SQLITE_TRANSIENT; }

/// sqlite3_db_config is variadic; these wrap the calls annolink makes.

/// Sets (on = 0 or 1) or only reads (on = -1) the defensive flag; *current receives the flag's
/// value after the call.
static inline int annolink_sqlite_db_config_defensive_state(sqlite3 *db, int on, int *current) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, on, current);
}

/// Hardens a connection against SQL that a file carries (class where clauses, triggers,
/// views): the two-argument fts3_tokenizer() (which hands SQLite a function pointer) off,
/// defensive mode on (no writes to shadow tables or the schema by ordinary SQL), and, when
/// trust_schema is 0, the schema untrusted (only innocuous functions and virtual tables may be
/// used from triggers and views). Returns the first failing result code, or SQLITE_OK.
static inline int annolink_sqlite_harden(sqlite3 *db, int trust_schema) {
    int rc = sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
    if (rc == SQLITE_OK) rc = sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, trust_schema, (int *)0);
    return rc;
}

/// glibc's memmem (linear time, the two-way algorithm for long needles), declared here because
/// Swift's Glibc module is built without _GNU_SOURCE. The same declaration as <string.h>'s.
#include <stddef.h>
extern void *memmem(const void *haystack, size_t haystack_length, const void *needle, size_t needle_length);

#endif
