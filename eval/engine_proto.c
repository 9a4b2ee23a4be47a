/* engine_proto.c — KGP lines, boards and a line reader with a deadline (contract in engine_proto.h). */
#define _GNU_SOURCE
#include "eval/engine_proto.h"
#include "env/errbuf.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "env/kalah.h"

#define set_err(err, ...) errbuf_set(err, KGP_ERRLEN, __VA_ARGS__)

static int is_ws(char c) { return c == ' ' || c == '\t'; }
static int is_word_char(char c) { return isalnum((unsigned char)c) || c == '-' || c == ':'; }

static int parse_digits(const char **s, long long *out)
{
    const char *p = *s;
    long long v = 0;
    if (!isdigit((unsigned char)*p))
        return -1;
    for (; isdigit((unsigned char)*p); p++) {
        if (v > 99999999999LL)
            return -1;
        v = 10 * v + (*p - '0');
    }
    *s = p;
    *out = v;
    return 0;
}

/* A number argument at s (up to its end, a blank or the line's end): 0 and the type, else -1. */
static int parse_number(char *s, kgp_arg *a)
{
    char *end;
    const char *p = s + (*s == '+' || *s == '-');
    int digits = 0, dot = 0, frac = 0;
    for (; *p; p++) {
        if (isdigit((unsigned char)*p)) {
            if (dot)
                frac++;
            else
                digits++;
        }
        else if (*p == '.' && !dot)
            dot = 1;
        else
            return -1;
    }
    if (dot ? frac == 0 : digits == 0)
        return -1;
    errno = 0;
    if (!dot) {
        a->type = KGP_INT;
        a->ival = strtoll(s, &end, 10);
        a->rval = (double)a->ival;
        return errno ? -1 : 0;
    }
    a->type = KGP_REAL;
    a->rval = strtod(s, &end);
    return 0;
}

int kgp_parse(char *line, kgp_cmd *out, char *err)
{
    memset(out, 0, sizeof *out);
    size_t n = strlen(line);
    if (n && line[n - 1] == '\r')
        line[--n] = 0;
    char *s = line;
    while (is_ws(*s))
        s++;
    if (!*s) {
        set_err(err, "empty line");
        return -1;
    }
    /* [ID][@REF] then a blank: digits or '@' start the id part (a name never starts with a digit here,
     * as a bare number is not a command). */
    if (isdigit((unsigned char)*s) || *s == '@') {
        const char *p = s;
        if (isdigit((unsigned char)*p)) {
            if (parse_digits(&p, &out->id)) {
                set_err(err, "column %d: the command id is not a number of at most 12 digits", (int)(s - line) + 1);
                return -1;
            }
            out->has_id = 1;
        }
        if (*p == '@') {
            p++;
            if (parse_digits(&p, &out->ref)) {
                set_err(err, "column %d: '@' is not followed by the id it refers to", (int)(p - line) + 1);
                return -1;
            }
            out->has_ref = 1;
        }
        if (!is_ws(*p)) {
            set_err(err, "column %d: the id is not followed by a blank and a command", (int)(p - line) + 1);
            return -1;
        }
        s = (char *)p;
        while (is_ws(*s))
            s++;
    }
    out->name = s;
    while (isalnum((unsigned char)*s))
        s++;
    if (s == out->name || (*s && !is_ws(*s))) {
        set_err(err, "column %d: a command name is letters and digits", (int)(s - line) + 1);
        return -1;
    }
    if (*s)
        *s++ = 0;
    for (;;) {
        while (is_ws(*s))
            s++;
        if (!*s)
            break;
        int col = (int)(s - line) + 1;
        if (out->argc == KGP_MAX_ARGS) {
            set_err(err, "column %d: more than %d arguments", col, KGP_MAX_ARGS);
            return -1;
        }
        kgp_arg *a = &out->arg[out->argc++];
        if (*s == '"') {
            char *w = ++s;
            a->type = KGP_STRING;
            a->text = w;
            for (; *s && *s != '"'; s++) {
                if (*s == '\\') {
                    if (!s[1] || !isprint((unsigned char)s[1]))
                        break;
                    s++;
                }
                *w++ = *s;
            }
            if (*s != '"') {
                set_err(err, "column %d: the string is not closed with '\"'", col);
                return -1;
            }
            s++;
            *w = 0;
            if (*s && !is_ws(*s)) {
                set_err(err, "column %d: the string is not followed by a blank", (int)(s - line) + 1);
                return -1;
            }
            continue;
        }
        char *start = s;
        while (*s && !is_ws(*s))
            s++;
        if (*s)
            *s++ = 0;
        a->text = start;
        if (*start == '<') {
            size_t len = strlen(start);
            if (len < 3 || start[len - 1] != '>') {
                set_err(err, "column %d: a board is <n,...> without blanks", col);
                return -1;
            }
            a->type = KGP_BOARD;
            const char *p = start + 1;
            for (;;) {
                long long v;
                if (parse_digits(&p, &v) || v > 100000) {
                    set_err(err, "column %d: board '%s': a field is not a whole number (0..100000)", col, start);
                    return -1;
                }
                if (a->nvals == KGP_BOARD_VALS) {
                    set_err(err, "column %d: board '%s': more than %d numbers (boards of up to %d pits)", col, start,
                            KGP_BOARD_VALS, KGP_BOARD_MAX_PITS);
                    return -1;
                }
                a->vals[a->nvals++] = (int)v;
                if (*p == ',') {
                    p++;
                    continue;
                }
                if (*p == '>' && !p[1])
                    break;
                set_err(err, "column %d: board '%s': expected ',' or a final '>'", col, start);
                return -1;
            }
            continue;
        }
        if (!parse_number(start, a))
            continue;
        for (const char *p = start; *p; p++)
            if (!is_word_char(*p)) {
                set_err(err, "column %d: '%s' is no argument (a number, word, \"string\" or <board>)", col, start);
                return -1;
            }
        a->type = KGP_WORD;
    }
    return 0;
}

char *kgp_quote(const char *s, char *buf, size_t n)
{
    size_t at = 0;
    if (n < 3) {
        if (n)
            buf[0] = 0;
        return buf;
    }
    buf[at++] = '"';
    for (; *s && at + 3 < n; s++) {
        char c = (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s;
        if (c == '"' || c == '\\') {
            if (at + 4 >= n)
                break;
            buf[at++] = '\\';
        }
        buf[at++] = c;
    }
    buf[at++] = '"';
    buf[at] = 0;
    return buf;
}

int kgp_board_game(const game *g)
{
    /* KGP's board: two facing rows of n pits and a store each, sown past the opponent's store, swept at the
     * end (Kalah's rules, which the engine at the other end plays); nothing that a relay, a store-less ring
     * or a ring of more rows would add. */
    game_layout lay;
    const unsigned need = GAME_SOW_SKIPS_OPPONENT_STORES | GAME_END_SWEEP,
                   foreign = GAME_SOW_SKIPS_STORES | GAME_SOW_SKIPS_ORIGIN | GAME_SOW_SKIPS_LEFT_ROWS | GAME_SOW_RELAY |
                             GAME_CAPTURE_BACKWARD | GAME_END_UNSHOWN | GAME_DRAW_RING;
    return game_layout_of(g, &lay) && lay.rows == 2 && game_players(g) == 2 && lay.pits <= KGP_BOARD_MAX_PITS &&
           (lay.flags & need) == need && !(lay.flags & foreign);
}

char *kgp_board_format(const game *g, const game_pos *p, char *buf, size_t n)
{
    game_layout lay;
    game_layout_of(g, &lay); /* kgp_board_game(g): a layout of two rows */
    const int me = p->to_move, other = 1 - me, m = lay.pits, row = m + 1; /* row q: pits q*row.., store q*row+m */
    size_t at = (size_t)snprintf(buf, n, "<%d,%d,%d", m, p->cell[me * row + m], p->cell[other * row + m]);
    for (int side = 0; side < 2; side++)
        for (int k = 0; k < m && at < n; k++)
            at += (size_t)snprintf(buf + at, n - at, ",%d", p->cell[(side ? other : me) * row + k]);
    if (at < n)
        snprintf(buf + at, n - at, ">");
    return buf;
}

int kgp_board_check(const kgp_arg *arg, int *pits, char *err)
{
    if (arg->type != KGP_BOARD) {
        set_err(err, "'%s' is not a board <n,...>", arg->text ? arg->text : "");
        return -1;
    }
    int m = arg->vals[0];
    if (m < 1 || m > KGP_BOARD_MAX_PITS) {
        set_err(err, "board of %d pits a side: Kalah here has 1..%d", m, KGP_BOARD_MAX_PITS);
        return -1;
    }
    if (arg->nvals != 2 * m + 3) {
        set_err(err, "a board of %d pits has %d numbers (n, two stores, 2n pits), not %d", m, 2 * m + 3, arg->nvals);
        return -1;
    }
    long total = 0;
    for (int i = 1; i < arg->nvals; i++)
        total += arg->vals[i];
    if (total > 255) {
        set_err(err, "a board of %ld seeds: at most 255 fit", total);
        return -1;
    }
    *pits = m;
    return 0;
}

char *kgp_board_notation(const kgp_arg *arg, char *buf, size_t n)
{
    int m = arg->vals[0];
    size_t at = 0;
    buf[0] = 0;
    for (int side = 0; side < 2; side++) { /* South (the mover): its pits then its store; then North's */
        for (int k = 0; k < m && at < n; k++)
            at += (size_t)snprintf(buf + at, n - at, "%d,", arg->vals[3 + side * m + k]);
        if (at < n)
            at += (size_t)snprintf(buf + at, n - at, side ? "%d S" : "%d,", arg->vals[1 + side]);
    }
    return buf;
}

void kgp_reader_init(kgp_reader *r, int fd)
{
    r->fd = fd;
    r->eof = 0;
    r->skipping = 0;
    r->len = 0;
}

int kgp_line_ready(const kgp_reader *r) { return memchr(r->buf, '\n', r->len) != NULL || r->len > KGP_LINE_MAX; }

long long kgp_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Drops the first `k` bytes of the buffer. */
static void consume(kgp_reader *r, size_t k)
{
    memmove(r->buf, r->buf + k, r->len - k);
    r->len -= k;
}

int kgp_read_line(kgp_reader *r, char *line, int timeout_ms)
{
    long long deadline = timeout_ms < 0 ? -1 : kgp_now_ms() + timeout_ms;
    for (;;) {
        char *nl = memchr(r->buf, '\n', r->len);
        if (nl) {
            size_t k = (size_t)(nl - r->buf);
            if (r->skipping || k > KGP_LINE_MAX || memchr(r->buf, 0, k)) {
                consume(r, k + 1);
                r->skipping = 0;
                return -2;
            }
            memcpy(line, r->buf, k);
            line[k] = 0;
            if (k && line[k - 1] == '\r')
                line[k - 1] = 0;
            consume(r, k + 1);
            return 1;
        }
        if (r->len > KGP_LINE_MAX) {
            r->skipping = 1;
            r->len = 0;
        }
        if (r->eof) {
            if (r->len && !r->skipping) { /* a last line without its newline */
                size_t k = r->len;
                int bad = memchr(r->buf, 0, k) != NULL;
                memcpy(line, r->buf, k);
                line[k] = 0;
                r->len = 0;
                return bad ? -2 : 1;
            }
            if (r->skipping) {
                r->skipping = 0;
                return -2;
            }
            return -1;
        }
        int wait = -1;
        if (deadline >= 0) {
            long long left = deadline - kgp_now_ms();
            if (left <= 0)
                return 0;
            wait = left > 1000000 ? 1000000 : (int)left;
        }
        struct pollfd pfd = {.fd = r->fd, .events = POLLIN};
        int pr = poll(&pfd, 1, wait);
        if (pr < 0) {
            if (errno == EINTR)
                continue;
            r->eof = 1;
            continue;
        }
        if (pr == 0)
            continue; /* the deadline check above returns */
        ssize_t got = read(r->fd, r->buf + r->len, sizeof r->buf - 1 - r->len);
        if (got < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (got <= 0)
            r->eof = 1;
        else
            r->len += (size_t)got;
    }
}

/* write() to a pipe with SIGPIPE blocked in this thread, a SIGPIPE it raised taken back (the classic
 * recipe: a signal pending before stays pending). */
static ssize_t write_nosigpipe(int fd, const char *s, size_t n)
{
    sigset_t pipe_set, old, pending;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigpending(&pending);
    int was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    ssize_t w = write(fd, s, n);
    int e = errno;
    if (w < 0 && e == EPIPE && !was_pending) {
        struct timespec zero = {0, 0};
        while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = e;
    return w;
}

static int write_all(int fd, const char *s, size_t n)
{
    int sock = 1;
    while (n) {
        ssize_t w = sock ? send(fd, s, n, MSG_NOSIGNAL) : write_nosigpipe(fd, s, n);
        if (w < 0 && sock && errno == ENOTSOCK) {
            sock = 0;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

int kgp_send(int fd, const char *fmt, ...)
{
    char buf[KGP_LINE_MAX + 3];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 2, fmt, ap);
    va_end(ap);
    if (n < 0 || n > KGP_LINE_MAX)
        return -1;
    buf[n++] = '\r';
    buf[n++] = '\n';
    return write_all(fd, buf, (size_t)n);
}
