/* slinkyctl ledger: init, show, history, verify, replay, export, import, push,
 * pull, keys, apply, sshd-config. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "slinky.h"

#define DEFAULT_LEDGER "/var/lib/slinky/ledger"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: slinkyctl ledger [--ledger PATH] COMMAND [ARGS]\n"
            "\n"
            "The identity ledger (a bare git repository; default $SLINKY_LEDGER or "
            DEFAULT_LEDGER ").\n"
            "\n"
            "commands:\n"
            "  init [--cluster ID] [--id-range MIN-MAX]   create a new ledger\n"
            "  show [user|group|account NAME]           the state at the tip (JSON)\n"
            "  history [SUBJECT]                        events (JSON lines), e.g. alice, "
            "group/dev\n"
            "  verify                                   replay history; report the first bad "
            "commit\n"
            "  replay [--sinks posix,slurm,kanidm,kube,ldap] [--root DIR] [--incarnation X]\n"
            "         [--dry-run] [--force] [--sacctmgr BIN] [--kanidm BIN]\n"
            "         [--kubeconfig F] [--namespace NS] [--secret NAME]\n"
            "         [--ldap-uri ldaps://H:P|ldap://H:P (StartTLS)] [--ldap-base DN]\n"
            "         [--ldap-bind-dn DN --ldap-password-file F|--ldap-password-secret\n"
            "          [NS/]SECRET/KEY] [--ldap-ca PEM]\n"
            "                                           converge sinks to the tip\n"
            "  export [FILE]                            all events as JSON lines\n"
            "  import [FILE|-]                          append events from JSON lines\n"
            "  push REMOTE | pull REMOTE                sync with a ledger at a path / file:// "
            "URL\n"
            "  keys USER                                print USER's authorized keys\n"
            "  apply JSON                               append one event, e.g.\n"
            "        '{\"kind\":\"key-remove\",\"name\":\"alice\",\"tag\":\"laptop\"}'\n"
            "  sshd-config [--enable-seamless] [--port N] [--keys-command CMD]\n"
            "                                           sshd_config fragment for the login "
            "pod\n"
            "\n"
            "exit codes: 0 ok, 1 failure, 2 usage, 3 conflict/exists, 4 invalid input, 5 not "
            "found\n");
}

static int fail(const char *what)
{
    const slinky_error *e = slinky_error_last();
    fprintf(stderr, "slinkyctl ledger %s: %s\n", what, e->message);
    switch (e->code) {
    case SLINKY_ECONFLICT:
    case SLINKY_EEXISTS: return 3;
    case SLINKY_EINVALID:
    case SLINKY_EPARSE: return 4;
    case SLINKY_ENOTFOUND: return 5;
    default: return 1;
    }
}

static int put(const char *s)
{
    fputs(s, stdout);
    return fflush(stdout) == 0 ? 0 : 1;
}

static char *read_all(FILE *f, size_t *len)
{
    size_t cap = 65536, n = 0;
    char *b = malloc(cap);
    size_t r;
    while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                return NULL;
            }
            b = nb;
        }
    }
    *len = n;
    return b;
}

typedef struct tty_progress {
    int tty;
    const char *last_sink;
} tty_progress;

static void progress(const char *sink, size_t done, size_t total, const char *step, void *p)
{
    tty_progress *tp = p;
    if (!tp->tty)
        return;
    fprintf(stderr, "\r\033[K[%s] %zu/%zu %s", sink, done, total, step);
    if (!strcmp(step, "done") || !strcmp(step, "up to date")) /* the sink's last call */
        fputc('\n', stderr);
    fflush(stderr);
}

static int cmd_replay(slinky_ledger *l, int argc, char **argv)
{
    slinky_ledger_replay_options o = SLINKY_LEDGER_REPLAY_OPTIONS_INIT;
    const char *sinks = "posix";
    static const struct option lo[] = {{"sinks", 1, 0, 's'},    {"root", 1, 0, 'r'},
                                       {"incarnation", 1, 0, 'i'}, {"dry-run", 0, 0, 'n'},
                                       {"force", 0, 0, 'f'},    {"sacctmgr", 1, 0, 'S'},
                                       {"kanidm", 1, 0, 'K'},   {"kubeconfig", 1, 0, 'k'},
                                       {"namespace", 1, 0, 'N'}, {"secret", 1, 0, 'X'},
                                       {"ldap-uri", 1, 0, 'U'}, {"ldap-base", 1, 0, 'B'},
                                       {"ldap-bind-dn", 1, 0, 'D'},
                                       {"ldap-password-file", 1, 0, 'P'},
                                       {"ldap-ca", 1, 0, 'C'},
                                       {"ldap-password-secret", 1, 0, 'Q'}, {0, 0, 0, 0}};
    int c;
    optind = 0; /* GNU: reinitialise (main parsed with "+") */
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 's': sinks = optarg; break;
        case 'r': o.posix_root = optarg; break;
        case 'i': o.incarnation = optarg; break;
        case 'n': o.dry_run = true; break;
        case 'f': o.force = true; break;
        case 'S': o.sacctmgr = optarg; break;
        case 'K': o.kanidm = optarg; break;
        case 'k': o.kubeconfig = optarg; break;
        case 'N': o.kube_namespace = optarg; break;
        case 'X': o.kube_secret = optarg; break;
        case 'U': o.ldap_uri = optarg; break;
        case 'B': o.ldap_base = optarg; break;
        case 'D': o.ldap_bind_dn = optarg; break;
        case 'P': o.ldap_password_file = optarg; break;
        case 'C': o.ldap_ca_file = optarg; break;
        case 'Q': o.ldap_password_secret = optarg; break;
        default: usage(stderr); return 2;
        }
    }
    char *s = strdup(sinks), *save = NULL;
    for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "posix"))
            o.sinks |= SLINKY_LEDGER_SINK_POSIX;
        else if (!strcmp(t, "slurm"))
            o.sinks |= SLINKY_LEDGER_SINK_SLURM;
        else if (!strcmp(t, "kanidm"))
            o.sinks |= SLINKY_LEDGER_SINK_KANIDM;
        else if (!strcmp(t, "kube"))
            o.sinks |= SLINKY_LEDGER_SINK_KUBE;
        else if (!strcmp(t, "ldap"))
            o.sinks |= SLINKY_LEDGER_SINK_LDAP;
        else {
            fprintf(stderr,
                    "slinkyctl ledger replay: unknown sink '%s' (posix, slurm, kanidm, kube, "
                    "ldap)\n",
                    t);
            free(s);
            return 2;
        }
    }
    free(s);
    if ((o.sinks & SLINKY_LEDGER_SINK_POSIX) && !o.posix_root)
        o.posix_root = "/";
    tty_progress tp = {isatty(2), NULL};
    o.progress = progress;
    o.payload = &tp;
    char *plan = NULL;
    if (slinky_ledger_replay(&plan, l, &o) < 0)
        return fail("replay");
    if (o.dry_run)
        printf("%s", *plan ? plan : "nothing to do\n");
    else
        printf("%s", plan);
    slinky_free(plan);
    return 0;
}

/* "<bindir>/slinky-ledger-keys --ledger /ledger %u": the folder this slinkyctl runs from
 * when the program is beside it (an installed tree, whatever its prefix), else the
 * configured install prefix's. */
static void keys_program(char *buf, size_t len)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n > 0) {
        self[n] = '\0';
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = '\0';
            snprintf(buf, len, "%s/slinky-ledger-keys", self);
            if (access(buf, X_OK) == 0) {
                snprintf(buf, len, "%s/slinky-ledger-keys --ledger /ledger %%u", self);
                return;
            }
        }
    }
    snprintf(buf, len, "%s/slinky-ledger-keys --ledger /ledger %%u", SLINKY_INSTALL_BINDIR);
}

static int cmd_sshd(int argc, char **argv)
{
    slinky_ledger_sshd_options o = SLINKY_LEDGER_SSHD_OPTIONS_INIT;
    static const struct option lo[] = {{"enable-seamless", 0, 0, 'e'},
                                       {"port", 1, 0, 'p'},
                                       {"keys-command", 1, 0, 'k'},
                                       {"keys-command-user", 1, 0, 'u'},
                                       {0, 0, 0, 0}};
    int c;
    optind = 0; /* GNU: reinitialise (main parsed with "+") */
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 'e': o.enable_seamless = true; break;
        case 'p': o.port = (unsigned)strtoul(optarg, NULL, 10); break;
        case 'k': o.keys_command = optarg; break;
        case 'u': o.keys_command_user = optarg; break;
        default: usage(stderr); return 2;
        }
    }
    char keys[4200];
    if (!o.keys_command) { /* the slinky-ledger-keys installed with this slinkyctl */
        keys_program(keys, sizeof(keys));
        o.keys_command = keys;
    }
    char *out = NULL;
    if (slinky_ledger_sshd_render(&out, &o) < 0)
        return fail("sshd-config");
    int rc = put(out);
    slinky_free(out);
    return rc;
}

static int cmd_init(const char *path, int argc, char **argv)
{
    slinky_ledger_init_options o = SLINKY_LEDGER_INIT_OPTIONS_INIT;
    static const struct option lo[] = {{"cluster", 1, 0, 'c'}, {"id-range", 1, 0, 'r'},
                                       {0, 0, 0, 0}};
    int c;
    optind = 0; /* GNU: reinitialise (main parsed with "+") */
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 'c': o.cluster_id = optarg; break;
        case 'r': {
            char *e = NULL;
            o.id_min = (uint32_t)strtoul(optarg, &e, 10);
            if (!e || *e != '-') {
                fprintf(stderr, "slinkyctl ledger init: --id-range wants MIN-MAX\n");
                return 2;
            }
            o.id_max = (uint32_t)strtoul(e + 1, NULL, 10);
            break;
        }
        default: usage(stderr); return 2;
        }
    }
    slinky_ledger *l = NULL;
    if (slinky_ledger_init(&l, path, &o) < 0)
        return fail("init");
    printf("initialised ledger %s\n", path);
    slinky_ledger_free(l);
    return 0;
}

int slinkyctl_cmd_ledger(int argc, char **argv)
{
    const char *path = getenv("SLINKY_LEDGER");
    if (!path || !*path)
        path = DEFAULT_LEDGER;
    int i = 1;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--ledger") && i + 1 < argc)
            path = argv[++i];
        else if (!strncmp(argv[i], "--ledger=", 9))
            path = argv[i] + 9;
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else
            break;
    }
    if (i >= argc) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[i];
    int sargc = argc - i;
    char **sargv = argv + i;
    /* --ledger may also follow the command */
    for (int j = 1; j + 1 < sargc; j++)
        if (!strcmp(sargv[j], "--ledger")) {
            path = sargv[j + 1];
            for (int k = j; k + 2 <= sargc; k++)
                sargv[k] = sargv[k + 2];
            sargc -= 2;
            break;
        }
    if (!strcmp(cmd, "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(cmd, "sshd-config"))
        return cmd_sshd(sargc, sargv);
    if (!strcmp(cmd, "init"))
        return cmd_init(path, sargc, sargv);
    static const char *known[] = {"show", "history", "verify", "replay", "export", "import",
                                  "push", "pull",    "keys",   "apply"};
    bool ok = false;
    for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
        ok = ok || !strcmp(cmd, known[k]);
    if (!ok) {
        fprintf(stderr, "slinkyctl ledger: unknown command '%s'\n", cmd);
        usage(stderr);
        return 2;
    }
    slinky_ledger *l = NULL;
    if (slinky_ledger_open(&l, path) < 0)
        return fail("open");
    int rc = 0;
    char *out = NULL;
    if (!strcmp(cmd, "show")) {
        if (sargc == 3)
            rc = slinky_ledger_get(&out, l, sargv[1], sargv[2]) < 0 ? fail("show") : 0;
        else if (sargc == 1)
            rc = slinky_ledger_show(&out, l) < 0 ? fail("show") : 0;
        else
            rc = 2;
    } else if (!strcmp(cmd, "history")) {
        rc = sargc > 2 ? 2
                       : slinky_ledger_history(&out, l, sargc == 2 ? sargv[1] : NULL) < 0
                             ? fail("history")
                             : 0;
    } else if (!strcmp(cmd, "verify")) {
        size_t n = 0;
        char *bad = NULL;
        if (slinky_ledger_verify(&n, &bad, l) < 0) {
            rc = fail("verify");
            if (bad)
                printf("first bad commit: %s\n", bad);
            slinky_free(bad);
        } else {
            printf("ok: %zu events verified\n", n);
        }
    } else if (!strcmp(cmd, "replay")) {
        rc = cmd_replay(l, sargc, sargv);
    } else if (!strcmp(cmd, "export")) {
        if (slinky_ledger_export(&out, l) < 0) {
            rc = fail("export");
        } else if (sargc == 2 && strcmp(sargv[1], "-") != 0) {
            FILE *f = fopen(sargv[1], "w");
            if (!f || fputs(out, f) < 0 || fclose(f) != 0) {
                perror(sargv[1]);
                rc = 1;
            }
            slinky_free(out);
            out = NULL;
        }
    } else if (!strcmp(cmd, "import")) {
        FILE *f = sargc == 2 && strcmp(sargv[1], "-") != 0 ? fopen(sargv[1], "r") : stdin;
        size_t len = 0, n = 0;
        char *data = f ? read_all(f, &len) : NULL;
        if (!data) {
            perror(sargc == 2 ? sargv[1] : "stdin");
            rc = 1;
        } else if (slinky_ledger_import(&n, l, data, len) < 0) {
            rc = fail("import");
            printf("imported %zu new events before the failure\n", n);
        } else {
            printf("imported %zu new events\n", n);
        }
        free(data);
        if (f && f != stdin)
            fclose(f);
    } else if (!strcmp(cmd, "push") || !strcmp(cmd, "pull")) {
        if (sargc != 2)
            rc = 2;
        else if ((cmd[1] == 'u' && cmd[2] == 's' ? slinky_ledger_push(l, sargv[1])
                                                 : slinky_ledger_pull(l, sargv[1])) < 0)
            rc = fail(cmd);
        else
            printf("%s %s: ok\n", cmd, sargv[1]);
    } else if (!strcmp(cmd, "keys")) {
        rc = sargc != 2 ? 2 : slinky_ledger_keys(&out, l, sargv[1]) < 0 ? fail("keys") : 0;
    } else if (!strcmp(cmd, "apply")) {
        if (sargc != 2)
            rc = 2;
        else if (slinky_ledger_append_json(&out, l, sargv[1], strlen(sargv[1])) < 0)
            rc = fail("apply");
    }
    if (rc == 2)
        usage(stderr);
    if (out) {
        if (rc == 0)
            rc = put(out);
        if (!strcmp(cmd, "apply"))
            putchar('\n');
        slinky_free(out);
    }
    slinky_ledger_free(l);
    return rc;
}
