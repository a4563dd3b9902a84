/* libcurl, loaded on the first call (see core/dynload.h): every libcurl function kube calls.
 * A function missing here fails the link of libslinky.so (-Wl,--no-undefined). */
#include "core/dynload.h"

#define SLINKY_CURL_FUNCS(X, a)                                                                \
    X(a, curl_easy_cleanup) X(a, curl_easy_getinfo) X(a, curl_easy_init)                       \
    X(a, curl_easy_perform) X(a, curl_easy_reset) X(a, curl_easy_setopt)                       \
    X(a, curl_easy_strerror) X(a, curl_free) X(a, curl_global_cleanup) X(a, curl_global_init)  \
    X(a, curl_multi_add_handle) X(a, curl_multi_cleanup) X(a, curl_multi_info_read)            \
    X(a, curl_multi_init) X(a, curl_multi_perform) X(a, curl_multi_poll)                       \
    X(a, curl_multi_remove_handle) X(a, curl_multi_wakeup) X(a, curl_share_cleanup)            \
    X(a, curl_share_init) X(a, curl_share_setopt) X(a, curl_slist_append)                      \
    X(a, curl_slist_free_all) X(a, curl_url) X(a, curl_url_cleanup) X(a, curl_url_get)        \
    X(a, curl_url_set)

#ifdef SLINKY_CURL_SONAME
SLINKY__DYNLIB(curl, SLINKY_CURL_SONAME, SLINKY_CURL_FUNCS)
#endif
