/*
 * bench_model: resources per second through the model module (parse YAML,
 * validate, apply all defaults, dump JSON) for the six upstream example CRs,
 * against /usr/bin/python3 doing yaml.load (CSafeLoader) + json.dumps on the
 * same texts in the same run (which neither validates nor defaults).
 *
 * Usage: bench_model [rounds]   (SLINKY_SHARED_DIR overrides the shared folder)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "slinky.h"

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) == (size_t)n) {
        buf[n] = '\0';
        *len = (size_t)n;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

int main(int argc, char **argv)
{
    static const char *const files[] = {"controller", "nodeset", "loginset",
                                        "restapi",    "accounting", "token"};
    int rounds = argc > 1 ? atoi(argv[1]) : 2000;
    const char *shared = getenv("SLINKY_SHARED_DIR") ? getenv("SLINKY_SHARED_DIR")
                                                     : SLINKY_BENCH_SHARED_DIR;
    char *text[6], path[4096];
    size_t len[6];
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof(path), "%s/upstream/slinky/examples/%s.yaml", shared, files[i]);
        if (!(text[i] = slurp(path, &len[i]))) {
            fprintf(stderr, "bench_model: cannot read %s\n", path);
            return 1;
        }
    }
    double t0 = cpu_now();
    size_t bytes = 0;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 6; i++) {
            slinky_model_object *o = NULL;
            slinky_model_problems *p = NULL;
            char *json = NULL;
            size_t n = 0;
            if (slinky_model_object_parse_yaml(&o, text[i], len[i]) ||
                slinky_model_validate(&p, o) || slinky_model_problems_error_count(p) ||
                slinky_model_object_apply_defaults(o, SLINKY_MODEL_DEFAULT_ALL) ||
                slinky_model_object_dump_json(&json, &n, o, 0)) {
                fprintf(stderr, "bench_model: %s: %s\n", files[i], slinky_error_last()->message);
                return 1;
            }
            bytes += n;
            slinky_free(json);
            slinky_model_problems_free(p);
            slinky_model_object_free(o);
        }
    }
    double ours = (double)rounds * 6 / (cpu_now() - t0);

    /* the peer, on the same files, same number of resources */
    char cmd[8192];
    snprintf(cmd, sizeof(cmd),
             "/usr/bin/python3 -c '\n"
             "import json, sys, time, yaml\n"
             "L = getattr(yaml, \"CSafeLoader\", yaml.SafeLoader)\n"
             "texts = [open(\"%s/upstream/slinky/examples/\" + f + \".yaml\").read() for f in "
             "[\"controller\",\"nodeset\",\"loginset\",\"restapi\",\"accounting\",\"token\"]]\n"
             "t = time.process_time()\n"
             "for r in range(%d):\n"
             "    for s in texts:\n"
             "        json.dumps(yaml.load(s, Loader=L))\n"
             "print(%d * 6 / (time.process_time() - t), L.__name__)\n'",
             shared, rounds, rounds);
    FILE *py = popen(cmd, "r");
    double peer = 0;
    char loader[64] = "?";
    if (!py || fscanf(py, "%lf %63s", &peer, loader) != 2 || pclose(py) != 0 || peer <= 0) {
        fprintf(stderr, "bench_model: the Python peer failed (python3-yaml missing?)\n");
        return 1;
    }
    printf("bench_model: %d rounds x 6 example CRs (%zu JSON bytes out)\n", rounds, bytes);
    printf("  libslinky parse+validate+default+dump: %10.0f resources/s\n", ours);
    printf("  python3 yaml(%s)+json.dumps only:     %10.0f resources/s\n", loader, peer);
    printf("  ratio libslinky/python: %.2fx\n", ours / peer);
    for (int i = 0; i < 6; i++)
        free(text[i]);
    return 0;
}
