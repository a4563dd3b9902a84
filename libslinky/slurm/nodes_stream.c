/*
 * slurm: the node list decoded while it arrives. A 1,000-node answer is
 * ~2.3 MB of JSON of which the typed node keeps ~20 fields; building the
 * whole document tree first costs several times the transfer. This decoder
 * runs yajl's callback parser (the same library the doc reader is built on)
 * on each received chunk and keeps only those fields, so decoding overlaps
 * the transfer. Anything unusual (a non-200 status, a non-empty errors[],
 * a malformed answer) leaves the decision to the ordinary doc path, which
 * reads the buffered body again.
 */
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "slurm_internal.h"

enum field {
    F_NONE = -1,
    /* strings (offsets into the arena) */
    F_NAME, F_ADDRESS, F_HOSTNAME, F_REASON, F_REASON_USER, F_COMMENT, F_VERSION, F_SLURMD_VERSION,
    F_FEATURES, F_ACTIVE_FEATURES, F_PARTITIONS, F_STATE,
    F_NSTR,
    /* numbers */
    F_REASON_AT = F_NSTR, F_CPUS, F_ALLOC_CPUS, F_REAL_MEM, F_ALLOC_MEM, F_BOOT, F_LAST_BUSY,
    F_COUNT,
    F_STATE_FLAGS /* v0.0.38: appended to F_STATE */
};

static const struct {
    const char *key;
    size_t len;
    int f;
} keys[] = {
    {"name", 4, F_NAME}, {"address", 7, F_ADDRESS}, {"hostname", 8, F_HOSTNAME}, {"reason", 6, F_REASON},
    {"reason_set_by_user", 18, F_REASON_USER}, {"comment", 7, F_COMMENT}, {"version", 7, F_VERSION},
    {"slurmd_version", 14, F_SLURMD_VERSION}, {"features", 8, F_FEATURES}, {"active_features", 15, F_ACTIVE_FEATURES},
    {"partitions", 10, F_PARTITIONS}, {"state", 5, F_STATE}, {"state_flags", 11, F_STATE_FLAGS},
    {"reason_changed_at", 17, F_REASON_AT}, {"cpus", 4, F_CPUS}, {"alloc_cpus", 10, F_ALLOC_CPUS},
    {"real_memory", 11, F_REAL_MEM}, {"alloc_memory", 12, F_ALLOC_MEM}, {"boot_time", 9, F_BOOT}, {"last_busy", 9, F_LAST_BUSY},
};

typedef struct rec {
    size_t str[F_NSTR]; /* arena offset + 1; 0 = absent */
    int64_t num[F_COUNT - F_NSTR];
    uint32_t state;
} rec;

struct slinky_slurm__nstream {
    yajl_handle h;
    int depth;
    int in_nodes;   /* 1 inside "nodes": [ */
    int top_key;    /* 1 nodes, 2 last_update, 3 errors */
    int field;      /* current node field at depth 3 */
    int nv_key;     /* inside {set, infinite, number}: 1 set, 2 infinite, 3 number */
    bool nv_set, nv_inf;
    int64_t nv_num;
    int arr_items;  /* strings seen in the current field's array */
    bool errors;    /* errors[] had something */
    bool failed;    /* malformed or out of memory */
    slinky__buf arena;
    size_t last_start; /* offset of the last string written */
    rec *recs;
    size_t n, cap;
    int64_t last_update;
};

static int field_of(const unsigned char *k, size_t n)
{
    for (size_t i = 0; i < SLINKY__ARRAY_SIZE(keys); i++)
        if (keys[i].len == n && keys[i].key[0] == (char)k[0] && memcmp(keys[i].key, k, n) == 0)
            return keys[i].f;
    return F_NONE;
}

static rec *cur(slinky_slurm__nstream *s)
{
    return &s->recs[s->n - 1];
}

static bool is_num(int f)
{
    return f >= F_NSTR && f < F_COUNT;
}

/* a string value (or one array item) for field f of the current node */
static int put_str(slinky_slurm__nstream *s, int f, const unsigned char *v, size_t n)
{
    rec *r = cur(s);
    int slot = f == F_STATE_FLAGS ? F_STATE : f;
    if (f == F_STATE || f == F_STATE_FLAGS)
        r->state |= slinky_slurm__state_word((const char *)v, n);
    if (r->str[slot] && r->str[slot] - 1 != s->last_start) {
        /* joining a string that is not the last one written: move it to the end first */
        size_t from = r->str[slot] - 1, n0 = strlen(s->arena.data + from);
        if (slinky__buf_grow(&s->arena, n0 + 1) != 0)
            return 0;
        s->last_start = s->arena.len;
        r->str[slot] = s->arena.len + 1;
        slinky__buf_put(&s->arena, s->arena.data + from, n0 + 1);
    }
    if (r->str[slot]) { /* joining: drop the NUL, add the separator */
        s->arena.len--;
        slinky__buf_putc(&s->arena, slot == F_STATE ? '+' : ',');
    } else {
        s->last_start = s->arena.len;
        r->str[slot] = s->arena.len + 1;
    }
    if (slot == F_STATE) {
        for (size_t i = 0; i < n; i++)
            slinky__buf_putc(&s->arena, (char)(v[i] >= 'a' && v[i] <= 'z' ? v[i] - 32 : v[i]));
    } else {
        slinky__buf_put(&s->arena, v, n);
    }
    slinky__buf_putc(&s->arena, '\0');
    return s->arena.failed ? 0 : 1;
}

static int on_null(void *p)
{
    (void)p;
    return 1;
}

static int on_bool(void *p, int b)
{
    slinky_slurm__nstream *s = p;
    if (s->in_nodes && s->depth == 4 && is_num(s->field)) {
        if (s->nv_key == 1)
            s->nv_set = b;
        else if (s->nv_key == 2)
            s->nv_inf = b;
    } else if (s->top_key == 2 && s->depth == 2) {
        if (s->nv_key == 1)
            s->nv_set = b;
        else if (s->nv_key == 2)
            s->nv_inf = b;
    }
    return 1;
}

static int on_number(void *p, const char *t, size_t n)
{
    slinky_slurm__nstream *s = p;
    /* integers as Slurm writes them; anything else (fractions, exponents, huge) reads as 0 */
    int64_t v = 0;
    size_t i = t[0] == '-';
    bool ok = n > i && n - i <= 18;
    for (size_t k = i; ok && k < n; k++) {
        if (t[k] < '0' || t[k] > '9')
            ok = false;
        else
            v = v * 10 + (t[k] - '0');
    }
    v = ok ? (i ? -v : v) : 0;
    if (s->in_nodes && s->depth == 3 && is_num(s->field))
        cur(s)->num[s->field - F_NSTR] = v; /* v0.0.38: plain numbers */
    else if (((s->in_nodes && s->depth == 4 && is_num(s->field)) || (s->top_key == 2 && s->depth == 2)) &&
             s->nv_key == 3)
        s->nv_num = v;
    else if (s->depth == 1 && s->top_key == 2)
        s->last_update = v;
    if (s->top_key == 3 && s->depth >= 2)
        s->errors = true;
    return 1;
}

static int on_string(void *p, const unsigned char *v, size_t n)
{
    slinky_slurm__nstream *s = p;
    if (s->top_key == 3 && s->depth >= 2)
        s->errors = true;
    if (!s->in_nodes || s->field == F_NONE || is_num(s->field))
        return 1;
    if (s->depth == 3 || (s->depth == 4 && s->arr_items >= 0)) {
        if (s->depth == 4)
            s->arr_items++;
        return put_str(s, s->field, v, n);
    }
    return 1;
}

static int on_start_map(void *p)
{
    slinky_slurm__nstream *s = p;
    s->depth++;
    if (s->in_nodes && s->depth == 3) {
        if (s->n == s->cap) {
            size_t c = s->cap ? s->cap * 2 : 64;
            rec *r = realloc(s->recs, c * sizeof(*r));
            if (r == NULL) {
                s->failed = true;
                return 0;
            }
            s->recs = r;
            s->cap = c;
        }
        memset(&s->recs[s->n++], 0, sizeof(rec));
        s->field = F_NONE;
    } else if ((s->in_nodes && s->depth == 4 && is_num(s->field)) || (s->depth == 2 && s->top_key == 2)) {
        s->nv_key = 0;
        s->nv_set = s->nv_inf = false;
        s->nv_num = 0;
    }
    if (s->top_key == 3 && s->depth >= 3)
        s->errors = true;
    return 1;
}

static int64_t nv_value(const slinky_slurm__nstream *s)
{
    return s->nv_inf ? INT64_MAX : s->nv_set ? s->nv_num : 0;
}

static int on_end_map(void *p)
{
    slinky_slurm__nstream *s = p;
    if (s->in_nodes && s->depth == 4 && is_num(s->field))
        cur(s)->num[s->field - F_NSTR] = nv_value(s);
    else if (s->depth == 2 && s->top_key == 2)
        s->last_update = nv_value(s);
    if (s->in_nodes && s->depth == 4)
        s->field = F_NONE;
    s->depth--;
    return 1;
}

static int on_key(void *p, const unsigned char *k, size_t n)
{
    slinky_slurm__nstream *s = p;
    if (s->depth == 1) {
        s->in_nodes = 0;
        s->top_key = n == 5 && !memcmp(k, "nodes", 5)           ? 1
                     : n == 11 && !memcmp(k, "last_update", 11) ? 2
                     : n == 6 && !memcmp(k, "errors", 6)        ? 3
                                                                : 0;
    } else if (s->in_nodes && s->depth == 3) {
        s->field = field_of(k, n);
    } else if ((s->in_nodes && s->depth == 4 && is_num(s->field)) || (s->depth == 2 && s->top_key == 2)) {
        s->nv_key = n == 3 && !memcmp(k, "set", 3)           ? 1
                    : n == 8 && !memcmp(k, "infinite", 8)    ? 2
                    : n == 6 && !memcmp(k, "number", 6)      ? 3
                                                             : 0;
    }
    return 1;
}

static int on_start_array(void *p)
{
    slinky_slurm__nstream *s = p;
    s->depth++;
    if (s->depth == 2 && s->top_key == 1)
        s->in_nodes = 1;
    if (s->in_nodes && s->depth == 4)
        s->arr_items = 0;
    if (s->top_key == 3 && s->depth >= 3)
        s->errors = true;
    return 1;
}

static int on_end_array(void *p)
{
    slinky_slurm__nstream *s = p;
    if (s->in_nodes && s->depth == 4) {
        s->arr_items = -1;
        s->field = F_NONE;
    }
    if (s->depth == 2 && s->top_key == 1)
        s->in_nodes = 0;
    s->depth--;
    return 1;
}

static const yajl_callbacks callbacks = {
    on_null, on_bool, NULL, NULL, on_number, on_string, on_start_map, on_key, on_end_map, on_start_array,
    on_end_array,
};

int slinky_slurm__nstream_new(slinky_slurm__nstream **out)
{
    slinky_slurm__nstream *s = slinky__calloc(1, sizeof(*s));
    if (s == NULL)
        return SLINKY_ENOMEM;
    s->arr_items = -1;
    s->field = F_NONE;
    if ((s->h = yajl_alloc(&callbacks, NULL, s)) == NULL) {
        free(s);
        return slinky__error_oom();
    }
    slinky__buf_grow(&s->arena, 1 << 16);
    *out = s;
    return 0;
}

void slinky_slurm__nstream_free(slinky_slurm__nstream *s)
{
    if (s == NULL)
        return;
    yajl_free(s->h);
    slinky__buf_dispose(&s->arena);
    free(s->recs);
    free(s);
}

int slinky_slurm__nstream_feed(void *p, const char *data, size_t len)
{
    slinky_slurm__nstream *s = p;
    if (s->failed)
        return 0;
    if (yajl_parse(s->h, (const unsigned char *)data, len) != yajl_status_ok || s->arena.failed)
        s->failed = true;
    return 0;
}

bool slinky_slurm__nstream_usable(void *p)
{
    slinky_slurm__nstream *s = p;
    if (s->failed || yajl_complete_parse(s->h) != yajl_status_ok || s->arena.failed)
        s->failed = true;
    return !s->failed && !s->errors;
}

int slinky_slurm__nstream_take(slinky_slurm__list *l, slinky_slurm__nstream *s)
{
    slinky_slurm_node *items = s->n ? slinky__calloc(s->n, sizeof(*items)) : NULL;
    char *arena = NULL;
    if ((s->n && items == NULL) || slinky__buf_finish(&arena, NULL, &s->arena) != 0 ||
        slinky_slurm__keep(l, arena) == NULL) {
        free(items);
        return SLINKY_ENOMEM;
    }
    for (size_t i = 0; i < s->n; i++) {
        const rec *r = &s->recs[i];
        slinky_slurm_node *n = &items[i];
        const char *str[F_NSTR];
        for (int f = 0; f < F_NSTR; f++)
            str[f] = r->str[f] ? arena + r->str[f] - 1 : "";
        n->name = str[F_NAME];
        n->address = str[F_ADDRESS];
        n->hostname = str[F_HOSTNAME];
        n->reason = str[F_REASON];
        n->reason_set_by_user = str[F_REASON_USER];
        n->comment = str[F_COMMENT];
        n->slurmd_version = r->str[F_VERSION] ? str[F_VERSION] : str[F_SLURMD_VERSION];
        n->features = str[F_FEATURES];
        n->active_features = str[F_ACTIVE_FEATURES];
        n->partitions = str[F_PARTITIONS];
        n->state_text = str[F_STATE];
        n->state = slinky_slurm__state_derive(r->state);
        n->reason_changed_at = r->num[F_REASON_AT - F_NSTR];
        n->cpus = r->num[F_CPUS - F_NSTR];
        n->alloc_cpus = r->num[F_ALLOC_CPUS - F_NSTR];
        n->real_memory = r->num[F_REAL_MEM - F_NSTR];
        n->alloc_memory = r->num[F_ALLOC_MEM - F_NSTR];
        n->boot_time = r->num[F_BOOT - F_NSTR];
        n->last_busy = r->num[F_LAST_BUSY - F_NSTR];
    }
    l->items = items;
    l->count = s->n;
    l->update_time = s->last_update;
    l->changed = true;
    return 0;
}
