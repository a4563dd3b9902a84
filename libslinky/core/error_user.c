/* Recording an error from outside the library (programs, callbacks). */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

int slinky_error_set(int code, const char *fmt, ...)
{
    char msg[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt ? fmt : "", ap);
    va_end(ap);
    if (code >= 0)
        code = SLINKY_ERROR;
    return slinky__error_set(code, "%s", msg);
}
