#include "train/progress.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

struct train_progress {
    FILE *out;
    int tty;
    int bar_drawn;   /* the cursor sits at the end of a bar line */
};

train_progress *train_progress_create(FILE *out, int tty)
{
    train_progress *p = calloc(1, sizeof *p);
    if (p) {
        p->out = out;
        p->tty = tty;
    }
    return p;
}

char *train_format_duration(double s, char *buf, size_t n)
{
    if (!(s >= 0) || !isfinite(s))
        snprintf(buf, n, "?");
    else if (s < 60)
        snprintf(buf, n, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, n, "%dm%02ds", (int)(s / 60), (int)fmod(s, 60));
    else
        snprintf(buf, n, "%dh%02dm", (int)(s / 3600), (int)fmod(s / 60, 60));
    return buf;
}

/* 8100 -> "8.1k", 1.2e6 -> "1.2M". */
static char *si(double v, char *buf, size_t n)
{
    if (v >= 1e6)
        snprintf(buf, n, "%.1fM", v / 1e6);
    else if (v >= 1e4)
        snprintf(buf, n, "%.0fk", v / 1e3);
    else if (v >= 1e3)
        snprintf(buf, n, "%.1fk", v / 1e3);
    else
        snprintf(buf, n, "%.0f", v);
    return buf;
}

static void fields(const train_progress_info *in, char *buf, size_t n)
{
    char speed[16], games[16], eta[16], el[16];
    size_t len = (size_t)snprintf(buf, n, "%" PRId64 "/%" PRId64 "  games %s", in->iteration, in->iterations,
                                  si((double)in->games, games, sizeof games));
    if (in->have_loss && len < n)
        len += (size_t)snprintf(buf + len, n - len, "  loss %.3f", in->loss);
    if (len < n)
        len += (size_t)snprintf(buf + len, n - len, "  %s pos/s", si(in->pos_per_s, speed, sizeof speed));
    if (in->have_eval && len < n)
        len += (size_t)snprintf(buf + len, n - len, "  eval %.2f", in->eval_score);
    if (in->have_accuracy && len < n)
        len += (size_t)snprintf(buf + len, n - len, "  acc %.1f%%/%.2f", 100 * in->accuracy, in->regret);
    if (len < n)
        snprintf(buf + len, n - len, "  %s  ETA %s", train_format_duration(in->elapsed_s, el, sizeof el),
                 in->eta_s < 0 ? "?" : train_format_duration(in->eta_s, eta, sizeof eta));
}

char *train_progress_bar(const train_progress_info *in, int cols, char *buf, size_t n)
{
    char text[256];
    fields(in, text, sizeof text);
    /* The bar shrinks first (24 marks down to 8), then goes; the text is cut last. One column stays free:
     * a line that fills the last column wraps on many terminals. */
    int room = cols - 1 - (int)strlen(text) - 3, width = room > 24 ? 24 : room;
    if (width < 8)
        width = 0;
    char bar[32];
    int filled = width && in->iterations > 0 ? (int)(width * in->iteration / in->iterations) : 0;
    if (filled > width)
        filled = width;
    memset(bar, '#', (size_t)filled);
    memset(bar + filled, '.', (size_t)(width - filled));
    bar[width] = 0;
    if (width)
        snprintf(buf, n, "[%s] %s", bar, text);
    else
        snprintf(buf, n, "%s", text);
    size_t max = cols > 1 ? (size_t)cols - 1 : 1;
    if (strlen(buf) > max && max < n)
        buf[max] = 0;
    return buf;
}

/* Columns of the terminal on out; 80 when it cannot be asked. */
static int terminal_columns(FILE *out)
{
    struct winsize ws;
    if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

void train_progress_update(train_progress *p, const train_progress_info *in)
{
    char text[300];
    if (!p->tty) {
        fields(in, text, sizeof text);
        fprintf(p->out, "iteration %s\n", text);
        fflush(p->out);
        return;
    }
    /* Asked at every update: the terminal may have been resized. */
    train_progress_bar(in, terminal_columns(p->out), text, sizeof text);
    /* \r returns to the line start, \033[K clears what a longer previous bar left behind. */
    fprintf(p->out, "\r%s\033[K", text);
    fflush(p->out);
    p->bar_drawn = 1;
}

void train_progress_message(train_progress *p, const char *msg)
{
    if (p->bar_drawn) {
        fputs("\r\033[K", p->out);
        p->bar_drawn = 0;
    }
    fputs(msg, p->out);
    if (!*msg || msg[strlen(msg) - 1] != '\n')
        fputc('\n', p->out);
    fflush(p->out);
}

void train_progress_free(train_progress *p)
{
    if (!p)
        return;
    if (p->bar_drawn)
        fputc('\n', p->out);
    fflush(p->out);
    free(p);
}
