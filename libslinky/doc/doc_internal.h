/*
 * Private definitions of the doc module: the value layout, the per-document
 * arena, the container builder shared by the JSON and YAML parsers, and
 * scalar helpers shared by the readers and writers.
 */
#ifndef SLINKY_DOC_INTERNAL_H
#define SLINKY_DOC_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "core/internal.h"
#include "slinky/doc.h"

/** Maximum nesting accepted by the parsers. */
#define SLINKY_DOC__MAX_DEPTH 1000

/* --- arena ------------------------------------------------------------ */

typedef struct slinky_doc__chunk {
    struct slinky_doc__chunk *next;
    size_t mapped; /* length of the mapping, or 0 when malloc'd */
} slinky_doc__chunk;

typedef struct slinky_doc__arena {
    char *cur;
    char *end;
    slinky_doc__chunk *chunks;
    size_t next_size; /* size of the next chunk */
} slinky_doc__arena;

SLINKY_HIDDEN void slinky_doc__arena_init(slinky_doc__arena *a, size_t first_size);
SLINKY_HIDDEN void slinky_doc__arena_dispose(slinky_doc__arena *a);
SLINKY_HIDDEN void *slinky_doc__arena_alloc_slow(slinky_doc__arena *a, size_t n, size_t align);

/** Allocate n bytes aligned to `align` (a power of two); NULL with ENOMEM set. */
static inline void *slinky_doc__arena_alloc(slinky_doc__arena *a, size_t n, size_t align)
{
    uintptr_t p = ((uintptr_t)a->cur + (align - 1)) & ~(uintptr_t)(align - 1);
    if (a->cur && p <= (uintptr_t)a->end && (uintptr_t)a->end - p >= n) {
        a->cur = (char *)(p + n);
        return (void *)p;
    }
    return slinky_doc__arena_alloc_slow(a, n, align);
}

/* --- values ----------------------------------------------------------- */

typedef struct slinky_doc__member {
    const char *key; /* NUL terminated, in the arena */
    size_t keylen;
    slinky_doc_value *value;
} slinky_doc__member;

struct slinky_doc_value {
    slinky_doc *doc;
    uint32_t type;
    uint32_t spare;
    union {
        bool b;
        int64_t i;
        struct {
            double d;
            const char *text; /* JSON-valid number text, or NULL */
        } num;
        struct {
            const char *s;
            size_t len;
        } str;
        struct {
            slinky_doc_value **items;
            uint32_t n, cap;
        } arr;
        struct {
            slinky_doc__member *m;
            uint32_t n, cap;
        } obj;
    } u;
};

struct slinky_doc {
    slinky_doc__arena arena;
    slinky_doc_value *root;
};

/** A document with a null root whose first arena chunk has about `hint` bytes. */
SLINKY_HIDDEN int slinky_doc__create(slinky_doc **out, size_t hint);

static inline void *slinky_doc__alloc(slinky_doc *doc, size_t n)
{
    return slinky_doc__arena_alloc(&doc->arena, n, 8);
}

/** A new detached null value in doc. */
static inline slinky_doc_value *slinky_doc__value_new(slinky_doc *doc)
{
    slinky_doc_value *v = slinky_doc__arena_alloc(&doc->arena, sizeof(*v), 8);
    if (v) {
        v->doc = doc;
        v->type = SLINKY_DOC_NULL;
        v->spare = 0;
        v->u.i = 0;
        v->u.num.text = NULL;
    }
    return v;
}

/** Copy len bytes into the arena, NUL terminated. */
static inline char *slinky_doc__strdup(slinky_doc *doc, const char *s, size_t len)
{
    char *p = slinky_doc__arena_alloc(&doc->arena, len + 1, 1);
    if (p) {
        if (len)
            memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

/** Make v a string holding a copy of len bytes of s; ENOMEM. */
static inline int slinky_doc__set_str(slinky_doc_value *v, const char *s, size_t len)
{
    char *p = slinky_doc__strdup(v->doc, s, len);
    if (!p)
        return SLINKY_ENOMEM;
    v->type = SLINKY_DOC_STRING;
    v->u.str.s = p;
    v->u.str.len = len;
    return 0;
}

/** Deep copy src (any document) into doc as a new detached value. */
SLINKY_HIDDEN slinky_doc_value *slinky_doc__copy(slinky_doc *doc, const slinky_doc_value *src);

/** Index of member `key` (keylen bytes) in object v, or -1. */
SLINKY_HIDDEN long slinky_doc__find(const slinky_doc_value *v, const char *key, size_t keylen);

/** Append a member (key copied) holding a new null value; returns the value. */
SLINKY_HIDDEN slinky_doc_value *slinky_doc__object_append(slinky_doc_value *v, const char *key,
                                                          size_t keylen);

/** Set a double with optional number text (copied). */
SLINKY_HIDDEN int slinky_doc__set_number(slinky_doc_value *v, double d, const char *text,
                                         size_t textlen);

/* --- builder (shared by the parsers) ----------------------------------- */

#define SLINKY_DOC__ENTRY_MERGE 1u

typedef struct slinky_doc__entry {
    const char *key;
    size_t keylen;
    slinky_doc_value *value;
    unsigned flags;
    size_t pos; /* where the key was: a byte offset into builder.src, or a line without src */
} slinky_doc__entry;

typedef struct slinky_doc__frame {
    size_t start;    /* first entry of this container in the entry stack */
    int is_object;
    int have_key;    /* object: a key is pending */
    const char *key; /* pending key (in the arena) */
    size_t keylen;
    unsigned key_flags;
    size_t key_pos; /* see slinky_doc__entry.pos */
    char *anchor; /* YAML anchor of the container (malloc'd), or NULL */
} slinky_doc__frame;

#define SLINKY_DOC__KEY_CACHE 1024

typedef struct slinky_doc__builder {
    slinky_doc *doc;
    int saw_merge; /* an entry carries SLINKY_DOC__ENTRY_MERGE */
    /* recently seen keys, shared in the arena instead of copied again */
    struct slinky_doc__key_slot {
        uint64_t head, tail; /* first and last 8 bytes */
        const char *key;
        size_t len;
    } *key_cache;
    slinky_doc__entry *entries;
    size_t n_entries, cap_entries;
    slinky_doc__frame *frames;
    size_t depth, cap_frames;
    uint32_t *hash; /* scratch table for de-duplicating keys */
    size_t hash_cap;
    slinky_doc_value *result; /* top-level value once complete */
    /* unique_keys: a key written twice in one mapping is an error naming both lines
     * (merged-in keys may still be overridden); src/src_len turn entry positions
     * (byte offsets) into lines, without src they are lines already */
    int unique_keys;
    int dup_failed; /* the error set is a duplicate key */
    const char *src;
    size_t src_len;
} slinky_doc__builder;

SLINKY_HIDDEN void slinky_doc__builder_init(slinky_doc__builder *b, slinky_doc *doc);
SLINKY_HIDDEN void slinky_doc__builder_dispose(slinky_doc__builder *b);
SLINKY_HIDDEN int slinky_doc__builder_grow_frames(slinky_doc__builder *b);

/** Open a container (ENOMEM); the caller checks the depth limit. */
static inline int slinky_doc__builder_open(slinky_doc__builder *b, int is_object)
{
    if (b->depth == b->cap_frames && slinky_doc__builder_grow_frames(b) < 0)
        return SLINKY_ENOMEM;
    slinky_doc__frame *f = &b->frames[b->depth++];
    f->start = b->n_entries;
    f->is_object = is_object;
    f->have_key = 0;
    f->key = NULL;
    f->keylen = 0;
    f->key_flags = 0;
    f->key_pos = 0;
    f->anchor = NULL;
    return 0;
}
/** Close the innermost container; *out receives it (not yet added to its parent). */
SLINKY_HIDDEN int slinky_doc__builder_close(slinky_doc__builder *b, slinky_doc_value **out);
SLINKY_HIDDEN int slinky_doc__builder_grow(slinky_doc__builder *b);

/** Add a finished value to the innermost container (or make it the result). */
static inline int slinky_doc__builder_add(slinky_doc__builder *b, slinky_doc_value *v)
{
    if (b->depth == 0) {
        b->result = v;
        return 0;
    }
    if (b->n_entries == b->cap_entries && slinky_doc__builder_grow(b) < 0)
        return SLINKY_ENOMEM;
    slinky_doc__frame *f = &b->frames[b->depth - 1];
    slinky_doc__entry *e = &b->entries[b->n_entries++];
    e->value = v;
    if (f->is_object) {
        e->key = f->key;
        e->keylen = f->keylen;
        e->flags = f->key_flags;
        e->pos = f->key_pos;
        if (f->key_flags)
            b->saw_merge = 1;
        f->have_key = 0;
        f->key_flags = 0;
    } else {
        e->key = NULL;
        e->keylen = 0;
        e->flags = 0;
    }
    return 0;
}

/** A copy of key in the arena, shared with an equal recent key when possible. */
SLINKY_HIDDEN const char *slinky_doc__builder_key(slinky_doc__builder *b, const char *key,
                                                  size_t len);

/** Build an object from entries, later keys replacing earlier, merges only adding. */
SLINKY_HIDDEN int slinky_doc__build_object(slinky_doc__builder *b, slinky_doc_value *obj,
                                           const slinky_doc__entry *e, size_t n);

/* --- scalars ------------------------------------------------------------ */

/** Parse a JSON-valid number text (len bytes, NUL terminated) into v. */
SLINKY_HIDDEN int slinky_doc__number_from_text(slinky_doc_value *v, const char *text,
                                               size_t len);
/** True when text is a valid JSON number. */
SLINKY_HIDDEN bool slinky_doc__is_json_number(const char *text, size_t len);
/** Format a finite double in the shortest form that reads back (with ".0" when integral). */
SLINKY_HIDDEN size_t slinky_doc__format_double(char *buf, size_t size, double d);
/** Decimal text of an int64 into buf (at least 21 bytes); returns length. */
SLINKY_HIDDEN size_t slinky_doc__format_int(char *buf, int64_t i);

/**
 * Resolve a plain YAML scalar the way go-yaml v2 does: sets v to null, bool,
 * int, double or string. Merge key "<<" resolves as string (callers check).
 */
SLINKY_HIDDEN int slinky_doc__yaml_resolve(slinky_doc_value *v, const char *s, size_t len);
/** The type a plain scalar would resolve to (no allocation). */
SLINKY_HIDDEN slinky_doc_type slinky_doc__yaml_resolve_type(const char *s, size_t len);

/** Line and column (1-based) of byte offset off in data. */
/* --- dotted paths ("spec.containers[0].name", `metadata.labels["a.b/c"]`): the one grammar,
 * for doc/path.c and the model's paths --- */
typedef struct slinky_doc__seg {
    int is_index;
    size_t index;
    const char *key; /* into the scratch buffer or the path */
    size_t keylen;
} slinky_doc__seg;
/* Read the next segment at *pp (first: the path's first one); buf has room for
 * strlen(path)+1 bytes. 1 with a segment, 0 at the end, -1 on a syntax error. */
SLINKY_HIDDEN int slinky_doc__path_next(const char **pp, slinky_doc__seg *s, char *buf, int first);
/* path + key as one more segment: ".key", or ["key"] (with \" and \\) when quote is set
 * or the key needs it; a plain key after an empty path is the key alone. malloc'd; NULL
 * with ENOMEM set. */
SLINKY_HIDDEN char *slinky_doc__path_join(const char *path, const char *key, bool quote);

/* slinky_doc_parse_json; unique_keys: a key twice in one object is SLINKY_EPARSE naming
 * both lines (as the API server's strict field validation) instead of the last one winning. */
SLINKY_HIDDEN int slinky_doc__parse_json(slinky_doc **out, const char *data, size_t len,
                                         bool unique_keys);
/* slinky_doc_load_file with slinky_doc__parse_json's unique_keys */
SLINKY_HIDDEN int slinky_doc__load_file(slinky_doc **out, const char *path, bool unique_keys);

SLINKY_HIDDEN void slinky_doc__position(const char *data, size_t len, size_t off, int *line,
                                        int *col);

/* --- JSON pointers ------------------------------------------------------- */

/**
 * Split an RFC 6901 pointer into its parent value and last reference token
 * (unescaped, malloc'd into *last). For "" *parent is NULL and *last NULL.
 * ENOTFOUND when the parent does not exist, EINVALID when malformed.
 */
SLINKY_HIDDEN int slinky_doc__pointer_parent(slinky_doc_value **parent, char **last,
                                             slinky_doc_value *root, const char *pointer);
/** Array index of a reference token ("0", "12"; no leading zeros), or -1. */
SLINKY_HIDDEN long slinky_doc__pointer_index(const char *token);

/* --- text --------------------------------------------------------------- */

/**
 * Decode one UTF-8 sequence at s (n > 0 bytes left) strictly (no overlongs,
 * surrogates or code points above U+10FFFF): its length, or 0 when invalid.
 */
SLINKY_HIDDEN size_t slinky_doc__utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* --- emitters ------------------------------------------------------------ */

SLINKY_HIDDEN int slinky_doc__emit_json(slinky__buf *out, const slinky_doc_value *v,
                                        unsigned flags);
SLINKY_HIDDEN int slinky_doc__emit_yaml(slinky__buf *out, const slinky_doc_value *v,
                                        unsigned flags);

/** Run an emitter into a new NUL-terminated string (the dump_json/dump_yaml body). */
SLINKY_HIDDEN int slinky_doc__dump(char **out, size_t *len_out, const slinky_doc_value *v,
                                   unsigned flags,
                                   int (*emit)(slinky__buf *, const slinky_doc_value *, unsigned));

/** *order: member indices in key order when flags ask for SORT_KEYS, else NULL (free it). */
SLINKY_HIDDEN int slinky_doc__member_order(uint32_t **order, const slinky_doc_value *v,
                                           unsigned flags);
/** Members of object v in byte order of keys (malloc'd array of indices). */
SLINKY_HIDDEN uint32_t *slinky_doc__sorted_members(const slinky_doc_value *v);

#endif
