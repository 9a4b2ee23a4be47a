/* srv_http.h — the HTTP side of `sowzero serve`: libmicrohttpd (Debian libmicrohttpd-dev) serving the page
 * (web/, embedded in the binary: serve/srv_assets.h) and passing /api/ requests to srv_app.
 *
 * The daemon runs a fixed pool of threads (threads, 1..64) with MHD's internal polling; request bodies
 * are read up to the app's max_body (the rest is discarded and the request answered 413; past 16 times
 * the limit the connection is closed instead of read to its end), idle
 * connections are closed after 30 s and at most 512 are open at once. Only GET/HEAD reach the page's files.
 * Binding: `bind` is a numeric IPv4 address (default 127.0.0.1: loopback only unless told otherwise);
 * port 0 picks a free port (srv_http_port tells which).
 * Library code: nothing prints; errors come back with a message (SRV_ERRLEN).
 */
#ifndef SOWZERO_SRV_HTTP_H
#define SOWZERO_SRV_HTTP_H

#include "serve/srv_app.h"

typedef struct srv_http srv_http;

/* Starts serving app (borrowed: it must outlive the server) on bind:port. NULL with the reason in err
 * (a bad address, the port taken, ...). */
srv_http *srv_http_start(srv_app *app, const char *bind, int port, int threads, char *err);
int srv_http_port(const srv_http *h);
/* Stops accepting, finishes the requests in flight and frees the server (NULL allowed). */
void srv_http_stop(srv_http *h);

#endif
