/*
 * Internal helpers shared by every module (never installed).
 * Names are slinky_<module>__name or, for core, slinky__name.
 */
#ifndef SLINKY_CORE_INTERNAL_H
#define SLINKY_CORE_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "slinky/common.h"
#include "slinky/core.h"
#include "slinky/error.h"

#define SLINKY_HIDDEN __attribute__((visibility("hidden")))

/* --- errors ---------------------------------------------------------- */

/** Record the thread's last error and return `code` (negative). */
SLINKY_HIDDEN int slinky__error_set(int code, const char *fmt, ...) SLINKY_PRINTF(2, 3);
/** Same, with an HTTP status. */
SLINKY_HIDDEN int slinky__error_set_http(int code, int http_status, const char *fmt, ...)
    SLINKY_PRINTF(3, 4);
/** Same, with a 1-based line and column; message becomes "line L, column C: ...". */
SLINKY_HIDDEN int slinky__error_set_pos(int code, int line, int column, const char *fmt, ...)
    SLINKY_PRINTF(4, 5);
/** Like slinky__error_set, appending ": strerror(errnum)". */
SLINKY_HIDDEN int slinky__error_set_errno(int code, int errnum, const char *fmt, ...)
    SLINKY_PRINTF(3, 4);
/** Prefix the current message with context ("file.yaml: "), keeping code and position. */
SLINKY_HIDDEN void slinky__error_prefix(const char *fmt, ...) SLINKY_PRINTF(1, 2);
/** Set ENOMEM ("out of memory") and return SLINKY_ENOMEM. */
SLINKY_HIDDEN int slinky__error_oom(void);

/* --- lazily started dependencies ----------------------------------- */

/**
 * A dependency a module starts on first use (libcurl for kube, libgit2 for the
 * ledger), so that core links neither and a program pays only for what it
 * touches. slinky__lazy_start runs start() once (thread safe; 0 or a negative
 * code, set with slinky__error_set); the last slinky_global_shutdown() runs
 * stop() of every started one, newest first, after which the next use starts
 * it again. Define one per dependency: static slinky__lazy x = SLINKY__LAZY(start, stop);
 */
typedef struct slinky__lazy {
    int (*start)(void);
    void (*stop)(void);
    int started;
    struct slinky__lazy *next;
} slinky__lazy;
#define SLINKY__LAZY(start, stop) {(start), (stop), 0, NULL}
SLINKY_HIDDEN int slinky__lazy_start(slinky__lazy *l);

/** Start libgit2 if it is not started yet (a slinky__lazy of the ledger module, ledger/libgit2.c).
 * Every git-using entry point calls this. */
SLINKY_HIDDEN int slinky__git_init(void);

/* --- logging --------------------------------------------------------- */

SLINKY_HIDDEN void slinky__log(slinky_log_level level, const char *module, const char *fmt, ...)
    SLINKY_PRINTF(3, 4);
/** True when a callback would receive messages of this level (skip formatting otherwise). */
SLINKY_HIDDEN int slinky__log_enabled(slinky_log_level level);

/* --- memory ---------------------------------------------------------- */

/* These set SLINKY_ENOMEM on failure and return NULL. */
SLINKY_HIDDEN void *slinky__malloc(size_t n);
SLINKY_HIDDEN void *slinky__calloc(size_t n, size_t size);
SLINKY_HIDDEN void *slinky__realloc(void *p, size_t n);
/**
 * Make room for element n of a growable array: when n >= *cap, *items_ptr (the address
 * of a T *) is reallocated to twice *cap (`initial` the first time) elements of `elem`
 * bytes. 0, or SLINKY_ENOMEM (set) with *items_ptr and *cap unchanged. The one
 * grow-by-doubling of the library: `if (slinky__array_room(&a, &cap, n, sizeof(*a), 16))`.
 */
SLINKY_HIDDEN int slinky__array_room(void *items_ptr, size_t *cap, size_t n, size_t elem,
                                     size_t initial);
SLINKY_HIDDEN char *slinky__strdup(const char *s);
SLINKY_HIDDEN char *slinky__strndup(const char *s, size_t n);
/** malloc'd printf; NULL (ENOMEM set) on failure. */
SLINKY_HIDDEN char *slinky__sprintf(const char *fmt, ...) SLINKY_PRINTF(1, 2);

/* --- growable byte buffer ------------------------------------------- */

typedef struct slinky__buf {
    char *data; /* always NUL terminated once anything was appended */
    size_t len;
    size_t cap;
    int failed; /* sticky: an allocation failed */
} slinky__buf;

#define SLINKY__BUF_INIT {NULL, 0, 0, 0}

SLINKY_HIDDEN int slinky__buf_grow(slinky__buf *b, size_t extra);
SLINKY_HIDDEN int slinky__buf_put(slinky__buf *b, const void *data, size_t len);
SLINKY_HIDDEN int slinky__buf_puts(slinky__buf *b, const char *s);
SLINKY_HIDDEN int slinky__buf_putc(slinky__buf *b, char c);
SLINKY_HIDDEN int slinky__buf_printf(slinky__buf *b, const char *fmt, ...) SLINKY_PRINTF(2, 3);
SLINKY_HIDDEN int slinky__buf_vprintf(slinky__buf *b, const char *fmt, va_list ap);
/** Hand the data to the caller (never NULL on success: "" for empty). Resets b. */
SLINKY_HIDDEN char *slinky__buf_detach(slinky__buf *b, size_t *len_out);
/**
 * Hand a finished buffer to an out-param: 0 and *out (and *len_out, may be
 * NULL) set; or SLINKY_ENOMEM (recorded) when any append failed, with *out
 * untouched and b disposed. Ends b either way.
 */
SLINKY_HIDDEN int slinky__buf_finish(char **out, size_t *len_out, slinky__buf *b);
SLINKY_HIDDEN void slinky__buf_dispose(slinky__buf *b);
SLINKY_HIDDEN void slinky__buf_clear(slinky__buf *b);

/* --- files ------------------------------------------------------------ */

/** Read a whole file (NUL terminated). Errors: ENOTFOUND, EIO (with path). */
SLINKY_HIDDEN int slinky__read_file(char **out, size_t *len_out, const char *path);
/**
 * Write a file atomically: temp file in the same folder, fsync, rename,
 * fsync the folder. The old file stays intact on any failure.
 */
SLINKY_HIDDEN int slinky__write_file_atomic(const char *path, const void *data, size_t len,
                                            unsigned mode);

/* --- misc ------------------------------------------------------------- */

#define SLINKY__ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/** Case-insensitive ASCII compare helpers. */
SLINKY_HIDDEN int slinky__strcasecmp(const char *a, const char *b);

#endif
