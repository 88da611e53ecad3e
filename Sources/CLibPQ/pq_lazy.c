/*
 * The libpq functions annolink calls, each a trampoline into libpq loaded on first use
 * (include/CLibPQ.h says why; Sources/CLazyLibrary how). The prototypes are the library header's
 * own, so the compiler checks each against the installed header; add a function here when
 * annolink starts calling a new one (the link fails until then).
 */
#include "CLibPQ.h"
#include "CLazyLibrary.h"

static struct annolink_library pq = ANNOLINK_LIBRARY("libpq", "libpq5", "libpq.so.5", "libpq.so");

int annolink_pq_load(void) { return annolink_library_load(&pq); }
const char *annolink_pq_load_error(void) { return annolink_library_error(&pq); }

ANNOLINK_TRAMPOLINE_VOID(pq, PQclear, (PGresult *res), (res))
ANNOLINK_TRAMPOLINE(pq, char *, PQcmdStatus, (PGresult *res), (res))
ANNOLINK_TRAMPOLINE(pq, char *, PQcmdTuples, (PGresult *res), (res))
ANNOLINK_TRAMPOLINE(pq, PGconn *, PQconnectdb, (const char *conninfo), (conninfo))
ANNOLINK_TRAMPOLINE(pq, int, PQconsumeInput, (PGconn *conn), (conn))
ANNOLINK_TRAMPOLINE(pq, PGresult *, PQdescribePrepared, (PGconn *conn, const char *stmt), (conn, stmt))
ANNOLINK_TRAMPOLINE(pq, char *, PQerrorMessage, (const PGconn *conn), (conn))
ANNOLINK_TRAMPOLINE(pq, PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query))
ANNOLINK_TRAMPOLINE(pq, PGresult *, PQexecParams, (PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat), (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat))
ANNOLINK_TRAMPOLINE(pq, PGresult *, PQexecPrepared, (PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat), (conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat))
ANNOLINK_TRAMPOLINE_VOID(pq, PQfinish, (PGconn *conn), (conn))
ANNOLINK_TRAMPOLINE(pq, char *, PQfname, (const PGresult *res, int field_num), (res, field_num))
ANNOLINK_TRAMPOLINE_VOID(pq, PQfreemem, (void *ptr), (ptr))
ANNOLINK_TRAMPOLINE(pq, Oid, PQftype, (const PGresult *res, int field_num), (res, field_num))
ANNOLINK_TRAMPOLINE(pq, int, PQgetCopyData, (PGconn *conn, char **buffer, int async), (conn, buffer, async))
ANNOLINK_TRAMPOLINE(pq, PGresult *, PQgetResult, (PGconn *conn), (conn))
ANNOLINK_TRAMPOLINE(pq, int, PQgetisnull, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))
ANNOLINK_TRAMPOLINE(pq, int, PQgetlength, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))
ANNOLINK_TRAMPOLINE(pq, char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num), (res, tup_num, field_num))
ANNOLINK_TRAMPOLINE(pq, int, PQnfields, (const PGresult *res), (res))
ANNOLINK_TRAMPOLINE(pq, PGnotify *, PQnotifies, (PGconn *conn), (conn))
ANNOLINK_TRAMPOLINE(pq, int, PQntuples, (const PGresult *res), (res))
ANNOLINK_TRAMPOLINE(pq, PGresult *, PQprepare, (PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes), (conn, stmtName, query, nParams, paramTypes))
ANNOLINK_TRAMPOLINE(pq, int, PQputCopyData, (PGconn *conn, const char *buffer, int nbytes), (conn, buffer, nbytes))
ANNOLINK_TRAMPOLINE(pq, int, PQputCopyEnd, (PGconn *conn, const char *errormsg), (conn, errormsg))
ANNOLINK_TRAMPOLINE(pq, char *, PQresultErrorField, (const PGresult *res, int fieldcode), (res, fieldcode))
ANNOLINK_TRAMPOLINE(pq, char *, PQresultErrorMessage, (const PGresult *res), (res))
ANNOLINK_TRAMPOLINE(pq, ExecStatusType, PQresultStatus, (const PGresult *res), (res))
ANNOLINK_TRAMPOLINE(pq, int, PQserverVersion, (const PGconn *conn), (conn))
ANNOLINK_TRAMPOLINE(pq, int, PQsetClientEncoding, (PGconn *conn, const char *encoding), (conn, encoding))
ANNOLINK_TRAMPOLINE(pq, PQnoticeProcessor, PQsetNoticeProcessor, (PGconn *conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg))
ANNOLINK_TRAMPOLINE(pq, int, PQsocket, (const PGconn *conn), (conn))
ANNOLINK_TRAMPOLINE(pq, ConnStatusType, PQstatus, (const PGconn *conn), (conn))
ANNOLINK_TRAMPOLINE(pq, PGTransactionStatusType, PQtransactionStatus, (const PGconn *conn), (conn))
