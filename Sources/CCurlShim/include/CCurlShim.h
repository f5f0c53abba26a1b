#ifndef CCURLSHIM_H
#define CCURLSHIM_H
#include <stddef.h>

/// libcurl's easy interface, loaded at run time (libcurl.so.4, the library FoundationNetworking itself uses), for
/// the Linux transport of TreeClient's HTTPFetcher: a blocking transfer on the caller's thread whose callbacks can
/// stop it at once. No curl header is needed to build; the few option numbers used are libcurl's stable ABI.

typedef size_t (*tc_data_fn)(char *ptr, size_t size, size_t count, void *user);
typedef int (*tc_progress_fn)(void *user, long long dltotal, long long dlnow, long long ultotal, long long ulnow);

typedef struct {
    const char *url;
    /// A full header line ("If-None-Match: …"), or NULL.
    const char *extra_header;
    long connect_timeout;
    /// Seconds without a byte before the transfer times out.
    long idle_timeout;
    long max_milliseconds;
    tc_data_fn header;
    tc_data_fn body;
    tc_progress_fn progress;
    void *user;
} tc_request;

/// 1 when libcurl could be loaded.
int tc_available(void);
/// A handle that keeps its connections between requests; NULL when libcurl is not available.
void *tc_new(void);
void tc_free(void *handle);
/// The curl result code (0: done), the HTTP status in *status, a message in error (at least 256 bytes).
int tc_perform(void *handle, const tc_request *request, long *status, char *error);
/// libcurl's text for a result code.
const char *tc_strerror(int code);

/// Result codes the transport tells apart.
enum {
    TC_OK = 0, TC_COULDNT_RESOLVE_HOST = 6, TC_COULDNT_CONNECT = 7, TC_PARTIAL_FILE = 18, TC_WRITE_ERROR = 23,
    TC_OPERATION_TIMEDOUT = 28, TC_ABORTED_BY_CALLBACK = 42, TC_GOT_NOTHING = 52, TC_SEND_ERROR = 55, TC_RECV_ERROR = 56
};

#endif
