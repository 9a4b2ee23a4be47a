/* srv_http.h — the HTTP side of `sowzero serve`: libmicrohttpd (Debian libmicrohttpd-dev) serving the page
 * (web/, embedded in the binary: serve/srv_assets.h) and passing /api/ requests to srv_app.
 *
 * The daemon runs a fixed pool of threads (threads, 1..64) with MHD's internal polling; request bodies
 * are read up to the app's max_body (the rest is discarded and the request answered 413; past 16 times
 * the limit the connection is closed instead of read to its end), idle
 * connections are closed after 30 s and at most 512 are open at once. Only GET/HEAD reach the page's files.
 * A request target longer than SRV_HTTP_MAX_URI bytes or with more than SRV_HTTP_MAX_ARGS query
 * parameters is answered 414 with the JSON error body, before libmicrohttpd parses its query.
 * Binding: `where` is a numeric IPv4 address (127.0.0.1, 0.0.0.0), a numeric IPv6 address (::1, ::, with or
 * without [brackets]) or a host name resolved with getaddrinfo (localhost: the first of its addresses that
 * can be bound); port 0 picks a free port (srv_http_port tells which).
 * Stopping: srv_http_drain stops accepting connections and waits for the requests in flight until their
 * response's last byte is sent: those being answered, and those sent before the stop but waiting for a
 * request thread (their connection accepted, or still in the listening socket's backlog, which is handed
 * to the request threads at the stop); a request or body still arriving, and a connection that has sent
 * nothing yet, get SRV_HTTP_RECEIVE_GRACE_MS. srv_http_stop then closes what is left.
 * Library code: nothing prints; errors come back with a message (SRV_ERRLEN).
 */
#ifndef SOWZERO_SRV_HTTP_H
#define SOWZERO_SRV_HTTP_H

#include "serve/srv_app.h"

#define SRV_HTTP_MAX_URI 4096 /* bytes of a request target (path and query) */
#define SRV_HTTP_MAX_ARGS 64  /* query parameters of one request */
#define SRV_HTTP_RECEIVE_GRACE_MS 2000 /* at a stop, for requests still arriving */

typedef struct srv_http srv_http;

/* Starts serving app (borrowed: it must outlive the server) on where:port (port 0..65535) with threads
 * (1..64) request threads; *out is the server. SRV_OK; SRV_EINVAL for the caller's input: an address that
 * does not parse or resolve, one that is not an address of this machine, a port in use or not allowed
 * (the message names "--bind" or "--port"), threads out of range; SRV_EFAIL or SRV_ENOMEM when the
 * system fails. *out is NULL on error, with the reason in err. */
int srv_http_start(srv_app *app, const char *where, int port, int threads, srv_http **out, char *err);
int srv_http_port(const srv_http *h);
/* The numeric address listened on ("127.0.0.1", "::1"; static while h lives). */
const char *srv_http_address(const srv_http *h);
/* Stops accepting connections, marks every response sent from now on "Connection: close", and waits up to
 * timeout_ms (>= 0) for the requests in flight to be answered (see above). Returns how many are still in
 * flight (0: all answered). May be called again. */
int srv_http_drain(srv_http *h, int timeout_ms);
/* Stops the server, closing connections whose requests are still in flight (call srv_http_drain first to
 * let them finish), and frees it (NULL allowed). */
void srv_http_stop(srv_http *h);

#endif
