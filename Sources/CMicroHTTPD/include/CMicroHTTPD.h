#ifndef ANNOLINK_CMICROHTTPD_H
#define ANNOLINK_CMICROHTTPD_H
/*
 * GNU libmicrohttpd, loaded on first use as GEOS, PROJ and libpq are (Sources/CLazyLibrary): only
 * `annolink serve` needs it. mhd_lazy.c defines the functions annolink calls, each a trampoline
 * into libmicrohttpd.so.12. Call annolink_mhd_load() before starting a daemon to learn whether
 * the library can be loaded.
 */
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* Loads libmicrohttpd once. Returns 0 when it is loaded, -1 when it cannot be (see the message). */
int annolink_mhd_load(void);

/* Why annolink_mhd_load failed, naming the package to install; NULL when it did not fail. */
const char *annolink_mhd_load_error(void);

/* MHD_start_daemon, MHD_get_connection_info and MHD_get_daemon_info are variadic; Swift cannot
   call them. These wrap the calls annolink makes. */

/* Starts a daemon listening on `address` (a sockaddr_in or sockaddr_in6; add MHD_USE_IPv6 to
   `flags` for the latter) with `threads` polling threads (MHD_OPTION_THREAD_POOL_SIZE; 0 or 1
   means one), at most `connection_limit` connections, of which at most `per_address_limit`
   from one IP address (MHD_OPTION_PER_IP_CONNECTION_LIMIT; 0: no such limit), connections
   silent for `timeout_seconds` closed, every request to `handler` and every finished request
   to `completed`; every connection offered is first put to `policy` (MHD_NO closes it at
   once), and every connection begun and closed is told to `notify`
   (MHD_OPTION_NOTIFY_CONNECTION).
   Returns NULL when the daemon cannot start (the port is taken, the address is not local). */
struct MHD_Daemon *annolink_mhd_start(unsigned int flags, const struct sockaddr *address, unsigned int threads,
                                      unsigned int connection_limit, unsigned int per_address_limit,
                                      unsigned int timeout_seconds,
                                      size_t memory_limit,
                                      MHD_AccessHandlerCallback handler, void *handler_context,
                                      MHD_RequestCompletedCallback completed, void *completed_context,
                                      MHD_AcceptPolicyCallback policy, void *policy_context,
                                      MHD_NotifyConnectionCallback notify, void *notify_context);

/* The address of the client of `connection` (a sockaddr_in or sockaddr_in6), or NULL. */
const struct sockaddr *annolink_mhd_client_address(struct MHD_Connection *connection);

/* The port the daemon listens on (the one the system chose when asked for port 0), or 0. */
uint16_t annolink_mhd_bound_port(struct MHD_Daemon *daemon);
#endif
