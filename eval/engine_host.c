/* engine_host.c — the engine side of the engine protocol (contract in engine_host.h, docs/protocol.md). */
#include "eval/engine_host.h"
#include "env/errbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env/kalah.h"
#include "eval/agent.h"
#include "eval/engine_proto.h"
#include "eval/game_agent.h"

#define set_err(err, ...) errbuf_set(err, AGENT_ERRLEN, __VA_ARGS__)
#define ENGINE_BOARDS 32 /* board sizes kept beside the rules' own */

struct engine_host {
    char *spec;
    game *g;                                /* the rules given */
    game_agent *a;                          /* the agent for g */
    int kalah;                              /* g is Kalah: KGP boards are served */
    /* Kalah boards of other sizes (pits, seeds per pit at the start), made on demand; berr: why that size
     * has no agent (once failed, it is not tried again) */
    int n_boards;
    int bpits[ENGINE_BOARDS], bseeds[ENGINE_BOARDS];
    game *bg[ENGINE_BOARDS];
    game_agent *ba[ENGINE_BOARDS];
    char berr[ENGINE_BOARDS][AGENT_ERRLEN];
    char msg[AGENT_ERRLEN];                 /* board_agent's message */
    int out;                                /* the session's output */
    int out_failed;
    int refused_version;                    /* the peer's kgp line named a major version other than 1 */
};

engine_host *engine_host_create(const char *spec, const char *rules, char *err)
{
    engine_host *h = calloc(1, sizeof *h);
    if (!h || !(h->spec = strdup(spec))) {
        free(h);
        set_err(err, "out of memory");
        return NULL;
    }
    char gerr[GAME_ERRLEN];
    if (!(h->g = game_create(rules ? rules : "kalah", gerr))) {
        set_err(err, "--rules %s: %s", rules ? rules : "kalah", gerr);
        engine_host_free(h);
        return NULL;
    }
    if (!(h->a = game_agent_create(spec, h->g, err))) {
        engine_host_free(h);
        return NULL;
    }
    h->kalah = kgp_board_game(h->g);
    return h;
}

void engine_host_free(engine_host *h)
{
    if (!h)
        return;
    for (int i = 0; i < h->n_boards; i++) {
        game_agent_free(h->ba[i]);
        game_free(h->bg[i]);
    }
    game_agent_free(h->a);
    game_free(h->g);
    free(h->spec);
    free(h);
}

const game *engine_host_game(const engine_host *h) { return h->g; }

/* ---- answers ---- */

/* "@ID " when the request had an id, else "". */
static const char *ref_of(const kgp_cmd *c, char *buf, size_t n)
{
    if (c && c->has_id)
        snprintf(buf, n, "@%lld ", c->id);
    else
        buf[0] = 0;
    return buf;
}

static void answer_error(engine_host *h, const kgp_cmd *c, const char *msg)
{
    char ref[32], q[KGP_LINE_MAX];
    if (kgp_send(h->out, "%serror %s", ref_of(c, ref, sizeof ref), kgp_quote(msg, q, 1024)))
        h->out_failed = 1;
}

static void answer(engine_host *h, const kgp_cmd *c, const char *fmt, const char *text)
{
    char ref[32], line[KGP_LINE_MAX];
    snprintf(line, sizeof line, fmt, text);
    if (kgp_send(h->out, "%s%s", ref_of(c, ref, sizeof ref), line))
        h->out_failed = 1;
}

/* The game and agent for Kalah boards of `pits` pits holding `total` seeds: the rules given with that many
 * pits and total / (2 pits) seeds a pit (a Kalah position keeps its start's total), or NULL with *why set. */
static game_agent *board_agent(engine_host *h, int pits, int total, const game **g, const char **why)
{
    char *msg = h->msg;
    const size_t msg_n = sizeof h->msg;
    const kalah_rules *base = game_rules(h->g);
    if (total % (2 * pits) || total == 0) {
        snprintf(msg, msg_n, "a board of %d pits with %d seeds: Kalah boards hold 2 x %d x (seeds a pit at the "
                 "start) seeds", pits, total, pits);
        *why = msg;
        return NULL;
    }
    int seeds = total / (2 * pits);
    if (pits == base->pits && seeds == base->seeds) {
        *g = h->g;
        return h->a;
    }
    int i;
    for (i = 0; i < h->n_boards; i++)
        if (h->bpits[i] == pits && h->bseeds[i] == seeds)
            break;
    if (i == h->n_boards) {
        if (h->n_boards == ENGINE_BOARDS) {
            snprintf(msg, msg_n, "more than %d board sizes in one session", ENGINE_BOARDS);
            *why = msg;
            return NULL;
        }
        h->n_boards++;
        h->bpits[i] = pits;
        h->bseeds[i] = seeds;
        kalah_rules r = *base;
        char spec[GAME_SPEC_MAX], gerr[GAME_ERRLEN];
        r.pits = pits;
        r.seeds = seeds;
        kalah_rules_format(&r, spec, sizeof spec);
        if (!(h->bg[i] = game_create(spec, gerr)))
            errbuf_set(h->berr[i], AGENT_ERRLEN, "boards of %d pits and %d seeds: %s", pits, total, gerr);
        else
            h->ba[i] = game_agent_create(h->spec, h->bg[i], h->berr[i]);
    }
    if (!h->ba[i]) {
        *why = h->berr[i];
        return NULL;
    }
    *g = h->bg[i];
    return h->ba[i];
}

/* A move request: a quick first answer, the agent's answer, yield (engine_host.h). */
static void play(engine_host *h, const kgp_cmd *c, const game *g, game_agent *a, const game_pos *p)
{
    char ref[32], msg[AGENT_ERRLEN + 32];
    ref_of(c, ref, sizeof ref);
    if (p->over || !game_legal(g, p)) {
        answer_error(h, c, "the game is over at this position: there is no move to choose");
        return;
    }
    unsigned quick = game_greedy(g, p);
    if (!quick)
        quick = game_legal(g, p);
    int first = __builtin_ctz(quick), k;
    if (kgp_send(h->out, "%smove %d", ref, first + 1))
        h->out_failed = 1;
    int rc = game_agent_choose(a, p, &k);
    if (rc != AGENT_OK) {
        snprintf(msg, sizeof msg, "the agent failed (move %d stands): %s", first + 1, game_agent_error(a));
        answer_error(h, c, msg);
    } else if (k != first && kgp_send(h->out, "%smove %d", ref, k + 1)) {
        h->out_failed = 1;
    }
    if (kgp_send(h->out, "%syield", ref))
        h->out_failed = 1;
}

/* The position of a `sowzero go|analyse "POS"` request in the rules' notation, or -1 after an error answer. */
static int ext_position(engine_host *h, const kgp_cmd *c, game_pos *p)
{
    char gerr[GAME_ERRLEN], msg[GAME_ERRLEN + 80];
    if (c->argc != 2 || (c->arg[1].type != KGP_STRING && c->arg[1].type != KGP_WORD)) {
        snprintf(msg, sizeof msg, "sowzero %s needs one position in quotes, e.g. sowzero %s \"4,4,4,4,4,4,0,"
                 "4,4,4,4,4,4,0 S\"", c->arg[0].text, c->arg[0].text);
        answer_error(h, c, msg);
        return -1;
    }
    if (game_pos_parse(h->g, c->arg[1].text, p, gerr) != GAME_OK) {
        snprintf(msg, sizeof msg, "position '%.60s': %s", c->arg[1].text, gerr);
        answer_error(h, c, msg);
        return -1;
    }
    return 0;
}

/* The mover's exact margin after slot k from p when the game ends there (2-player games with a margin). */
static int exact_after(const game *g, const game_pos *p, int k, int *margin)
{
    if (game_players(g) != 2 || !game_has_margin(g))
        return 0;
    game_pos q = *p;
    int m;
    if (game_apply(g, &q, k, NULL) != GAME_OK)
        return 0;
    if (q.over)
        m = game_margin(g, &q);
    else if (!game_endgame(g, &q, &m))
        return 0;
    *margin = p->to_move ? -m : m;
    return 1;
}

/* `sowzero analyse "POS"`: one `sowzero info move K ...` line per legal move, then `sowzero best K ...`. */
static void analyse(engine_host *h, const kgp_cmd *c, const game_pos *p)
{
    char ref[32], line[KGP_LINE_MAX], msg[AGENT_ERRLEN + 32];
    ref_of(c, ref, sizeof ref);
    const game *g = h->g;
    unsigned legal = game_legal(g, p);
    if (p->over || !legal) {
        answer_error(h, c, "the game is over at this position: there is nothing to analyse");
        return;
    }
    game_agent_set_detail(h->a, 1);
    int best, rc = game_agent_choose(h->a, p, &best);
    game_agent_set_detail(h->a, 0);
    if (rc != AGENT_OK) {
        snprintf(msg, sizeof msg, "the agent failed: %s", game_agent_error(h->a));
        answer_error(h, c, msg);
        return;
    }
    game_agent_stats st;
    game_agent_last_stats(h->a, &st);
    for (int k = 0; k < game_moves(g); k++) {
        if (!(legal >> k & 1))
            continue;
        size_t at = (size_t)snprintf(line, sizeof line, "%ssowzero info move %d", ref, k + 1);
        if (st.have_visits)
            at += (size_t)snprintf(line + at, sizeof line - at, " visits %d q %.4f", st.visits[k], st.q[k]);
        if (st.have_prior)
            at += (size_t)snprintf(line + at, sizeof line - at, " prior %.4f", st.prior[k]);
        int m;
        if (st.have_values && st.values[k] != GAME_AGENT_NO_VALUE)
            at += (size_t)snprintf(line + at, sizeof line - at, " exact %d", st.values[k]);
        else if (exact_after(g, p, k, &m))
            at += (size_t)snprintf(line + at, sizeof line - at, " exact %d", m);
        if (kgp_send(h->out, "%s", line))
            h->out_failed = 1;
    }
    size_t at = (size_t)snprintf(line, sizeof line, "%ssowzero best %d", ref, best + 1);
    if (st.have_value)
        at += (size_t)snprintf(line + at, sizeof line - at, " value %.4f", st.value);
    if (st.nodes)
        at += (size_t)snprintf(line + at, sizeof line - at, " nodes %llu", (unsigned long long)st.nodes);
    if (st.depth)
        at += (size_t)snprintf(line + at, sizeof line - at, " depth %d", st.depth);
    if (st.exact)
        at += (size_t)snprintf(line + at, sizeof line - at, " exact 1");
    if (st.have_pv && st.pv_len > 0) {
        at += (size_t)snprintf(line + at, sizeof line - at, " pv \"");
        for (int i = 0; i < st.pv_len && at < sizeof line - 8; i++)
            at += (size_t)snprintf(line + at, sizeof line - at, "%s%d", i ? " " : "", st.pv[i] + 1);
        snprintf(line + at, sizeof line - at, "\"");
    }
    if (kgp_send(h->out, "%s", line))
        h->out_failed = 1;
}

static void extension(engine_host *h, const kgp_cmd *c)
{
    char q[KGP_LINE_MAX], msg[AGENT_ERRLEN];
    if (c->argc < 1 || c->arg[0].type != KGP_WORD) {
        answer_error(h, c, "sowzero needs a request: go, analyse, rules, agent or newgame");
        return;
    }
    const char *sub = c->arg[0].text;
    game_pos p;
    if (!strcmp(sub, "go")) {
        if (!ext_position(h, c, &p))
            play(h, c, h->g, h->a, &p);
    } else if (!strcmp(sub, "analyse") || !strcmp(sub, "analyze")) {
        if (!ext_position(h, c, &p))
            analyse(h, c, &p);
    } else if (!strcmp(sub, "rules") && c->argc == 1) {
        answer(h, c, "sowzero rules %s", kgp_quote(game_spec(h->g), q, sizeof q));
    } else if (!strcmp(sub, "agent") && c->argc == 1) {
        answer(h, c, "sowzero agent %s", kgp_quote(game_agent_describe(h->a), q, sizeof q));
    } else if (!strcmp(sub, "newgame") && (c->argc == 1 || (c->argc == 2 && c->arg[1].type == KGP_INT &&
                                                            c->arg[1].ival >= 0))) {
        uint64_t seed = c->argc == 2 ? (uint64_t)c->arg[1].ival : 0;
        game_start(h->g, &p);
        game_agent_new_game(h->a, &p, seed);
        for (int i = 0; i < h->n_boards; i++)
            if (h->ba[i]) {
                game_start(h->bg[i], &p);
                game_agent_new_game(h->ba[i], &p, seed);
            }
        answer(h, c, "ok %s", "\"newgame\"");
    } else if (!strcmp(sub, "rules") || !strcmp(sub, "agent") || !strcmp(sub, "newgame")) {
        snprintf(msg, sizeof msg, "sowzero %s: wrong arguments (docs/protocol.md)", sub);
        answer_error(h, c, msg);
    } else {
        snprintf(msg, sizeof msg, "unknown request 'sowzero %.40s' (go, analyse, rules, agent, newgame)", sub);
        answer_error(h, c, msg);
    }
}

/* One line. 1: the session ends (goodbye), else 0. */
static int handle(engine_host *h, char *line)
{
    kgp_cmd c;
    char perr[KGP_ERRLEN], msg[KGP_ERRLEN + 64];
    if (kgp_parse(line, &c, perr)) {
        if (!strcmp(perr, "empty line"))
            return 0; /* blank lines are skipped */
        snprintf(msg, sizeof msg, "malformed line: %s", perr);
        answer_error(h, NULL, msg);
        return 0;
    }
    const char *n = c.name;
    if (!strcmp(n, "kgp")) {
        if (c.argc >= 1 && c.arg[0].type == KGP_INT && c.arg[0].ival == 1) {
            answer(h, NULL, "mode %s", "freeplay");
            return 0;
        }
        answer_error(h, &c, "protocol version not supported: this engine speaks KGP 1.x");
        answer(h, NULL, "%s", "goodbye");
        h->refused_version = 1;
        return 1;
    }
    if (!strcmp(n, "goodbye"))
        return 1;
    if (!strcmp(n, "init") || !strcmp(n, "ok") || !strcmp(n, "error") || !strcmp(n, "set") || !strcmp(n, "stop") ||
        !strcmp(n, "pong"))
        return 0; /* confirmations, hints and stops of requests already answered in full */
    if (!strcmp(n, "ping")) {
        char q[KGP_LINE_MAX];
        if (c.argc >= 1)
            answer(h, &c, "pong %s", c.arg[0].type == KGP_STRING ? kgp_quote(c.arg[0].text, q, sizeof q) : c.arg[0].text);
        else
            answer(h, &c, "%s", "pong");
        return 0;
    }
    if (!strcmp(n, "state")) {
        int pits;
        const char *why = NULL;
        const game *g;
        game_pos p;
        char pos[GAME_POS_STR], gerr[GAME_ERRLEN];
        if (!h->kalah) {
            snprintf(msg, sizeof msg, "state boards are Kalah's; this engine plays %s (use sowzero go)", game_name(h->g));
            answer_error(h, &c, msg);
        } else if (c.argc != 1) {
            answer_error(h, &c, "state takes one board <n,mover's store,other store,n pits,n pits>");
        } else if (kgp_board_check(&c.arg[0], &pits, perr)) {
            answer_error(h, &c, perr);
        } else {
            int total = 0;
            for (int i = 1; i < c.arg[0].nvals; i++)
                total += c.arg[0].vals[i];
            game_agent *a = board_agent(h, pits, total, &g, &why);
            if (!a) {
                answer_error(h, &c, why);
            } else if (game_pos_parse(g, kgp_board_notation(&c.arg[0], pos, sizeof pos), &p, gerr) != GAME_OK) {
                errbuf_set(msg, sizeof msg, "board %.60s: %s", c.arg[0].text, gerr);
                answer_error(h, &c, msg);
            } else {
                play(h, &c, g, a, &p);
            }
        }
        return 0;
    }
    if (!strcmp(n, "sowzero")) {
        extension(h, &c);
        return 0;
    }
    snprintf(msg, sizeof msg, "unknown command '%.40s' (kgp, state, stop, ping, set, goodbye; sowzero ...)", n);
    answer_error(h, &c, msg);
    return 0;
}

int engine_host_serve(engine_host *h, int in_fd, int out_fd)
{
    kgp_reader rd;
    char line[KGP_LINE_MAX + 1];
    kgp_reader_init(&rd, in_fd);
    h->out = out_fd;
    h->out_failed = 0;
    for (;;) {
        int rc = kgp_read_line(&rd, line, -1);
        if (rc == -1)
            return 0;
        if (rc == -2) {
            char msg[80];
            snprintf(msg, sizeof msg, "malformed line: longer than %d bytes or holding a NUL byte", KGP_LINE_MAX);
            answer_error(h, NULL, msg);
        } else if (rc == 1 && handle(h, line)) {
            return h->out_failed ? -1 : 0;
        }
        if (h->out_failed)
            return -1;
    }
}

int engine_host_refused_version(const engine_host *h) { return h && h->refused_version; }
