#include "env/errbuf.h"

#include <stdarg.h>
#include <stdio.h>

void errbuf_set(char *err, size_t size, const char *fmt, ...)
{
    if (!err || !size)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, size, fmt, ap);
    va_end(ap);
}
