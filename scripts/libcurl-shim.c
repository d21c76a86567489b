/*
 * Test only: makes a newer libcurl look, to Courier's curl engine, like libcurl 7.68.0 (Ubuntu
 * 20.04's, the oldest Courier supports), which no registry serves for Debian 12. Built and used
 * by scripts/libcurl-matrix; never part of a product.
 *
 *   clang -O2 -shared -fPIC -o libcurl-shim.so scripts/libcurl-shim.c -ldl
 *   LD_PRELOAD=$PWD/libcurl-shim.so courier --version
 *
 * Courier opens libcurl with dlopen(RTLD_LOCAL) and takes every function with
 * dlsym(handle, name), so a preloaded curl_easy_setopt would never be the one it calls. The shim
 * wraps dlsym instead: asked for one of the libcurl functions below, it hands out its own
 * wrapper, which forwards to the real function; every other name passes straight through. What
 * the wrappers do:
 *   curl_version_info  reports version_num 0x074400 and version "7.68.0" (the struct's age
 *                      and feature bits cut back to what 7.68.0 had);
 *   curl_version       "libcurl/7.68.0 ..." with the real version named at the end;
 *   curl_easy_setopt   returns CURLE_UNKNOWN_OPTION (48) for every option 7.68.0 did not know
 *                      (numbers above CURLOPT_SASL_AUTHZID, 289: libcurl numbers its options in
 *                      the order they were added), as 7.68.0 itself does;
 *   curl_easy_getinfo  the same for info codes past CURLINFO_RETRY_AFTER (57);
 *   curl_multi_setopt  CURLM_UNKNOWN_OPTION (6) past CURLMOPT_MAX_CONCURRENT_STREAMS (16);
 *   dlsym              NULL for functions added after the reported version (curl_ws_send, ...).
 *
 * COURIER_LIBCURL_SHIM_VERSION=X.Y.Z reports another version (e.g. 7.67.0, below Courier's
 * floor); the option cutoffs stay 7.68.0's. COURIER_LIBCURL_SHIM_LOG=FILE appends, at exit, one
 * line per option the process set ("set N") or had refused ("refused N"), so that the matrix can
 * check that its tests touched every option the engine sets.
 *
 * Limits: a dlsym(RTLD_NEXT, ...) made by another library is answered as if the shim had made
 * it (only interposing libraries, such as sanitizers, do that: do not combine them with it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The start of libcurl's struct curl_version_info_data, through CURLVERSION_SIXTH (7.66.0),
 * the last age 7.68.0 had. */
struct version_info {
    int age;
    const char *version;
    unsigned int version_num;
    const char *host;
    int features;
    const char *ssl_version;
    long ssl_version_num;
    const char *libz_version;
    const char *const *protocols;
    const char *ares;                 /* SECOND */
    int ares_num;
    const char *libidn;               /* THIRD */
    int iconv_ver_num;                /* FOURTH */
    const char *libssh_version;
    unsigned int brotli_ver_num;      /* FIFTH */
    const char *brotli_version;
    unsigned int nghttp2_ver_num;     /* SIXTH */
    const char *nghttp2_version;
    const char *quic_version;
};
enum { AGE_SIXTH = 5 };
/* Feature bits libcurl added after 7.68.0: zstd 7.72, unicode 7.72, HSTS 7.74, gsasl 7.76, thread-safe 7.84. */
enum { NEWER_FEATURES = (1 << 26) | (1 << 27) | (1 << 28) | (1 << 29) | (1 << 30) };

enum { LAST_EASY_OPTION = 289, LAST_INFO = 57, LAST_MULTI_OPTION = 16 };
enum { CURLE_UNKNOWN_OPTION = 48, CURLM_UNKNOWN_OPTION = 6 };

/* Functions newer than 7.66.0, with the version that introduced them (curl's docs, "Added-in"). */
static const struct { const char *name; unsigned int version_num; } newer_functions[] = {
    {"curl_multi_wakeup", 0x074400},        {"curl_easy_option_by_id", 0x074900},
    {"curl_easy_option_by_name", 0x074900}, {"curl_easy_option_next", 0x074900},
    {"curl_url_strerror", 0x075000},        {"curl_easy_header", 0x075300},
    {"curl_easy_nextheader", 0x075300},     {"curl_ws_meta", 0x075600},
    {"curl_ws_recv", 0x075600},             {"curl_ws_send", 0x075600},
    {"curl_global_trace", 0x080300},        {"curl_multi_get_handles", 0x080400},
    {"curl_multi_waitfds", 0x080800},       {"curl_easy_ssls_export", 0x080c00},
    {"curl_easy_ssls_import", 0x080c00},    {"curl_multi_get_offt", 0x081000},
    {"curl_ws_start_frame", 0x081000},      {"curl_multi_notify_disable", 0x081100},
    {"curl_multi_notify_enable", 0x081100},
};

typedef void *(*dlsym_function)(void *, const char *);
static dlsym_function real_dlsym_function;

static void *real_dlsym(void *handle, const char *symbol) {
    dlsym_function function = __atomic_load_n(&real_dlsym_function, __ATOMIC_ACQUIRE);
    if (function == NULL) {
        function = (dlsym_function)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
        if (function == NULL) function = (dlsym_function)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
        if (function == NULL) abort();
        __atomic_store_n(&real_dlsym_function, function, __ATOMIC_RELEASE);
    }
    return function(handle, symbol);
}

/* The reported version: COURIER_LIBCURL_SHIM_VERSION, or 7.68.0. */
static unsigned int reported_num(void) {
    const char *text = getenv("COURIER_LIBCURL_SHIM_VERSION");
    unsigned int major = 7, minor = 68, patch = 0;
    if (text != NULL) sscanf(text, "%u.%u.%u", &major, &minor, &patch);
    return major << 16 | minor << 8 | patch;
}

static char reported_text[32];

/* --- the real functions, filled in when Courier looks them up ------------------------------ */
static struct version_info *(*real_version_info)(int);
static char *(*real_version)(void);
static int (*real_easy_setopt)(void *, int, ...);
static int (*real_easy_getinfo)(void *, int, ...);
static int (*real_multi_setopt)(void *, int, ...);

/* --- which options were set, for COURIER_LIBCURL_SHIM_LOG ----------------------------------- */
enum { OPTION_LIMIT = 50000 };
static unsigned char options_set[OPTION_LIMIT / 8], options_refused[OPTION_LIMIT / 8];

static void note(unsigned char *bits, int option) {
    if (option < 0 || option >= OPTION_LIMIT) return;
    __atomic_fetch_or(&bits[option / 8], (unsigned char)(1u << (option % 8)), __ATOMIC_RELAXED);
}

__attribute__((destructor)) static void write_log(void) {
    const char *path = getenv("COURIER_LIBCURL_SHIM_LOG");
    if (path == NULL || *path == '\0') return;
    int file = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (file < 0) return;
    for (int option = 0; option < OPTION_LIMIT; option++) {
        char line[32];
        int length = 0;
        if (options_set[option / 8] & (1u << (option % 8))) length = snprintf(line, sizeof line, "set %d\n", option);
        if (options_refused[option / 8] & (1u << (option % 8))) length = snprintf(line, sizeof line, "refused %d\n", option);
        if (length > 0) (void)!write(file, line, (size_t)length);
    }
    close(file);
}

/* --- the wrappers ---------------------------------------------------------------------------- */
static struct version_info shim_info;

static struct version_info *shim_version_info(int stamp) {
    struct version_info *real = real_version_info(stamp);
    if (real == NULL) return NULL;
    unsigned int number = reported_num();
    snprintf(reported_text, sizeof reported_text, "%u.%u.%u", number >> 16, (number >> 8) & 0xff, number & 0xff);
    shim_info = *real;  /* every libcurl Courier meets has at least the SIXTH fields */
    shim_info.age = AGE_SIXTH;
    shim_info.version = reported_text;
    shim_info.version_num = number;
    shim_info.features &= ~NEWER_FEATURES;
    return &shim_info;
}

static char *shim_version(void) {
    static char line[512];
    const char *real = real_version();
    const char *rest = strchr(real, ' ');
    unsigned int number = reported_num();
    snprintf(line, sizeof line, "libcurl/%u.%u.%u%s (libcurl-shim over %.*s)", number >> 16, (number >> 8) & 0xff,
             number & 0xff, rest ? rest : "", (int)(rest ? (size_t)(rest - real) : strlen(real)), real);
    return line;
}

/* Options are typed by their number: LONG below 10000, then OBJECTPOINT, FUNCTIONPOINT, OFF_T, BLOB. */
static int shim_easy_setopt(void *easy, int option, ...) {
    va_list arguments;
    va_start(arguments, option);
    int result;
    if (option % 10000 > LAST_EASY_OPTION) {
        result = CURLE_UNKNOWN_OPTION;
    } else if (option < 10000) {
        result = real_easy_setopt(easy, option, va_arg(arguments, long));
    } else if (option < 30000 || option >= 40000) {
        result = real_easy_setopt(easy, option, va_arg(arguments, void *));
    } else {
        result = real_easy_setopt(easy, option, va_arg(arguments, long long));
    }
    va_end(arguments);
    note(result == CURLE_UNKNOWN_OPTION ? options_refused : options_set, option);
    return result;
}

/* Every info code takes a pointer. */
static int shim_easy_getinfo(void *easy, int info, ...) {
    va_list arguments;
    va_start(arguments, info);
    void *destination = va_arg(arguments, void *);
    va_end(arguments);
    if ((info & 0xfffff) > LAST_INFO) return CURLE_UNKNOWN_OPTION;
    return real_easy_getinfo(easy, info, destination);
}

static int shim_multi_setopt(void *multi, int option, ...) {
    va_list arguments;
    va_start(arguments, option);
    int result;
    if (option % 10000 > LAST_MULTI_OPTION) {
        result = CURLM_UNKNOWN_OPTION;
    } else if (option < 10000) {
        result = real_multi_setopt(multi, option, va_arg(arguments, long));
    } else if (option < 30000) {
        result = real_multi_setopt(multi, option, va_arg(arguments, void *));
    } else {
        result = real_multi_setopt(multi, option, va_arg(arguments, long long));
    }
    va_end(arguments);
    return result;
}

/* --- dlsym ----------------------------------------------------------------------------------- */
#define WRAP(name, real, wrapper)                                    \
    if (strcmp(symbol, name) == 0) {                                 \
        void *function = real_dlsym(handle, symbol);                 \
        if (function == NULL) return NULL;                           \
        __atomic_store_n((void **)&real, function, __ATOMIC_RELEASE); \
        return (void *)wrapper;                                      \
    }

void *dlsym(void *handle, const char *symbol) {
    if (strncmp(symbol, "curl_", 5) != 0) return real_dlsym(handle, symbol);
    unsigned int number = reported_num();
    for (size_t i = 0; i < sizeof newer_functions / sizeof newer_functions[0]; i++) {
        if (strcmp(symbol, newer_functions[i].name) == 0 && newer_functions[i].version_num > number) return NULL;
    }
    WRAP("curl_version_info", real_version_info, shim_version_info)
    WRAP("curl_version", real_version, shim_version)
    WRAP("curl_easy_setopt", real_easy_setopt, shim_easy_setopt)
    WRAP("curl_easy_getinfo", real_easy_getinfo, shim_easy_getinfo)
    WRAP("curl_multi_setopt", real_multi_setopt, shim_multi_setopt)
    return real_dlsym(handle, symbol);
}
