/*
 * Layer 0 of slinky-apiserver: what every file uses and libslinky does not
 * export. A growable text buffer, allocation helpers that record
 * SLINKY_ENOMEM, error recording (through the public slinky_error_set(), so
 * slinky_error_last() holds the server's messages and the library's alike),
 * whole-file read and atomic write, time and uid helpers, JSON literals.
 *
 * Ownership: buffers own their data until as_buf_detach(); every returned
 * string is malloc'd and released with free(). Threads: all of it is thread
 * safe (no shared state; errors are per thread).
 */
#ifndef SLINKY_APISERVER_BASE_H
#define SLINKY_APISERVER_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <slinky.h>

#define AS_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- text buffer ---------------------------------------------------- */

typedef struct as_buf {
    char *data; /* NUL terminated once anything was appended */
    size_t len, cap;
    int failed; /* sticky: an allocation failed, later appends do nothing */
} as_buf;

#define AS_BUF_INIT {NULL, 0, 0, 0}

/** Room for `extra` more bytes (and the NUL). 0 or SLINKY_ENOMEM (sticky). */
int as_buf_grow(as_buf *b, size_t extra);
int as_buf_put(as_buf *b, const void *data, size_t len);
int as_buf_puts(as_buf *b, const char *s);
int as_buf_putc(as_buf *b, char c);
int as_buf_printf(as_buf *b, const char *fmt, ...) SLINKY_PRINTF(2, 3);
/** The data (never NULL: "" when empty), or NULL after a failed append; resets b. */
char *as_buf_detach(as_buf *b, size_t *len_out);
void as_buf_clear(as_buf *b);
void as_buf_dispose(as_buf *b);
/** Append a JSON string literal (quoted, escaped); NULL is written as "". */
void as_json_str(as_buf *b, const char *s);

/* ---- memory (NULL and SLINKY_ENOMEM recorded on failure) ------------- */

void *as_malloc(size_t n);
void *as_calloc(size_t n, size_t size);
char *as_strdup(const char *s);
char *as_strndup(const char *s, size_t n);
char *as_sprintf(const char *fmt, ...) SLINKY_PRINTF(1, 2);

/* ---- errors ----------------------------------------------------------- */

/** slinky_error_set() with ": strerror(errnum)" appended; returns code. */
int as_err_errno(int code, int errnum, const char *fmt, ...) SLINKY_PRINTF(3, 4);
/** Record SLINKY_ENOMEM ("out of memory"); returns it. */
int as_err_oom(void);

/* ---- files ------------------------------------------------------------ */

/** Whole file, NUL terminated. SLINKY_ENOTFOUND when missing, else SLINKY_EIO. */
int as_read_file(char **out, size_t *len_out, const char *path);
/** Temp file beside `path`, fsync, rename, fsync of the folder; old file intact on error. */
int as_write_file_atomic(const char *path, const void *data, size_t len, unsigned mode);

/* ---- numbers ------------------------------------------------------------ */

/** A decimal of digits only (no sign, no space) that is <= max; 0, or -1 when not. */
int as_parse_uint(const char *text, uint64_t max, uint64_t *out);

/* ---- time and identity ------------------------------------------------ */

/** Current UTC time as RFC 3339 ("2026-12-01T22:00:00Z"). */
void as_now_rfc3339(char *buf, size_t len);
/** A random RFC 4122 version 4 uid (37 bytes with the NUL). */
void as_new_uid(char *buf);
/** Base64 (standard with padding, or URL-safe without); malloc'd, NULL on failure. */
char *as_base64(const void *data, size_t len, bool url);

#endif
