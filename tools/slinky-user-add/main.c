/* slinky-user-add: record a user in the identity ledger and converge sinks. */
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slinky.h"

#include "../common/cli.h"

enum { EX_OK = 0, EX_FAIL = 1, EX_USAGE = 2, EX_CONFLICT = 3, EX_INVALID = 4, EX_NOLEDGER = 5 };

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s NAME [options]\n"
            "\n"
            "Record user NAME in the identity ledger (uid/gid allocated by the ledger) and\n"
            "converge the chosen sinks. Running the same command again changes nothing,\n"
            "also when several run at once (a lost race is planned again from the new tip).\n"
            "\n"
            "options:\n"
            "  --ssh-key-file F   add the OpenSSH public key(s) in F (tag: file name without\n"
            "                     .pub); may be repeated\n"
            "  --uid N            use uid N (must be free) instead of allocating one\n"
            "  --group G          make NAME a member of group G (created when missing);\n"
            "                     may be repeated\n"
            "  --account A        associate NAME with Slurm account A (created when missing)\n"
            "  --gecos TEXT, --shell PATH, --home PATH\n"
            "  --ledger PATH      ledger repository (default $SLINKY_LEDGER or\n"
            "                     /var/lib/slinky/ledger)\n"
            "  --apply SINKS      converge sinks afterwards: posix,slurm,kanidm,kube,ldap\n"
            "  --root DIR         root folder of the posix sink (default /); names and\n"
            "                     uids/gids already in its etc/passwd or etc/group that\n"
            "                     the ledger does not hold are refused (exit 4), as are\n"
            "                     system names (root, daemon, nobody, sshd, ...)\n"
            "  --incarnation X    cluster incarnation for replay progress (default 'default')\n"
            "  --sacctmgr BIN, --kanidm BIN   programs used by the slurm and kanidm sinks\n"
            "  --kubeconfig F, --namespace NS where the kube sink writes its Secret\n"
            "  --ldap-uri U, --ldap-base DN, --ldap-bind-dn DN, --ldap-ca PEM,\n"
            "  --ldap-password-file F | --ldap-password-secret [NS/]NAME/KEY\n"
            "                     the directory of the ldap sink (TLS always: ldaps:// or\n"
            "                     ldap:// with StartTLS)\n"
            "  --actor NAME       who is recorded as the author (default $USER)\n"
            "  --dry-run          print the events that would be recorded; change nothing\n"
            CLI_COMMON_HELP
            "\n"
            "exit codes: 0 ok (also: nothing to do), 1 failure, 2 usage, 3 conflict (name or\n"
            "id taken, sink conflict), 4 invalid input (name, key, uid), 5 no ledger\n",
            cli_prog);
}

static int code_of(int status)
{
    switch (status) {
    case SLINKY_ECONFLICT:
    case SLINKY_EEXISTS: return EX_CONFLICT;
    case SLINKY_EINVALID:
    case SLINKY_EPARSE: return EX_INVALID;
    case SLINKY_ENOTFOUND: return EX_NOLEDGER;
    default: return EX_FAIL;
    }
}

static int die(const char *what)
{
    const slinky_error *e = slinky_error_last();
    fprintf(stderr, "%s: %s: %s\n", cli_prog, what, e->message);
    return code_of(e->code);
}

typedef struct keyin {
    char *tag, *key;
} keyin;

/* Read the keys of a file: every non-empty, non-comment line. */
static int read_keys(keyin **keys, size_t *n, const char *file)
{
    FILE *f = fopen(file, "r");
    if (!f) {
        fprintf(stderr, "%s: --ssh-key-file %s: ", cli_prog, file);
        perror(NULL);
        return EX_INVALID;
    }
    char *base = strdup(file);
    char *b = basename(base);
    size_t bl = strlen(b);
    if (bl > 4 && !strcmp(b + bl - 4, ".pub"))
        b[bl - 4] = '\0';
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, count = 0, rc = EX_OK;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        char *p = line + strspn(line, " \t");
        if (!*p || *p == '#')
            continue;
        if (slinky_ledger_ssh_key_check(p) < 0) {
            fprintf(stderr, "%s: %s line %d: %s\n", cli_prog, file, lineno,
                    slinky_error_last()->message);
            rc = EX_INVALID;
            break;
        }
        *keys = realloc(*keys, (*n + 1) * sizeof(**keys));
        char tag[80];
        if (count == 0)
            snprintf(tag, sizeof(tag), "%.64s", b);
        else
            snprintf(tag, sizeof(tag), "%.60s-%d", b, count + 1);
        for (char *t = tag; *t; t++)
            if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.@", *t))
                *t = '_';
        (*keys)[*n].tag = strdup(tag);
        (*keys)[*n].key = strdup(p);
        (*n)++;
        count++;
    }
    if (rc == EX_OK && count == 0) {
        fprintf(stderr, "%s: %s holds no public key\n", cli_prog, file);
        rc = EX_INVALID;
    }
    free(line);
    free(base);
    fclose(f);
    return rc;
}

/* Parse a record; NULL when absent. */
static slinky_doc *record(slinky_ledger *l, const char *kind, const char *name)
{
    char *json = NULL;
    if (slinky_ledger_get(&json, l, kind, name) < 0)
        return NULL;
    slinky_doc *d = NULL;
    slinky_doc_parse_json(&d, json, strlen(json));
    slinky_free(json);
    return d;
}

static bool list_has(slinky_doc *d, const char *list, const char *name)
{
    slinky_doc_value *a = slinky_doc_value_get(slinky_doc_root(d), list);
    for (size_t i = 0; i < slinky_doc_value_size(a); i++) {
        const char *s = slinky_doc_value_get_string(slinky_doc_value_at(a, i));
        if (s && !strcmp(s, name))
            return true;
    }
    return false;
}

/* Same key material (type + base64), ignoring comments. */
static bool same_key(const char *a, const char *b)
{
    size_t la = strcspn(a, " \t"), lb = strcspn(b, " \t");
    if (la != lb || strncmp(a, b, la) != 0)
        return false;
    a += la + strspn(a + la, " \t");
    b += lb + strspn(b + lb, " \t");
    la = strcspn(a, " \t");
    lb = strcspn(b, " \t");
    return la == lb && !strncmp(a, b, la);
}

/* Replay progress on a terminal (stderr), one line per sink. */
static void progress(const char *sink, size_t done, size_t total, const char *step, void *p)
{
    if (!*(int *)p)
        return;
    fprintf(stderr, "\r\033[K[%s] %zu/%zu %s", sink, done, total, step);
    if (!strcmp(step, "done") || !strcmp(step, "up to date"))
        fputc('\n', stderr);
    fflush(stderr);
}

/* What one command asks for (all validated before anything is written). */
typedef struct request {
    const char *name, *gecos, *shell, *home, *account, *root;
    unsigned long uid;
    const keyin *keys;
    size_t nkeys;
    const char *const *groups;
    size_t ngroups;
} request;

typedef struct ctx {
    slinky_ledger *l;
    bool dry;
    const char *actor;
    int recorded;
    char lost[200]; /* the last event another writer made moot (a race lost) */
} ctx;

/* Plan again from the new tip: another writer recorded part of the request. */
#define EX_REPLAN 100

static int record_event(ctx *c, slinky_ledger_event *ev)
{
    ev->actor = c->actor;
    if (c->dry) {
        printf("would record: %s %s%s%s%s%s\n", slinky_ledger_event_kind_name(ev->kind),
               ev->name, ev->target ? " " : "", ev->target ? ev->target : "",
               ev->tag ? " tag=" : "", ev->tag ? ev->tag : "");
        return EX_OK;
    }
    char *res = NULL;
    if (slinky_ledger_append(&res, c->l, ev) < 0) {
        /* "exists" after a compare-and-swap retry: another process recorded it
         * meanwhile. Plan the whole request again against the new tip; the same
         * event failing twice is a real conflict. */
        char what[sizeof(c->lost)];
        snprintf(what, sizeof(what), "%s %s %s %s", slinky_ledger_event_kind_name(ev->kind),
                 ev->name, ev->target ? ev->target : "", ev->tag ? ev->tag : "");
        if (slinky_error_last()->code == SLINKY_EEXISTS && strcmp(what, c->lost) != 0) {
            snprintf(c->lost, sizeof(c->lost), "%s", what);
            return EX_REPLAN;
        }
        return die(slinky_ledger_event_kind_name(ev->kind));
    }
    printf("recorded: %s\n", res);
    slinky_free(res);
    c->recorded++;
    return EX_OK;
}

/* Find NAME (field 1) or ID (field 3) in ROOT/etc/FILE; line number or 0. */
static int base_entry(const char *root, const char *file, const char *name, unsigned long id,
                      char *path, size_t pathlen)
{
    snprintf(path, pathlen, "%s%setc/%s", root, root[strlen(root) - 1] == '/' ? "" : "/", file);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, found = 0;
    while (!found && getline(&line, &cap, f) > 0) {
        lineno++;
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c1)
            continue;
        if (name && (size_t)(c1 - line) == strlen(name) && !strncmp(line, name, strlen(name)))
            found = lineno;
        if (id && c2 && strtoul(c2 + 1, NULL, 10) == id && c2[1] >= '0' && c2[1] <= '9')
            found = lineno;
    }
    free(line);
    fclose(f);
    return found;
}

/* A name (or id) of the target's base system that the ledger does not own. */
static int check_base(const request *r, const char *what, const char *name, unsigned long id)
{
    static const char *const files[] = {"passwd", "group"};
    if (name && slinky_ledger_name_is_reserved(name)) {
        fprintf(stderr, "slinky-user-add: %s '%s' is reserved for the base system\n", what, name);
        return EX_INVALID;
    }
    for (size_t i = 0; i < 2; i++) {
        char path[4200];
        int at = base_entry(r->root, files[i], name, id, path, sizeof(path));
        if (at) {
            if (name)
                fprintf(stderr, "slinky-user-add: %s '%s' is already in %s (line %d), an "
                                "account of the base system the ledger does not own\n",
                        what, name, path, at);
            else
                fprintf(stderr, "slinky-user-add: id %lu is already used in %s (line %d) by "
                                "the base system\n",
                        id, path, at);
            return EX_INVALID;
        }
    }
    return EX_OK;
}

/*
 * Record what the request needs that the tip lacks, event by event. Returns
 * EX_REPLAN when another writer got there first (call again: the plan is made
 * afresh from the new tip, so the request stays idempotent under races).
 */
static int record_request(ctx *c, const request *r)
{
    const char *name = r->name;
    int rc = EX_OK;
    slinky_doc *u = record(c->l, "user", name);
    /* the base system: checked for everything the ledger does not hold yet,
     * before anything is written */
    if (!u && (rc = check_base(r, "user", name, 0)) != EX_OK)
        return rc;
    if (!u && r->uid && (rc = check_base(r, "uid", NULL, r->uid)) != EX_OK)
        return rc;
    for (size_t i = 0; i < r->ngroups; i++) {
        slinky_doc *g = record(c->l, "group", r->groups[i]);
        if (!g)
            rc = check_base(r, "group", r->groups[i], 0);
        slinky_doc_free(g);
        if (rc != EX_OK) {
            slinky_doc_free(u);
            return rc;
        }
    }
    /* user */
    if (u) {
        slinky_doc_value *rv = slinky_doc_root(u);
        const char *state = slinky_doc_value_path_string(rv, "state", "active");
        int64_t have = slinky_doc_value_path_int(rv, "uid", 0);
        if (!strcmp(state, "deleted")) {
            fprintf(stderr, "slinky-user-add: user '%s' was deleted; names and ids are never "
                            "reused\n",
                    name);
            rc = EX_CONFLICT;
        } else if (r->uid && (unsigned long)have != r->uid) {
            fprintf(stderr, "slinky-user-add: user '%s' exists with uid %lld, not %lu\n", name,
                    (long long)have, r->uid);
            rc = EX_CONFLICT;
        } else {
            printf("user %s exists (uid %lld)\n", name, (long long)have);
        }
    } else {
        slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
        ev.kind = SLINKY_LEDGER_USER_ADD;
        ev.name = name;
        ev.id = (uint32_t)r->uid;
        ev.gecos = r->gecos;
        ev.shell = r->shell;
        ev.home = r->home;
        rc = record_event(c, &ev);
    }
    /* keys */
    for (size_t i = 0; rc == EX_OK && i < r->nkeys; i++) {
        bool have = false;
        slinky_doc_value *ka = u ? slinky_doc_value_get(slinky_doc_root(u), "keys") : NULL;
        for (size_t k = 0; k < slinky_doc_value_size(ka); k++) {
            slinky_doc_value *kv = slinky_doc_value_at(ka, k);
            const char *kk = slinky_doc_value_path_string(kv, "key", "");
            const char *tt = slinky_doc_value_path_string(kv, "tag", "");
            if (same_key(kk, r->keys[i].key)) {
                have = true;
                printf("key %s of %s is recorded\n", tt, name);
            } else if (!strcmp(tt, r->keys[i].tag)) {
                fprintf(stderr, "slinky-user-add: user '%s' has another key tagged '%s'\n", name,
                        tt);
                rc = EX_CONFLICT;
            }
        }
        if (!have && rc == EX_OK) {
            slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
            ev.kind = SLINKY_LEDGER_KEY_ADD;
            ev.name = name;
            ev.tag = r->keys[i].tag;
            ev.key = r->keys[i].key;
            rc = record_event(c, &ev);
        }
    }
    /* groups */
    for (size_t i = 0; rc == EX_OK && i < r->ngroups; i++) {
        slinky_doc *g = record(c->l, "group", r->groups[i]);
        if (!g) {
            slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
            ev.kind = SLINKY_LEDGER_GROUP_ADD;
            ev.name = r->groups[i];
            rc = record_event(c, &ev);
        }
        if (rc == EX_OK && (!g || !list_has(g, "members", name))) {
            slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
            ev.kind = SLINKY_LEDGER_MEMBER_ADD;
            ev.name = name;
            ev.target = r->groups[i];
            rc = record_event(c, &ev);
        }
        slinky_doc_free(g);
    }
    /* Slurm account and association */
    if (rc == EX_OK && r->account) {
        slinky_doc *a = record(c->l, "account", r->account);
        if (!a) {
            slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
            ev.kind = SLINKY_LEDGER_ACCOUNT_ADD;
            ev.name = r->account;
            rc = record_event(c, &ev);
        }
        if (rc == EX_OK && (!a || !list_has(a, "users", name))) {
            slinky_ledger_event ev = SLINKY_LEDGER_EVENT_INIT;
            ev.kind = SLINKY_LEDGER_ASSOC_ADD;
            ev.name = name;
            ev.target = r->account;
            rc = record_event(c, &ev);
        }
        slinky_doc_free(a);
    }
    slinky_doc_free(u);
    return rc;
}

int main(int argc, char **argv)
{
    cli_init(argv, "slinky-user-add");
    const char *ledger_path = NULL;
    const char *account = NULL, *apply = NULL, *root = "/", *incarnation = NULL;
    const char *sacctmgr = NULL, *kanidm = NULL, *gecos = NULL, *shell = NULL, *home = NULL;
    const char *actor = NULL, *kubeconfig = NULL, *kube_ns = NULL;
    const char *ldap_uri = NULL, *ldap_base = NULL, *ldap_dn = NULL, *ldap_pwf = NULL;
    const char *ldap_pws = NULL, *ldap_ca = NULL;
    unsigned long uid = 0;
    bool dry = false;
    /* on the stack: the early exits below need not free them (argc is small) */
    const char *groups[argc + 1], *keyfiles[argc + 1];
    size_t ngroups = 0, nkeyfiles = 0;
    static const struct option lo[] = {
        {"ssh-key-file", 1, 0, 'k'}, {"uid", 1, 0, 'u'},        {"group", 1, 0, 'g'},
        {"account", 1, 0, 'a'},      {"ledger", 1, 0, 'l'},     {"apply", 1, 0, 'A'},
        {"dry-run", 0, 0, 'n'},      {"root", 1, 0, 'r'},       {"incarnation", 1, 0, 'i'},
        {"sacctmgr", 1, 0, 'S'},     {"kanidm", 1, 0, 'K'},     {"gecos", 1, 0, 'c'},
        {"shell", 1, 0, 's'},        {"home", 1, 0, 'd'},       {"actor", 1, 0, 'w'},
        {"kubeconfig", 1, 0, 'C'},   {"namespace", 1, 0, 'N'},  {"help", 0, 0, 'h'},
        {"ldap-uri", 1, 0, 'U'},     {"ldap-base", 1, 0, 'B'},  {"ldap-bind-dn", 1, 0, 'D'},
        {"ldap-password-file", 1, 0, 'P'}, {"ldap-password-secret", 1, 0, 'Q'},
        {"ldap-ca", 1, 0, 'Y'},      CLI_LONGOPTS,              {0, 0, 0, 0}};
    int o, orc;
    while ((o = getopt_long(argc, argv, "hv:q", lo, NULL)) != -1) {
        switch (o) {
        case 'k': keyfiles[nkeyfiles++] = optarg; break;
        case 'u': {
            char *e = NULL;
            uid = strtoul(optarg, &e, 10);
            if (!*optarg || *e || uid == 0 || uid > 0x7fffffffUL) {
                fprintf(stderr, "%s: --uid '%s' is not a valid uid\n", cli_prog, optarg);
                return EX_INVALID;
            }
            break;
        }
        case 'g': groups[ngroups++] = optarg; break;
        case 'a': account = optarg; break;
        case 'l': ledger_path = optarg; break;
        case 'A': apply = optarg; break;
        case 'n': dry = true; break;
        case 'r': root = optarg; break;
        case 'i': incarnation = optarg; break;
        case 'S': sacctmgr = optarg; break;
        case 'K': kanidm = optarg; break;
        case 'c': gecos = optarg; break;
        case 's': shell = optarg; break;
        case 'd': home = optarg; break;
        case 'w': actor = optarg; break;
        case 'C': kubeconfig = optarg; break;
        case 'N': kube_ns = optarg; break;
        case 'U': ldap_uri = optarg; break;
        case 'B': ldap_base = optarg; break;
        case 'D': ldap_dn = optarg; break;
        case 'P': ldap_pwf = optarg; break;
        case 'Q': ldap_pws = optarg; break;
        case 'Y': ldap_ca = optarg; break;
        case 'h': usage(stdout); return EX_OK;
        default:
            if ((orc = cli_option(o, optarg, usage)) >= 0)
                return orc;
            break;
        }
    }
    if (optind != argc - 1) {
        fprintf(stderr, "%s: exactly one user NAME is required\n", cli_prog);
        usage(stderr);
        return EX_USAGE;
    }
    const char *name = argv[optind];
    if (!ledger_path)
        ledger_path = getenv("SLINKY_LEDGER");
    if (!ledger_path || !*ledger_path)
        ledger_path = "/var/lib/slinky/ledger";
    /* validate every input before writing anything */
    if (!slinky_ledger_name_is_valid(name)) {
        fprintf(stderr, "%s: '%s' is not a portable user name (lowercase letters, "
                        "digits, '_', '-', '.', starting with a letter or '_', at most 32)\n", cli_prog,
                name);
        return EX_INVALID;
    }
    for (size_t i = 0; i < ngroups; i++)
        if (!slinky_ledger_name_is_valid(groups[i])) {
            fprintf(stderr, "%s: --group '%s' is not a valid group name\n", cli_prog,
                    groups[i]);
            return EX_INVALID;
        }
    if (account && !slinky_ledger_name_is_valid(account)) {
        fprintf(stderr, "%s: --account '%s' is not a valid account name\n", cli_prog,
                account);
        return EX_INVALID;
    }
    unsigned sinks = 0;
    if (apply) {
        char *s = strdup(apply), *save = NULL;
        for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            if (!strcmp(t, "posix"))
                sinks |= SLINKY_LEDGER_SINK_POSIX;
            else if (!strcmp(t, "slurm"))
                sinks |= SLINKY_LEDGER_SINK_SLURM;
            else if (!strcmp(t, "kanidm"))
                sinks |= SLINKY_LEDGER_SINK_KANIDM;
            else if (!strcmp(t, "kube"))
                sinks |= SLINKY_LEDGER_SINK_KUBE;
            else if (!strcmp(t, "ldap"))
                sinks |= SLINKY_LEDGER_SINK_LDAP;
            else {
                fprintf(stderr, "%s: --apply: unknown sink '%s' (posix, slurm, "
                                "kanidm, kube, ldap)\n", cli_prog,
                        t);
                free(s);
                return EX_USAGE;
            }
        }
        free(s);
    }
    keyin *keys = NULL;
    size_t nkeys = 0;
    for (size_t i = 0; i < nkeyfiles; i++) {
        int rc = read_keys(&keys, &nkeys, keyfiles[i]);
        if (rc != EX_OK)
            return rc;
    }
    if (slinky_global_init() < 0)
        return die("init");
    ctx c = {NULL, dry, actor, 0, ""};
    int rc = EX_OK;
    if (slinky_ledger_open(&c.l, ledger_path) < 0) {
        bool missing = slinky_error_last()->code == SLINKY_ENOTFOUND;
        rc = die("open ledger");
        if (missing)
            fprintf(stderr,
                    "%s: create one with: slinkyctl ledger --ledger %s init\n",
                    cli_prog, ledger_path);
        goto out;
    }
    request req = {name, gecos, shell, home, account, root, uid, keys, nkeys, groups, ngroups};
    /* each round makes progress or fails: a lost race makes its event moot */
    for (int round = 0; round < 64; round++)
        if ((rc = record_request(&c, &req)) != EX_REPLAN)
            break;
    if (rc == EX_REPLAN) {
        fprintf(stderr, "slinky-user-add: the ledger kept changing under this request\n");
        rc = EX_CONFLICT;
    }
    if (rc == EX_OK && !dry && c.recorded == 0)
        printf("nothing to record: %s is up to date in the ledger\n", name);
    /* sinks */
    if (rc == EX_OK && sinks) {
        slinky_ledger_replay_options ro = SLINKY_LEDGER_REPLAY_OPTIONS_INIT;
        ro.sinks = sinks;
        ro.posix_root = root;
        ro.incarnation = incarnation;
        ro.sacctmgr = sacctmgr;
        ro.kanidm = kanidm;
        ro.kubeconfig = kubeconfig;
        ro.kube_namespace = kube_ns;
        ro.ldap_uri = ldap_uri;
        ro.ldap_base = ldap_base;
        ro.ldap_bind_dn = ldap_dn;
        ro.ldap_password_file = ldap_pwf;
        ro.ldap_password_secret = ldap_pws;
        ro.ldap_ca_file = ldap_ca;
        ro.dry_run = dry;
        int tty = isatty(2);
        ro.progress = progress;
        ro.payload = &tty;
        char *plan = NULL;
        if (slinky_ledger_replay(&plan, c.l, &ro) < 0) {
            rc = die("apply");
        } else {
            printf("%s", plan);
            slinky_free(plan);
        }
    }
out:
    slinky_ledger_free(c.l);
    for (size_t i = 0; i < nkeys; i++) {
        free(keys[i].tag);
        free(keys[i].key);
    }
    free(keys);
    slinky_global_shutdown();
    return rc;
}
