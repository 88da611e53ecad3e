/*
 * The libpq functions annolink calls, each a trampoline into libpq loaded with dlopen on first
 * use (see include/CLibPQ.h for why). The prototypes are libpq-fe.h's own, so the compiler checks
 * each against the installed header. Written from libpq 15's libpq-fe.h; add a function here
 * when the PostGIS layer starts calling a new one (the link fails until then).
 *
 * Each trampoline keeps the address it looked up in a static pointer read and written atomically
 * (acquire/release), so that threads making their first call at once each see a whole address.
 */
#include "CLibPQ.h"
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *library;
static char load_error[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    const char *names[] = {"libpq.so.5", "libpq.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (library) return;
    }
    const char *why = dlerror();
    snprintf(load_error, sizeof load_error, "cannot load libpq (libpq.so.5; install libpq5): %s", why ? why : "unknown error");
}

int annolink_pq_load(void) {
    pthread_once(&once, load);
    return library ? 0 : -1;
}

const char *annolink_pq_load_error(void) {
    pthread_once(&once, load);
    return library ? NULL : load_error;
}

/* The address of `name` in libpq. PostgreSQLConnection calls annolink_pq_load before its first
   libpq call and throws a typed error when it fails, so a failure here is a program bug. */
static void *symbol(const char *name) {
    if (annolink_pq_load() != 0) {
        fprintf(stderr, "error: %s\n", load_error);
        abort();
    }
    void *address = dlsym(library, name);
    if (!address) {
        fprintf(stderr, "error: libpq has no %s\n", name);
        abort();
    }
    return address;
}

void PQclear(PGresult *res) {
    static __typeof__(&PQclear) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQclear"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(res);
}

char * PQcmdStatus(PGresult *res) {
    static __typeof__(&PQcmdStatus) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQcmdStatus"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(res);
}

char * PQcmdTuples(PGresult *res) {
    static __typeof__(&PQcmdTuples) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQcmdTuples"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(res);
}

PGconn * PQconnectdb(const char *conninfo) {
    static __typeof__(&PQconnectdb) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQconnectdb"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conninfo);
}

int PQconsumeInput(PGconn *conn) {
    static __typeof__(&PQconsumeInput) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQconsumeInput"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn);
}

PGresult * PQdescribePrepared(PGconn *conn, const char *stmt) {
    static __typeof__(&PQdescribePrepared) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQdescribePrepared"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn, stmt);
}

char * PQerrorMessage(const PGconn *conn) {
    static __typeof__(&PQerrorMessage) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQerrorMessage"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn);
}

PGresult * PQexec(PGconn *conn, const char *query) {
    static __typeof__(&PQexec) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQexec"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn, query);
}

PGresult * PQexecParams(PGconn *conn, const char *command, int nParams, const Oid *paramTypes, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) {
    static __typeof__(&PQexecParams) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQexecParams"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats, resultFormat);
}

PGresult * PQexecPrepared(PGconn *conn, const char *stmtName, int nParams, const char *const *paramValues, const int *paramLengths, const int *paramFormats, int resultFormat) {
    static __typeof__(&PQexecPrepared) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQexecPrepared"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn, stmtName, nParams, paramValues, paramLengths, paramFormats, resultFormat);
}

void PQfinish(PGconn *conn) {
    static __typeof__(&PQfinish) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQfinish"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(conn);
}

char * PQfname(const PGresult *res, int field_num) {
    static __typeof__(&PQfname) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQfname"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(res, field_num);
}

void PQfreemem(void *ptr) {
    static __typeof__(&PQfreemem) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQfreemem"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    f(ptr);
}

Oid PQftype(const PGresult *res, int field_num) {
    static __typeof__(&PQftype) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQftype"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(res, field_num);
}

int PQgetCopyData(PGconn *conn, char **buffer, int async) {
    static __typeof__(&PQgetCopyData) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQgetCopyData"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn, buffer, async);
}

PGresult * PQgetResult(PGconn *conn) {
    static __typeof__(&PQgetResult) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQgetResult"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn);
}

int PQgetisnull(const PGresult *res, int tup_num, int field_num) {
    static __typeof__(&PQgetisnull) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQgetisnull"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(res, tup_num, field_num);
}

int PQgetlength(const PGresult *res, int tup_num, int field_num) {
    static __typeof__(&PQgetlength) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQgetlength"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(res, tup_num, field_num);
}

char * PQgetvalue(const PGresult *res, int tup_num, int field_num) {
    static __typeof__(&PQgetvalue) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQgetvalue"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(res, tup_num, field_num);
}

int PQnfields(const PGresult *res) {
    static __typeof__(&PQnfields) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQnfields"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(res);
}

PGnotify * PQnotifies(PGconn *conn) {
    static __typeof__(&PQnotifies) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQnotifies"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn);
}

int PQntuples(const PGresult *res) {
    static __typeof__(&PQntuples) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQntuples"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(res);
}

PGresult * PQprepare(PGconn *conn, const char *stmtName, const char *query, int nParams, const Oid *paramTypes) {
    static __typeof__(&PQprepare) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQprepare"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn, stmtName, query, nParams, paramTypes);
}

int PQputCopyData(PGconn *conn, const char *buffer, int nbytes) {
    static __typeof__(&PQputCopyData) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQputCopyData"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn, buffer, nbytes);
}

int PQputCopyEnd(PGconn *conn, const char *errormsg) {
    static __typeof__(&PQputCopyEnd) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQputCopyEnd"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn, errormsg);
}

char * PQresultErrorField(const PGresult *res, int fieldcode) {
    static __typeof__(&PQresultErrorField) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQresultErrorField"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(res, fieldcode);
}

char * PQresultErrorMessage(const PGresult *res) {
    static __typeof__(&PQresultErrorMessage) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQresultErrorMessage"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(res);
}

ExecStatusType PQresultStatus(const PGresult *res) {
    static __typeof__(&PQresultStatus) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQresultStatus"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(res);
}

int PQserverVersion(const PGconn *conn) {
    static __typeof__(&PQserverVersion) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQserverVersion"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn);
}

int PQsetClientEncoding(PGconn *conn, const char *encoding) {
    static __typeof__(&PQsetClientEncoding) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQsetClientEncoding"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn, encoding);
}

PQnoticeProcessor PQsetNoticeProcessor(PGconn *conn, PQnoticeProcessor proc, void *arg) {
    static __typeof__(&PQsetNoticeProcessor) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQsetNoticeProcessor"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn, proc, arg);
}

int PQsocket(const PGconn *conn) {
    static __typeof__(&PQsocket) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQsocket"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn);
}

ConnStatusType PQstatus(const PGconn *conn) {
    static __typeof__(&PQstatus) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQstatus"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn);
}

PGTransactionStatusType PQtransactionStatus(const PGconn *conn) {
    static __typeof__(&PQtransactionStatus) fn;
    __typeof__(fn) f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
    if (!f) { f = (__typeof__(fn))symbol("PQtransactionStatus"); __atomic_store_n(&fn, f, __ATOMIC_RELEASE); }
    return f(conn);
}

