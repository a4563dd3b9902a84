/*
 * The per-document arena: values, strings and container arrays are bump
 * allocated from chunks that are released together when the document is
 * freed. Nothing is freed individually.
 */
#include <stdlib.h>

#include "doc/doc_internal.h"

#define ARENA_MIN_CHUNK ((size_t)4096)
#define ARENA_MAX_CHUNK ((size_t)8 << 20)

void slinky_doc__arena_init(slinky_doc__arena *a, size_t first_size)
{
    a->cur = NULL;
    a->end = NULL;
    a->chunks = NULL;
    if (first_size < ARENA_MIN_CHUNK)
        first_size = ARENA_MIN_CHUNK;
    if (first_size > ARENA_MAX_CHUNK)
        first_size = ARENA_MAX_CHUNK;
    a->next_size = first_size;
}

void slinky_doc__arena_dispose(slinky_doc__arena *a)
{
    slinky_doc__chunk *c = a->chunks;
    while (c) {
        slinky_doc__chunk *next = c->next;
        free(c);
        c = next;
    }
    a->chunks = NULL;
    a->cur = a->end = NULL;
}

void *slinky_doc__arena_alloc_slow(slinky_doc__arena *a, size_t n, size_t align)
{
    size_t header = (sizeof(slinky_doc__chunk) + 15) & ~(size_t)15;
    if (n > SIZE_MAX - header - align) {
        slinky__error_oom();
        return NULL;
    }
    size_t need = header + n + align;
    size_t size = a->next_size;
    if (need > size / 4) {
        /* big block: a chunk of its own, keep using the current one */
        slinky_doc__chunk *c = malloc(need);
        if (!c) {
            slinky__error_oom();
            return NULL;
        }
        if (a->chunks) {
            c->next = a->chunks->next;
            a->chunks->next = c;
        } else {
            c->next = NULL;
            a->chunks = c;
            a->cur = (char *)c + header;
            a->end = (char *)c + need;
        }
        uintptr_t p = ((uintptr_t)c + header + (align - 1)) & ~(uintptr_t)(align - 1);
        if (a->chunks == c)
            a->cur = (char *)(p + n);
        return (void *)p;
    }
    slinky_doc__chunk *c = malloc(size);
    if (!c) {
        slinky__error_oom();
        return NULL;
    }
    c->next = a->chunks;
    a->chunks = c;
    if (a->next_size < ARENA_MAX_CHUNK)
        a->next_size *= 2;
    uintptr_t p = ((uintptr_t)c + header + (align - 1)) & ~(uintptr_t)(align - 1);
    a->cur = (char *)(p + n);
    a->end = (char *)c + size;
    return (void *)p;
}
