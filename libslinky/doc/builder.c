/*
 * The container builder shared by the JSON and YAML parsers. Members and
 * elements of open containers sit on one reusable stack of temporaries and
 * are copied into the document's arena once, when their container closes.
 */
#include <stdlib.h>

#include "doc/doc_internal.h"

void slinky_doc__builder_init(slinky_doc__builder *b, slinky_doc *doc)
{
    memset(b, 0, sizeof(*b));
    b->doc = doc;
}

void slinky_doc__builder_dispose(slinky_doc__builder *b)
{
    for (size_t i = 0; i < b->depth; i++)
        free(b->frames[i].anchor);
    free(b->entries);
    free(b->frames);
    free(b->hash);
    free(b->key_cache);
    memset(b, 0, sizeof(*b));
}

int slinky_doc__builder_grow_frames(slinky_doc__builder *b)
{
    return slinky__array_room(&b->frames, &b->cap_frames, b->depth, sizeof(*b->frames), 32);
}

int slinky_doc__builder_grow(slinky_doc__builder *b)
{
    return slinky__array_room(&b->entries, &b->cap_entries, b->n_entries, sizeof(*b->entries),
                              256);
}

const char *slinky_doc__builder_key(slinky_doc__builder *b, const char *key, size_t len)
{
    if (len > 64 || len == 0)
        return slinky_doc__strdup(b->doc, key, len);
    if (!b->key_cache) {
        b->key_cache = calloc(SLINKY_DOC__KEY_CACHE, sizeof(*b->key_cache));
        if (!b->key_cache)
            return slinky_doc__strdup(b->doc, key, len);
    }
    uint64_t head, tail;
    if (len >= 8) {
        memcpy(&head, key, 8);
        memcpy(&tail, key + len - 8, 8);
    } else {
        /* short keys: compose the word byte by byte (reading 8 bytes could overrun) */
        head = 0;
        for (size_t i = 0; i < len; i++)
            head |= (uint64_t)(unsigned char)key[i] << (8 * i);
        tail = head;
    }
    uint64_t h = (head ^ (tail * 0x9E3779B97F4A7C15ULL) ^ len) * 0xff51afd7ed558ccdULL;
    struct slinky_doc__key_slot *s = &b->key_cache[(h >> 40) & (SLINKY_DOC__KEY_CACHE - 1)];
    if (s->len == len && s->head == head && s->tail == tail &&
        (len <= 16 || memcmp(s->key + 8, key + 8, len - 16) == 0))
        return s->key;
    const char *k = slinky_doc__strdup(b->doc, key, len);
    if (k) {
        s->head = head;
        s->tail = tail;
        s->key = k;
        s->len = len;
    }
    return k;
}

static uint32_t hash_key(const char *k, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)k[i]) * 16777619u;
    return h;
}

/* Result members so far: m[0..*n). Lookup uses a hash table once n grows. */
typedef struct objbuild {
    slinky_doc__member *m;
    uint32_t n;
    uint32_t *table; /* index+1, or 0 */
    size_t mask;
} objbuild;

static long ob_find(objbuild *ob, const char *key, size_t keylen, size_t *slot)
{
    if (!ob->table) {
        for (uint32_t i = 0; i < ob->n; i++) {
            if (ob->m[i].keylen == keylen && memcmp(ob->m[i].key, key, keylen) == 0)
                return (long)i;
        }
        return -1;
    }
    size_t s = hash_key(key, keylen) & ob->mask;
    for (;;) {
        uint32_t x = ob->table[s];
        if (!x) {
            *slot = s;
            return -1;
        }
        const slinky_doc__member *mm = &ob->m[x - 1];
        if (mm->keylen == keylen && memcmp(mm->key, key, keylen) == 0)
            return (long)(x - 1);
        s = (s + 1) & ob->mask;
    }
}

static int pos_line(const slinky_doc__builder *b, size_t pos, int *col)
{
    int line = (int)pos;
    *col = 0;
    if (b->src)
        slinky_doc__position(b->src, b->src_len, pos, &line, col);
    return line;
}

/* Entry i repeats an earlier key written in the same mapping (not merged in):
 * the error names both lines, as go-yaml does. 0 when no earlier entry is explicit. */
static int check_dup(slinky_doc__builder *b, const slinky_doc__entry *e, size_t i)
{
    for (size_t j = 0; j < i; j++) {
        if (e[j].flags & SLINKY_DOC__ENTRY_MERGE || e[j].keylen != e[i].keylen ||
            memcmp(e[j].key, e[i].key, e[i].keylen) != 0)
            continue;
        int c1, c2;
        int l1 = pos_line(b, e[j].pos, &c1), l2 = pos_line(b, e[i].pos, &c2);
        b->dup_failed = 1;
        return slinky__error_set_pos(SLINKY_EPARSE, l2, c2,
                                     "line %d: duplicate key \"%.*s\" (already defined at line %d)",
                                     l2, (int)(e[i].keylen > 200 ? 200 : e[i].keylen), e[i].key,
                                     l1);
    }
    return 0;
}

static void ob_add(objbuild *ob, const char *key, size_t keylen, slinky_doc_value *v, size_t slot)
{
    slinky_doc__member *mm = &ob->m[ob->n++];
    mm->key = key;
    mm->keylen = keylen;
    mm->value = v;
    if (ob->table)
        ob->table[slot] = ob->n;
}

/* 1 when the key was there already */
static int ob_put(objbuild *ob, const char *key, size_t keylen, slinky_doc_value *v, int replace)
{
    size_t slot = 0;
    long i = ob_find(ob, key, keylen, &slot);
    if (i >= 0) {
        if (replace)
            ob->m[i].value = v;
        return 1;
    }
    ob_add(ob, key, keylen, v, slot);
    return 0;
}

/* Objects without merge entries and with few members: a 64-bit filter skips most compares. */
static int build_small(slinky_doc__builder *b, slinky_doc_value *obj, const slinky_doc__entry *e,
                       size_t n)
{
    slinky_doc__member *m = slinky_doc__alloc(b->doc, n * sizeof(*m));
    if (!m)
        return SLINKY_ENOMEM;
    uint64_t seen = 0;
    uint32_t out = 0;
    for (size_t i = 0; i < n; i++) {
        const char *k = e[i].key;
        size_t kl = e[i].keylen;
        uint64_t bit = 1ULL << ((kl * 7 + (kl ? (unsigned char)k[kl - 1] * 3 +
                                                    (unsigned char)k[0] : 0)) & 63);
        if (seen & bit) {
            uint32_t j;
            for (j = 0; j < out; j++) {
                if (m[j].keylen == kl && (m[j].key == k || memcmp(m[j].key, k, kl) == 0))
                    break;
            }
            if (j < out) {
                int rc = b->unique_keys ? check_dup(b, e, i) : 0;
                if (rc < 0)
                    return rc;
                m[j].value = e[i].value;
                continue;
            }
        }
        seen |= bit;
        m[out].key = k;
        m[out].keylen = kl;
        m[out].value = e[i].value;
        out++;
    }
    obj->type = SLINKY_DOC_OBJECT;
    obj->u.obj.m = m;
    obj->u.obj.n = obj->u.obj.cap = out;
    return 0;
}

int slinky_doc__build_object(slinky_doc__builder *b, slinky_doc_value *obj,
                             const slinky_doc__entry *e, size_t n)
{
    if (!b->saw_merge && n && n <= 16)
        return build_small(b, obj, e, n);
    /* upper bound of members */
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(e[i].flags & SLINKY_DOC__ENTRY_MERGE)) {
            total++;
            continue;
        }
        const slinky_doc_value *mv = e[i].value;
        if (mv->type == SLINKY_DOC_OBJECT) {
            total += mv->u.obj.n;
        } else {
            for (uint32_t j = 0; j < mv->u.arr.n; j++)
                total += mv->u.arr.items[j]->u.obj.n;
        }
    }
    obj->type = SLINKY_DOC_OBJECT;
    obj->u.obj.m = NULL;
    obj->u.obj.n = obj->u.obj.cap = 0;
    if (!total)
        return 0;
    if (total >= UINT32_MAX)
        return slinky__error_set(SLINKY_EINVALID, "object too large");
    objbuild ob = {slinky_doc__alloc(b->doc, total * sizeof(slinky_doc__member)), 0, NULL, 0};
    if (!ob.m)
        return SLINKY_ENOMEM;
    if (total > 16) {
        size_t cap = 32;
        while (cap < total * 2)
            cap *= 2;
        if (cap > b->hash_cap) {
            uint32_t *t = realloc(b->hash, cap * sizeof(*t));
            if (!t)
                return slinky__error_oom();
            b->hash = t;
            b->hash_cap = cap;
        }
        memset(b->hash, 0, cap * sizeof(*b->hash));
        ob.table = b->hash;
        ob.mask = cap - 1;
    }
    for (size_t i = 0; i < n; i++) {
        if (!(e[i].flags & SLINKY_DOC__ENTRY_MERGE)) {
            int rc = 0;
            if (ob_put(&ob, e[i].key, e[i].keylen, e[i].value, 1) && b->unique_keys)
                rc = check_dup(b, e, i);
            if (rc < 0)
                return rc;
            continue;
        }
        const slinky_doc_value *mv = e[i].value;
        uint32_t count = mv->type == SLINKY_DOC_OBJECT ? 1 : mv->u.arr.n;
        for (uint32_t j = 0; j < count; j++) {
            const slinky_doc_value *src = mv->type == SLINKY_DOC_OBJECT ? mv : mv->u.arr.items[j];
            for (uint32_t k = 0; k < src->u.obj.n; k++) {
                const slinky_doc__member *sm = &src->u.obj.m[k];
                ob_put(&ob, sm->key, sm->keylen, sm->value, 0);
            }
        }
    }
    obj->u.obj.m = ob.m;
    obj->u.obj.n = obj->u.obj.cap = ob.n;
    return 0;
}

int slinky_doc__builder_close(slinky_doc__builder *b, slinky_doc_value **out)
{
    slinky_doc__frame *f = &b->frames[b->depth - 1];
    slinky_doc_value *v = slinky_doc__value_new(b->doc);
    if (!v)
        return SLINKY_ENOMEM;
    size_t n = b->n_entries - f->start;
    const slinky_doc__entry *e = n ? b->entries + f->start : NULL;
    if (f->is_object) {
        int rc = slinky_doc__build_object(b, v, e, n);
        if (rc < 0)
            return rc;
    } else {
        v->type = SLINKY_DOC_ARRAY;
        v->u.arr.items = NULL;
        v->u.arr.n = v->u.arr.cap = 0;
        if (n) {
            if (n >= UINT32_MAX)
                return slinky__error_set(SLINKY_EINVALID, "array too large");
            slinky_doc_value **items = slinky_doc__alloc(b->doc, n * sizeof(*items));
            if (!items)
                return SLINKY_ENOMEM;
            for (size_t i = 0; i < n; i++)
                items[i] = e[i].value;
            v->u.arr.items = items;
            v->u.arr.n = v->u.arr.cap = (uint32_t)n;
        }
    }
    b->n_entries = f->start;
    free(f->anchor);
    f->anchor = NULL;
    b->depth--;
    *out = v;
    return 0;
}
