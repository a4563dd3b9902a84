/*
 * libslinky: common definitions shared by every public header.
 *
 * SLINKY_API marks an exported function. The library is built with hidden
 * visibility and a version script, so nothing else is visible from the
 * shared object. SLINKY_BEGIN_DECLS/SLINKY_END_DECLS give C++ linkage guards.
 */
#ifndef SLINKY_COMMON_H
#define SLINKY_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) && __GNUC__ >= 4
#define SLINKY_API __attribute__((visibility("default")))
#else
#define SLINKY_API
#endif

#if defined(__GNUC__)
#define SLINKY_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define SLINKY_PRINTF(fmt, args)
#endif

#ifdef __cplusplus
#define SLINKY_BEGIN_DECLS extern "C" {
#define SLINKY_END_DECLS }
#else
#define SLINKY_BEGIN_DECLS
#define SLINKY_END_DECLS
#endif

SLINKY_BEGIN_DECLS

/**
 * The return type of every call that can fail: 0 on success, a negative
 * SLINKY_E* code (see slinky/error.h) on failure. Never positive.
 */
typedef int slinky_status;

/**
 * Release memory the library handed out through a `char **out` (or other
 * documented) out-parameter. NULL is accepted and ignored. Never call plain
 * free() on such memory.
 */
SLINKY_API void slinky_free(void *ptr);

SLINKY_END_DECLS

#endif
