/* libgit2, loaded on the first call (see core/dynload.h): every libgit2 function the ledger
 * calls. A function missing here fails the link of libslinky.so (-Wl,--no-undefined). */
#include "core/dynload.h"

#define SLINKY_GIT2_FUNCS(X, a)                                                                \
    X(a, git_blob_create_from_buffer) X(a, git_blob_free) X(a, git_blob_lookup)                \
    X(a, git_blob_rawcontent) X(a, git_blob_rawsize) X(a, git_commit_create)                   \
    X(a, git_commit_free) X(a, git_commit_id) X(a, git_commit_lookup) X(a, git_commit_message) \
    X(a, git_commit_parent) X(a, git_commit_parentcount) X(a, git_commit_time)                 \
    X(a, git_commit_tree) X(a, git_commit_tree_id) X(a, git_error_clear) X(a, git_error_last)  \
    X(a, git_graph_descendant_of) X(a, git_libgit2_init) X(a, git_libgit2_opts)                \
    X(a, git_libgit2_shutdown) X(a, git_mempack_new) X(a, git_mempack_reset)                   \
    X(a, git_message_trailer_array_free) X(a, git_message_trailers) X(a, git_odb_add_backend)  \
    X(a, git_odb_exists) X(a, git_odb_free) X(a, git_odb_hash) X(a, git_odb_object_data)       \
    X(a, git_odb_object_free) X(a, git_odb_object_size) X(a, git_odb_object_type)              \
    X(a, git_odb_read) X(a, git_odb_write) X(a, git_oid_cpy) X(a, git_oid_equal)               \
    X(a, git_oid_tostr) X(a, git_reference_create) X(a, git_reference_create_matching)         \
    X(a, git_reference_free) X(a, git_reference_name_to_id) X(a, git_repository_free)          \
    X(a, git_repository_init_ext) X(a, git_repository_odb) X(a, git_repository_open_bare)      \
    X(a, git_repository_path) X(a, git_revwalk_free) X(a, git_revwalk_hide)                    \
    X(a, git_revwalk_new) X(a, git_revwalk_next) X(a, git_revwalk_push)                        \
    X(a, git_revwalk_sorting) X(a, git_signature_free) X(a, git_signature_new)                 \
    X(a, git_signature_now) X(a, git_tree_create_updated) X(a, git_tree_entry_byindex)         \
    X(a, git_tree_entry_bypath) X(a, git_tree_entry_free) X(a, git_tree_entry_id)              \
    X(a, git_tree_entry_type) X(a, git_tree_entrycount) X(a, git_tree_free)                    \
    X(a, git_tree_lookup) X(a, git_treebuilder_free) X(a, git_treebuilder_new)                 \
    X(a, git_treebuilder_write)

#ifdef SLINKY_GIT2_SONAME
SLINKY__DYNLIB(git2, SLINKY_GIT2_SONAME, SLINKY_GIT2_FUNCS)
#endif
