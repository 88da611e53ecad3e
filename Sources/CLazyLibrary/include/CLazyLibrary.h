#ifndef ANNOLINK_CLAZYLIBRARY_H
#define ANNOLINK_CLAZYLIBRARY_H
/*
 * A C library loaded on first use. Linking a library makes the dynamic loader map it, and every
 * library it needs, and bind their symbols at every start, even for `annolink --version`; a
 * library loaded here is mapped only when a command first calls it (docs/design.md, "Start-up").
 *
 * A lazy target (CGEOS, CPROJ, CLibPQ, CMicroHTTPD, CCairo) declares one library with
 * ANNOLINK_LIBRARY and defines each function annolink calls with ANNOLINK_TRAMPOLINE: a function
 * of the library's own name and prototype (the compiler checks it against the library's header)
 * that looks the real one up on its first call and jumps to it after. The caller asks
 * annolink_library_load first and turns a failure into a typed error; a trampoline reached
 * when the library cannot be loaded or lacks the symbol is a program bug and ends the process
 * with the reason.
 *
 * Loading is thread-safe: the first caller loads under a lock, and each trampoline keeps the
 * address it found in a static pointer read and written atomically (acquire/release), so that
 * threads making their first call at once each see a whole address.
 */
#include <pthread.h>

struct annolink_library {
    const char *name;         /* for messages: "GEOS" */
    const char *package;      /* the Debian package that installs it: "libgeos-c1v5" */
    const char *sonames[3];   /* tried in order; NULL ends the list */
    pthread_mutex_t lock;
    int state;                /* 0: not tried, 1: loaded, -1: cannot be loaded; read atomically */
    void *handle;
    char error[512];
};

/* The initializer of a struct annolink_library: its name, its package, then one or two sonames. */
#define ANNOLINK_LIBRARY(name, package, ...) {name, package, {__VA_ARGS__, 0}, PTHREAD_MUTEX_INITIALIZER, 0, 0, {0}}

/* Loads the library once. Returns 0 when it is loaded, -1 when it cannot be (see the error). */
int annolink_library_load(struct annolink_library *library);

/* Why the library cannot be loaded, naming its package; NULL when it is loaded. */
const char *annolink_library_error(struct annolink_library *library);

/* The address of `symbol` in the library; ends the process when there is none (a program bug). */
void *annolink_library_symbol(struct annolink_library *library, const char *symbol);

/* Declares `f`, the address of `function` in `library`: looked up on the first call, kept in a
   static pointer after (read and written atomically). The static's name is one no parameter
   of a wrapper will have. */
#define ANNOLINK_RESOLVE(library, function) \
    static __typeof__(&function) annolink_resolved; \
    __typeof__(annolink_resolved) f = __atomic_load_n(&annolink_resolved, __ATOMIC_ACQUIRE); \
    if (!f) { \
        f = (__typeof__(annolink_resolved))annolink_library_symbol(&library, #function); \
        __atomic_store_n(&annolink_resolved, f, __ATOMIC_RELEASE); \
    }

/* Defines `function` (declared by the library's header) as a trampoline into `library`.
   `parameters` and `arguments` are parenthesized: (int a, double b) and (a, b). */
#define ANNOLINK_TRAMPOLINE(library, result, function, parameters, arguments) \
    result function parameters { \
        ANNOLINK_RESOLVE(library, function) \
        return f arguments; \
    }

/* The same for a function that returns nothing. */
#define ANNOLINK_TRAMPOLINE_VOID(library, function, parameters, arguments) \
    void function parameters { \
        ANNOLINK_RESOLVE(library, function) \
        f arguments; \
    }
#endif
