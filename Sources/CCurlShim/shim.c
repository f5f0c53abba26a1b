#include "CCurlShim.h"
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

// Option numbers (CURLOPTTYPE_LONG 0, OBJECTPOINT 10000, FUNCTIONPOINT 20000) and info ids, from curl.h.
enum {
    OPT_WRITEDATA = 10001, OPT_URL = 10002, OPT_ERRORBUFFER = 10010, OPT_WRITEFUNCTION = 20011,
    OPT_LOW_SPEED_LIMIT = 19, OPT_LOW_SPEED_TIME = 20, OPT_HTTPHEADER = 10023, OPT_HEADERDATA = 10029,
    OPT_NOPROGRESS = 43, OPT_FOLLOWLOCATION = 52, OPT_XFERINFODATA = 10057, OPT_CONNECTTIMEOUT = 78,
    OPT_HEADERFUNCTION = 20079, OPT_HTTPGET = 80, OPT_NOSIGNAL = 99, OPT_ACCEPT_ENCODING = 10102,
    OPT_TIMEOUT_MS = 155, OPT_PROTOCOLS = 181, OPT_XFERINFOFUNCTION = 20219,
    INFO_RESPONSE_CODE = 0x200002, PROTO_HTTP_HTTPS = 3
};

struct slist;
static struct {
    void *(*easy_init)(void);
    void (*easy_cleanup)(void *);
    void (*easy_reset)(void *);
    int (*easy_setopt)(void *, int, ...);
    int (*easy_perform)(void *);
    int (*easy_getinfo)(void *, int, ...);
    const char *(*easy_strerror)(int);
    struct slist *(*slist_append)(struct slist *, const char *);
    void (*slist_free_all)(struct slist *);
    int loaded;
} curl;

static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcurl.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return;
#define SYM(field, name) *(void **)(&curl.field) = dlsym(lib, name); if (!curl.field) return;
    SYM(easy_init, "curl_easy_init")
    SYM(easy_cleanup, "curl_easy_cleanup")
    SYM(easy_reset, "curl_easy_reset")
    SYM(easy_setopt, "curl_easy_setopt")
    SYM(easy_perform, "curl_easy_perform")
    SYM(easy_getinfo, "curl_easy_getinfo")
    SYM(easy_strerror, "curl_easy_strerror")
    SYM(slist_append, "curl_slist_append")
    SYM(slist_free_all, "curl_slist_free_all")
#undef SYM
    curl.loaded = 1;
}

int tc_available(void) {
    pthread_once(&once, load);
    return curl.loaded;
}

void *tc_new(void) { return tc_available() ? curl.easy_init() : NULL; }

void tc_free(void *handle) { if (handle && curl.loaded) curl.easy_cleanup(handle); }

const char *tc_strerror(int code) { return curl.loaded ? curl.easy_strerror(code) : "libcurl is not available"; }

int tc_perform(void *h, const tc_request *r, long *status, char *error) {
    error[0] = 0;
    *status = 0;
    // A reset keeps the handle's live connections (and DNS cache): only the options start over.
    curl.easy_reset(h);
    struct slist *headers = r->extra_header ? curl.slist_append(NULL, r->extra_header) : NULL;
    int rc = 0;
#define SET(opt, value) if (rc == 0) rc = curl.easy_setopt(h, opt, value);
    SET(OPT_URL, r->url)
    SET(OPT_ERRORBUFFER, error)
    SET(OPT_NOSIGNAL, 1L)
    SET(OPT_HTTPGET, 1L)
    SET(OPT_FOLLOWLOCATION, 0L)
    SET(OPT_PROTOCOLS, (long)PROTO_HTTP_HTTPS)
    SET(OPT_ACCEPT_ENCODING, "")
    SET(OPT_CONNECTTIMEOUT, r->connect_timeout)
    SET(OPT_LOW_SPEED_LIMIT, 1L)
    SET(OPT_LOW_SPEED_TIME, r->idle_timeout)
    SET(OPT_TIMEOUT_MS, r->max_milliseconds)
    SET(OPT_HEADERFUNCTION, r->header)
    SET(OPT_HEADERDATA, r->user)
    SET(OPT_WRITEFUNCTION, r->body)
    SET(OPT_WRITEDATA, r->user)
    SET(OPT_NOPROGRESS, 0L)
    SET(OPT_XFERINFOFUNCTION, r->progress)
    SET(OPT_XFERINFODATA, r->user)
    if (headers) SET(OPT_HTTPHEADER, headers)
#undef SET
    if (rc == 0) rc = curl.easy_perform(h);
    if (rc == 0 || rc == TC_WRITE_ERROR || rc == TC_ABORTED_BY_CALLBACK || rc == TC_PARTIAL_FILE) {
        curl.easy_getinfo(h, INFO_RESPONSE_CODE, status);
    }
    // The list is referenced by the handle until its options change: unset it before freeing.
    if (headers) { curl.easy_setopt(h, OPT_HTTPHEADER, (void *)0); curl.slist_free_all(headers); }
    return rc;
}
