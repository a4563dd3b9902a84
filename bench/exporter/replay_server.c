/*
 * replay_server DIR: serve recorded slurmrestd answers on 127.0.0.1 (any free
 * port, printed on stdout) from memory: DIR/a_b_c.json answers GET /a/b/c
 * (query strings ignored). Runs until SIGTERM/SIGINT. Bench only.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <microhttpd.h>

typedef struct file {
    char path[256];
    char *data;
    size_t len;
} file;

static file files[32];
static size_t nfiles;

static enum MHD_Result serve(void *cls, struct MHD_Connection *conn, const char *url,
                             const char *method, const char *version, const char *upload,
                             size_t *upload_size, void **ctx)
{
    for (size_t i = 0; i < nfiles; i++) {
        if (strcmp(files[i].path, url))
            continue;
        struct MHD_Response *r =
            MHD_create_response_from_buffer(files[i].len, files[i].data, MHD_RESPMEM_PERSISTENT);
        MHD_add_response_header(r, "Content-Type", "application/json");
        enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ret;
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(2, "{}", MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret = MHD_queue_response(conn, MHD_HTTP_NOT_FOUND, r);
    MHD_destroy_response(r);
    return ret;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: replay_server DIR\n");
        return 2;
    }
    DIR *d = opendir(argv[1]);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL && nfiles < 32) {
        size_t n = strlen(de->d_name);
        if (n < 6 || strcmp(de->d_name + n - 5, ".json") || n > 200)
            continue;
        file *f = &files[nfiles];
        snprintf(f->path, sizeof(f->path), "/%.*s", (int)(n - 5), de->d_name);
        for (char *p = f->path; *p; p++)
            if (*p == '_')
                *p = '/';
        char full[4096];
        snprintf(full, sizeof(full), "%s/%s", argv[1], de->d_name);
        FILE *fp = fopen(full, "rb");
        if (fp == NULL)
            continue;
        fseek(fp, 0, SEEK_END);
        f->len = (size_t)ftell(fp);
        rewind(fp);
        f->data = malloc(f->len + 1);
        if (f->data && fread(f->data, 1, f->len, fp) == f->len)
            nfiles++;
        fclose(fp);
    }
    if (d)
        closedir(d);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *m = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION, 0, NULL, NULL, serve, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa, MHD_OPTION_END);
    if (m == NULL)
        return 1;
    printf("%u\n", MHD_get_daemon_info(m, MHD_DAEMON_INFO_BIND_PORT)->port);
    fflush(stdout);
    int sig;
    sigwait(&set, &sig);
    MHD_stop_daemon(m);
    for (size_t i = 0; i < nfiles; i++)
        free(files[i].data);
    return 0;
}
