/*
 * bench_doc: JSON throughput of the doc module on a ~14.6 MB NodeSetList
 * (10,000 copies of upstream examples/nodeset.yaml with distinct names),
 * against yajl's callback parser with no-op callbacks, yajl_tree_parse and
 * /usr/bin/python3 json.loads/json.dumps on the same file, in one run.
 *
 * Usage: bench_doc [copies] [rounds]   (SLINKY_SHARED_DIR overrides the
 * shared folder; the generated file goes to $TMPDIR or /tmp and is removed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <yajl/yajl_parse.h>
#include <yajl/yajl_tree.h>

#include "slinky/doc.h"
#include "slinky/error.h"

static double now(void)
{
    struct timespec ts;
    /* CPU time of this process (user + system): stable on a shared machine */
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int nop0(void *ctx)
{
    (void)ctx;
    return 1;
}
static int nop_bool(void *ctx, int b)
{
    (void)ctx;
    (void)b;
    return 1;
}
static int nop_num(void *ctx, const char *s, size_t l)
{
    (void)ctx;
    (void)s;
    (void)l;
    return 1;
}
static int nop_str(void *ctx, const unsigned char *s, size_t l)
{
    (void)ctx;
    (void)s;
    (void)l;
    return 1;
}

static const yajl_callbacks nop_callbacks = {nop0,    nop_bool, NULL,    NULL,  nop_num, nop_str,
                                             nop0,    nop_str,  nop0,    nop0,  nop0};

static _Noreturn void die(const char *what)
{
    fprintf(stderr, "bench_doc: %s: %s\n", what, slinky_error_last()->message);
    exit(1);
}

/* Build the NodeSetList as a doc and write it as compact JSON. */
static char *make_input(size_t *len, int copies)
{
    const char *shared = getenv("SLINKY_SHARED_DIR");
    if (!shared)
        shared = SLINKY_BENCH_SHARED_DIR;
    char path[4096];
    snprintf(path, sizeof(path), "%s/upstream/slinky/examples/nodeset.yaml", shared);
    slinky_doc *ns;
    if (slinky_doc_load_file(&ns, path) != 0)
        die(path);
    slinky_doc *list;
    if (slinky_doc_new(&list) != 0)
        die("new");
    slinky_doc_value *r = slinky_doc_root(list), *items;
    slinky_doc_value_set_object(r);
    slinky_doc_value_object_set_string(r, "apiVersion", "slinky.slurm.net/v1beta1");
    slinky_doc_value_object_set_string(r, "kind", "NodeSetList");
    slinky_doc_value_object_put(&items, r, "items");
    slinky_doc_value_set_array(items);
    for (int i = 0; i < copies; i++) {
        slinky_doc_value *it = NULL, *name = NULL;
        if (slinky_doc_value_array_append(&it, items) != 0 ||
            slinky_doc_value_set_copy(it, slinky_doc_root(ns)) != 0 ||
            slinky_doc_value_path_put(&name, it, "metadata.name") != 0)
            die("build");
        char buf[64];
        snprintf(buf, sizeof(buf), "nodeset-%05d", i);
        slinky_doc_value_set_string(name, buf);
    }
    char *json;
    if (slinky_doc_value_dump_json(&json, len, r, 0) != 0)
        die("dump");
    slinky_doc_free(list);
    slinky_doc_free(ns);
    return json;
}

int main(int argc, char **argv)
{
    int copies = argc > 1 ? atoi(argv[1]) : 10000;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    size_t len;
    char *json = make_input(&len, copies);
    double mb = (double)len / 1e6;
    printf("input: NodeSetList of %d NodeSets, %.2f MB compact JSON; best of %d rounds, CPU time\n",
           copies, mb, rounds);

    /* the contenders take turns in every round so that they share the machine's state */
    double t_yajl = 1e30, t_parse = 1e30, t_emit = 1e30, t_tree = 1e30;
    size_t outlen = 0;
    for (int round = 0; round < rounds; round++) {
        double t0 = now();
        yajl_handle h = yajl_alloc(&nop_callbacks, NULL, NULL);
        if (yajl_parse(h, (const unsigned char *)json, len) != yajl_status_ok ||
            yajl_complete_parse(h) != yajl_status_ok) {
            fprintf(stderr, "yajl failed\n");
            return 1;
        }
        yajl_free(h);
        double t1 = now();
        slinky_doc *doc = NULL;
        if (slinky_doc_parse_json(&doc, json, len) != 0)
            die("parse");
        double t2 = now();
        char *out;
        if (slinky_doc_value_dump_json(&out, &outlen, slinky_doc_root(doc), 0) != 0)
            die("emit");
        double t3 = now();
        slinky_free(out);
        slinky_doc_free(doc);
        char err[256];
        double t4 = now();
        yajl_val v = yajl_tree_parse(json, err, sizeof(err));
        if (!v) {
            fprintf(stderr, "yajl_tree_parse: %s\n", err);
            return 1;
        }
        yajl_tree_free(v);
        double t5 = now();
        if (t1 - t0 < t_yajl)
            t_yajl = t1 - t0;
        if (t2 - t1 < t_parse)
            t_parse = t2 - t1;
        if (t3 - t2 < t_emit)
            t_emit = t3 - t2;
        if (t5 - t4 < t_tree)
            t_tree = t5 - t4;
    }
    if (outlen != len) {
        fprintf(stderr, "bench_doc: emitted %zu bytes, read %zu\n", outlen, len);
        return 1;
    }

    /* Python on the same file */
    double py_loads = 0, py_dumps = 0;
    const char *tmpdir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char path[4096];
    snprintf(path, sizeof(path), "%s/bench_doc_%d.json", tmpdir, (int)getpid());
    FILE *f = fopen(path, "wb");
    if (f && fwrite(json, 1, len, f) == len && fclose(f) == 0) {
        char cmd[8192];
        snprintf(cmd, sizeof(cmd),
                 "/usr/bin/python3 -c 'import json,sys,time\n"
                 "s=open(sys.argv[1]).read()\n"
                 "bl=bd=1e30\n"
                 "for i in range(%d):\n"
                 "  t=time.process_time(); o=json.loads(s); bl=min(bl,time.process_time()-t)\n"
                 "  t=time.process_time(); json.dumps(o,separators=(\",\",\":\")); "
                 "bd=min(bd,time.process_time()-t)\n"
                 "print(bl,bd)' %s",
                 rounds, path);
        FILE *p = popen(cmd, "r");
        if (p) {
            if (fscanf(p, "%lf %lf", &py_loads, &py_dumps) != 2)
                py_loads = py_dumps = 0;
            pclose(p);
        }
    }
    unlink(path);

    printf("yajl callback parse (no-op): %8.1f MB/s\n", mb / t_yajl);
    printf("doc parse:                   %8.1f MB/s\n", mb / t_parse);
    printf("doc emit (compact):          %8.1f MB/s\n", mb / t_emit);
    printf("yajl_tree_parse:             %8.1f MB/s\n", mb / t_tree);
    if (py_loads > 0) {
        printf("python3 json.loads:          %8.1f MB/s\n", mb / py_loads);
        printf("python3 json.dumps:          %8.1f MB/s\n", mb / py_dumps);
    } else {
        printf("python3: not available\n");
    }
    printf("ratio doc parse / yajl callback: %.2f (target >= 0.60)\n", t_yajl / t_parse);
    printf("BENCH measure=doc.parse-json ours=%.1fMB/s peer=yajl-callback:%.1fMB/s ratio=%.2f "
           "target=ratio>=0.6\n", mb / t_parse, mb / t_yajl, t_yajl / t_parse);
    printf("ratio doc emit / yajl callback:  %.2f (target >= 1.00)\n", t_yajl / t_emit);
    printf("ratio doc parse / yajl_tree:     %.2f\n", t_tree / t_parse);
    if (py_loads > 0) {
        printf("ratio doc parse / python loads:  %.2f\n", py_loads / t_parse);
        printf("ratio doc emit / python dumps:   %.2f\n", py_dumps / t_emit);
    }
    slinky_free(json);
    return 0;
}
