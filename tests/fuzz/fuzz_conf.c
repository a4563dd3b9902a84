/*
 * fuzz_conf: the slurm.conf parser and what runs on a parsed tree.
 * Input: first byte picks the file kind, the rest is the text.
 * Properties: a parsed tree renders back byte for byte; a tree diffed with
 * itself has no change; setting a key and re-parsing reads the value back.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "slinky/conf.h"
#include "slinky/error.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 8192)
        return 0;
    slinky_conf_parse_options o = SLINKY_CONF_PARSE_OPTIONS_INIT;
    o.kind = (slinky_conf_kind)(data[0] % 6);
    o.no_includes = true;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    /* upstream's merge reads any text (it is the user's extraConf) */
    char *raw = strndup(text, len);
    if (raw) {
        static const char *const keys[] = {"SlurmctldParameters", "AuthInfo"};
        static const char *const o1[] = {"enable_configless", "reconfig_on_restart", NULL};
        static const char *const o2[] = {"use_client_ids", NULL};
        static const char *const *const vals[] = {o1, o2};
        char *m = NULL;
        if (slinky_conf_merge_parameters(&m, raw, keys, vals, 2) < 0 || !m)
            __builtin_trap();
        slinky_free(m);
        free(raw);
    }
    slinky_conf *c = NULL;
    if (slinky_conf_parse(&c, text, len, "fuzz.conf", &o) < 0)
        return 0;
    char *out = NULL;
    size_t olen = 0;
    if (slinky_conf_render(&out, &olen, c) < 0 || olen != len || memcmp(out, text, len) != 0)
        __builtin_trap();
    slinky_free(out);
    char *report = NULL;
    if (slinky_conf_check(&report, c, (data[0] & 8) ? SLINKY_CONF_SLURM_22_05 : 0) == 0 && !report)
        __builtin_trap();
    slinky_free(report);
    slinky_conf_get(c, "SlurmctldHost");
    slinky_conf_record_count(c, "NodeName");
    slinky_conf_record_get(c, "NodeName", "n1", "CPUs");
    slinky_conf_diff *d = NULL;
    if (o.kind == SLINKY_CONF_KIND_SLURM && slinky_conf_diff_new(&d, c, c, 0) == 0) {
        if (slinky_conf_diff_count(d) != 0)
            __builtin_trap();
        slinky_conf_diff_free(d);
    }
    if (o.kind != SLINKY_CONF_KIND_PLUGSTACK && slinky_conf_set(c, "KillWait", "a b#c") == 0) {
        if (slinky_conf_render(&out, &olen, c) < 0)
            __builtin_trap();
        slinky_conf *c2 = NULL;
        if (slinky_conf_parse(&c2, out, olen, "fuzz2.conf", &o) == 0) {
            const char *v = slinky_conf_get(c2, "KillWait");
            if (!v || strcmp(v, "a b#c") != 0)
                __builtin_trap();
            slinky_conf_free(c2);
        }
        slinky_free(out);
    }
    slinky_conf_free(c);
    slinky_error_clear();
    return 0;
}
