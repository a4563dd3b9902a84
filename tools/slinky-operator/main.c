/*
 * slinky-operator: owns slurm.conf for the Controllers of one namespace.
 *
 *   slinky-operator --kubeconfig F --slurm-dir DIR [options]
 *
 * Informers on Controllers, NodeSets and Accountings feed a work queue keyed
 * by Controller; one worker reconciles (see operator.h). --once reconciles
 * every Controller that exists at start and exits (status 1 when any was
 * rejected or failed). Otherwise it runs until SIGINT/SIGTERM.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "operator.h"

#include "../common/cli.h"

int op_verbosity;

static volatile sig_atomic_t g_stop;
static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s --kubeconfig FILE --slurm-dir DIR [options]\n"
            "\n"
            "Watches Slinky Controllers, NodeSets and Accountings, renders slurm.conf,\n"
            "checks it statically and with the real Slurm, writes the ConfigMap\n"
            "<controller>-config and applies the change live (scontrol reconfigure) or\n"
            "by --restart-command when the change needs a restart.\n"
            "\n"
            "  --kubeconfig FILE        kubeconfig (default: $KUBECONFIG, ~/.kube/config)\n"
            "  --namespace NS           namespace to watch (default: the context's)\n"
            "  --slurm-dir DIR          local Slurm folder: DIR/etc/slurm.conf is managed\n"
            "  --slurm-version V        target Slurm version, e.g. 22.05 (default 22.05)\n"
            "  --ctld-port P --slurmd-port P --dbd-port P   local ports\n"
            "  --munge-socket PATH      munged socket (AuthInfo=socket=)\n"
            "  --restart-command CMD    run by /bin/sh for restart classes; env\n"
            "                           SLINKY_CHANGE_CLASS and SLURM_CONF are set\n"
            "  --no-validate            skip the real-Slurm validation (static checks stay)\n"
            "  --once                   reconcile what exists, then exit\n"
            "  --leader-elect           run only while holding the Lease slinky-operator in the\n"
            "                           namespace (several replicas: one works, the others wait;\n"
            "                           losing the lease stops this one)\n"
            "  --lease-duration SECONDS lease duration (default 15; renew deadline 2/3 of it)\n"
            CLI_COMMON_HELP "\n"
            CLI_EXIT_HELP "; with --once, 1 also when a Controller was rejected.\n",
            cli_prog);
}

/* "22.05" -> 2205; (unsigned)-1 for anything else */
static unsigned parse_version(const char *s)
{
    unsigned a = 0, b = 0;
    char end;
    if (sscanf(s, "%u.%u%c", &a, &b, &end) == 2 && a >= 20 && b <= 99)
        return a * 100 + b;
    return (unsigned)-1;
}

/* A port or a count: digits only, within [lo, hi]; -1 otherwise. */
static long parse_number(const char *s, long lo, long hi)
{
    char *e = NULL;
    long v = strtol(s, &e, 10);
    return *s && !*e && v >= lo && v <= hi ? v : -1;
}

static void enqueue_controller(const slinky_doc_value *obj, void *payload)
{
    op_state *st = payload;
    char *key = NULL;
    if (slinky_kube_object_key(&key, obj) == 0) {
        slinky_kube_workqueue_add(st->queue, key);
        slinky_free(key);
    }
}
/* Only spec changes matter: our own status writes must not wake us up again. */
static void on_ctl_update(const slinky_doc_value *o, const slinky_doc_value *n, void *payload)
{
    if (slinky_doc_value_path_int(o, "metadata.generation", -1) ==
            slinky_doc_value_path_int(n, "metadata.generation", -2) &&
        slinky_doc_value_equal(slinky_doc_value_get(o, "spec"), slinky_doc_value_get(n, "spec")))
        return;
    enqueue_controller(n, payload);
}

/* A NodeSet change concerns the Controller it references. */
static void enqueue_owner(const slinky_doc_value *obj, void *payload)
{
    op_state *st = payload;
    const char *ref = slinky_doc_value_path_string(obj, "spec.controllerRef.name", NULL);
    const char *ns = slinky_doc_value_path_string(obj, "metadata.namespace", "");
    ns = slinky_doc_value_path_string(obj, "spec.controllerRef.namespace", ns);
    if (!ref || !*ref)
        return;
    char key[600];
    snprintf(key, sizeof(key), "%s/%s", ns, ref);
    slinky_kube_workqueue_add(st->queue, key);
}
static void on_ns_update(const slinky_doc_value *o, const slinky_doc_value *n, void *payload)
{
    /* our own status writes change nothing that matters */
    if (slinky_doc_value_equal(slinky_doc_value_get(o, "spec"), slinky_doc_value_get(n, "spec")) &&
        slinky_doc_value_equal(slinky_doc_value_path(o, "metadata.labels"),
                               slinky_doc_value_path(n, "metadata.labels")))
        return;
    enqueue_owner(o, payload);
    enqueue_owner(n, payload);
}

/* An Accounting change concerns every Controller (there are few). */
static void enqueue_all(op_state *st)
{
    slinky_doc *all = NULL;
    if (slinky_kube_informer_list(&all, st->controllers, NULL, NULL) < 0)
        return;
    for (size_t i = 0; i < slinky_doc_value_size(slinky_doc_root(all)); i++)
        enqueue_controller(slinky_doc_value_at(slinky_doc_root(all), i), st);
    slinky_doc_free(all);
}
static void on_acct(const slinky_doc_value *obj, void *payload)
{
    (void)obj;
    enqueue_all(payload);
}
static void on_acct_update(const slinky_doc_value *o, const slinky_doc_value *n, void *payload)
{
    (void)o;
    (void)n;
    enqueue_all(payload);
}

static slinky_kube_controller *g_ctl;

static void on_started_leading(void *payload)
{
    op_state *st = payload;
    fprintf(stderr, "%s: leading; starting the workers\n", cli_prog);
    if (slinky_kube_controller_new(&g_ctl, st->queue, 1, op_reconcile, st) < 0 ||
        slinky_kube_controller_start(g_ctl) < 0) {
        fprintf(stderr, "%s: controller: %s\n", cli_prog, slinky_error_last()->message);
        g_stop = 1;
    }
}

static void on_stopped_leading(void *payload)
{
    (void)payload;
    fprintf(stderr, "%s: lost the lease; stopping\n", cli_prog);
    g_stop = 1;
    kill(getpid(), SIGTERM); /* wake pause() */
}

static int fail(const char *what)
{
    fprintf(stderr, "%s: %s: %s\n", cli_prog, what, slinky_error_last()->message);
    return 1;
}

static int bad_arg(const char *opt, const char *val)
{
    fprintf(stderr, "%s: %s: '%s' is not valid\n", cli_prog, opt, val);
    return 2;
}

int main(int argc, char **argv)
{
    op_state st;
    memset(&st, 0, sizeof(st));
    pthread_mutex_init(&st.lock, NULL);
    st.o.slurm_version = 2205;
    st.o.validate = true;
    st.o.field_manager = "slinky-operator";
    const char *kubeconfig = NULL;
    bool once = false, leader_elect = false;
    long lease_s = 15;

    static const struct option longopts[] = {
        {"kubeconfig", required_argument, 0, 'k'},  {"namespace", required_argument, 0, 'n'},
        {"slurm-dir", required_argument, 0, 'd'},   {"slurm-version", required_argument, 0, 'V'},
        {"ctld-port", required_argument, 0, 'c'},   {"slurmd-port", required_argument, 0, 's'},
        {"dbd-port", required_argument, 0, 'b'},    {"munge-socket", required_argument, 0, 'm'},
        {"restart-command", required_argument, 0, 'r'}, {"no-validate", no_argument, 0, 'N'},
        {"once", no_argument, 0, 'o'},              {"help", no_argument, 0, 'h'},
        {"leader-elect", no_argument, 0, 'L'},      {"lease-duration", required_argument, 0, 'D'},
        CLI_LONGOPTS,                               {0, 0, 0, 0}};
    int c;
    long num;
    cli_init(argv, "slinky-operator");
    while ((c = getopt_long(argc, argv, "k:n:d:hv:q", longopts, NULL)) != -1) {
        switch (c) {
        case 'k': kubeconfig = optarg; break;
        case 'n': st.o.namespace_ = optarg; break;
        case 'd': st.o.slurm_dir = optarg; break;
        case 'V':
            if ((st.o.slurm_version = parse_version(optarg)) == (unsigned)-1)
                return bad_arg("--slurm-version", optarg);
            break;
        case 'c':
        case 's':
        case 'b':
            if ((num = parse_number(optarg, 1, 65535)) < 0)
                return bad_arg(c == 'c' ? "--ctld-port" : c == 's' ? "--slurmd-port" : "--dbd-port",
                               optarg);
            *(c == 'c' ? &st.o.slurmctld_port : c == 's' ? &st.o.slurmd_port : &st.o.slurmdbd_port) =
                (int)num;
            break;
        case 'm': st.o.munge_socket = optarg; break;
        case 'r': st.o.restart_cmd = optarg; break;
        case 'N': st.o.validate = false; break;
        case 'o': once = true; break;
        case 'L': leader_elect = true; break;
        case 'D':
            if ((lease_s = parse_number(optarg, 1, 86400)) < 0)
                return bad_arg("--lease-duration", optarg);
            break;
        case 'h': usage(stdout); return 0;
        default:
            if ((num = cli_option(c, optarg, usage)) >= 0)
                return (int)num;
            op_verbosity = cli_verbosity;
            break;
        }
    }
    if (!st.o.slurm_dir || optind != argc) {
        usage(stderr);
        return 2;
    }
    if (slinky_global_init() < 0)
        return fail("init");
    srand((unsigned)time(NULL) ^ ((unsigned)getpid() << 16)); /* Event name suffixes */

    slinky_kube_config *cfg = NULL;
    slinky_kube_config_options co;
    slinky_kube_config_options_init(&co, SLINKY_KUBE_CONFIG_OPTIONS_VERSION);
    co.kubeconfig = kubeconfig;
    if (slinky_kube_config_load(&cfg, &co) < 0)
        return fail("kubeconfig");
    if (!st.o.namespace_)
        st.o.namespace_ = slinky_kube_config_get_namespace(cfg);
    if (slinky_kube_client_new(&st.client, cfg, NULL) < 0)
        return fail("client");

    slinky_kube_workqueue_options qo;
    slinky_kube_workqueue_options_init(&qo, SLINKY_KUBE_WORKQUEUE_OPTIONS_VERSION);
    qo.base_delay_ms = 500;
    qo.max_delay_ms = 60000;
    if (slinky_kube_workqueue_new(&st.queue, &qo) < 0)
        return fail("work queue");

    slinky_kube_informer_handlers hc = {SLINKY_KUBE_INFORMER_HANDLERS_VERSION, enqueue_controller,
                                        on_ctl_update, NULL, &st};
    slinky_kube_informer_handlers hn = {SLINKY_KUBE_INFORMER_HANDLERS_VERSION, enqueue_owner,
                                        on_ns_update, enqueue_owner, &st};
    slinky_kube_informer_handlers ha = {SLINKY_KUBE_INFORMER_HANDLERS_VERSION, on_acct,
                                        on_acct_update, on_acct, &st};
    if (slinky_kube_informer_new(&st.controllers, st.client, &op_res_controllers,
                                 st.o.namespace_, NULL) < 0 ||
        slinky_kube_informer_new(&st.nodesets, st.client, &op_res_nodesets, st.o.namespace_,
                                 NULL) < 0 ||
        slinky_kube_informer_new(&st.accountings, st.client, &op_res_accountings,
                                 st.o.namespace_, NULL) < 0)
        return fail("informer");
    /* NodeSet/Accounting informers start first so a Controller's reconcile sees them */
    slinky_kube_informer_add_handlers(st.nodesets, &hn);
    slinky_kube_informer_add_handlers(st.accountings, &ha);
    slinky_kube_informer_add_handlers(st.controllers, &hc);
    if (slinky_kube_informer_start(st.nodesets) < 0 ||
        slinky_kube_informer_start(st.accountings) < 0 ||
        slinky_kube_informer_wait_synced(st.nodesets, 30000) < 0 ||
        slinky_kube_informer_wait_synced(st.accountings, 30000) < 0 ||
        slinky_kube_informer_start(st.controllers) < 0 ||
        slinky_kube_informer_wait_synced(st.controllers, 30000) < 0)
        return fail("initial sync");
    fprintf(stderr, "%s: watching namespace %s (%zu controllers, %zu nodesets)\n", cli_prog,
            st.o.namespace_, slinky_kube_informer_size(st.controllers),
            slinky_kube_informer_size(st.nodesets));

    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    int rc = 0;
    if (once) {
        /* drain the queue on this thread */
        char *key = NULL;
        while (slinky_kube_workqueue_get(&key, st.queue, 1000) == 0) {
            long after = 0;
            if (op_reconcile(&after, key, &st) != SLINKY_KUBE_RESULT_DONE)
                rc = 1;
            slinky_kube_workqueue_done(st.queue, key);
            slinky_free(key);
        }
        if (st.rejected)
            rc = 1;
    } else {
        slinky_kube_leader *le = NULL;
        if (leader_elect) {
            char identity[300], host[256] = "localhost";
            gethostname(host, sizeof(host) - 1);
            snprintf(identity, sizeof(identity), "%s_%ld", host, (long)getpid());
            slinky_kube_leader_options lo;
            slinky_kube_leader_options_init(&lo, SLINKY_KUBE_LEADER_OPTIONS_VERSION);
            lo.lease_namespace = st.o.namespace_;
            lo.lease_name = "slinky-operator";
            lo.identity = identity;
            lo.lease_duration_ms = lease_s * 1000;
            lo.renew_deadline_ms = lease_s * 1000 * 2 / 3;
            lo.retry_period_ms = lease_s * 1000 / 7 > 200 ? lease_s * 1000 / 7 : 200;
            lo.on_started_leading = on_started_leading;
            lo.on_stopped_leading = on_stopped_leading;
            lo.payload = &st;
            lo.release_on_stop = true;
            if (slinky_kube_leader_new(&le, st.client, &lo) < 0 || slinky_kube_leader_start(le) < 0)
                return fail("leader election");
            fprintf(stderr, "%s: waiting for the lease %s/slinky-operator as %s\n", cli_prog,
                    st.o.namespace_, identity);
        } else {
            on_started_leading(&st);
        }
        while (!g_stop)
            pause();
        fprintf(stderr, "%s: stopping\n", cli_prog);
        if (g_ctl) {
            slinky_kube_controller_stop(g_ctl);
            slinky_kube_controller_free(g_ctl);
            g_ctl = NULL;
        }
        if (le) {
            slinky_kube_leader_stop(le);
            slinky_kube_leader_free(le);
        }
    }
    slinky_kube_workqueue_shutdown(st.queue);
    slinky_kube_informer_free(st.controllers);
    slinky_kube_informer_free(st.nodesets);
    slinky_kube_informer_free(st.accountings);
    slinky_kube_workqueue_free(st.queue);
    slinky_kube_client_free(st.client);
    slinky_kube_config_free(cfg);
    fprintf(stderr, "%s: %u reconciles, %u applied, %u rejected\n", cli_prog, st.reconciles,
            st.applied, st.rejected);
    slinky_global_shutdown();
    return rc;
}
