// The few parts of libcurl's C API that Courier's curl engine uses, declared here with their
// ABI numbers so that no libcurl headers are needed to build: a fresh Linux machine has
// libcurl.so.4 (FoundationNetworking loads it) but not its development package.
//
// libcurl's ABI (soname 4) has been stable since 2006; every number below is the value of the
// libcurl name it is called after. The library is opened with dlopen at run time (see
// ccurl_load), and every variadic libcurl call goes through a typed wrapper here, because Swift
// cannot call a C variadic function.
#ifndef COURIER_CCURL_H
#define COURIER_CCURL_H

#include <stddef.h>

typedef struct ccurl_easy ccurl_easy;     // CURL
typedef struct ccurl_multi ccurl_multi;   // CURLM
typedef struct ccurl_slist ccurl_slist;   // struct curl_slist
typedef long long ccurl_off_t;            // curl_off_t (64-bit on every platform Courier supports)

typedef size_t (*ccurl_data_callback)(char *buffer, size_t size, size_t count, void *context);
typedef int (*ccurl_seek_callback)(void *context, ccurl_off_t offset, int origin);
typedef int (*ccurl_progress_callback)(void *context, ccurl_off_t download_total, ccurl_off_t downloaded,
                                       ccurl_off_t upload_total, ccurl_off_t uploaded);

// CURLoption values used (CURLOPTTYPE_LONG + n, OBJECTPOINT 10000 + n, FUNCTIONPOINT 20000 + n, OFF_T 30000 + n).
enum {
    CCURLOPT_WRITEDATA = 10001,
    CCURLOPT_URL = 10002,
    CCURLOPT_PROXY = 10004,
    CCURLOPT_READDATA = 10009,
    CCURLOPT_ERRORBUFFER = 10010,
    CCURLOPT_WRITEFUNCTION = 20011,
    CCURLOPT_READFUNCTION = 20012,
    CCURLOPT_LOW_SPEED_LIMIT = 19,
    CCURLOPT_LOW_SPEED_TIME = 20,
    CCURLOPT_HTTPHEADER = 10023,
    CCURLOPT_SSLCERT = 10025,
    CCURLOPT_KEYPASSWD = 10026,
    CCURLOPT_HEADERDATA = 10029,
    CCURLOPT_CUSTOMREQUEST = 10036,
    CCURLOPT_NOPROGRESS = 43,
    CCURLOPT_NOBODY = 44,
    CCURLOPT_POST = 47,
    CCURLOPT_FOLLOWLOCATION = 52,
    CCURLOPT_PROXYPORT = 59,
    CCURLOPT_HTTPPROXYTUNNEL = 61,         // LibcurlOptions.proxyTunnel; WebSockets: ws:// through an HTTP proxy too
    CCURLOPT_XFERINFODATA = 10057,
    CCURLOPT_SSL_VERIFYPEER = 64,
    CCURLOPT_CAINFO = 10065,
    CCURLOPT_HEADERFUNCTION = 20079,
    CCURLOPT_HTTPGET = 80,
    CCURLOPT_SSL_VERIFYHOST = 81,
    CCURLOPT_HTTP_VERSION = 84,
    CCURLOPT_SSLKEY = 10087,
    CCURLOPT_BUFFERSIZE = 98,              // 7.10
    CCURLOPT_NOSIGNAL = 99,
    CCURLOPT_ACCEPT_ENCODING = 10102,
    CCURLOPT_PRIVATE = 10103,
    CCURLOPT_POSTFIELDSIZE_LARGE = 30120,
    CCURLOPT_CONNECT_ONLY = 141,           // 7.15.2: WebSockets connect, then send and receive themselves
    CCURLOPT_CONNECTTIMEOUT_MS = 156,
    CCURLOPT_HTTP_CONTENT_DECODING = 158,   // 7.16.2
    CCURLOPT_PROTOCOLS = 181,              // a CURLPROTO_* bitmask; before 7.85.0 the only way
    CCURLOPT_REDIR_PROTOCOLS = 182,
    CCURLOPT_XFERINFOFUNCTION = 20219,
    CCURLOPT_EXPECT_100_TIMEOUT_MS = 227,
    CCURLOPT_PINNEDPUBLICKEY = 10230,
    CCURLOPT_UNIX_SOCKET_PATH = 10231,     // 7.40.0, where libcurl has CURL_VERSION_UNIX_SOCKETS
    CCURLOPT_PIPEWAIT = 237,               // 7.43.0
    CCURLOPT_MAX_SEND_SPEED_LARGE = 30145, // 7.15.5
    CCURLOPT_MAX_RECV_SPEED_LARGE = 30146, // 7.15.5
    CCURLOPT_SUPPRESS_CONNECT_HEADERS = 265,
    CCURLOPT_PROTOCOLS_STR = 10318,        // 7.85.0+: see ccurl_version_info and CurlFeatures
    CCURLOPT_REDIR_PROTOCOLS_STR = 10319,  // 7.85.0+
    // LibcurlOptions, passed through (all older than 7.68.0; CONNECT_TO is 7.49.0).
    CCURLOPT_PROXYUSERPWD = 10006,
    CCURLOPT_USERPWD = 10005,
    CCURLOPT_HTTPAUTH = 107,
    CCURLOPT_USERAGENT = 10018,            // a tunnel's CONNECT (the request's own line is in the list)
    CCURLOPT_PROXYAUTH = 111,
    CCURLOPT_SEEKFUNCTION = 20167,         // 7.18.0: an authentication round sends the body again
    CCURLOPT_SEEKDATA = 10168,
    CCURLOPT_UPLOAD = 46,                  // a PUT in an authentication round (LibcurlOptions.authMethods)
    CCURLOPT_INFILESIZE_LARGE = 30115,
    CCURLOPT_NETRC = 51,
    CCURLOPT_NETRC_FILE = 10118,
    CCURLOPT_NOPROXY = 10177,
    CCURLOPT_RESOLVE = 10203,
    CCURLOPT_TRANSFER_ENCODING = 207,
    CCURLOPT_CONNECT_TO = 10243,
    CCURLOPT_PROXYHEADER = 10228,          // 7.37.0: CurlProxyConnection
    // LibcurlOptions passed through (CurlPassThrough); every one predates 7.68.0.
    CCURLOPT_INTERFACE = 10062,
    CCURLOPT_PROXYTYPE = 101,
    CCURLOPT_IPRESOLVE = 113,
    CCURLOPT_HTTP_TRANSFER_DECODING = 157, // 7.16.2
    CCURLOPT_PATH_AS_IS = 234,             // 7.42.0
    CCURLOPT_REQUEST_TARGET = 10266,       // 7.55.0
    CCURLOPT_HAPROXYPROTOCOL = 274,        // 7.60.0
    CCURLOPT_HTTP09_ALLOWED = 285,         // 7.64.0
    CCURLOPT_IGNORE_CONTENT_LENGTH = 136,  // 7.14.1
    CCURLOPT_CRLFILE = 10169,              // 7.19.0
    CCURLOPT_PROXY_SSL_VERIFYPEER = 248,   // 7.52.0
    CCURLOPT_PROXY_SSL_VERIFYHOST = 249,   // 7.52.0
};

// CURLPROTO_* bits for CCURLOPT_PROTOCOLS and CCURLOPT_REDIR_PROTOCOLS.
enum {
    CCURLPROTO_HTTP = 1 << 0,
    CCURLPROTO_HTTPS = 1 << 1,
};

// CURLINFO values used (STRING 0x100000 + n, LONG 0x200000 + n, OFF_T 0x600000 + n).
enum {
    CCURLINFO_EFFECTIVE_URL = 0x100001,
    CCURLINFO_RESPONSE_CODE = 0x200002,
    CCURLINFO_PRIVATE = 0x100015,
    CCURLINFO_HTTP_CONNECTCODE = 0x200016,
    // Read by ccurl_easy_metrics, each with the version that introduced it.
    CCURLINFO_HEADER_SIZE = 0x20000B,           // 7.4.1
    CCURLINFO_REQUEST_SIZE = 0x20000C,          // 7.4.1
    CCURLINFO_NUM_CONNECTS = 0x20001A,          // 7.12.3
    CCURLINFO_PRIMARY_IP = 0x100020,            // 7.19.0
    CCURLINFO_PRIMARY_PORT = 0x200028,          // 7.21.0
    CCURLINFO_LOCAL_IP = 0x100029,              // 7.21.0
    CCURLINFO_LOCAL_PORT = 0x20002A,            // 7.21.0
    CCURLINFO_HTTP_VERSION = 0x20002E,          // 7.50.0
    CCURLINFO_SIZE_UPLOAD_T = 0x600007,         // 7.55.0
    CCURLINFO_SIZE_DOWNLOAD_T = 0x600008,       // 7.55.0
    CCURLINFO_TOTAL_TIME_T = 0x600032,          // 7.61.0
    CCURLINFO_NAMELOOKUP_TIME_T = 0x600033,     // 7.61.0
    CCURLINFO_CONNECT_TIME_T = 0x600034,        // 7.61.0
    CCURLINFO_PRETRANSFER_TIME_T = 0x600035,    // 7.61.0
    CCURLINFO_STARTTRANSFER_TIME_T = 0x600036,  // 7.61.0
    CCURLINFO_APPCONNECT_TIME_T = 0x600038,     // 7.61.0
    CCURLINFO_CONN_ID = 0x600040,               // 8.2.0: asked for only from there
    // CURLINFO_SOCKET 0x500000 + 44: the socket of a CURLOPT_CONNECT_ONLY connection (WebSockets).
    CCURLINFO_ACTIVESOCKET = 0x50002C,          // 7.45.0
};

// CURLMoption values used.
enum {
    CCURLMOPT_MAXCONNECTS = 6,             // 7.16.3
    CCURLMOPT_MAX_HOST_CONNECTIONS = 7,
};

// Other constants.
enum {
    CCURL_GLOBAL_ALL = 3,
    CCURL_HTTP_VERSION_1_0 = 1,
    CCURL_HTTP_VERSION_1_1 = 2,
    CCURL_HTTP_VERSION_2_0 = 3,
    CCURL_HTTP_VERSION_2TLS = 4,               // 7.47.0: HTTP/2 over TLS by ALPN, HTTP/1.1 otherwise
    CCURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE = 5,  // 7.49.0: HTTP/2 from the first byte, cleartext too
    CCURL_HTTP_VERSION_3 = 30,
    CCURL_WRITEFUNC_PAUSE = 0x10000001,
    CCURL_READFUNC_ABORT = 0x10000000,
    CCURL_READFUNC_PAUSE = 0x10000001,
    CCURLPAUSE_CONT = 0,
    CCURLMSG_DONE = 1,
};

// CURLcode values Courier tells apart (curl's command-line exit codes are these numbers).
enum {
    CCURLE_OK = 0,
    CCURLE_UNSUPPORTED_PROTOCOL = 1,
    CCURLE_URL_MALFORMAT = 3,
    CCURLE_COULDNT_RESOLVE_PROXY = 5,
    CCURLE_COULDNT_RESOLVE_HOST = 6,
    CCURLE_COULDNT_CONNECT = 7,
    CCURLE_WEIRD_SERVER_REPLY = 8,
    CCURLE_PARTIAL_FILE = 18,
    CCURLE_WRITE_ERROR = 23,
    CCURLE_READ_ERROR = 26,
    CCURLE_OUT_OF_MEMORY = 27,
    CCURLE_OPERATION_TIMEDOUT = 28,
    CCURLE_SSL_CONNECT_ERROR = 35,
    CCURLE_ABORTED_BY_CALLBACK = 42,
    CCURLE_TOO_MANY_REDIRECTS = 47,
    CCURLE_GOT_NOTHING = 52,
    CCURLE_SEND_ERROR = 55,
    CCURLE_RECV_ERROR = 56,
    CCURLE_SSL_CERTPROBLEM = 58,
    CCURLE_PEER_FAILED_VERIFICATION = 60,
    CCURLE_UNKNOWN_OPTION = 48,
    CCURLE_BAD_CONTENT_ENCODING = 61,
    CCURLE_AGAIN = 81,                  // curl_easy_send/recv: the socket is not ready
    CCURLE_SSL_CACERT_BADFILE = 77,
    CCURLE_SSL_PINNEDPUBKEYNOTMATCH = 90,
    CCURLE_PROXY = 97,
};

// curl_version_info_data.features bits Courier reads (CURL_VERSION_*).
enum {
    CCURL_VERSION_SSL = 1 << 2,
    CCURL_VERSION_LIBZ = 1 << 3,      // gzip and deflate decoding
    CCURL_VERSION_HTTP2 = 1 << 16,
    CCURL_VERSION_UNIX_SOCKETS = 1 << 19,  // 7.40.0
    CCURL_VERSION_BROTLI = 1 << 23,   // br decoding
    CCURL_VERSION_ZSTD = 1 << 26,     // zstd decoding
};

/// The oldest libcurl the engine loads (LIBCURL_VERSION_NUM of 7.68.0): curl_multi_poll is
/// 7.66.0 and curl_multi_wakeup 7.68.0, and the loop needs both.
#define CCURL_MINIMUM_VERSION_NUM 0x074400

/// What `curl_version_info` says about the loaded libcurl: the fields Courier reads.
typedef struct {
    unsigned int version_num;   // 0xXXYYZZ: 7.88.1 is 0x075801
    int features;               // CCURL_VERSION_* bits
    const char *version;        // "7.88.1"
    const char *ssl_version;    // "OpenSSL/3.0.17", or NULL without TLS
} ccurl_version_info_data;

/// Opens libcurl (once; later calls return the first answer), checks that it is at least
/// CCURL_MINIMUM_VERSION_NUM, and initialises it. Returns 0 on success; otherwise 1, with the
/// reason written into `reason`.
int ccurl_load(char *reason, size_t reason_size);
/// Fills `info` from `curl_version_info`, read once while loading. Returns 0 on success, 1 when
/// libcurl is not loaded (then `info` is untouched).
int ccurl_version_info(ccurl_version_info_data *info);
/// libcurl's version line ("libcurl/7.88.1 OpenSSL/3.0.x ..."); only after a successful load.
const char *ccurl_version(void);
/// A human-readable description of a CURLcode.
const char *ccurl_easy_strerror(int code);

ccurl_easy *ccurl_easy_init(void);
void ccurl_easy_cleanup(ccurl_easy *easy);
void ccurl_easy_reset(ccurl_easy *easy);
int ccurl_easy_setopt_long(ccurl_easy *easy, int option, long value);
int ccurl_easy_setopt_pointer(ccurl_easy *easy, int option, const void *value);
int ccurl_easy_setopt_offset(ccurl_easy *easy, int option, ccurl_off_t value);
int ccurl_easy_setopt_data_callback(ccurl_easy *easy, int option, ccurl_data_callback callback);
int ccurl_easy_setopt_progress_callback(ccurl_easy *easy, int option, ccurl_progress_callback callback);
int ccurl_easy_setopt_seek_callback(ccurl_easy *easy, int option, ccurl_seek_callback callback);
int ccurl_easy_getinfo_long(ccurl_easy *easy, int info, long *value);
int ccurl_easy_getinfo_pointer(ccurl_easy *easy, int info, void **value);
int ccurl_easy_getinfo_offset(ccurl_easy *easy, int info, ccurl_off_t *value);
int ccurl_easy_pause(ccurl_easy *easy, int bitmask);

// The connection WebSockets use (CCURLOPT_CONNECT_ONLY): libcurl connects (proxy, TLS, Unix
// socket) in ccurl_easy_perform, then Courier sends and receives bytes over it. Each is in every
// libcurl the engine loads: curl_easy_perform 7.1, curl_easy_send/recv 7.18.2, ACTIVESOCKET 7.45.0.
int ccurl_easy_perform(ccurl_easy *easy);
/// Sends up to `length` bytes; `sent` is how many went. CCURLE_AGAIN: none could go now.
int ccurl_easy_send(ccurl_easy *easy, const void *buffer, size_t length, size_t *sent);
/// Receives up to `length` bytes; `received` 0 with CCURLE_OK is the peer's end of the stream.
int ccurl_easy_recv(ccurl_easy *easy, void *buffer, size_t length, size_t *received);
/// CURLINFO_ACTIVESOCKET: the connection's socket (curl_socket_t, an int on Linux and Apple platforms), -1 for none.
int ccurl_easy_getinfo_socket(ccurl_easy *easy, int info, int *socket);

/// What libcurl knows about a finished (or failed) transfer, read in one call at its end
/// (`ccurl_easy_metrics`). Times are microseconds from the transfer's start, 0 for a phase it did
/// not reach (or skipped, on a reused connection); -1 marks a value this libcurl would not give.
/// The two strings point into the easy handle and are valid until it is reset or cleaned up.
typedef struct {
    ccurl_off_t total_us;          // CURLINFO_TOTAL_TIME_T (7.61.0)
    ccurl_off_t namelookup_us;     // CURLINFO_NAMELOOKUP_TIME_T
    ccurl_off_t connect_us;        // CURLINFO_CONNECT_TIME_T
    ccurl_off_t appconnect_us;     // CURLINFO_APPCONNECT_TIME_T (TLS handshake done)
    ccurl_off_t pretransfer_us;    // CURLINFO_PRETRANSFER_TIME_T
    ccurl_off_t starttransfer_us;  // CURLINFO_STARTTRANSFER_TIME_T (first byte)
    ccurl_off_t size_upload;       // CURLINFO_SIZE_UPLOAD_T (7.55.0): request body bytes sent
    ccurl_off_t size_download;     // CURLINFO_SIZE_DOWNLOAD_T: body bytes received, before decoding
    ccurl_off_t connection_id;     // CURLINFO_CONN_ID (8.2.0), -1 unless asked for and known
    long header_size;              // CURLINFO_HEADER_SIZE: response head bytes
    long request_size;             // CURLINFO_REQUEST_SIZE: request bytes sent
    long num_connects;             // CURLINFO_NUM_CONNECTS: new connections made (0: reused)
    long http_version;             // CURLINFO_HTTP_VERSION (7.50.0): CURL_HTTP_VERSION_*, 0 if none
    long primary_port;             // CURLINFO_PRIMARY_PORT
    long local_port;               // CURLINFO_LOCAL_PORT
    const char *primary_ip;        // CURLINFO_PRIMARY_IP, or NULL
    const char *local_ip;          // CURLINFO_LOCAL_IP, or NULL
} ccurl_metrics;

/// Fills `metrics` for `easy`'s last transfer. `connection_id` asks for CURLINFO_CONN_ID, which
/// only libcurl 8.2.0 and later know. Returns 0, or the first CURLcode a getinfo call gave
/// (the fields it could not read are then -1 or NULL).
int ccurl_easy_metrics(ccurl_easy *easy, int connection_id, ccurl_metrics *metrics);

ccurl_multi *ccurl_multi_init(void);
int ccurl_multi_cleanup(ccurl_multi *multi);
int ccurl_multi_setopt_long(ccurl_multi *multi, int option, long value);
int ccurl_multi_add_handle(ccurl_multi *multi, ccurl_easy *easy);
int ccurl_multi_remove_handle(ccurl_multi *multi, ccurl_easy *easy);
int ccurl_multi_perform(ccurl_multi *multi, int *running);
int ccurl_multi_poll(ccurl_multi *multi, int timeout_ms, int *ready);
int ccurl_multi_wakeup(ccurl_multi *multi);
/// The next finished transfer: returns 1 and sets `easy` and `result`, or 0 when there is none.
/// `queued` is set to the number of messages still waiting after this one (libcurl's count).
int ccurl_multi_next_done(ccurl_multi *multi, ccurl_easy **easy, int *result, int *queued);

ccurl_slist *ccurl_slist_append(ccurl_slist *list, const char *line);
void ccurl_slist_free_all(ccurl_slist *list);

// zlib, for WebSockets' permessage-deflate (RFC 7692): opened with dlopen("libz.so.1") as libcurl
// itself loads it, so that no zlib headers are needed to build. zlib's ABI (soname 1) is stable;
// the struct below is zlib's z_stream as laid out on LP64 platforms (uInt: unsigned int, uLong:
// unsigned long, pointers 8 bytes), 112 bytes; the size is passed to zlib, which checks it.
typedef struct {
    const unsigned char *next_in;  // next input byte
    unsigned int avail_in;         // bytes available at next_in
    unsigned long total_in;
    unsigned char *next_out;       // where the next output byte goes
    unsigned int avail_out;        // room left at next_out
    unsigned long total_out;
    const char *msg;               // the last error's message, or NULL
    void *state;                   // zlib's own
    void *zalloc;                  // NULL: zlib's malloc
    void *zfree;                   // NULL: zlib's free
    void *opaque;
    int data_type;
    unsigned long adler;
    unsigned long reserved;
} ccurl_z_stream;

// zlib's return codes and flush values used.
enum {
    CCURL_Z_OK = 0,
    CCURL_Z_STREAM_END = 1,
    CCURL_Z_NEED_DICT = 2,
    CCURL_Z_BUF_ERROR = -5,
    CCURL_Z_NO_FLUSH = 0,
    CCURL_Z_SYNC_FLUSH = 2,
};

/// Opens libz.so.1 (once) and binds the functions below. Returns 0 when zlib is usable; otherwise
/// 1, with the reason in `reason`.
int ccurl_zlib_load(char *reason, size_t reason_size);
/// zlibVersion() of the loaded zlib ("1.2.13"); only after a successful load.
const char *ccurl_zlib_version(void);
/// deflateInit2 for raw deflate (no zlib header) with a window of 2^window_bits bytes (9-15),
/// compression `level` (-1: zlib's default), memLevel 8 and the default strategy.
int ccurl_deflate_init(ccurl_z_stream *stream, int level, int window_bits);
/// inflateInit2 for raw deflate with a window of 2^window_bits bytes (8-15).
int ccurl_inflate_init(ccurl_z_stream *stream, int window_bits);
int ccurl_deflate(ccurl_z_stream *stream, int flush);
int ccurl_inflate(ccurl_z_stream *stream, int flush);
int ccurl_deflate_reset(ccurl_z_stream *stream);
int ccurl_inflate_reset(ccurl_z_stream *stream);
int ccurl_deflate_end(ccurl_z_stream *stream);
int ccurl_inflate_end(ccurl_z_stream *stream);

#endif
