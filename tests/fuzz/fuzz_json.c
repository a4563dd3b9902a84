/*
 * Fuzz the JSON reader: whatever parses must survive compact, pretty and
 * YAML output and read back equal (a mismatch aborts).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slinky/doc.h"

static void roundtrip_json(const slinky_doc_value *v, unsigned flags)
{
    char *s = NULL;
    size_t n = 0;
    if (slinky_doc_value_dump_json(&s, &n, v, flags) != 0)
        abort();
    slinky_doc *d = NULL;
    if (slinky_doc_parse_json(&d, s, n) != 0)
        abort();
    if (!slinky_doc_value_equal(v, slinky_doc_root(d)))
        abort();
    slinky_doc_free(d);
    slinky_free(s);
}

static void roundtrip_yaml(const slinky_doc_value *v)
{
    char *s = NULL;
    size_t n = 0;
    if (slinky_doc_value_dump_yaml(&s, &n, v, 0) != 0)
        abort();
    slinky_doc *d = NULL;
    if (slinky_doc_parse_yaml(&d, s, n) != 0)
        abort();
    if (!slinky_doc_value_equal(v, slinky_doc_root(d)))
        abort();
    slinky_doc_free(d);
    slinky_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    slinky_doc *doc = NULL;
    if (slinky_doc_parse_json(&doc, (const char *)data, size) != 0)
        return 0;
    const slinky_doc_value *r = slinky_doc_root(doc);
    roundtrip_json(r, 0);
    roundtrip_json(r, SLINKY_DOC_DUMP_PRETTY | SLINKY_DOC_DUMP_SORT_KEYS);
    roundtrip_yaml(r);
    /* a patch from the value to an empty object and back restores it */
    slinky_doc *empty = NULL, *p = NULL;
    if (slinky_doc_new(&empty) != 0)
        abort();
    if (slinky_doc_json_patch_create(&p, slinky_doc_root(empty), r) != 0)
        abort();
    if (slinky_doc_json_patch_apply(slinky_doc_root(empty), slinky_doc_root(p)) != 0)
        abort();
    if (!slinky_doc_value_equal(slinky_doc_root(empty), r))
        abort();
    slinky_doc_free(p);
    slinky_doc_free(empty);
    slinky_doc_free(doc);
    return 0;
}
