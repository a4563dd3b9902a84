/* core/deps: a program that uses core and doc only (global init, the log callback, a JSON
 * parse). Linked statically with --as-needed, it must need neither libcurl nor libgit2. */
#include <stdio.h>
#include <string.h>

#include "slinky.h"

static void log_cb(slinky_log_level level, const char *module, const char *msg, void *payload)
{
    (void)level;
    (void)module;
    (void)msg;
    (void)payload;
}

int main(void)
{
    slinky_log_set_callback(log_cb, SLINKY_LOG_DEBUG, NULL);
    if (slinky_global_init() != 0)
        return 1;
    slinky_doc *d = NULL;
    int rc = slinky_doc_parse_json(&d, "{\"a\":1}", 7);
    slinky_doc_free(d);
    if (slinky_global_shutdown() != 0 || rc != 0)
        return 1;
    puts("ok");
    return 0;
}
