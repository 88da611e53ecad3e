/*
 * A fault-injecting SQLite VFS for annolink's tests (issue 16): a shim over the default VFS
 * that fails the Nth write, sync or truncate of any file SQLite opens (database, rollback
 * journal, WAL) with SQLITE_FULL or an I/O error, and, when asked, every one after it.
 *
 * It is loaded into the real `annolink` binary with LD_PRELOAD and registers itself as the
 * default VFS before main runs, so the product carries no test code. Environment:
 *   ANNOLINK_FAULT_AT=N        fail the Nth counted operation (1-based); unset: not installed
 *   ANNOLINK_FAULT_KIND=full   SQLITE_FULL for writes (default: SQLITE_IOERR_WRITE)
 *   ANNOLINK_FAULT_PERSIST=1   fail every counted operation from the Nth on (a dead disk)
 *   ANNOLINK_FAULT_REPORT=F    at exit, write "<operations counted> <faults injected>" to F
 *
 * Built by the tests: cc -shared -fPIC -o libannolinkfault.so faultvfs.c -lsqlite3
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct FaultFile {
    sqlite3_file base;
    sqlite3_file *real;
} FaultFile;

static sqlite3_vfs *real_vfs;
static sqlite3_vfs fault_vfs;
static long fault_at, counted, injected;
static int persist, full;

/* Counts one write, sync or truncate; returns the error to inject, or SQLITE_OK. */
static int count(int error) {
    counted++;
    if (fault_at > 0 && (counted == fault_at || (persist && counted > fault_at))) {
        injected++;
        return error;
    }
    return SQLITE_OK;
}

#define REAL(f) (((FaultFile *)(f))->real)

static int f_close(sqlite3_file *f) {
    int rc = REAL(f)->pMethods ? REAL(f)->pMethods->xClose(REAL(f)) : SQLITE_OK;
    return rc;
}
static int f_read(sqlite3_file *f, void *b, int n, sqlite3_int64 o) { return REAL(f)->pMethods->xRead(REAL(f), b, n, o); }
static int f_write(sqlite3_file *f, const void *b, int n, sqlite3_int64 o) {
    int rc = count(full ? SQLITE_FULL : SQLITE_IOERR_WRITE);
    return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xWrite(REAL(f), b, n, o);
}
static int f_truncate(sqlite3_file *f, sqlite3_int64 size) {
    int rc = count(SQLITE_IOERR_TRUNCATE);
    return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xTruncate(REAL(f), size);
}
static int f_sync(sqlite3_file *f, int flags) {
    int rc = count(SQLITE_IOERR_FSYNC);
    return rc != SQLITE_OK ? rc : REAL(f)->pMethods->xSync(REAL(f), flags);
}
static int f_file_size(sqlite3_file *f, sqlite3_int64 *size) { return REAL(f)->pMethods->xFileSize(REAL(f), size); }
static int f_lock(sqlite3_file *f, int level) { return REAL(f)->pMethods->xLock(REAL(f), level); }
static int f_unlock(sqlite3_file *f, int level) { return REAL(f)->pMethods->xUnlock(REAL(f), level); }
static int f_check_reserved(sqlite3_file *f, int *out) { return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out); }
static int f_file_control(sqlite3_file *f, int op, void *arg) { return REAL(f)->pMethods->xFileControl(REAL(f), op, arg); }
static int f_sector_size(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int f_device(sqlite3_file *f) { return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f)); }
static int f_shm_map(sqlite3_file *f, int region, int size, int extend, void volatile **p) {
    return REAL(f)->pMethods->xShmMap(REAL(f), region, size, extend, p);
}
static int f_shm_lock(sqlite3_file *f, int offset, int n, int flags) { return REAL(f)->pMethods->xShmLock(REAL(f), offset, n, flags); }
static void f_shm_barrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int f_shm_unmap(sqlite3_file *f, int delete_flag) { return REAL(f)->pMethods->xShmUnmap(REAL(f), delete_flag); }
static int f_fetch(sqlite3_file *f, sqlite3_int64 o, int n, void **p) { return REAL(f)->pMethods->xFetch(REAL(f), o, n, p); }
static int f_unfetch(sqlite3_file *f, sqlite3_int64 o, void *p) { return REAL(f)->pMethods->xUnfetch(REAL(f), o, p); }

static const sqlite3_io_methods methods_v1 = {
    1, f_close, f_read, f_write, f_truncate, f_sync, f_file_size, f_lock, f_unlock, f_check_reserved,
    f_file_control, f_sector_size, f_device, 0, 0, 0, 0, 0, 0,
};
static const sqlite3_io_methods methods_v3 = {
    3, f_close, f_read, f_write, f_truncate, f_sync, f_file_size, f_lock, f_unlock, f_check_reserved,
    f_file_control, f_sector_size, f_device, f_shm_map, f_shm_lock, f_shm_barrier, f_shm_unmap, f_fetch, f_unfetch,
};

static int f_open(sqlite3_vfs *vfs, const char *name, sqlite3_file *file, int flags, int *out_flags) {
    (void)vfs;
    FaultFile *p = (FaultFile *)file;
    p->real = (sqlite3_file *)&p[1];
    memset(p->real, 0, real_vfs->szOsFile);
    int rc = real_vfs->xOpen(real_vfs, name, p->real, flags, out_flags);
    if (rc != SQLITE_OK || p->real->pMethods == 0) {
        p->base.pMethods = 0;
        return rc;
    }
    p->base.pMethods = p->real->pMethods->iVersion >= 3 ? &methods_v3 : &methods_v1;
    return SQLITE_OK;
}

static void report(void) {
    const char *path = getenv("ANNOLINK_FAULT_REPORT");
    if (!path) return;
    FILE *out = fopen(path, "w");
    if (!out) return;
    fprintf(out, "%ld %ld\n", counted, injected);
    fclose(out);
}

__attribute__((constructor)) static void install(void) {
    const char *at = getenv("ANNOLINK_FAULT_AT");
    if (!at) return;
    fault_at = atol(at);
    const char *kind = getenv("ANNOLINK_FAULT_KIND");
    full = kind && strcmp(kind, "full") == 0;
    persist = getenv("ANNOLINK_FAULT_PERSIST") != 0;
    real_vfs = sqlite3_vfs_find(0);
    if (!real_vfs) return;
    fault_vfs = *real_vfs;
    fault_vfs.zName = "annolink-fault";
    fault_vfs.szOsFile = (int)sizeof(FaultFile) + real_vfs->szOsFile;
    fault_vfs.xOpen = f_open;
    sqlite3_vfs_register(&fault_vfs, 1);
    atexit(report);
}
