// Loads libcurl with dlopen and forwards to it through typed function pointers. See CCurl.h.
#include "CCurl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// The start of struct curl_version_info_data as libcurl lays it out: the fields of
// CURLVERSION_FIRST (7.10), which every later libcurl keeps in place and extends after. Courier
// asks for CURLVERSION_FIRST and reads nothing beyond `ssl_version`.
struct curl_version_info_first {
    int age;                  // CURLversion: which fields exist
    const char *version;      // "7.88.1"
    unsigned int version_num; // 0x075801
    const char *host;
    int features;             // CURL_VERSION_* bits
    const char *ssl_version;  // "OpenSSL/3.0.17", or NULL
};
enum { CCURLVERSION_FIRST = 0 };

// The libcurl entry points, as libcurl declares them (CURLcode and CURLMcode are C enums: int).
static struct {
    int (*global_init)(long flags);
    char *(*version)(void);
    const struct curl_version_info_first *(*version_info)(int stamp);
    const char *(*easy_strerror)(int code);
    ccurl_easy *(*easy_init)(void);
    void (*easy_cleanup)(ccurl_easy *);
    void (*easy_reset)(ccurl_easy *);
    int (*easy_setopt)(ccurl_easy *, int option, ...);
    int (*easy_getinfo)(ccurl_easy *, int info, ...);
    int (*easy_pause)(ccurl_easy *, int bitmask);
    int (*easy_perform)(ccurl_easy *);
    int (*easy_send)(ccurl_easy *, const void *buffer, size_t length, size_t *sent);
    int (*easy_recv)(ccurl_easy *, void *buffer, size_t length, size_t *received);
    ccurl_multi *(*multi_init)(void);
    int (*multi_cleanup)(ccurl_multi *);
    int (*multi_setopt)(ccurl_multi *, int option, ...);
    int (*multi_add_handle)(ccurl_multi *, ccurl_easy *);
    int (*multi_remove_handle)(ccurl_multi *, ccurl_easy *);
    int (*multi_perform)(ccurl_multi *, int *running);
    int (*multi_poll)(ccurl_multi *, void *extra_fds, unsigned extra_count, int timeout_ms, int *ready);
    int (*multi_wakeup)(ccurl_multi *);
    void *(*multi_info_read)(ccurl_multi *, int *queued);
    ccurl_slist *(*slist_append)(ccurl_slist *, const char *);
    void (*slist_free_all)(ccurl_slist *);
} curl;

// struct CURLMsg, as libcurl lays it out.
struct ccurl_message {
    int msg;
    ccurl_easy *easy_handle;
    union {
        void *whatever;
        int result;
    } data;
};

// What curl_version_info said while loading; valid once the library is loaded.
static ccurl_version_info_data loaded_info;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
// Why the library is not usable; emptied once it has loaded.
static char load_failure[256] = "not loaded";

#if defined(__APPLE__)
static const char *const library_names[] = {"/usr/lib/libcurl.4.dylib", "libcurl.4.dylib", NULL};
#else
// The OpenSSL build FoundationNetworking links, never the GnuTLS or NSS variants.
static const char *const library_names[] = {"libcurl.so.4", NULL};
#endif

#define BIND(field, symbol)                                                              \
    do {                                                                                 \
        *(void **)(&curl.field) = dlsym(handle, symbol);                                 \
        if (curl.field == NULL) {                                                        \
            snprintf(load_failure, sizeof load_failure, "libcurl has no %s", symbol);    \
            return;                                                                      \
        }                                                                                \
    } while (0)

static void load_library(void) {
    void *handle = NULL;
    for (const char *const *name = library_names; *name != NULL && handle == NULL; name++) {
        handle = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
    }
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(load_failure, sizeof load_failure, "cannot load %s: %s", library_names[0],
                 reason ? reason : "not found");
        return;
    }
    // The version first: below the floor, say so rather than name whichever function is missing.
    BIND(version_info, "curl_version_info");  // 7.10
    const struct curl_version_info_first *info = curl.version_info(CCURLVERSION_FIRST);
    if (info == NULL || info->version == NULL) {
        snprintf(load_failure, sizeof load_failure, "curl_version_info gave no version");
        return;
    }
    if (info->version_num < CCURL_MINIMUM_VERSION_NUM) {
        snprintf(load_failure, sizeof load_failure,
                 "libcurl %s is older than 7.68.0, the oldest the curl engine supports "
                 "(it needs curl_multi_poll and curl_multi_wakeup)", info->version);
        return;
    }
    loaded_info.version_num = info->version_num;
    loaded_info.features = info->features;
    loaded_info.version = info->version;
    loaded_info.ssl_version = info->ssl_version;
    BIND(global_init, "curl_global_init");
    BIND(version, "curl_version");
    BIND(easy_strerror, "curl_easy_strerror");
    BIND(easy_init, "curl_easy_init");
    BIND(easy_cleanup, "curl_easy_cleanup");
    BIND(easy_reset, "curl_easy_reset");
    BIND(easy_setopt, "curl_easy_setopt");
    BIND(easy_getinfo, "curl_easy_getinfo");
    BIND(easy_pause, "curl_easy_pause");
    BIND(easy_perform, "curl_easy_perform");
    BIND(easy_send, "curl_easy_send");   // 7.18.2
    BIND(easy_recv, "curl_easy_recv");   // 7.18.2
    BIND(multi_init, "curl_multi_init");
    BIND(multi_cleanup, "curl_multi_cleanup");
    BIND(multi_setopt, "curl_multi_setopt");
    BIND(multi_add_handle, "curl_multi_add_handle");
    BIND(multi_remove_handle, "curl_multi_remove_handle");
    BIND(multi_perform, "curl_multi_perform");
    BIND(multi_poll, "curl_multi_poll");  // 7.66+; curl_multi_wakeup needs 7.68
    BIND(multi_wakeup, "curl_multi_wakeup");
    BIND(multi_info_read, "curl_multi_info_read");
    BIND(slist_append, "curl_slist_append");
    BIND(slist_free_all, "curl_slist_free_all");
    if (curl.global_init(CCURL_GLOBAL_ALL) != CCURLE_OK) {
        snprintf(load_failure, sizeof load_failure, "curl_global_init failed");
        return;
    }
    load_failure[0] = '\0';
}

int ccurl_load(char *reason, size_t reason_size) {
    pthread_once(&load_once, load_library);
    if (load_failure[0] == '\0') return 0;
    if (reason != NULL && reason_size > 0) snprintf(reason, reason_size, "%s", load_failure);
    return 1;
}

int ccurl_version_info(ccurl_version_info_data *info) {
    if (ccurl_load(NULL, 0) != 0) return 1;
    *info = loaded_info;
    return 0;
}

const char *ccurl_version(void) { return curl.version(); }
const char *ccurl_easy_strerror(int code) { return curl.easy_strerror(code); }

ccurl_easy *ccurl_easy_init(void) { return curl.easy_init(); }
void ccurl_easy_cleanup(ccurl_easy *easy) { curl.easy_cleanup(easy); }
void ccurl_easy_reset(ccurl_easy *easy) { curl.easy_reset(easy); }

int ccurl_easy_setopt_long(ccurl_easy *easy, int option, long value) {
    return curl.easy_setopt(easy, option, value);
}
int ccurl_easy_setopt_pointer(ccurl_easy *easy, int option, const void *value) {
    return curl.easy_setopt(easy, option, value);
}
int ccurl_easy_setopt_offset(ccurl_easy *easy, int option, ccurl_off_t value) {
    return curl.easy_setopt(easy, option, value);
}
int ccurl_easy_setopt_data_callback(ccurl_easy *easy, int option, ccurl_data_callback callback) {
    return curl.easy_setopt(easy, option, callback);
}
int ccurl_easy_setopt_progress_callback(ccurl_easy *easy, int option, ccurl_progress_callback callback) {
    return curl.easy_setopt(easy, option, callback);
}
int ccurl_easy_setopt_seek_callback(ccurl_easy *easy, int option, ccurl_seek_callback callback) {
    return curl.easy_setopt(easy, option, callback);
}
int ccurl_easy_getinfo_long(ccurl_easy *easy, int info, long *value) {
    return curl.easy_getinfo(easy, info, value);
}
int ccurl_easy_getinfo_pointer(ccurl_easy *easy, int info, void **value) {
    return curl.easy_getinfo(easy, info, value);
}
int ccurl_easy_getinfo_offset(ccurl_easy *easy, int info, ccurl_off_t *value) {
    return curl.easy_getinfo(easy, info, value);
}
int ccurl_easy_pause(ccurl_easy *easy, int bitmask) { return curl.easy_pause(easy, bitmask); }

int ccurl_easy_perform(ccurl_easy *easy) { return curl.easy_perform(easy); }
int ccurl_easy_send(ccurl_easy *easy, const void *buffer, size_t length, size_t *sent) {
    return curl.easy_send(easy, buffer, length, sent);
}
int ccurl_easy_recv(ccurl_easy *easy, void *buffer, size_t length, size_t *received) {
    return curl.easy_recv(easy, buffer, length, received);
}
int ccurl_easy_getinfo_socket(ccurl_easy *easy, int info, int *socket) {
    return curl.easy_getinfo(easy, info, socket);
}

// One call from Swift for everything a transfer's metrics need: each getinfo is a function-pointer
// call into libcurl, and crossing into C once keeps the cost to those calls alone.
int ccurl_easy_metrics(ccurl_easy *easy, int connection_id, ccurl_metrics *metrics) {
    int first = 0;
#define READ(info, field, missing)                                        \
    do {                                                                  \
        int code = curl.easy_getinfo(easy, info, &metrics->field);        \
        if (code != 0) {                                                  \
            metrics->field = missing;                                     \
            if (first == 0) first = code;                                 \
        }                                                                 \
    } while (0)
    READ(CCURLINFO_TOTAL_TIME_T, total_us, -1);
    READ(CCURLINFO_NAMELOOKUP_TIME_T, namelookup_us, -1);
    READ(CCURLINFO_CONNECT_TIME_T, connect_us, -1);
    READ(CCURLINFO_APPCONNECT_TIME_T, appconnect_us, -1);
    READ(CCURLINFO_PRETRANSFER_TIME_T, pretransfer_us, -1);
    READ(CCURLINFO_STARTTRANSFER_TIME_T, starttransfer_us, -1);
    READ(CCURLINFO_SIZE_UPLOAD_T, size_upload, -1);
    READ(CCURLINFO_SIZE_DOWNLOAD_T, size_download, -1);
    READ(CCURLINFO_HEADER_SIZE, header_size, -1);
    READ(CCURLINFO_REQUEST_SIZE, request_size, -1);
    READ(CCURLINFO_NUM_CONNECTS, num_connects, -1);
    READ(CCURLINFO_HTTP_VERSION, http_version, 0);
    READ(CCURLINFO_PRIMARY_PORT, primary_port, -1);
    READ(CCURLINFO_LOCAL_PORT, local_port, -1);
    READ(CCURLINFO_PRIMARY_IP, primary_ip, NULL);
    READ(CCURLINFO_LOCAL_IP, local_ip, NULL);
    if (connection_id) {
        READ(CCURLINFO_CONN_ID, connection_id, -1);
    } else {
        metrics->connection_id = -1;
    }
#undef READ
    return first;
}

ccurl_multi *ccurl_multi_init(void) { return curl.multi_init(); }
int ccurl_multi_cleanup(ccurl_multi *multi) { return curl.multi_cleanup(multi); }
int ccurl_multi_setopt_long(ccurl_multi *multi, int option, long value) {
    return curl.multi_setopt(multi, option, value);
}
int ccurl_multi_add_handle(ccurl_multi *multi, ccurl_easy *easy) { return curl.multi_add_handle(multi, easy); }
int ccurl_multi_remove_handle(ccurl_multi *multi, ccurl_easy *easy) { return curl.multi_remove_handle(multi, easy); }
int ccurl_multi_perform(ccurl_multi *multi, int *running) { return curl.multi_perform(multi, running); }
int ccurl_multi_poll(ccurl_multi *multi, int timeout_ms, int *ready) {
    return curl.multi_poll(multi, NULL, 0, timeout_ms, ready);
}
int ccurl_multi_wakeup(ccurl_multi *multi) { return curl.multi_wakeup(multi); }

int ccurl_multi_next_done(ccurl_multi *multi, ccurl_easy **easy, int *result, int *queued) {
    struct ccurl_message *message;
    *queued = 0;
    while ((message = curl.multi_info_read(multi, queued)) != NULL) {
        if (message->msg == CCURLMSG_DONE) {
            *easy = message->easy_handle;
            *result = message->data.result;
            return 1;
        }
    }
    return 0;
}

ccurl_slist *ccurl_slist_append(ccurl_slist *list, const char *line) { return curl.slist_append(list, line); }
void ccurl_slist_free_all(ccurl_slist *list) { curl.slist_free_all(list); }

// MARK: - zlib (see CCurl.h)

static struct {
    const char *(*version)(void);
    int (*deflate_init2)(ccurl_z_stream *, int level, int method, int window_bits, int mem_level, int strategy,
                         const char *version, int stream_size);
    int (*inflate_init2)(ccurl_z_stream *, int window_bits, const char *version, int stream_size);
    int (*deflate)(ccurl_z_stream *, int flush);
    int (*inflate)(ccurl_z_stream *, int flush);
    int (*deflate_reset)(ccurl_z_stream *);
    int (*inflate_reset)(ccurl_z_stream *);
    int (*deflate_end)(ccurl_z_stream *);
    int (*inflate_end)(ccurl_z_stream *);
} zlib;

static pthread_once_t zlib_once = PTHREAD_ONCE_INIT;
static char zlib_failure[256] = "not loaded";

#if defined(__APPLE__)
static const char *const zlib_names[] = {"/usr/lib/libz.1.dylib", "libz.1.dylib", NULL};
#else
static const char *const zlib_names[] = {"libz.so.1", NULL};
#endif

#define ZBIND(field, symbol)                                                             \
    do {                                                                                 \
        *(void **)(&zlib.field) = dlsym(handle, symbol);                                 \
        if (zlib.field == NULL) {                                                        \
            snprintf(zlib_failure, sizeof zlib_failure, "zlib has no %s", symbol);       \
            return;                                                                      \
        }                                                                                \
    } while (0)

static void load_zlib(void) {
    void *handle = NULL;
    for (const char *const *name = zlib_names; *name != NULL && handle == NULL; name++) {
        handle = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
    }
    if (handle == NULL) {
        const char *reason = dlerror();
        snprintf(zlib_failure, sizeof zlib_failure, "cannot load %s: %s", zlib_names[0], reason ? reason : "not found");
        return;
    }
    ZBIND(version, "zlibVersion");
    ZBIND(deflate_init2, "deflateInit2_");
    ZBIND(inflate_init2, "inflateInit2_");
    ZBIND(deflate, "deflate");
    ZBIND(inflate, "inflate");
    ZBIND(deflate_reset, "deflateReset");
    ZBIND(inflate_reset, "inflateReset");
    ZBIND(deflate_end, "deflateEnd");
    ZBIND(inflate_end, "inflateEnd");
    // zlib refuses an init whose version's major number is not its own: only 1.x has this ABI.
    const char *version = zlib.version();
    if (version == NULL || version[0] != '1') {
        snprintf(zlib_failure, sizeof zlib_failure, "zlib %s is not 1.x", version ? version : "(unknown)");
        return;
    }
    zlib_failure[0] = '\0';
}

int ccurl_zlib_load(char *reason, size_t reason_size) {
    pthread_once(&zlib_once, load_zlib);
    if (zlib_failure[0] == '\0') return 0;
    if (reason != NULL && reason_size > 0) snprintf(reason, reason_size, "%s", zlib_failure);
    return 1;
}

const char *ccurl_zlib_version(void) { return zlib.version(); }

int ccurl_deflate_init(ccurl_z_stream *stream, int level, int window_bits) {
    // Z_DEFLATED (8) is the only method; a negative window: raw deflate, no header or trailer.
    return zlib.deflate_init2(stream, level, 8, -window_bits, 8, 0, zlib.version(), (int)sizeof(ccurl_z_stream));
}
int ccurl_inflate_init(ccurl_z_stream *stream, int window_bits) {
    return zlib.inflate_init2(stream, -window_bits, zlib.version(), (int)sizeof(ccurl_z_stream));
}
int ccurl_deflate(ccurl_z_stream *stream, int flush) { return zlib.deflate(stream, flush); }
int ccurl_inflate(ccurl_z_stream *stream, int flush) { return zlib.inflate(stream, flush); }
int ccurl_deflate_reset(ccurl_z_stream *stream) { return zlib.deflate_reset(stream); }
int ccurl_inflate_reset(ccurl_z_stream *stream) { return zlib.inflate_reset(stream); }
int ccurl_deflate_end(ccurl_z_stream *stream) { return zlib.deflate_end(stream); }
int ccurl_inflate_end(ccurl_z_stream *stream) { return zlib.inflate_end(stream); }
