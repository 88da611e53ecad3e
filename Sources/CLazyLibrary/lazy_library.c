/* Loading a library on first use: see include/CLazyLibrary.h. */
#include "CLazyLibrary.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int annolink_library_load(struct annolink_library *library) {
    int state = __atomic_load_n(&library->state, __ATOMIC_ACQUIRE);
    if (state == 0) {
        pthread_mutex_lock(&library->lock);
        state = library->state;
        if (state == 0) {
            /* The first soname's failure is the one to report: the others are the -dev links. */
            char why[256] = "unknown error";
            for (int i = 0; i < 3 && library->sonames[i] && !library->handle; i++) {
                library->handle = dlopen(library->sonames[i], RTLD_NOW | RTLD_LOCAL);
                const char *message = library->handle ? NULL : dlerror();
                if (i == 0 && message) snprintf(why, sizeof why, "%s", message);
            }
            if (!library->handle)
                snprintf(library->error, sizeof library->error, "cannot load %s (%s; install %s): %s",
                         library->name, library->sonames[0], library->package, why);
            state = library->handle ? 1 : -1;
            __atomic_store_n(&library->state, state, __ATOMIC_RELEASE);
        }
        pthread_mutex_unlock(&library->lock);
    }
    return state == 1 ? 0 : -1;
}

const char *annolink_library_error(struct annolink_library *library) {
    return annolink_library_load(library) == 0 ? NULL : library->error;
}

void *annolink_library_symbol(struct annolink_library *library, const char *symbol) {
    if (annolink_library_load(library) != 0) {
        fprintf(stderr, "error: %s\n", library->error);
        abort();
    }
    void *address = dlsym(library->handle, symbol);
    if (!address) {
        fprintf(stderr, "error: %s has no %s\n", library->name, symbol);
        abort();
    }
    return address;
}
