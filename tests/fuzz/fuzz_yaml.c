/*
 * Fuzz the YAML reader: whatever parses must survive YAML output (and JSON
 * output when it holds no NaN or infinity) and read back equal.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slinky/doc.h"
#include "slinky/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    slinky_doc *doc = NULL;
    if (slinky_doc_parse_yaml_all(&doc, (const char *)data, size) != 0)
        return 0;
    const slinky_doc_value *r = slinky_doc_root(doc);

    char *s = NULL;
    size_t n = 0;
    if (slinky_doc_value_dump_yaml(&s, &n, r, 0) != 0)
        abort();
    slinky_doc *d = NULL;
    if (slinky_doc_parse_yaml(&d, s, n) != 0)
        abort();
    if (!slinky_doc_value_equal(r, slinky_doc_root(d)))
        abort();
    /* writing the re-read value gives the same text */
    char *s2 = NULL;
    if (slinky_doc_value_dump_yaml(&s2, NULL, slinky_doc_root(d), 0) != 0 || strcmp(s, s2) != 0)
        abort();
    slinky_free(s2);
    slinky_doc_free(d);
    slinky_free(s);

    int rc = slinky_doc_value_dump_json(&s, &n, r, 0);
    if (rc == 0) {
        if (slinky_doc_parse_json(&d, s, n) != 0)
            abort();
        if (!slinky_doc_value_equal(r, slinky_doc_root(d)))
            abort();
        slinky_doc_free(d);
        slinky_free(s);
    } else if (rc != SLINKY_EINVALID) {
        abort();
    }
    slinky_doc_free(doc);
    return 0;
}
