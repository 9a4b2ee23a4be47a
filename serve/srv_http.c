/* srv_http.c — libmicrohttpd glue: the page's files and the /api/ requests (see srv_http.h). */
#include "serve/srv_http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/errbuf.h"
#include "serve/srv_assets.h"

#define set_err(err, ...) errbuf_set(err, SRV_ERRLEN, __VA_ARGS__)

struct srv_http {
    struct MHD_Daemon *d;
    srv_app *app;
    size_t max_body;
    int port;
};

/* One request's body as it arrives; bytes past the limit are counted, not kept. */
typedef struct {
    char *buf;
    size_t len, total;
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

static enum MHD_Result reply_send(struct MHD_Connection *c, int status, const char *type, void *data, size_t len,
                            enum MHD_ResponseMemoryMode mode)
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
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                              const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    srv_http *h = cls;
    request *rq = *con_cls;
    if (!rq) {
        if (!(rq = calloc(1, sizeof *rq)))
            return MHD_NO;
        *con_cls = rq;
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
    if (!strncmp(url, "/api/", 5)) {
        const char *sess = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "session");
        const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
        char *out;
        size_t out_len;
        const char *out_type;
        /* A body over the limit reaches the app as its length only (it answers 413). */
        int status = srv_app_handle(h->app, method, url, sess, rq->total > h->max_body ? NULL : rq->buf,
                                    rq->total, type, &out, &out_len, &out_type);
        if (!out)
            return reply_send(c, 500, "application/json", "{\"error\":\"out of memory\",\"status\":500}", 38,
                        MHD_RESPMEM_PERSISTENT);
        return reply_send(c, status, out_type, out, out_len, MHD_RESPMEM_MUST_FREE);
    }
    if (strcmp(method, "GET") && strcmp(method, "HEAD")) {
        static const char msg[] = "{\"error\":\"the page's files take GET only\",\"status\":405}";
        return reply_send(c, 405, "application/json", (void *)msg, sizeof msg - 1, MHD_RESPMEM_PERSISTENT);
    }
    const srv_asset *a = srv_asset_find(url);
    if (!a) {
        static const char msg[] = "{\"error\":\"no such page\",\"status\":404}";
        return reply_send(c, 404, "application/json", (void *)msg, sizeof msg - 1, MHD_RESPMEM_PERSISTENT);
    }
    return reply_send(c, 200, a->type, (void *)a->data, a->len, MHD_RESPMEM_PERSISTENT);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode t)
{
    (void)cls;
    (void)c;
    (void)t;
    request *rq = *con_cls;
    if (rq) {
        free(rq->buf);
        free(rq);
        *con_cls = NULL;
    }
}

srv_http *srv_http_start(srv_app *app, const char *bind, int port, int threads, char *err)
{
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    if (port < 0 || port > 65535) {
        set_err(err, "port %d is out of range (0..65535; 0 picks a free one)", port);
        return NULL;
    }
    if (inet_pton(AF_INET, bind, &addr.sin_addr) != 1) {
        set_err(err, "bind address '%s' is not a numeric IPv4 address such as 127.0.0.1", bind);
        return NULL;
    }
    if (threads < 1 || threads > 64) {
        set_err(err, "threads must be 1..64, got %d", threads);
        return NULL;
    }
    srv_http *h = calloc(1, sizeof *h);
    if (!h) {
        set_err(err, "out of memory");
        return NULL;
    }
    h->app = app;
    h->max_body = srv_app_max_body(app);
    h->d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, (uint16_t)port, NULL, NULL, handle, h,
                            MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_THREAD_POOL_SIZE,
                            (unsigned)threads, MHD_OPTION_CONNECTION_TIMEOUT, 30u, MHD_OPTION_CONNECTION_LIMIT,
                            512u, MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_END);
    if (!h->d) {
        set_err(err, "cannot listen on %s:%d (in use, or not an address of this machine)", bind, port);
        free(h);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? info->port : port;
    return h;
}

int srv_http_port(const srv_http *h) { return h->port; }

void srv_http_stop(srv_http *h)
{
    if (!h)
        return;
    MHD_stop_daemon(h->d);
    free(h);
}
