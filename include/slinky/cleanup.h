/*
 * libslinky cleanup helpers (optional, not included by slinky.h): one
 * slinky_<type>_freep per freeable type, for GCC/Clang's
 * __attribute__((cleanup)), so a local is released when it goes out of scope:
 *
 *     SLINKY_CLEANUP(slinky_doc_freep) slinky_doc *d = NULL;
 *     SLINKY_CLEANUP(slinky_freep) char *s = NULL;
 *     if (slinky_doc_parse_json(&d, text, len) < 0)
 *         return -1;              // nothing leaks on any return path
 *     return slinky_doc_dump_json(&s, slinky_doc_root(d), 0);
 *
 * Each helper takes the address of the variable and frees what it points to
 * with the matching _free (NULL is ignored, as _free does); it does not reset
 * the variable. To keep an object past the scope, hand it on and set the
 * variable to NULL. slinky_freep releases strings and buffers the library
 * handed out (slinky_free). SLINKY_CLEANUP expands to nothing with compilers
 * that lack the attribute; the helpers themselves are plain C99/C++.
 */
#ifndef SLINKY_CLEANUP_H
#define SLINKY_CLEANUP_H

#include "slinky/conf.h"
#include "slinky/core.h"
#include "slinky/doc.h"
#include "slinky/jail.h"
#include "slinky/kube.h"
#include "slinky/ledger.h"
#include "slinky/model.h"

#if defined(__GNUC__) || defined(__clang__)
/** Declare a local released by `fn(&local)` when it goes out of scope (GCC/Clang). */
#define SLINKY_CLEANUP(fn) __attribute__((cleanup(fn)))
#else
/** Expands to nothing: this compiler has no cleanup attribute. */
#define SLINKY_CLEANUP(fn)
#endif

SLINKY_BEGIN_DECLS

/** For a `char *` (or any pointer) the library handed out: slinky_free(*p). */
static inline void slinky_freep(void *p)
{
    slinky_free(*(void **)p);
}

/**
 * Internal: defines `free_fn##p(type **p)`, which calls free_fn(*p), for
 * SLINKY_CLEANUP (undefined again at the end of this header).
 */
#define SLINKY__FREEP(type, free_fn)                                                           \
    static inline void free_fn##p(type **p)                                                    \
    {                                                                                          \
        free_fn(*p);                                                                           \
    }

SLINKY__FREEP(slinky_doc, slinky_doc_free)
SLINKY__FREEP(slinky_kube_config, slinky_kube_config_free)
SLINKY__FREEP(slinky_kube_client, slinky_kube_client_free)
SLINKY__FREEP(slinky_kube_list_iter, slinky_kube_list_iter_free)
SLINKY__FREEP(slinky_kube_watch, slinky_kube_watch_free)
SLINKY__FREEP(slinky_kube_watch_decoder, slinky_kube_watch_decoder_free)
SLINKY__FREEP(slinky_kube_informer, slinky_kube_informer_free)
SLINKY__FREEP(slinky_kube_workqueue, slinky_kube_workqueue_free)
SLINKY__FREEP(slinky_kube_controller, slinky_kube_controller_free)
SLINKY__FREEP(slinky_kube_leader, slinky_kube_leader_free)
SLINKY__FREEP(slinky_model_object, slinky_model_object_free)
SLINKY__FREEP(slinky_model_problems, slinky_model_problems_free)
SLINKY__FREEP(slinky_conf, slinky_conf_free)
SLINKY__FREEP(slinky_conf_diff, slinky_conf_diff_free)
SLINKY__FREEP(slinky_ledger, slinky_ledger_free)
SLINKY__FREEP(slinky_jail_spec, slinky_jail_spec_free)

#undef SLINKY__FREEP

SLINKY_END_DECLS

#endif
