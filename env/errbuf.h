/* errbuf.h — the library's one way of reporting a failure's reason: fill the caller's message buffer
 * (which may be NULL) and return an error code; library code never prints. Every module above env uses
 * it through a one-line macro naming its own buffer size, e.g.
 *   #define set_err(err, ...) errbuf_set(err, KALAH_ERRLEN, __VA_ARGS__)
 * (nn/ keeps its own copy: it depends on nothing of the game side, docs/design.md §3). */
#ifndef SOWZERO_ERRBUF_H
#define SOWZERO_ERRBUF_H

#include <stddef.h>

/* printf-formats into err[size] (always NUL-terminated, truncated if longer); does nothing if err is NULL. */
void errbuf_set(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
