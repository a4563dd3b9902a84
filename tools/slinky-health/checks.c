/* checks: the built-in checks, run in the calling process (run.c adds the timeout). */
#include "health.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *result_name(result_kind k)
{
    static const char *const n[] = {"pass", "warn", "fail", "skip", "timeout"};
    return n[k];
}

double health_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void set(result *r, result_kind k, double v, const char *vfmt, const char *limit,
                const char *detail)
{
    r->kind = k;
    r->value = v;
    if (vfmt)
        snprintf(r->value_text, sizeof(r->value_text), "%s", vfmt);
    if (limit)
        snprintf(r->limit_text, sizeof(r->limit_text), "%s", limit);
    if (detail)
        snprintf(r->detail, sizeof(r->detail), "%s", detail);
}

static void human_bytes(char *out, size_t n, double b)
{
    static const char *const u[] = {"B", "K", "M", "G", "T", "P"};
    int i = 0;
    while (b >= 1024 && i < 5) {
        b /= 1024;
        i++;
    }
    snprintf(out, n, i ? "%.1f%s" : "%.0f%s", b, u[i]);
}

/* a low-is-bad threshold (free space, inodes): fail below fail_at, warn below warn_at */
static result_kind below(const check *c, double v, double total)
{
    double f = c->fail_at.percent ? c->fail_at.v * total : c->fail_at.v;
    double w = c->warn_at.percent ? c->warn_at.v * total : c->warn_at.v;
    if (v < f)
        return R_FAIL;
    if (c->warn_at.set && v < w)
        return R_WARN;
    return R_PASS;
}

/* a high-is-bad threshold (latency, load) */
static result_kind above(const check *c, double v)
{
    if (c->fail_at.set && v > c->fail_at.v)
        return R_FAIL;
    if (c->warn_at.set && v > c->warn_at.v)
        return R_WARN;
    return R_PASS;
}

static void node_cpus(const node_facts *nf, result *r)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    char v[32], l[32];
    snprintf(v, sizeof(v), "%ld", online);
    if (!nf->known) {
        set(r, R_SKIP, (double)online, v, "",
            "slurmd registration unknown (no slurmrestd or no such node)");
        return;
    }
    snprintf(l, sizeof(l), "%lld", (long long)nf->cpus);
    set(r, online == nf->cpus ? R_PASS : R_FAIL, (double)online, v, l,
        "CPUs online vs CPUs slurmd registered");
}

static void node_memory(const node_facts *nf, result *r)
{
    FILE *f = fopen("/proc/meminfo", "r");
    long long kb = -1;
    char line[256];
    while (f && fgets(line, sizeof(line), f))
        if (sscanf(line, "MemTotal: %lld kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    if (kb < 0) {
        set(r, R_FAIL, NAN, "?", "", "cannot read MemTotal from /proc/meminfo");
        return;
    }
    char v[32], l[32];
    snprintf(v, sizeof(v), "%lldM", kb / 1024);
    if (!nf->known) {
        set(r, R_SKIP, (double)(kb / 1024), v, "",
            "slurmd registration unknown (no slurmrestd or no such node)");
        return;
    }
    snprintf(l, sizeof(l), ">= %lldM", (long long)nf->real_memory_mb);
    set(r, kb / 1024 >= nf->real_memory_mb ? R_PASS : R_FAIL, (double)(kb / 1024), v, l,
        "MemTotal vs RealMemory slurmd registered");
}

static void node_gpus(const check *c, result *r)
{
    DIR *d = opendir("/dev");
    int n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        const char *s = de->d_name;
        if (!strncmp(s, "nvidia", 6) && s[6] >= '0' && s[6] <= '9' &&
            strspn(s + 6, "0123456789") == strlen(s + 6))
            n++;
    }
    if (d)
        closedir(d);
    char v[32], l[32];
    snprintf(v, sizeof(v), "%d", n);
    snprintf(l, sizeof(l), ">= %s", c->fail_at.text);
    set(r, n >= c->fail_at.v ? R_PASS : R_FAIL, n, v, l, "/dev/nvidia<N> devices present");
}

static void node_load(const check *c, result *r)
{
    double load[1];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (getloadavg(load, 1) != 1 || cpus < 1) {
        set(r, R_FAIL, NAN, "?", c->fail_at.text, "getloadavg failed");
        return;
    }
    double per = load[0] / (double)cpus;
    char v[32];
    snprintf(v, sizeof(v), "%.2f", per);
    set(r, above(c, per), per, v, c->fail_at.text, "1-minute load average per CPU");
}

static void storage_mounted(const check *c, result *r)
{
    struct stat s, p;
    char parent[300];
    snprintf(parent, sizeof(parent), "%s/..", c->path);
    if (stat(c->path, &s) || stat(parent, &p)) {
        set(r, R_FAIL, 0, "absent", "mounted", strerror(errno));
        return;
    }
    bool mounted = s.st_dev != p.st_dev || s.st_ino == p.st_ino;
    set(r, mounted ? R_PASS : R_FAIL, mounted, mounted ? "mounted" : "not mounted", "mounted",
        mounted ? "a mount point" : "same device as its parent directory");
}

static void storage_writable(const check *c, result *r)
{
    char f[300];
    snprintf(f, sizeof(f), "%s/.slinky-health.%ld", c->path, (long)getpid());
    int fd = open(f, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        set(r, R_FAIL, 0, "read-only", "writable", strerror(errno));
        return;
    }
    bool ok = write(fd, "ok\n", 3) == 3;
    close(fd);
    unlink(f);
    set(r, ok ? R_PASS : R_FAIL, ok, ok ? "writable" : "write failed", "writable", "");
}

static void storage_free(const check *c, result *r, bool inodes)
{
    struct statvfs s;
    if (statvfs(c->path, &s)) {
        set(r, R_FAIL, NAN, "?", c->fail_at.text, strerror(errno));
        return;
    }
    double v = inodes ? (double)s.f_favail : (double)s.f_bavail * (double)s.f_frsize;
    double total = inodes ? (double)s.f_files : (double)s.f_blocks * (double)s.f_frsize;
    char vt[32], l[64];
    if (inodes)
        snprintf(vt, sizeof(vt), "%.0f", v);
    else
        human_bytes(vt, sizeof(vt), v);
    snprintf(l, sizeof(l), ">= %s", c->fail_at.text);
    result_kind k = total == 0 && inodes ? R_SKIP : below(c, v, total);
    set(r, k, v, vt, l,
        k == R_SKIP ? "the file system has no inode count"
        : inodes    ? "free inodes"
                    : "free space");
}

static void storage_latency(const check *c, result *r)
{
    char f[300];
    snprintf(f, sizeof(f), "%s/.slinky-health-probe.%ld", c->path, (long)getpid());
    char buf[4096], back[4096];
    memset(buf, 'h', sizeof(buf));
    double t0 = health_now_ms();
    int fd = open(f, O_RDWR | O_CREAT | O_EXCL, 0600);
    bool ok = fd >= 0 && write(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf) && fsync(fd) == 0 &&
              pread(fd, back, sizeof(back), 0) == (ssize_t)sizeof(back) &&
              !memcmp(buf, back, sizeof(buf));
    int err = errno;
    if (fd >= 0) {
        close(fd);
        unlink(f);
    }
    double ms = health_now_ms() - t0;
    char v[32], l[40];
    snprintf(v, sizeof(v), "%.2fms", ms);
    snprintf(l, sizeof(l), "<= %s", c->fail_at.text);
    if (!ok)
        set(r, R_FAIL, ms, "error", l, strerror(err));
    else
        set(r, above(c, ms), ms, v, l, "4 KiB write + fsync + read");
}

static void fabric_ib(const check *c, result *r)
{
    const char *root = "/sys/class/infiniband";
    DIR *d = opendir(root);
    if (d == NULL) {
        set(r, R_SKIP, NAN, "-", c->fail_at.text,
            "no /sys/class/infiniband (no InfiniBand HCA on this node)");
        return;
    }
    int ports = 0, bad = 0;
    double min_rate = INFINITY;
    char why[160] = "";
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        char pd[512];
        snprintf(pd, sizeof(pd), "%s/%s/ports", root, de->d_name);
        DIR *p = opendir(pd);
        struct dirent *pe;
        while (p && (pe = readdir(p)) != NULL) {
            if (pe->d_name[0] == '.')
                continue;
            char f[800], st[64] = "", rate[64] = "";
            snprintf(f, sizeof(f), "%s/%s/state", pd, pe->d_name);
            FILE *x = fopen(f, "r");
            if (x && !fgets(st, sizeof(st), x))
                st[0] = '\0';
            if (x)
                fclose(x);
            snprintf(f, sizeof(f), "%s/%s/rate", pd, pe->d_name);
            x = fopen(f, "r");
            if (x && !fgets(rate, sizeof(rate), x))
                rate[0] = '\0';
            if (x)
                fclose(x);
            ports++;
            double g = atof(rate);
            if (g < min_rate)
                min_rate = g;
            if (!strstr(st, "ACTIVE") || (c->fail_at.set && g < c->fail_at.v)) {
                bad++;
                st[strcspn(st, "\n")] = '\0';
                snprintf(why, sizeof(why), "%s port %s: %s, %.0f Gb/s", de->d_name, pe->d_name, st,
                         g);
            }
        }
        if (p)
            closedir(p);
    }
    closedir(d);
    char v[32];
    snprintf(v, sizeof(v), "%d/%d up", ports - bad, ports);
    if (ports == 0)
        set(r, R_SKIP, NAN, "-", "", "no InfiniBand ports");
    else
        set(r, bad ? R_FAIL : R_PASS, min_rate, v, c->fail_at.set ? c->fail_at.text : "ACTIVE",
            bad ? why : "all ports ACTIVE");
}

static void fabric_tcp(const check *c, result *r)
{
    char host[256];
    snprintf(host, sizeof(host), "%s", c->path);
    char *port = strrchr(host, ':');
    *port++ = '\0';
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *ai = NULL;
    char l[40];
    snprintf(l, sizeof(l), "<= %s", c->fail_at.set ? c->fail_at.text : "timeout");
    double t0 = health_now_ms();
    int e = getaddrinfo(host, port, &hints, &ai);
    if (e) {
        set(r, R_FAIL, NAN, "unresolved", l, gai_strerror(e));
        return;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int rc = fd < 0 ? -1 : connect(fd, ai->ai_addr, ai->ai_addrlen);
    int err = 0;
    if (rc && errno == EINPROGRESS) {
        struct pollfd p = {fd, POLLOUT, 0};
        int left = (int)(c->timeout_ms - (health_now_ms() - t0));
        socklen_t len = sizeof(err);
        if (poll(&p, 1, left > 0 ? left : 0) == 1 &&
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0)
            rc = err ? -1 : 0;
        else
            err = ETIMEDOUT;
    } else if (rc) {
        err = errno;
    }
    double ms = health_now_ms() - t0;
    if (fd >= 0)
        close(fd);
    freeaddrinfo(ai);
    char v[32];
    snprintf(v, sizeof(v), "%.2fms", ms);
    if (rc)
        set(r, R_FAIL, ms, "unreachable", l, strerror(err));
    else
        set(r, above(c, ms), ms, v, l, "TCP connect");
}

static void exec_check(const check *c, result *r)
{
    int st = system(c->path);
    int code = st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    char v[32];
    snprintf(v, sizeof(v), "exit %d", code);
    set(r, code == 0 ? R_PASS : R_FAIL, code, v, "exit 0", c->path);
}

void check_run(const check *c, const node_facts *nf, result *r)
{
    memset(r, 0, sizeof(*r));
    r->value = NAN;
    switch (c->kind) {
    case K_NODE_CPUS:
        node_cpus(nf, r);
        break;
    case K_NODE_MEMORY:
        node_memory(nf, r);
        break;
    case K_NODE_GPUS:
        node_gpus(c, r);
        break;
    case K_NODE_LOAD:
        node_load(c, r);
        break;
    case K_STORAGE_MOUNTED:
        storage_mounted(c, r);
        break;
    case K_STORAGE_WRITABLE:
        storage_writable(c, r);
        break;
    case K_STORAGE_FREE:
        storage_free(c, r, false);
        break;
    case K_STORAGE_INODES:
        storage_free(c, r, true);
        break;
    case K_STORAGE_LATENCY:
        storage_latency(c, r);
        break;
    case K_FABRIC_IB:
        fabric_ib(c, r);
        break;
    case K_FABRIC_TCP:
        fabric_tcp(c, r);
        break;
    case K_EXEC:
        exec_check(c, r);
        break;
    case K_COUNT:
        break;
    }
}
