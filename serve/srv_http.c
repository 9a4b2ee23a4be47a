/* srv_http.c — libmicrohttpd glue: the page's files and the /api/ requests (see srv_http.h). */
#define _GNU_SOURCE
#include "serve/srv_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "env/errbuf.h"
#include "serve/srv_assets.h"

#define set_err(err, ...) errbuf_set(err, SRV_ERRLEN, __VA_ARGS__)

/* What a connection's socket is doing, by descriptor (libmicrohttpd's select mode keeps every connection
 * below FD_SETSIZE). At a stop, a connection that is not in a request but has bytes waiting sent its
 * request before the stop: a request thread busy with another connection's search has not read it yet. */
enum {
    CONN_NONE,
    CONN_ADOPTED, /* taken from the listening socket's backlog at the stop, not yet seen by its thread */
    CONN_FRESH,   /* open, no request yet */
    CONN_BUSY,    /* a request from its request line to its completion */
    CONN_IDLE     /* kept alive after a request */
};

struct srv_http {
    struct MHD_Daemon *d;
    srv_app *app;
    size_t max_body;
    int port;
    int fd;              /* the listening socket; ours to close once the daemon is quiesced */
    int quiesced;
    atomic_int stopping; /* responses from now on close their connection */
    atomic_int receiving; /* requests from their request line on, headers or body still arriving */
    atomic_int answering; /* requests in the app or being sent */
    pthread_mutex_t conn_mu;
    unsigned char conn[FD_SETSIZE]; /* CONN_*, under conn_mu */
    int settled;         /* consecutive drain polls that found nothing in flight */
    struct timespec t_quiesce;
    char addr[INET6_ADDRSTRLEN];
};

/* One request, from its request line (uri_seen) to its completion (completed); its body as it arrives,
 * bytes past the limit counted, not kept. */
typedef struct {
    char *buf;
    size_t len, total;
    int state;           /* 1: headers or body arriving (receiving), 2: answering */
    int called;          /* the access handler has seen the headers */
    size_t uri_len, n_args;
} request;

const srv_asset *srv_asset_find(const char *path)
{
    if (!strcmp(path, "/"))
        path = "/index.html";
    for (int i = 0; i < srv_n_assets; i++)
        if (!strcmp(srv_assets[i].path, path))
            return &srv_assets[i];
    return NULL;
}

/* MHD_get_connection_values' iterator: counts the Content-Length headers into *cls. */
static enum MHD_Result count_content_length(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    (void)value;
    if (key && !strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH))
        ++*(int *)cls;
    return MHD_YES;
}

static enum MHD_Result reply_send(srv_http *h, struct MHD_Connection *c, int status, const char *type, void *data,
                                  size_t len, enum MHD_ResponseMemoryMode mode)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, data, mode);
    if (!r) {
        if (mode == MHD_RESPMEM_MUST_FREE)
            free(data);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    /* While stopping, a kept-alive connection would only be cut after its next request line. */
    if (atomic_load(&h->stopping))
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ok;
}

/* A JSON error whose message holds no request text (so needs no escaping). */
static enum MHD_Result reply_error(srv_http *h, struct MHD_Connection *c, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static enum MHD_Result reply_error(srv_http *h, struct MHD_Connection *c, int status, const char *fmt, ...)
{
    char msg[256], *body = malloc(400);
    if (!body)
        return MHD_NO;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int n = snprintf(body, 400, "{\"error\":\"%s\",\"status\":%d}", msg, status);
    return reply_send(h, c, status, "application/json", body, (size_t)n, MHD_RESPMEM_MUST_FREE);
}

/* Records what c's socket is doing (CONN_*); a connection outside the table (libmicrohttpd refuses those in
 * select mode) is not tracked. */
static void conn_set(srv_http *h, struct MHD_Connection *c, int what)
{
    const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    if (!ci || ci->connect_fd < 0 || ci->connect_fd >= FD_SETSIZE)
        return;
    pthread_mutex_lock(&h->conn_mu);
    /* A request's completion after its connection closed must not bring it back. */
    if (what != CONN_IDLE || h->conn[ci->connect_fd] == CONN_BUSY)
        h->conn[ci->connect_fd] = (unsigned char)what;
    pthread_mutex_unlock(&h->conn_mu);
}

static void conn_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                        enum MHD_ConnectionNotificationCode what)
{
    (void)socket_context;
    conn_set(cls, c, what == MHD_CONNECTION_NOTIFY_STARTED ? CONN_FRESH : CONN_NONE);
}

/* libmicrohttpd calls this with the request target as soon as the request line is in, before it parses
 * the query into its per-connection memory pool. libmicrohttpd 0.9.75 leaves a connection unanswered
 * when that pool runs out while parsing the query (the 431 it queues is overwritten by the next state),
 * so a query with too many parameters, or too long a target, is cut here (the target is in the
 * connection's own writable read buffer) and answered 414 by the access handler. The returned request
 * is the connection's con_cls. */
static void *uri_seen(void *cls, const char *uri, struct MHD_Connection *c)
{
    srv_http *h = cls;
    conn_set(h, c, CONN_BUSY);
    request *rq = calloc(1, sizeof *rq);
    if (!uri)
        uri = "";
    char *q = strchr(uri, '?');
    size_t n_args = 0, len = strlen(uri);
    if (q) {
        n_args = 1;
        for (const char *p = q + 1; *p; p++)
            n_args += *p == '&';
    }
    if (q && (n_args > SRV_HTTP_MAX_ARGS || len > SRV_HTTP_MAX_URI))
        q[1] = 0;
    if (rq) {
        rq->uri_len = len;
        rq->n_args = n_args;
        rq->state = 1;
        atomic_fetch_add(&h->receiving, 1);
    }
    return rq;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    srv_http *h = cls;
    request *rq = *con_cls;
    if (!rq) {   /* uri_seen ran out of memory */
        if (!(rq = calloc(1, sizeof *rq)))
            return MHD_NO;
        *con_cls = rq;
        rq->state = 1;
        atomic_fetch_add(&h->receiving, 1);
    }
    if (!rq->called) {   /* the headers are in; the body, if any, comes in the next calls */
        rq->called = 1;
        /* Two Content-Length headers: libmicrohttpd reads the first; a proxy in front may have read the
         * other (request smuggling, RFC 9112 6.3). */
        int lengths = 0;
        MHD_get_connection_values(c, MHD_HEADER_KIND, count_content_length, &lengths);
        if (lengths > 1) {
            rq->state = 2;
            atomic_fetch_add(&h->answering, 1);
            atomic_fetch_sub(&h->receiving, 1);
            return reply_error(h, c, 400, "the request has %d Content-Length headers", lengths);
        }
        /* A body announced over the limit is refused now: before a 100 Continue invites it, and without
         * holding the connection while it arrives. */
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        unsigned long long announced = cl ? strtoull(cl, NULL, 10) : 0;
        if (announced > h->max_body) {
            rq->state = 2;
            atomic_fetch_add(&h->answering, 1);
            atomic_fetch_sub(&h->receiving, 1);
            return reply_error(h, c, 413, "the request body has %llu bytes; the limit is %zu", announced,
                               h->max_body);
        }
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        if (rq->total + n <= h->max_body) {
            char *nb = realloc(rq->buf, rq->len + n + 1);
            if (!nb)
                return MHD_NO;
            rq->buf = nb;
            memcpy(rq->buf + rq->len, upload, n);
            rq->len += n;
            rq->buf[rq->len] = 0;
        }
        rq->total += n;
        *upload_size = 0;
        /* Far past the limit the connection is dropped rather than read on: the 413 is for clients that
         * overshoot, not a promise to drain an endless upload. */
        return rq->total / 16 > h->max_body ? MHD_NO : MHD_YES;
    }
    if (rq->state == 1) {
        rq->state = 2;
        atomic_fetch_add(&h->answering, 1);
        atomic_fetch_sub(&h->receiving, 1);
    }
    if (rq->uri_len > SRV_HTTP_MAX_URI)
        return reply_error(h, c, 414, "the request target has %zu bytes; the limit is %d", rq->uri_len,
                           SRV_HTTP_MAX_URI);
    if (rq->n_args > SRV_HTTP_MAX_ARGS)
        return reply_error(h, c, 414, "the query has %zu parameters; the limit is %d", rq->n_args,
                           SRV_HTTP_MAX_ARGS);
    if (!strncmp(url, "/api/", 5)) {
        const char *sess = NULL;
        size_t sess_len = 0;
        if (MHD_lookup_connection_value_n(c, MHD_GET_ARGUMENT_KIND, "session", 7, &sess, &sess_len) != MHD_YES)
            sess = NULL;
        if (sess && strlen(sess) != sess_len) /* a %00 in the query: the id would be cut there */
            return reply_error(h, c, 400, "the query parameter 'session' holds a NUL character");
        const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
        char *out;
        size_t out_len;
        const char *out_type;
        /* A body over the limit reaches the app as its length only (it answers 413). */
        int status = srv_app_handle(h->app, method, url, sess, rq->total > h->max_body ? NULL : rq->buf,
                                    rq->total, type, &out, &out_len, &out_type);
        if (!out)
            return reply_send(h, c, 500, "application/json", "{\"error\":\"out of memory\",\"status\":500}", 38,
                              MHD_RESPMEM_PERSISTENT);
        return reply_send(h, c, status, out_type, out, out_len, MHD_RESPMEM_MUST_FREE);
    }
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
        static const char msg[] = "{\"error\":\"the page's files take GET only\",\"status\":405}";
        return reply_send(h, c, 405, "application/json", (void *)msg, sizeof msg - 1, MHD_RESPMEM_PERSISTENT);
    }
    const srv_asset *a = srv_asset_find(url);
    if (!a) {
        static const char msg[] = "{\"error\":\"no such page\",\"status\":404}";
        return reply_send(h, c, 404, "application/json", (void *)msg, sizeof msg - 1, MHD_RESPMEM_PERSISTENT);
    }
    return reply_send(h, c, 200, a->type, (void *)a->data, a->len, MHD_RESPMEM_PERSISTENT);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
    (void)t;
    srv_http *h = cls;
    conn_set(h, c, CONN_IDLE);
    request *rq = *con_cls;
    if (rq) {
        if (rq->state)
            atomic_fetch_sub(rq->state == 1 ? &h->receiving : &h->answering, 1);
        free(rq->buf);
        free(rq);
        *con_cls = NULL;
    }
}

/* Resolves bind (numeric IPv4, numeric IPv6 with or without brackets, or a host name) and listens on the
 * first of its addresses that binds; *fd is a non-blocking listening socket, addr its numeric address. */
static int open_listener(const char *where, int port, int *fd, char *addr, int *bound_port, char *err)
{
    char host[256];
    size_t n = strlen(where);
    if (n >= sizeof host || !n) {
        set_err(err, "--bind '%.64s': give an address such as 127.0.0.1, ::1 or localhost", where);
        return SRV_EINVAL;
    }
    if (where[0] == '[' && n > 2 && where[n - 1] == ']')
        snprintf(host, sizeof host, "%.*s", (int)(n - 2), where + 1);
    else
        snprintf(host, sizeof host, "%s", where);
    /* A name made of digits and dots, or one with a colon, is meant as a numeric address: refuse it as
     * such rather than asking DNS for a host called 999.1.1.1. */
    int numeric = strchr(host, ':') || strspn(host, "0123456789.") == strlen(host);
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV | (numeric ? AI_NUMERICHOST : 0);
    char ports[8];
    snprintf(ports, sizeof ports, "%d", port);
    struct in_addr a4;
    /* inet_pton, not getaddrinfo's inet_aton, for IPv4: 1.2.3 is a typo, not 1.2.0.3. */
    int g = numeric && !strchr(host, ':') && inet_pton(AF_INET, host, &a4) != 1
                ? EAI_NONAME
                : getaddrinfo(host, ports, &hints, &res);
    if (g) {
        if (numeric)
            set_err(err, "--bind '%s' is not a numeric IPv4 or IPv6 address (such as 127.0.0.1 or ::1)", where);
        else
            set_err(err, "--bind '%s': cannot resolve the name: %s", where, gai_strerror(g));
        return g == EAI_MEMORY ? SRV_ENOMEM : SRV_EINVAL;
    }
    int last = 0, rc = SRV_EINVAL;
    *fd = -1;
    for (struct addrinfo *ai = res; ai && *fd < 0; ai = ai->ai_next) {
        int s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (s < 0) {
            last = errno;
            continue;
        }
        int one = 1;
        setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(s, ai->ai_addr, ai->ai_addrlen) || listen(s, SOMAXCONN)) {
            last = errno;
            close(s);
            continue;
        }
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        if (getsockname(s, (struct sockaddr *)&ss, &sl)) {
            last = errno;
            close(s);
            continue;
        }
        if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &a6->sin6_addr, addr, INET6_ADDRSTRLEN);
            *bound_port = ntohs(a6->sin6_port);
        } else {
            struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
            inet_ntop(AF_INET, &a4->sin_addr, addr, INET6_ADDRSTRLEN);
            *bound_port = ntohs(a4->sin_port);
        }
        *fd = s;
    }
    freeaddrinfo(res);
    if (*fd >= 0)
        return SRV_OK;
    switch (last) {
    case EADDRINUSE:
        set_err(err, "--port %d: the port is in use on %s (another server? --port 0 picks a free one)", port, where);
        break;
    case EADDRNOTAVAIL:
        set_err(err, "--bind %s: not an address of this machine (127.0.0.1: this machine only; 0.0.0.0: all "
                     "its IPv4 addresses)", where);
        break;
    case EACCES:
        set_err(err, "--port %d: ports below 1024 need privileges", port);
        break;
    case EAFNOSUPPORT:
        set_err(err, "--bind %s: this machine has no IPv6", where);
        break;
    default:
        set_err(err, "--bind %s --port %d: cannot listen: %s", where, port, strerror(last));
        rc = SRV_EFAIL;
        break;
    }
    return rc;
}

int srv_http_start(srv_app *app, const char *where, int port, int threads, srv_http **out, char *err)
{
    *out = NULL;
    if (port < 0 || port > 65535) {
        set_err(err, "--port %d is out of range (0..65535; 0 picks a free one)", port);
        return SRV_EINVAL;
    }
    if (threads < 1 || threads > 64) {
        set_err(err, "threads must be 1..64, got %d", threads);
        return SRV_EINVAL;
    }
    srv_http *h = calloc(1, sizeof *h);
    if (!h) {
        set_err(err, "out of memory");
        return SRV_ENOMEM;
    }
    int rc = open_listener(where, port, &h->fd, h->addr, &h->port, err);
    if (rc != SRV_OK) {
        free(h);
        return rc;
    }
    h->app = app;
    h->max_body = srv_app_max_body(app);
    atomic_init(&h->stopping, 0);
    atomic_init(&h->receiving, 0);
    atomic_init(&h->answering, 0);
    pthread_mutex_init(&h->conn_mu, NULL);
    /* MHD_USE_ITC: srv_http_drain's MHD_quiesce_daemon needs it with internal polling threads. */
    h->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC, 0, NULL, NULL, handle, h,
                            MHD_OPTION_LISTEN_SOCKET, h->fd, MHD_OPTION_THREAD_POOL_SIZE, (unsigned)threads,
                            MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_CONNECTION_LIMIT, 512u,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_seen, h, MHD_OPTION_NOTIFY_COMPLETED, completed, h,
                            MHD_OPTION_NOTIFY_CONNECTION, conn_notify, h, MHD_OPTION_END);
    if (!h->d) {
        set_err(err, "cannot start the HTTP server on %s:%d (libmicrohttpd failed)", where, h->port);
        /* libmicrohttpd closes the socket on some of its failure paths, not on others. */
        if (fcntl(h->fd, F_GETFD) != -1)
            close(h->fd);
        pthread_mutex_destroy(&h->conn_mu);
        free(h);
        return SRV_EFAIL;
    }
    *out = h;
    return SRV_OK;
}

int srv_http_port(const srv_http *h) { return h->port; }

const char *srv_http_address(const srv_http *h) { return h->addr; }

static long ms_since(const struct timespec *t0)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t0->tv_sec) * 1000L + (now.tv_nsec - t0->tv_nsec) / 1000000L;
}

/* At the stop, after libmicrohttpd has stopped accepting: the connections completed before it but still in
 * the listening socket's backlog (every request thread was busy) are handed to libmicrohttpd, which
 * serves them on its request threads; then the socket stops listening, so a later connection is refused
 * at once (the descriptor stays open for libmicrohttpd until the daemon stops). */
static void adopt_backlog(srv_http *h)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int s = accept4(h->fd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (s < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            break;   /* EAGAIN: the backlog is empty; anything else: nothing more can be taken */
        }
        if (s >= FD_SETSIZE) {   /* libmicrohttpd's select mode could not serve it */
            close(s);
            continue;
        }
        pthread_mutex_lock(&h->conn_mu);
        h->conn[s] = CONN_ADOPTED;
        pthread_mutex_unlock(&h->conn_mu);
        /* MHD_add_connection closes s when it fails. */
        if (MHD_add_connection(h->d, s, (struct sockaddr *)&ss, sl) != MHD_YES) {
            pthread_mutex_lock(&h->conn_mu);
            if (h->conn[s] == CONN_ADOPTED)
                h->conn[s] = CONN_NONE;
            pthread_mutex_unlock(&h->conn_mu);
        }
    }
    shutdown(h->fd, SHUT_RD);
}

/* Connections not in a request whose client has sent bytes (a request sent before the stop, waiting for
 * its request thread); *fresh: those that have sent nothing yet and never had a request. */
static int conn_waiting(srv_http *h, int *fresh)
{
    int n = 0;
    *fresh = 0;
    pthread_mutex_lock(&h->conn_mu);
    for (int fd = 0; fd < FD_SETSIZE; fd++) {
        int what = h->conn[fd];
        if (what == CONN_NONE || what == CONN_BUSY)
            continue;
        char b;
        ssize_t r = recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
        if (r > 0)
            n++;
        else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            *fresh += what != CONN_IDLE;
        else if (r < 0 && what == CONN_ADOPTED)
            h->conn[fd] = CONN_NONE;   /* closed by libmicrohttpd before its thread saw it (out of memory) */
    }
    pthread_mutex_unlock(&h->conn_mu);
    return n;
}

int srv_http_drain(srv_http *h, int timeout_ms)
{
    if (!atomic_load(&h->stopping)) {
        atomic_store(&h->stopping, 1);
        clock_gettime(CLOCK_MONOTONIC, &h->t_quiesce);
        h->quiesced = MHD_quiesce_daemon(h->d) != MHD_INVALID_SOCKET;
        if (h->quiesced)
            adopt_backlog(h);
    }
    struct timespec t0, nap = {0, 5 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        /* A body or request that stalls, or a connection that sends nothing, would hold the stop for the
         * 30 s connection timeout: they get a grace. */
        int fresh, n = atomic_load(&h->answering) + conn_waiting(h, &fresh);
        if (ms_since(&h->t_quiesce) < SRV_HTTP_RECEIVE_GRACE_MS)
            n += atomic_load(&h->receiving) + fresh;
        /* A request thread that has just read a waiting request is, for a moment, in none of the counts
         * (its bytes are out of the socket, its request line not yet parsed): nothing in flight must hold
         * over two polls before the stop goes on. */
        h->settled = n ? 0 : h->settled + 1;
        if ((!n && h->settled >= 2) || ms_since(&t0) >= timeout_ms)
            return n;
        nanosleep(&nap, NULL);
    }
}

void srv_http_stop(srv_http *h)
{
    if (!h)
        return;
    MHD_stop_daemon(h->d);
    /* A quiesced daemon leaves its listening socket to the caller. */
    if (h->quiesced)
        close(h->fd);
    pthread_mutex_destroy(&h->conn_mu);
    free(h);
}
