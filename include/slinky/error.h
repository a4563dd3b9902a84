/*
 * libslinky error model.
 *
 * Every fallible call returns slinky_status: 0 on success or one of the
 * negative codes below. The codes are append-only: a value, once released,
 * is never renumbered or reused.
 *
 * Details of the last failure on the calling thread are kept in a per-thread
 * slinky_error (C11 _Thread_local) returned by slinky_error_last(). It is
 * owned by the library and stays valid until the next libslinky call on the
 * same thread. Successful calls do not clear it; slinky_error_clear() does.
 *
 * Thread safety: all functions here are safe to call from any thread; each
 * thread sees only its own last error.
 */
#ifndef SLINKY_ERROR_H
#define SLINKY_ERROR_H

#include "common.h"

SLINKY_BEGIN_DECLS

/** Error codes (append-only; never renumbered). */
enum slinky_error_code {
    SLINKY_OK = 0,
    SLINKY_ERROR = -1,      /**< generic failure */
    SLINKY_ENOMEM = -2,     /**< out of memory */
    SLINKY_EINVALID = -3,   /**< invalid argument or invalid input value */
    SLINKY_ENOTFOUND = -4,  /**< object, key, file or path does not exist */
    SLINKY_EEXISTS = -5,    /**< object already exists */
    SLINKY_ECONFLICT = -6,  /**< concurrent modification / version conflict */
    SLINKY_EAUTH = -7,      /**< authentication or authorization failed */
    SLINKY_ETIMEOUT = -8,   /**< operation timed out */
    SLINKY_EHTTP = -9,      /**< HTTP or transport failure without a better code */
    SLINKY_EPARSE = -10,    /**< malformed input (JSON, YAML, slurm.conf, ...) */
    SLINKY_EGIT = -11,      /**< git repository failure */
    SLINKY_ITEROVER = -12,  /**< iteration finished (not an error) */
    SLINKY_EIO = -13,       /**< operating-system I/O failure (errno in message) */
    SLINKY_EGONE = -14,     /**< resource version expired (HTTP 410) */
    SLINKY_EUNSUPPORTED = -15, /**< operation or version not supported */
    SLINKY_EBUSY = -16,     /**< rate limited or temporarily unavailable (429/503) */
    SLINKY_EFORBIDDEN = -17,   /**< permission denied (HTTP 403, EPERM) */
    SLINKY_ECANCELED = -18,    /**< stopped on request */
    SLINKY_EUNAVAILABLE = -19  /**< the server could not be reached (connect failure, timeout before a reply) */
};

/** Details of the last failure on this thread. */
typedef struct slinky_error {
    int code;            /**< the slinky_status that was returned */
    int http_status;     /**< HTTP status that caused it, or 0 */
    const char *message; /**< human readable, never NULL (may be "") */
    int line;            /**< 1-based input line for parse errors, else 0 */
    int column;          /**< 1-based input column for parse errors, else 0 */
} slinky_error;

/**
 * The last error recorded on this thread. Never NULL: with no error recorded
 * it returns an entry with code 0 and an empty message. Borrowed: valid until
 * the next libslinky call on this thread.
 */
SLINKY_API const slinky_error *slinky_error_last(void);

/** Reset this thread's last error to "no error". */
SLINKY_API void slinky_error_clear(void);

/**
 * A static, human-readable name for a code ("SLINKY_ENOTFOUND"...).
 * Unknown codes give "SLINKY_UNKNOWN".
 */
SLINKY_API const char *slinky_error_name(int code);

/* ------------------------------------------------------------------ */
/* Recording errors from programs and callbacks (issue 20)            */
/* ------------------------------------------------------------------ */

/**
 * Record `code` (a negative slinky_status; 0 or a positive value becomes
 * SLINKY_ERROR) with a printf-style message as this thread's last error, so
 * a program's own functions, and callbacks the library calls, report through
 * slinky_error_last() like the library does. The message is cut at 4095
 * bytes. Returns the recorded code. Thread safe (per-thread state).
 */
SLINKY_API int slinky_error_set(int code, const char *fmt, ...) SLINKY_PRINTF(2, 3);

SLINKY_END_DECLS

#endif
