/*
 * libslinky core: global initialisation and logging.
 *
 * slinky_global_init() must be called before any other libslinky call that
 * touches the network or git (kube, ledger); it is reference counted. Each
 * module starts its own dependency on first use: libcurl
 * (curl_global_init()) with the first kube client, libgit2
 * (git_libgit2_init(), which parses the system CA bundle) with the first
 * ledger call, so a program pays only for what it uses (core itself links
 * neither); the last slinky_global_shutdown() stops what was started. Each
 * successful init is paired with one slinky_global_shutdown(). Both are
 * thread safe.
 *
 * Library code never prints and never exits. Diagnostics go to a log
 * callback the application registers; with none registered they are dropped.
 */
#ifndef SLINKY_CORE_H
#define SLINKY_CORE_H

#include "common.h"

SLINKY_BEGIN_DECLS

/**
 * Take a reference on the library's global state (reference counted).
 * Returns 0. (A dependency that fails to start fails the call that needed
 * it, e.g. slinky_kube_client_new with SLINKY_ERROR.)
 */
SLINKY_API slinky_status slinky_global_init(void);

/**
 * Drop one reference taken by slinky_global_init(). The last one releases
 * the global state of the dependencies that were started (libcurl, libgit2). Returns the remaining count (>= 0), or
 * SLINKY_EINVALID when called more often than slinky_global_init().
 */
SLINKY_API slinky_status slinky_global_shutdown(void);

/** Log levels, most severe first. */
typedef enum slinky_log_level {
    SLINKY_LOG_ERROR = 0,
    SLINKY_LOG_WARNING = 1,
    SLINKY_LOG_INFO = 2,
    SLINKY_LOG_DEBUG = 3,
    SLINKY_LOG_TRACE = 4
} slinky_log_level;

/**
 * Log callback. `module` is a static name ("kube", "ledger", ...), `message`
 * is valid only during the call. May be called from any thread that uses
 * the library, concurrently: the callback must be thread safe.
 */
typedef void (*slinky_log_cb)(slinky_log_level level, const char *module, const char *message,
                              void *payload);

/**
 * Register (or with cb NULL, remove) the process-wide log callback and the
 * most verbose level it receives. Safe to call at any time from any thread.
 */
SLINKY_API void slinky_log_set_callback(slinky_log_cb cb, slinky_log_level max_level,
                                        void *payload);

/** Static name of a log level ("error", "warning", ...). */
SLINKY_API const char *slinky_log_level_name(slinky_log_level level);

/* ------------------------------------------------------------------ */
/* Base64 (RFC 4648), as Kubernetes Secrets, kubeconfig data and SSH  */
/* keys use it                                                        */
/* ------------------------------------------------------------------ */

/** Flags for slinky_base64_encode() and slinky_base64_decode(). */
enum slinky_base64_flags {
    SLINKY_BASE64_DEFAULT = 0,
    /** URL alphabet ("-_"); encode without padding. Decode always accepts both alphabets
     *  unless STRICT is given. */
    SLINKY_BASE64_URL = 1,
    /** Decode only: the standard alphabet, no whitespace, padding to a multiple of 4. */
    SLINKY_BASE64_STRICT = 2
};

/**
 * Encode `len` bytes. *out (NUL terminated) is released with slinky_free().
 * Thread safe. Errors: SLINKY_EINVALID (NULL arguments), SLINKY_ENOMEM.
 */
SLINKY_API slinky_status slinky_base64_encode(char **out, const void *data, size_t len,
                                              unsigned flags);

/**
 * Decode text. Without SLINKY_BASE64_STRICT, ASCII whitespace is skipped,
 * padding is optional and both alphabets are accepted. *out receives the
 * bytes followed by a NUL (not counted in *len_out, which may be NULL) and
 * is released with slinky_free(). Thread safe.
 * Errors: SLINKY_EINVALID naming the offset of the first bad character, or a
 * truncated input; SLINKY_ENOMEM.
 */
SLINKY_API slinky_status slinky_base64_decode(char **out, size_t *len_out, const char *text,
                                              unsigned flags);

SLINKY_END_DECLS

#endif
