#ifndef ANNOLINK_CMICROHTTPD_SHIM_H
#define ANNOLINK_CMICROHTTPD_SHIM_H
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/// MHD_start_daemon and MHD_get_daemon_info are variadic; Swift cannot call them. These wrap
/// the calls annolink makes.

/// Starts a daemon listening on `address` (a sockaddr_in or sockaddr_in6; add MHD_USE_IPv6 to
/// `flags` for the latter) with `threads` polling threads (MHD_OPTION_THREAD_POOL_SIZE; 0 or 1
/// means one), at most `connection_limit` connections, of which at most `per_address_limit`
/// from one IP address (MHD_OPTION_PER_IP_CONNECTION_LIMIT; 0: no such limit), connections
/// silent for `timeout_seconds` closed, every request to `handler` and every finished request
/// to `completed`; every connection offered is first put to `policy` (MHD_NO closes it at
/// once), and every connection begun and closed is told to `notify`
/// (MHD_OPTION_NOTIFY_CONNECTION).
/// Returns NULL when the daemon cannot start (the port is taken, the address is not local).
static inline struct MHD_Daemon *annolink_mhd_start(unsigned int flags, const struct sockaddr *address, unsigned int threads,
                                                    unsigned int connection_limit, unsigned int per_address_limit,
                                                    unsigned int timeout_seconds,
                                                    size_t memory_limit,
                                                    MHD_AccessHandlerCallback handler, void *handler_context,
                                                    MHD_RequestCompletedCallback completed, void *completed_context,
                                                    MHD_AcceptPolicyCallback policy, void *policy_context,
                                                    MHD_NotifyConnectionCallback notify, void *notify_context) {
    return MHD_start_daemon(flags, 0, policy, policy_context, handler, handler_context,
                            MHD_OPTION_SOCK_ADDR, address,
                            MHD_OPTION_THREAD_POOL_SIZE, threads,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_PER_IP_CONNECTION_LIMIT, per_address_limit,
                            MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
                            MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_context,
                            MHD_OPTION_NOTIFY_CONNECTION, notify, notify_context,
                            MHD_OPTION_END);
}

/// The address of the client of `connection` (a sockaddr_in or sockaddr_in6), or NULL.
static inline const struct sockaddr *annolink_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// The port the daemon listens on (the one the system chose when asked for port 0), or 0.
static inline uint16_t annolink_mhd_bound_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

#endif
