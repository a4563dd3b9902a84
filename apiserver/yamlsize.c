/*
 * The size a YAML document expands to (pure.h): anchors and aliases let a
 * few hundred bytes stand for gigabytes ("billion laughs"). The events are
 * read with libyaml, without building anything: each scalar costs its bytes
 * plus a little, each alias what its anchor cost (aliases inside anchors
 * included), and the scan stops as soon as the total passes the limit.
 */
#include "pure.h"

#include <string.h>
#include <yaml.h>

#define NODE_COST 8u

typedef struct anchor_cost {
    char *name;
    size_t cost;
} anchor_cost;

typedef struct open_node {
    char *anchor; /* or NULL */
    size_t start;
} open_node;

typedef struct scan {
    anchor_cost *anchors;
    size_t n_anchors;
    open_node *stack;
    size_t depth, cap;
    size_t total;
} scan;

static void remember(scan *s, const unsigned char *name, size_t cost)
{
    anchor_cost *n = realloc(s->anchors, (s->n_anchors + 1) * sizeof(*n));
    if (!n)
        return;
    s->anchors = n;
    s->anchors[s->n_anchors].name = as_strdup((const char *)name);
    s->anchors[s->n_anchors++].cost = cost;
}

static size_t cost_of(const scan *s, const unsigned char *name)
{
    for (size_t i = s->n_anchors; i-- > 0;)
        if (s->anchors[i].name && !strcmp(s->anchors[i].name, (const char *)name))
            return s->anchors[i].cost;
    return 0;
}

static bool push(scan *s, const unsigned char *anchor)
{
    if (s->depth == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        open_node *n = realloc(s->stack, cap * sizeof(*n));
        if (!n)
            return false;
        s->stack = n;
        s->cap = cap;
    }
    s->stack[s->depth].anchor = anchor ? as_strdup((const char *)anchor) : NULL;
    s->stack[s->depth++].start = s->total;
    s->total += NODE_COST;
    return true;
}

static void pop(scan *s)
{
    if (!s->depth)
        return;
    open_node *o = &s->stack[--s->depth];
    if (o->anchor)
        remember(s, (const unsigned char *)o->anchor, s->total - o->start);
    free(o->anchor);
}

bool as_yaml_expands_beyond(const char *data, size_t len, size_t limit)
{
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p))
        return false;
    yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
    scan s = {0};
    bool over = false, end = false;
    while (!end && !over) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev))
            break; /* a syntax error: the real parser reports it */
        switch (ev.type) {
        case YAML_SCALAR_EVENT:
            s.total += NODE_COST + ev.data.scalar.length;
            if (ev.data.scalar.anchor)
                remember(&s, ev.data.scalar.anchor, NODE_COST + ev.data.scalar.length);
            break;
        case YAML_SEQUENCE_START_EVENT:
            over = !push(&s, ev.data.sequence_start.anchor);
            break;
        case YAML_MAPPING_START_EVENT:
            over = !push(&s, ev.data.mapping_start.anchor);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            pop(&s);
            break;
        case YAML_ALIAS_EVENT:
            s.total += cost_of(&s, ev.data.alias.anchor);
            break;
        case YAML_STREAM_END_EVENT:
            end = true;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
        if (s.total > limit)
            over = true;
    }
    yaml_parser_delete(&p);
    while (s.depth)
        pop(&s);
    for (size_t i = 0; i < s.n_anchors; i++)
        free(s.anchors[i].name);
    free(s.anchors);
    free(s.stack);
    return over;
}
