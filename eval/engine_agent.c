/* engine_agent.c — an outside engine as an agent (contract in engine_agent.h; protocol in docs/protocol.md). */
#define _GNU_SOURCE
#include "eval/engine_agent.h"
#include "env/errbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "env/kalah.h"
#include "eval/agent.h"
#include "eval/agent_impl.h"
#include "eval/engine_proto.h"

#define set_err(err, ...) errbuf_set(err, AGENT_ERRLEN, __VA_ARGS__)

struct engine_agent {
    char *spec, *cmd, *cwd, *desc;
    int ms, start_ms;
    int kgp;                 /* 1: `state <board>`; 0: `sowzero go "POS"` */
    const game *g;
    pid_t pid;               /* 0: not running */
    int fd;                  /* our end of the socketpair, -1 when not running */
    kgp_reader rd;
    long long next_id;       /* ours are even, as a KGP server's */
    char name[96];           /* from `set info:name` */
    int64_t soft_ms, hard_ms; /* engine_agent_set_time; 0: the spec's ms */
    int timed_out;           /* the last forfeit was for time */
    double start_spent;      /* ms the last choose spent starting the engine */
    char err[AGENT_ERRLEN];
};

int engine_spec_is_engine(const char *spec)
{
    return spec && !strncmp(spec, "engine", 6) && (spec[6] == 0 || spec[6] == ':' || spec[6] == ',');
}

static int whole(const char *spec, const char *key, const char *v, long lo, long hi, int *out, char *err)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (!*v || *end || errno || x < lo || x > hi) {
        set_err(err, "agent '%s': %s=%s is not a whole number in %ld..%ld", spec, key, v, lo, hi);
        return -1;
    }
    *out = (int)x;
    return 0;
}

/* Whether the first word of a shell command line names a program that can be run: a path (relative to cwd
 * when given) to an executable file, or a name found executable on PATH. A line that starts with a
 * variable assignment, a quote or a shell keyword is not judged (1): the shell reports it at the start, as
 * a forfeit. Checked at create so that a mistyped command is bad input, not a match of forfeits. */
static int program_found(const char *cmd, const char *cwd)
{
    while (*cmd == ' ' || *cmd == '\t')
        cmd++;
    size_t n = strcspn(cmd, " \t;|&<>()");
    char word[1024], path[4096];
    if (!n || n >= sizeof word || memchr(cmd, '=', n) || strchr("'\"$`\\", cmd[0]))
        return 1;
    memcpy(word, cmd, n);
    word[n] = 0;
    static const char *const keywords[] = {"exec", "env", "cd", "if", "for", "while", "case", "{", "!", "time", NULL};
    for (int i = 0; keywords[i]; i++)
        if (!strcmp(word, keywords[i]))
            return 1;
    if (strchr(word, '/')) {
        if (word[0] != '/' && cwd)
            snprintf(path, sizeof path, "%s/%s", cwd, word);
        else
            snprintf(path, sizeof path, "%s", word);
        struct stat st;
        return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
    }
    const char *dirs = getenv("PATH");
    for (const char *d = dirs ? dirs : "/usr/bin:/bin"; *d;) {
        size_t dn = strcspn(d, ":");
        snprintf(path, sizeof path, "%.*s/%s", (int)(dn ? dn : 1), dn ? d : ".", word);
        struct stat st;
        if (!stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK))
            return 1;
        d += dn + (d[dn] == ':');
    }
    return 0;
}

engine_agent *engine_agent_create(const char *spec, const game *g, char *err)
{
    engine_agent *e = calloc(1, sizeof *e);
    if (!e || !(e->spec = strdup(spec))) {
        free(e);
        set_err(err, "out of memory");
        return NULL;
    }
    e->g = g;
    e->fd = -1;
    e->ms = 1000;
    e->start_ms = 5000;
    e->next_id = 2;
    e->kgp = kgp_board_game(g);
    const char *s = spec + 6;
    int bad = 0, seen_proto = 0;
    if (*s == ':' || *s == ',')
        s++;
    char key[24], *v;
    int more;
    while (!bad && (more = agent_spec_next(spec, &s, key, sizeof key, "cmd, ms, cwd, start_ms, proto, seed", &v,
                                           err)) != 0) {
        if (more < 0) {
            bad = 1;
            break;
        }
        if (!strcmp(key, "cmd") && !e->cmd) {
            e->cmd = v;
            v = NULL;
            if (!*e->cmd) {
                set_err(err, "agent '%s': cmd is empty", spec);
                bad = 1;
            }
        } else if (!strcmp(key, "cwd") && !e->cwd) {
            struct stat st;
            e->cwd = v;
            v = NULL;
            if (stat(e->cwd, &st) || !S_ISDIR(st.st_mode)) {
                set_err(err, "agent '%s': cwd=%s is not a directory", spec, e->cwd);
                bad = 1;
            }
        } else if (!strcmp(key, "ms")) {
            bad = whole(spec, key, v, 1, 3600000, &e->ms, err);
        } else if (!strcmp(key, "start_ms")) {
            bad = whole(spec, key, v, 1, 600000, &e->start_ms, err);
        } else if (!strcmp(key, "seed")) {
            int ignored;
            bad = whole(spec, key, v, 0, 2147483647, &ignored, err);
        } else if (!strcmp(key, "proto") && !seen_proto) {
            seen_proto = 1;
            if (!strcmp(v, "kgp") || !strcmp(v, "sowzero")) {
                e->kgp = v[0] == 'k';
            } else {
                set_err(err, "agent '%s': proto=%s is not kgp or sowzero", spec, v);
                bad = 1;
            }
        } else if (!strcmp(key, "cmd") || !strcmp(key, "cwd") || !strcmp(key, "proto")) {
            set_err(err, "agent '%s': %s is given twice", spec, key);
            bad = 1;
        } else {
            set_err(err, "agent '%s': unknown key '%s' for engine (keys: cmd, ms, cwd, start_ms, proto, seed)", spec,
                    key);
            bad = 1;
        }
        free(v);
    }
    if (!bad && !e->cmd) {
        set_err(err, "agent '%s': engine needs cmd=COMMAND (docs/protocol.md)", spec);
        bad = 1;
    }
    if (!bad && e->kgp && !kgp_board_game(g)) {
        set_err(err, "agent '%s': proto=kgp sends KGP boards, which are Kalah's; %s needs proto=sowzero", spec,
                game_name(g));
        bad = 1;
    }
    if (!bad && !program_found(e->cmd, e->cwd)) {
        set_err(err, "agent '%s': the program of cmd=%s is not an executable file%s", spec, e->cmd,
                strchr(e->cmd, '/') ? "" : " on PATH");
        bad = 1;
    }
    if (bad) {
        engine_agent_free(e);
        return NULL;
    }
    return e;
}

/* Ends the process: SIGKILL to its group, then reaped. */
static void kill_engine(engine_agent *e)
{
    if (e->fd >= 0)
        close(e->fd);
    e->fd = -1;
    if (e->pid > 0) {
        kill(-e->pid, SIGKILL);
        kill(e->pid, SIGKILL);
        while (waitpid(e->pid, NULL, 0) < 0 && errno == EINTR)
            ;
    }
    e->pid = 0;
}

void engine_agent_free(engine_agent *e)
{
    if (!e)
        return;
    if (e->pid > 0 && e->fd >= 0) {
        kgp_send(e->fd, "goodbye");
        shutdown(e->fd, SHUT_WR);
        for (int i = 0; i < 20; i++) { /* up to 200 ms for a clean exit */
            pid_t r = waitpid(e->pid, NULL, WNOHANG);
            if (r == e->pid || (r < 0 && errno != EINTR)) {
                e->pid = 0;
                break;
            }
            usleep(10000);
        }
    }
    kill_engine(e);
    free(e->spec);
    free(e->cmd);
    free(e->cwd);
    free(e->desc);
    free(e);
}

void engine_agent_new_game(engine_agent *e) { (void)e; }

const char *engine_agent_error(const engine_agent *e) { return e->err; }

void engine_agent_set_time(engine_agent *e, int64_t soft_ms, int64_t hard_ms)
{
    e->soft_ms = soft_ms > 0 ? soft_ms : 0;
    e->hard_ms = soft_ms > 0 ? (hard_ms > soft_ms ? hard_ms : soft_ms) : 0;
}

int engine_agent_timed_out(const engine_agent *e) { return e->timed_out; }

double engine_agent_start_ms(const engine_agent *e) { return e->start_spent; }

const char *engine_agent_describe(const engine_agent *e)
{
    if (e->desc || !e->name[0])
        return e->desc ? e->desc : e->spec;
    /* built once, at the first call after the engine named itself: the text stays valid for e's life */
    engine_agent *m = (engine_agent *)e;
    size_t n = strlen(e->spec) + strlen(e->name) + 16;
    if (!(m->desc = malloc(n)))
        return e->spec;
    snprintf(m->desc, n, "%s (\"%s\")", e->spec, e->name);
    return m->desc;
}

/* The forfeit: the reason into e->err, the process ended. An engine's line is quoted only as far as
 * the error buffer holds it, marked "..." where cut. */
static int forfeit(engine_agent *e, const char *fmt, const char *a, const char *b)
{
    char msg[AGENT_ERRLEN];
    if (snprintf(msg, sizeof msg, fmt, a, b) >= (int)sizeof msg)
        memcpy(msg + sizeof msg - 4, "...", 4);
    set_err(e->err, "engine '%s' forfeits: %s", e->cmd, msg);
    kill_engine(e);
    return AGENT_EFORFEIT;
}

/* What a process that ended tells: "exited with status N" or "was killed by signal N". */
static const char *exit_text(engine_agent *e, char *buf, size_t n)
{
    int st;
    pid_t r = 0;
    for (int i = 0; i < 50 && (r = waitpid(e->pid, &st, WNOHANG)) == 0; i++)
        usleep(2000);
    if (r == e->pid) {
        e->pid = 0;
        if (WIFEXITED(st))
            snprintf(buf, n, "exited with status %d", WEXITSTATUS(st));
        else
            snprintf(buf, n, "was killed by signal %d", WTERMSIG(st));
    } else {
        snprintf(buf, n, "closed its output");
    }
    return buf;
}

/* Starts the process and does the handshake. 0, or a forfeit. */
static int start_engine(engine_agent *e)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        return forfeit(e, "could not be started: %s%s", strerror(errno), "");
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return forfeit(e, "could not be started: %s%s", strerror(errno), "");
    }
    if (pid == 0) { /* async-signal-safe calls only: other threads may hold locks */
        setpgid(0, 0);
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(SIGPIPE, &dfl, NULL); /* an ignored SIGPIPE would be inherited through exec */
        if (dup2(sv[1], 0) < 0 || dup2(sv[1], 1) < 0)
            _exit(126);
        if (e->cwd && chdir(e->cwd))
            _exit(126);
        execl("/bin/sh", "sh", "-c", e->cmd, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
    close(sv[1]);
    e->pid = pid;
    e->fd = sv[0];
    e->name[0] = 0;
    kgp_reader_init(&e->rd, e->fd);
    if (kgp_send(e->fd, "kgp 1 0 0"))
        return forfeit(e, "could not be sent the handshake%s%s", "", "");
    long long deadline = kgp_now_ms() + e->start_ms;
    char line[KGP_LINE_MAX + 1], perr[KGP_ERRLEN], why[64];
    for (;;) {
        long long left = deadline - kgp_now_ms();
        int rc = kgp_read_line(&e->rd, line, left > 0 ? (int)left : 0);
        if (rc == 0) {
            char ms[24];
            snprintf(ms, sizeof ms, "%d", e->start_ms);
            return forfeit(e, "no `mode freeplay` within start_ms=%s ms of `kgp 1 0 0`%s", ms, "");
        }
        if (rc == -1)
            return forfeit(e, "%s during the handshake%s", exit_text(e, why, sizeof why), "");
        if (rc == -2)
            return forfeit(e, "sent an overlong line during the handshake%s%s", "", "");
        kgp_cmd c;
        if (kgp_parse(line, &c, perr))
            return forfeit(e, "sent a malformed line during the handshake: %s (%s)", line, perr);
        if (!strcmp(c.name, "set") || !strcmp(c.name, "ok") || !strcmp(c.name, "pong")) {
            if (!strcmp(c.name, "set") && c.argc >= 2 && c.arg[0].text && !strcmp(c.arg[0].text, "info:name"))
                snprintf(e->name, sizeof e->name, "%s", c.arg[1].text);
            continue;
        }
        if (!strcmp(c.name, "mode")) {
            if (c.argc >= 1 && !strcmp(c.arg[0].text, "freeplay"))
                break;
            kgp_send(e->fd, "error \"Unsupported activity\"");
            kgp_send(e->fd, "goodbye");
            return forfeit(e, "asked for mode '%s' (only freeplay is offered)%s", c.argc ? c.arg[0].text : "", "");
        }
        return forfeit(e, "sent '%s' during the handshake (expected mode freeplay)%s", c.name, "");
    }
    long long id = e->next_id;
    e->next_id += 2;
    if (kgp_send(e->fd, "%lld init", id))
        return forfeit(e, "closed its input during the handshake%s%s", "", "");
    return 0;
}

int engine_agent_choose(engine_agent *e, const game_pos *p, int *move_out)
{
    e->err[0] = 0;
    e->timed_out = 0;
    e->start_spent = 0;
    unsigned legal = game_legal(e->g, p);
    if (p->over || !legal) {
        set_err(e->err, "the game is over");
        return AGENT_EOVER;
    }
    char pos[KGP_LINE_MAX];
    if (e->kgp) {
        kgp_board_format(e->g, p, pos, sizeof pos);
    } else {
        char txt[GAME_POS_STR];
        game_pos_format(e->g, p, txt, sizeof txt);
        kgp_quote(txt, pos, sizeof pos);
    }
    if (e->pid <= 0 || e->fd < 0) {
        long long t0 = kgp_now_ms();
        int rc = start_engine(e);
        e->start_spent = (double)(kgp_now_ms() - t0);
        if (rc)
            return rc;
    }
    long long id = e->next_id;
    e->next_id += 2;
    if (kgp_send(e->fd, e->kgp ? "%lld state %s" : "%lld sowzero go %s", id, pos)) {
        char why[64];
        return forfeit(e, "%s before it was sent the position%s", exit_text(e, why, sizeof why), "");
    }
    long long sent = kgp_now_ms();
    long long deadline = sent + (e->soft_ms ? e->soft_ms : e->ms), hard = sent + (e->hard_ms ? e->hard_ms : e->ms);
    int best = -1, yielded = 0;
    char line[KGP_LINE_MAX + 1], perr[KGP_ERRLEN];
    for (;;) {
        /* until the soft time; past it without a move, until the hard time (engine_agent_set_time) */
        long long now = kgp_now_ms(), left = (best >= 0 || now < deadline ? deadline : hard) - now;
        if (left <= 0 && (best >= 0 || now >= hard))
            break;
        int rc = left > 0 ? kgp_read_line(&e->rd, line, (int)left) : 0;
        if (rc == 0)
            continue;
        if (rc == -1) {
            char why[64];
            return forfeit(e, "%s in the middle of the game%s", exit_text(e, why, sizeof why), "");
        }
        if (rc == -2)
            return forfeit(e, "sent a line longer than %s bytes or holding a NUL byte%s", "4096", "");
        kgp_cmd c;
        char shown[120];
        snprintf(shown, sizeof shown, "%.100s", line);
        if (kgp_parse(line, &c, perr))
            return forfeit(e, "sent the malformed line '%s' (%s)", shown, perr);
        int ours = !c.has_ref || c.ref == id;
        if (!strcmp(c.name, "move")) {
            if (!ours)
                continue; /* an answer to an earlier position, after its stop */
            if (c.argc != 1 || c.arg[0].type != KGP_INT)
                return forfeit(e, "sent '%s': a move is one whole number%s", shown, "");
            long long k = c.arg[0].ival;
            if (k < 1 || k > game_moves(e->g) || !(legal >> (k - 1) & 1))
                return forfeit(e, "sent the illegal move '%s' (the legal pits are those not empty, 1-based)%s",
                               shown, "");
            best = (int)k - 1;
        } else if (!strcmp(c.name, "yield")) {
            if (!ours)
                continue;
            yielded = 1;
            break;
        } else if (!strcmp(c.name, "error")) {
            return forfeit(e, "answered with an error: '%s'%s", shown, "");
        } else if (!strcmp(c.name, "goodbye")) {
            return forfeit(e, "said goodbye in the middle of the game%s%s", "", "");
        } else if (!strcmp(c.name, "set") || !strcmp(c.name, "ok") || !strcmp(c.name, "pong")) {
            if (!strcmp(c.name, "set") && c.argc >= 2 && c.arg[0].text && !strcmp(c.arg[0].text, "info:name"))
                snprintf(e->name, sizeof e->name, "%s", c.arg[1].text);
        } else if (!strcmp(c.name, "sowzero") || !strcmp(c.name, "mode")) {
            /* extension output (analysis lines) and a repeated mode are harmless */
        } else {
            return forfeit(e, "sent '%s', a command a freeplay client does not send%s", shown, "");
        }
    }
    if (best < 0) {
        char ms[24];
        e->timed_out = 1;
        if (e->soft_ms) {
            snprintf(ms, sizeof ms, "%lld", (long long)e->hard_ms);
            return forfeit(e, "sent no move within its time (%s ms)%s", ms, "");
        }
        snprintf(ms, sizeof ms, "%d", e->ms);
        return forfeit(e, "sent no move within ms=%s ms%s", ms, "");
    }
    if (!yielded) {
        long long sid = e->next_id;
        e->next_id += 2;
        kgp_send(e->fd, "%lld@%lld stop", sid, id); /* a peer gone now is seen at the next move */
    }
    *move_out = best;
    return AGENT_OK;
}
