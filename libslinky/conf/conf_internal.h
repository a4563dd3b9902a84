/* conf module internals (never installed). */
#ifndef SLINKY_CONF_INTERNAL_H
#define SLINKY_CONF_INTERNAL_H

#include <stddef.h>

#include "core/internal.h"
#include "slinky/conf.h"

/* One Key=Value of a logical line. */
typedef struct slinky_conf__pair {
    char *key;   /* as written; owns one block holding key and value */
    char *value; /* unquoted, unescaped; points into the key's block */
    int column;  /* 1-based column of the key in the first physical line */
    int vcolumn; /* 1-based column of the value */
} slinky_conf__pair;

typedef struct slinky_conf__line {
    char *raw;     /* exact bytes: physical lines with continuations and newline */
    size_t raw_len;
    int lineno;    /* 1-based number of the first physical line */
    int indent;    /* bytes of leading whitespace */
    slinky_conf_line_type type;
    slinky_conf__pair *pairs; /* PAIR: 1, RECORD: >= 1, INCLUDE: key+path */
    size_t npairs;
    size_t comment_off; /* offset in raw of the trailing comment (with the blanks
                           before it) on the last physical line, or raw_len */
    struct slinky_conf *included; /* INCLUDE: the parsed file (NULL with no_includes) */
    const char *rtype; /* RECORD of slurm.conf: the canonical type ("NodeName"...), else NULL */
} slinky_conf__line;

struct slinky_conf {
    char *filename;
    char *dir;
    slinky_conf_kind kind;
    slinky_conf__line *lines;
    size_t nlines, cap;
    char **warnings;
    size_t nwarnings;
    int depth; /* include nesting depth */
};

/* Fill key and value of `p` as one block (value unescaped: \# -> #). */
int slinky_conf__pair_block(slinky_conf__pair *p, const char *k, size_t klen, const char *v,
                            size_t vlen);

/* Free a line's pairs and the array: a parsed line's share one block, edits' have their own. */
void slinky_conf__pairs_free(slinky_conf__pair *p, size_t n);
/* Free the key block of pair 0 of a one-pair line (before an edit replaces it). */
void slinky_conf__pair0_free(slinky_conf__pair *p, size_t n);

/* Does the last physical line of `raw` continue onto the next line (trailing `\`)? */
int slinky_conf__continues(const char *raw, size_t len);

/* Record types that take several pairs on one line (slurm.conf). */
int slinky_conf__is_record_key(const char *key);
/* Canonical spelling of a record type ("nodename" -> "NodeName"), or NULL. */
const char *slinky_conf__record_type(const char *key);

/* Visit every logical line (recursing into Includes in file order). */
typedef int (*slinky_conf__visit_fn)(const slinky_conf *file, const slinky_conf__line *line,
                                     void *payload);
int slinky_conf__visit(const slinky_conf *conf, slinky_conf__visit_fn fn, void *payload);

/* Append a warning "FILE:LINE:COL: message". */
int slinky_conf__warn(slinky_conf *conf, int line, int col, const char *fmt, ...)
    SLINKY_PRINTF(4, 5);

/* Value of `key` in a line's pairs (case-insensitive), or NULL. */
const char *slinky_conf__pair_get(const slinky_conf__line *l, const char *key);

/* Render a value as Slurm reads it back: `#` escaped, quoted when it has blanks. */
int slinky_conf__put_value(slinky__buf *b, const char *value);

/* Effective record view: records of one type with DEFAULTs applied. */
typedef struct slinky_conf__record {
    const char *name;        /* borrowed from the tree */
    const char *file;
    int lineno;
    int column;
    slinky_conf__pair *pairs; /* effective pairs (borrowed strings); pairs[0] = name */
    size_t npairs;
} slinky_conf__record;

/* Collect the records of `type` (DEFAULTs applied, in file order). Free with _records_free. */
int slinky_conf__records(slinky_conf__record **out, size_t *count_out, const slinky_conf *conf,
                         const char *type);
void slinky_conf__records_free(slinky_conf__record *r, size_t n);
const char *slinky_conf__record_value(const slinky_conf__record *r, const char *key);

/* Case-insensitive (ASCII) order and equality; inline: they run per key of big files. */
static inline int slinky_conf__icmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z')
            x = (unsigned char)(x + 32);
        if (y >= 'A' && y <= 'Z')
            y = (unsigned char)(y + 32);
        if (x != y || !x)
            return (int)x - (int)y;
    }
}
static inline int slinky_conf__ieq(const char *a, const char *b)
{
    return slinky_conf__icmp(a, b) == 0;
}

/* Profile/version helpers. */
unsigned int slinky_conf__version(unsigned int v); /* 0 -> newest */

#endif
