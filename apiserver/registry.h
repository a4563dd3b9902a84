/*
 * Layer 5: resource types. The built-in kinds and those CustomResourceDefinitions
 * describe: lookup by group/version/plural, CRD checks, (re)registration and
 * removal (which deletes the CRD's objects through the store).
 *
 * Threads: as_server.lock held for everything but as_registry_check_crd (pure).
 */
#ifndef SLINKY_APISERVER_REGISTRY_H
#define SLINKY_APISERVER_REGISTRY_H

#include "pure.h"
#include "store.h"

/** Register the built-in kinds. */
int as_registry_init(as_server *s);
void as_registry_free(as_server *s);
/** A served resource type by group/version/plural; *ver_out its version. */
as_rtype *as_registry_find(as_server *s, const char *group, const char *version,
                           const char *plural, as_version **ver_out);
/** A resource type by group and plural, served or not. */
as_rtype *as_registry_find_gr(as_server *s, const char *group, const char *plural);
/** (Re)register the types a CRD object describes. */
int as_registry_apply_crd(as_server *s, const slinky_doc_value *crd);
/** Check a CRD object before it is stored (names, versions, schema). */
int as_registry_check_crd(as_causes *causes, const slinky_doc_value *crd);
/** Stop serving a CRD's kind, deleting its objects (DELETED events). */
void as_registry_remove_crd(as_server *s, const slinky_doc_value *crd);
/** Loading: forget a CRD's kind and its objects without events. */
void as_registry_drop_crd(as_server *s, const slinky_doc_value *crd);

#endif
