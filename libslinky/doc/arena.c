/*
 * The per-document arena: values, strings and container arrays are bump
 * allocated from chunks that are released together when the document is
 * freed. Nothing is freed individually.
 */
#include <stdlib.h>
#include <sys/mman.h>

#include "doc/doc_internal.h"

#define ARENA_MIN_CHUNK ((size_t)4096)
#define ARENA_MAX_CHUNK ((size_t)8 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

/*
 * Big chunks are mapped directly, 2 MB aligned and marked for transparent
 * huge pages: a large document then takes a few page faults instead of
 * thousands (page faults were a quarter of the parse time of a 12 MB file).
 */
static slinky_doc__chunk *chunk_new(size_t size)
{
    slinky_doc__chunk *c;
    if (size < HUGE_PAGE) {
        c = malloc(size);
        if (c)
            c->mapped = 0;
        return c;
    }
    size = (size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    char *p = mmap(NULL, size + HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    uintptr_t start = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    size_t head = start - (uintptr_t)p;
    if (head)
        munmap(p, head);
    if (HUGE_PAGE - head)
        munmap((char *)start + size, HUGE_PAGE - head);
#ifdef MADV_HUGEPAGE
    madvise((void *)start, size, MADV_HUGEPAGE);
#endif
    c = (slinky_doc__chunk *)start;
    c->mapped = size;
    return c;
}

static void chunk_free(slinky_doc__chunk *c)
{
    if (c->mapped)
        munmap(c, c->mapped);
    else
        free(c);
}

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
        chunk_free(c);
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
        slinky_doc__chunk *c = chunk_new(need);
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
    slinky_doc__chunk *c = chunk_new(size);
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
