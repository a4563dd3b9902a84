/*
 * Files: load (JSON or YAML by first byte) and atomic save.
 */
#include <stdlib.h>

#include "doc/doc_internal.h"

slinky_status slinky_doc_load_file(slinky_doc **out, const char *path)
{
    return slinky_doc__load_file(out, path, false);
}

int slinky_doc__load_file(slinky_doc **out, const char *path, bool unique_keys)
{
    if (!out || !path)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_load_file: NULL argument");
    char *data;
    size_t len;
    int rc = slinky__read_file(&data, &len, path);
    if (rc < 0)
        return rc;
    size_t i = 0;
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
        i++;
    bool json = i < len && (data[i] == '{' || data[i] == '[');
    rc = json ? slinky_doc__parse_json(out, data, len, unique_keys)
              : slinky_doc_parse_yaml(out, data, len);
    free(data);
    if (rc < 0)
        slinky__error_prefix("%s: ", path);
    return rc;
}

slinky_status slinky_doc_value_save_file(const slinky_doc_value *v, const char *path, bool yaml,
                                         unsigned flags)
{
    if (!v || !path)
        return slinky__error_set(SLINKY_EINVALID, "slinky_doc_value_save_file: NULL argument");
    slinky__buf b = SLINKY__BUF_INIT;
    int rc = yaml ? slinky_doc__emit_yaml(&b, v, flags) : slinky_doc__emit_json(&b, v, flags);
    if (rc == 0 && !yaml)
        rc = slinky__buf_putc(&b, '\n');
    if (rc == 0)
        rc = slinky__write_file_atomic(path, b.data ? b.data : "", b.len, 0644);
    slinky__buf_dispose(&b);
    return rc;
}
