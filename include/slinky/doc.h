/*
 * libslinky doc: a generic JSON/YAML value tree shared by every module.
 *
 * A slinky_doc owns all of its values (they live in the document's arena).
 * Values are handed out as borrowed `slinky_doc_value *` pointers that stay
 * valid until the document is freed or the value (or a container above it)
 * is removed or overwritten. A value always belongs to exactly one document;
 * operations that take a value from another document deep-copy it.
 *
 * Types: null, bool, int (int64), double, string, array, object. Objects keep
 * insertion order and their keys are unique (setting an existing key replaces
 * its value in place). Strings are UTF-8 and may contain NUL bytes (use the
 * _len accessors for those); every string is also NUL terminated.
 *
 * Numbers: integers that fit int64 are SLINKY_DOC_INT and round-trip exactly.
 * Any other number (fractions, exponents, integers beyond int64) is
 * SLINKY_DOC_DOUBLE and keeps the text it was parsed from, which the JSON and
 * YAML writers emit unchanged, so nothing is lost in a round trip.
 *
 * Threads: a document may be read by several threads at once as long as no
 * thread modifies it; any modification needs exclusive access.
 *
 * Errors: parse errors return SLINKY_EPARSE with line and column set in
 * slinky_error_last() (1-based) and in the message ("line 3, column 7: ...").
 */
#ifndef SLINKY_DOC_H
#define SLINKY_DOC_H

#include "common.h"

SLINKY_BEGIN_DECLS

typedef struct slinky_doc slinky_doc;
typedef struct slinky_doc_value slinky_doc_value;

/** The type of a value. */
typedef enum slinky_doc_type {
    SLINKY_DOC_NULL = 0,
    SLINKY_DOC_BOOL = 1,
    SLINKY_DOC_INT = 2,
    SLINKY_DOC_DOUBLE = 3,
    SLINKY_DOC_STRING = 4,
    SLINKY_DOC_ARRAY = 5,
    SLINKY_DOC_OBJECT = 6
} slinky_doc_type;

/* ------------------------------------------------------------------ */
/* Documents                                                          */
/* ------------------------------------------------------------------ */

/** Create an empty document whose root is null. */
SLINKY_API slinky_status slinky_doc_new(slinky_doc **out);

/** Free a document and every value in it. NULL is ignored. */
SLINKY_API void slinky_doc_free(slinky_doc *doc);

/** The root value (never NULL for a valid document). */
SLINKY_API slinky_doc_value *slinky_doc_root(slinky_doc *doc);

/** The document that owns a value. */
SLINKY_API slinky_doc *slinky_doc_value_doc(const slinky_doc_value *v);

/**
 * Parse JSON (RFC 8259, strict: no comments, no trailing commas, no NaN,
 * UTF-8 validated, lone surrogates rejected) into a new document.
 * Exactly one value; trailing non-space input is an error.
 * Nesting deeper than 1000 levels is rejected. A repeated key in an object
 * takes the last value (slinky_model_object_parse_json refuses it).
 */
SLINKY_API slinky_status slinky_doc_parse_json(slinky_doc **out, const char *data, size_t len);

/**
 * Parse the first YAML document of a stream into a new document, with the
 * scalar typing kubectl applies to manifests (YAML 1.1 as go-yaml v2 resolves
 * plain scalars: true/false/yes/no/on/off, null/~/empty, decimal, 0x, 0o/0
 * octal, 0b, underscores, floats, .inf/.nan; quoted scalars stay strings;
 * timestamps stay strings as written). Anchors and aliases are expanded;
 * merge keys (<<) are applied. Leading documents that are empty or null are
 * skipped; an empty stream gives a null root. Mapping keys that are not
 * scalars are rejected; scalar keys are taken as written ("1: x" has key "1").
 * A key written twice in one mapping is SLINKY_EPARSE naming both lines, as
 * go-yaml says it ("line 5: duplicate key \"a\" (already defined at line 3)");
 * keys brought in by a merge key may be overridden.
 */
SLINKY_API slinky_status slinky_doc_parse_yaml(slinky_doc **out, const char *data, size_t len);

/**
 * Parse every document of a YAML stream; the root of the new document is an
 * array with one element per document (documents that are empty or null,
 * such as a trailing `---`, are skipped, as kubectl does).
 */
SLINKY_API slinky_status slinky_doc_parse_yaml_all(slinky_doc **out, const char *data,
                                                   size_t len);

/**
 * Read a file and parse it: JSON when its first non-blank byte is `{` or
 * `[`, YAML (first document) otherwise. Errors name the file.
 */
SLINKY_API slinky_status slinky_doc_load_file(slinky_doc **out, const char *path);

/** Deep-copy a value (from any document) into a new document. */
SLINKY_API slinky_status slinky_doc_new_copy(slinky_doc **out, const slinky_doc_value *v);

/* ------------------------------------------------------------------ */
/* Reading values (NULL-tolerant: a NULL value reads as null/0/"")    */
/* ------------------------------------------------------------------ */

SLINKY_API slinky_doc_type slinky_doc_value_type(const slinky_doc_value *v);
/** Static name of a type ("null", "boolean", "integer", "number", "string", "array", "object"). */
SLINKY_API const char *slinky_doc_type_name(slinky_doc_type t);

SLINKY_API bool slinky_doc_value_is_null(const slinky_doc_value *v);
/** True for SLINKY_DOC_INT and SLINKY_DOC_DOUBLE. */
SLINKY_API bool slinky_doc_value_is_number(const slinky_doc_value *v);

/** The boolean; false for non-booleans. */
SLINKY_API bool slinky_doc_value_get_bool(const slinky_doc_value *v);
/** The integer; a double is truncated; 0 for non-numbers. */
SLINKY_API int64_t slinky_doc_value_get_int(const slinky_doc_value *v);
/** The number as a double (ints converted); 0 for non-numbers. */
SLINKY_API double slinky_doc_value_get_double(const slinky_doc_value *v);
/**
 * The original text of a SLINKY_DOC_DOUBLE that was parsed (e.g.
 * "18446744073709551616" or "1.50"), or NULL when it has none.
 */
SLINKY_API const char *slinky_doc_value_get_number_text(const slinky_doc_value *v);
/** The string (NUL terminated), or NULL for non-strings. Borrowed. */
SLINKY_API const char *slinky_doc_value_get_string(const slinky_doc_value *v);
/** Length in bytes of a string; 0 for non-strings. */
SLINKY_API size_t slinky_doc_value_get_string_len(const slinky_doc_value *v);

/** Element count of an array or member count of an object; 0 otherwise. */
SLINKY_API size_t slinky_doc_value_size(const slinky_doc_value *v);
/** Array element i, or NULL when out of range or not an array. */
SLINKY_API slinky_doc_value *slinky_doc_value_at(const slinky_doc_value *v, size_t i);
/** Object member by key, or NULL when absent or not an object. */
SLINKY_API slinky_doc_value *slinky_doc_value_get(const slinky_doc_value *v, const char *key);
/** Key of object member i (insertion order), or NULL. */
SLINKY_API const char *slinky_doc_value_key_at(const slinky_doc_value *v, size_t i);
/** Value of object member i (insertion order), or NULL. */
SLINKY_API slinky_doc_value *slinky_doc_value_member_at(const slinky_doc_value *v, size_t i);

/**
 * Look up a dotted path such as "spec.extraConf", "metadata.labels.app" or
 * "spec.template.spec.containers[0].name". A segment that contains dots or
 * brackets can be quoted: `metadata.annotations["example.com/x"]`.
 * NULL when any step is missing.
 */
SLINKY_API slinky_doc_value *slinky_doc_value_path(const slinky_doc_value *v, const char *path);

/**
 * Look up an RFC 6901 JSON pointer ("/spec/nodes/0", "~0" and "~1" escapes).
 * "" is the value itself. NULL when missing or malformed.
 */
SLINKY_API slinky_doc_value *slinky_doc_value_pointer(const slinky_doc_value *v,
                                                      const char *pointer);

/* Convenience getters that combine path lookup and typed read.           */
/** String at path, or `fallback` when missing or not a string. */
SLINKY_API const char *slinky_doc_value_path_string(const slinky_doc_value *v, const char *path,
                                                    const char *fallback);
/** Integer at path, or `fallback` when missing or not a number. */
SLINKY_API int64_t slinky_doc_value_path_int(const slinky_doc_value *v, const char *path,
                                             int64_t fallback);
/** Boolean at path, or `fallback` when missing or not a boolean. */
SLINKY_API bool slinky_doc_value_path_bool(const slinky_doc_value *v, const char *path,
                                           bool fallback);

/* ------------------------------------------------------------------ */
/* Modifying values (all in place, within the value's own document)   */
/* ------------------------------------------------------------------ */

/* Replace a value (of any type) by a scalar. Containers below it are dropped. */
SLINKY_API slinky_status slinky_doc_value_set_null(slinky_doc_value *v);
SLINKY_API slinky_status slinky_doc_value_set_bool(slinky_doc_value *v, bool b);
SLINKY_API slinky_status slinky_doc_value_set_int(slinky_doc_value *v, int64_t i);
/** Set a double; NaN and infinities are rejected with SLINKY_EINVALID. */
SLINKY_API slinky_status slinky_doc_value_set_double(slinky_doc_value *v, double d);
/** Set a string (copied). NULL s is SLINKY_EINVALID. */
SLINKY_API slinky_status slinky_doc_value_set_string(slinky_doc_value *v, const char *s);
/** Set a string of len bytes (copied; may contain NUL). */
SLINKY_API slinky_status slinky_doc_value_set_string_len(slinky_doc_value *v, const char *s,
                                                         size_t len);
/** Replace by an empty array. */
SLINKY_API slinky_status slinky_doc_value_set_array(slinky_doc_value *v);
/** Replace by an empty object. */
SLINKY_API slinky_status slinky_doc_value_set_object(slinky_doc_value *v);
/**
 * Replace v by a deep copy of src (src may belong to any document, and may
 * even be v or lie inside v).
 */
SLINKY_API slinky_status slinky_doc_value_set_copy(slinky_doc_value *v,
                                                   const slinky_doc_value *src);

/**
 * Get or create object member `key`: an existing member is returned as is,
 * a new one is appended as null. v must be an object (SLINKY_EINVALID
 * otherwise). *out is borrowed.
 */
SLINKY_API slinky_status slinky_doc_value_object_put(slinky_doc_value **out, slinky_doc_value *v,
                                                     const char *key);
/**
 * Set member `key` to a deep copy of src (replacing an existing value in
 * its position, or appending).
 */
SLINKY_API slinky_status slinky_doc_value_object_set(slinky_doc_value *v, const char *key,
                                                     const slinky_doc_value *src);
/** Convenience: set member `key` to a string. */
SLINKY_API slinky_status slinky_doc_value_object_set_string(slinky_doc_value *v, const char *key,
                                                            const char *s);
/** Convenience: set member `key` to an integer. */
SLINKY_API slinky_status slinky_doc_value_object_set_int(slinky_doc_value *v, const char *key,
                                                         int64_t i);
/** Convenience: set member `key` to a boolean. */
SLINKY_API slinky_status slinky_doc_value_object_set_bool(slinky_doc_value *v, const char *key,
                                                          bool b);
/** Remove member `key`; SLINKY_ENOTFOUND when absent. Order of the rest is kept. */
SLINKY_API slinky_status slinky_doc_value_object_remove(slinky_doc_value *v, const char *key);

/** Append a new null element to an array; *out (may be NULL) receives it. */
SLINKY_API slinky_status slinky_doc_value_array_append(slinky_doc_value **out,
                                                       slinky_doc_value *v);
/** Insert a new null element before index i (i == size appends). */
SLINKY_API slinky_status slinky_doc_value_array_insert(slinky_doc_value **out, slinky_doc_value *v,
                                                       size_t i);
/** Remove element i; SLINKY_ENOTFOUND when out of range. */
SLINKY_API slinky_status slinky_doc_value_array_remove(slinky_doc_value *v, size_t i);

/**
 * Get or create the value at a dotted path (syntax as slinky_doc_value_path),
 * creating missing objects on the way (a missing array index is an error).
 * A step through a non-object scalar is SLINKY_EINVALID. *out is borrowed.
 */
SLINKY_API slinky_status slinky_doc_value_path_put(slinky_doc_value **out, slinky_doc_value *v,
                                                   const char *path);

/* ------------------------------------------------------------------ */
/* Output                                                             */
/* ------------------------------------------------------------------ */

/** Output flags. */
enum slinky_doc_dump_flags {
    SLINKY_DOC_DUMP_COMPACT = 0, /**< JSON on one line, no spaces */
    SLINKY_DOC_DUMP_PRETTY = 1,  /**< JSON indented by 2 spaces */
    SLINKY_DOC_DUMP_SORT_KEYS = 2 /**< object keys in byte order instead of insertion order */
};

/**
 * Serialize a value as JSON. *json_out is NUL terminated and released with
 * slinky_free(); *len_out (may be NULL) receives its length without the NUL.
 * Output is valid UTF-8; control characters and U+2028/2029 are escaped.
 * NaN and infinities (only YAML's .nan/.inf produce them) have no JSON form:
 * SLINKY_EINVALID.
 */
SLINKY_API slinky_status slinky_doc_value_dump_json(char **json_out, size_t *len_out,
                                                    const slinky_doc_value *v, unsigned flags);

/**
 * Serialize a value as YAML (block style, 2-space indent, like kubectl's
 * `-o yaml`). Strings that would read back as another type ("yes", "1.0",
 * "null", "0777", "") or that need it are quoted, so parse_yaml(dump_yaml(v))
 * is equal to v. SLINKY_DOC_DUMP_COMPACT and _PRETTY are the same here.
 */
SLINKY_API slinky_status slinky_doc_value_dump_yaml(char **yaml_out, size_t *len_out,
                                                    const slinky_doc_value *v, unsigned flags);

/**
 * Write a value to a file atomically (temporary file in the same folder,
 * fsync, rename). JSON or YAML chosen by `yaml`.
 */
SLINKY_API slinky_status slinky_doc_value_save_file(const slinky_doc_value *v, const char *path,
                                                    bool yaml, unsigned flags);

/* ------------------------------------------------------------------ */
/* Comparison and patches                                             */
/* ------------------------------------------------------------------ */

/**
 * Deep equality: same type and content; object member order is ignored;
 * an int and a double are equal when numerically equal. NULLs are equal
 * to each other only.
 */
SLINKY_API bool slinky_doc_value_equal(const slinky_doc_value *a, const slinky_doc_value *b);

/**
 * Apply an RFC 7386 JSON merge patch to target, in place. patch may belong
 * to any document. Never fails on well-formed input.
 */
SLINKY_API slinky_status slinky_doc_merge_patch_apply(slinky_doc_value *target,
                                                      const slinky_doc_value *patch);

/**
 * Compute the RFC 7386 merge patch that turns `from` into `to` (a new
 * document). Note that a merge patch cannot set a value to null or express
 * array edits other than by replacement; when `to` holds nulls inside
 * objects the result is SLINKY_EINVALID.
 */
SLINKY_API slinky_status slinky_doc_merge_patch_create(slinky_doc **out,
                                                       const slinky_doc_value *from,
                                                       const slinky_doc_value *to);

/**
 * Apply an RFC 6902 JSON patch (an array of operations: add, remove,
 * replace, move, copy, test) to target. Atomic: on any failure (a failed
 * test, a missing path, a malformed operation) target is left unchanged and
 * the error message names the operation index and path.
 */
SLINKY_API slinky_status slinky_doc_json_patch_apply(slinky_doc_value *target,
                                                     const slinky_doc_value *patch);

/**
 * Compute an RFC 6902 JSON patch (a new document whose root is an array)
 * that turns `from` into `to`: objects are compared member by member,
 * arrays element by element (trailing additions/removals as add/remove),
 * other differences as replace. An empty array means equal.
 */
SLINKY_API slinky_status slinky_doc_json_patch_create(slinky_doc **out,
                                                      const slinky_doc_value *from,
                                                      const slinky_doc_value *to);

/**
 * Escape one reference token for a JSON pointer ("~" -> "~0", "/" -> "~1").
 * *out released with slinky_free().
 */
SLINKY_API slinky_status slinky_doc_pointer_escape(char **out, const char *token);

SLINKY_END_DECLS

#endif
