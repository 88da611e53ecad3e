/*
 * The libmicrohttpd functions annolink calls, each a trampoline into the library loaded on first
 * use (include/CMicroHTTPD.h says why; Sources/CLazyLibrary how). The prototypes are the
 * library header's own, so the compiler checks each against the installed header; add a function
 * here when annolink starts calling a new one (the link fails until then).
 */
#include "CMicroHTTPD.h"
#include "CLazyLibrary.h"

static struct annolink_library mhd = ANNOLINK_LIBRARY("libmicrohttpd", "libmicrohttpd12", "libmicrohttpd.so.12", "libmicrohttpd.so");

int annolink_mhd_load(void) { return annolink_library_load(&mhd); }
const char *annolink_mhd_load_error(void) { return annolink_library_error(&mhd); }

ANNOLINK_TRAMPOLINE(mhd, enum MHD_Result, MHD_add_response_header, (struct MHD_Response *response, const char *header, const char *content), (response, header, content))
ANNOLINK_TRAMPOLINE(mhd, struct MHD_PostProcessor *, MHD_create_post_processor, (struct MHD_Connection *connection, size_t buffer_size, MHD_PostDataIterator iter, void *iter_cls), (connection, buffer_size, iter, iter_cls))
ANNOLINK_TRAMPOLINE(mhd, struct MHD_Response *, MHD_create_response_from_buffer, (size_t size, void *buffer, enum MHD_ResponseMemoryMode mode), (size, buffer, mode))
ANNOLINK_TRAMPOLINE(mhd, enum MHD_Result, MHD_destroy_post_processor, (struct MHD_PostProcessor *pp), (pp))
ANNOLINK_TRAMPOLINE_VOID(mhd, MHD_destroy_response, (struct MHD_Response *response), (response))
ANNOLINK_TRAMPOLINE(mhd, int, MHD_get_connection_values, (struct MHD_Connection *connection, enum MHD_ValueKind kind, MHD_KeyValueIterator iterator, void *iterator_cls), (connection, kind, iterator, iterator_cls))
ANNOLINK_TRAMPOLINE(mhd, const char *, MHD_lookup_connection_value, (struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key), (connection, kind, key))
ANNOLINK_TRAMPOLINE(mhd, enum MHD_Result, MHD_post_process, (struct MHD_PostProcessor *pp, const char *post_data, size_t post_data_len), (pp, post_data, post_data_len))
ANNOLINK_TRAMPOLINE(mhd, enum MHD_Result, MHD_queue_response, (struct MHD_Connection *connection, unsigned int status_code, struct MHD_Response *response), (connection, status_code, response))
ANNOLINK_TRAMPOLINE(mhd, MHD_socket, MHD_quiesce_daemon, (struct MHD_Daemon *daemon), (daemon))
ANNOLINK_TRAMPOLINE_VOID(mhd, MHD_stop_daemon, (struct MHD_Daemon *daemon), (daemon))

/* The variadic three cannot be trampolines (a C function cannot pass on its `...`); these call
   them through their resolved addresses with the arguments spelled out. */

struct MHD_Daemon *annolink_mhd_start(unsigned int flags, const struct sockaddr *address, unsigned int threads,
                                      unsigned int connection_limit, unsigned int per_address_limit,
                                      unsigned int timeout_seconds,
                                      size_t memory_limit,
                                      MHD_AccessHandlerCallback handler, void *handler_context,
                                      MHD_RequestCompletedCallback completed, void *completed_context,
                                      MHD_AcceptPolicyCallback policy, void *policy_context,
                                      MHD_NotifyConnectionCallback notify, void *notify_context) {
    ANNOLINK_RESOLVE(mhd, MHD_start_daemon)
    return f(flags, 0, policy, policy_context, handler, handler_context,
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

const struct sockaddr *annolink_mhd_client_address(struct MHD_Connection *connection) {
    ANNOLINK_RESOLVE(mhd, MHD_get_connection_info)
    const union MHD_ConnectionInfo *info = f(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

uint16_t annolink_mhd_bound_port(struct MHD_Daemon *daemon) {
    ANNOLINK_RESOLVE(mhd, MHD_get_daemon_info)
    const union MHD_DaemonInfo *info = f(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}
