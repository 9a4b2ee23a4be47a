/* gposset.c — solved position sets of the game interface's two-player games (gposset.h). */
#include "eval/gposset.h"
#include "eval/gposset_impl.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "env/errbuf.h"
#include "eval/game_agent.h"
#include "eval/game_search.h"
#include "selfplay/rng.h"

#define set_err(err, ...) errbuf_set(err, PS_ERRLEN, __VA_ARGS__)


gps_set *gps_create(const game *g, char *err)
{
    char gerr[GAME_ERRLEN];
    if (gs_solvable(g, gerr) != GAME_OK) {
        set_err(err, "%s", gerr);
        return NULL;
    }
    gps_set *s = calloc(1, sizeof *s);
    if (!s) {
        set_err(err, "out of memory");
        return NULL;
    }
    s->g = g;
    return s;
}

void gps_free(gps_set *s)
{
    if (!s)
        return;
    free(s->e);
    free(s->command);
    free(s);
}

const game *gps_game(const gps_set *s) { return s->g; }
size_t gps_count(const gps_set *s) { return s->n; }
gps_entry *gps_get(gps_set *s, size_t i) { return i < s->n ? &s->e[i] : NULL; }
const gps_entry *gps_get_const(const gps_set *s, size_t i) { return i < s->n ? &s->e[i] : NULL; }
const char *gps_command(const gps_set *s) { return s && s->command ? s->command : ""; }
uint64_t gps_seed(const gps_set *s) { return s ? s->seed : 0; }

static int same_position(const game_pos *a, const game_pos *b)
{
    game_pos x = *a, y = *b;
    x.ply = y.ply = 0;
    return memcmp(&x, &y, sizeof x) == 0;
}

gps_entry *gps_append(gps_set *s)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        gps_entry *e = realloc(s->e, cap * sizeof *e);
        if (!e)
            return NULL;
        s->e = e;
        s->cap = cap;
    }
    gps_entry *e = &s->e[s->n++];
    memset(e, 0, sizeof *e);
    return e;
}

int gps_add(gps_set *s, const game_pos *p, const char *source)
{
    if (p->over)
        return 0;
    for (size_t i = 0; i < s->n; i++)
        if (same_position(&s->e[i].pos, p))
            return 0;
    gps_entry *e = gps_append(s);
    if (!e)
        return PS_ENOMEM;
    e->pos = *p;
    snprintf(e->source, sizeof e->source, "%s", source ? source : "");
    e->seeds_in_pits = game_seeds_in_pits(s->g, p);
    for (int k = 0; k < GAME_MAX_MOVES; k++)
        e->values[k] = GPS_NO_VALUE;
    return 1;
}

static int start_seeds(const game *g)
{
    game_pos p;
    game_start(g, &p);
    return game_seeds_in_pits(g, &p);
}

int gps_phase(const game *g, int seeds_in_pits)
{
    const int total = start_seeds(g);
    return 3 * seeds_in_pits > 2 * total ? 0 : 3 * seeds_in_pits > total ? 1 : 2;
}

void gps_phase_range(const game *g, int phase, int *hi, int *lo)
{
    const int total = start_seeds(g);
    *hi = phase == 0 ? total : phase == 1 ? 2 * total / 3 : total / 3;
    *lo = phase == 0 ? 2 * total / 3 + 1 : phase == 1 ? total / 3 + 1 : 0;
}

/* ---- sampling ---- */

#define MAX_PLIES 4000   /* beyond any game with a ply limit the solver accepts (GS_MAX_PLY) */
#define PICK_TRIES 4
#define N_AGENTS 5

typedef struct {
    gps_set *s;
    const ps_sample_opts *o;
    mcts_rng rng;
    size_t want[PS_PHASES], have[PS_PHASES];
    game_agent *agents[N_AGENTS + 1]; /* the generic agents, then az with a net */
    int n_agents;
    game_pos *game;      /* positions of the current game, by ply */
} sampler;

static int needs(const sampler *sp, int phase) { return sp->have[phase] < sp->want[phase]; }

static int sows_left(const game *g, const game_pos *p);

/* Within the caps on seeds in the pits and sowings left. */
static int capped(const sampler *sp, const game_pos *p, int seeds)
{
    if (sp->o->max_seeds > 0 && seeds > sp->o->max_seeds)
        return 0;
    return sp->o->max_sows_left <= 0 || sows_left(sp->s->g, p) <= sp->o->max_sows_left;
}

static int offer(sampler *sp, const game_pos *p, const char *source)
{
    const int seeds = game_seeds_in_pits(sp->s->g, p), ph = gps_phase(sp->s->g, seeds);
    if (p->over || !needs(sp, ph) || !capped(sp, p, seeds))
        return 0;
    int rc = gps_add(sp->s, p, source);
    if (rc == 1)
        sp->have[ph]++;
    return rc;
}

static int random_move(sampler *sp, const game_pos *p)
{
    unsigned legal = game_legal(sp->s->g, p);
    int j = (int)mcts_rng_below(&sp->rng, (uint32_t)__builtin_popcount(legal));
    while (j--)
        legal &= legal - 1;
    return __builtin_ctz(legal);
}

static int draw_opening(sampler *sp)
{
    const int k = 1 + (int)mcts_rng_below(&sp->rng, (uint32_t)(6 * game_moves(sp->s->g)));
    game_pos p;
    game_start(sp->s->g, &p);
    for (int i = 0; i < k; i++) {
        if (p.over)
            return 0;
        game_apply(sp->s->g, &p, random_move(sp, &p), NULL);
    }
    char src[32];
    snprintf(src, sizeof src, "opening:%d", k);
    return offer(sp, &p, src);
}

static int draw_game(sampler *sp, char *err)
{
    const game *g = sp->s->g;
    game_agent *a[2] = {sp->agents[mcts_rng_below(&sp->rng, (uint32_t)sp->n_agents)],
                        sp->agents[mcts_rng_below(&sp->rng, (uint32_t)sp->n_agents)]};
    const int opening = (int)mcts_rng_below(&sp->rng, 4);
    const uint64_t game_seed = mcts_rng_next(&sp->rng);
    game_pos p;
    game_start(g, &p);
    int n = 0;
    while (!p.over && n < MAX_PLIES) {
        if (n == opening) {
            game_agent_new_game(a[0], &p, game_seed);
            if (a[1] != a[0])
                game_agent_new_game(a[1], &p, game_seed);
        }
        sp->game[n++] = p;
        int mv;
        if (n <= opening) {
            mv = random_move(sp, &p);
        } else if (game_agent_choose(a[p.to_move], &p, &mv) != AGENT_OK) {
            set_err(err, "agent '%s': %s", game_agent_spec(a[p.to_move]), game_agent_error(a[p.to_move]));
            return PS_EFAIL;
        }
        if (game_apply(g, &p, mv, NULL) != GAME_OK) {
            set_err(err, "agent '%s' chose an illegal move", game_agent_spec(a[p.to_move]));
            return PS_EFAIL;
        }
    }
    char src[PS_SOURCE_MAX];
    snprintf(src, sizeof src, "game:%s-vs-%s", game_agent_spec(a[0]), game_agent_spec(a[1]));
    static _Thread_local int idx[MAX_PLIES];
    for (int ph = 0; ph < PS_PHASES; ph++) {
        if (!needs(sp, ph))
            continue;
        int m = 0;
        for (int i = 0; i < n; i++) {
            const int seeds = game_seeds_in_pits(g, &sp->game[i]);
            if (gps_phase(g, seeds) == ph && capped(sp, &sp->game[i], seeds))
                idx[m++] = i;
        }
        for (int t = 0; t < PICK_TRIES && m > 0; t++) {
            int rc = offer(sp, &sp->game[idx[mcts_rng_below(&sp->rng, (uint32_t)m)]], src);
            if (rc < 0)
                return rc;
            if (rc == 1)
                break;
        }
    }
    return PS_OK;
}

int gps_sample(gps_set *s, const ps_sample_opts *o, char *err)
{
    if (!s || !o || o->count < 1 || o->early > o->count || s->n) {
        set_err(err, "sampling: need an empty set, count >= 1 and early <= count");
        return PS_EINVAL;
    }
    game_solve_props props;
    game_solve_properties(s->g, &props);
    if (o->max_sows_left < 0 || (o->max_sows_left > 0 && props.ply_limit <= 0)) {
        set_err(err, "--max-sows-left: the rules %s have no ply limit (max_sows) to count the sowings left to",
                game_spec(s->g));
        return PS_EINVAL;
    }
    static const char *const specs[N_AGENTS] = {"random", "greedy", "ab:depth=2", "ab:depth=4", "mcts:sims=100"};
    sampler sp = {.s = s, .o = o};
    mcts_rng_seed(&sp.rng, o->seed);
    const size_t rest = o->count - o->early;
    sp.want[0] = o->early;
    sp.want[1] = rest - rest / 2;
    sp.want[2] = rest / 2;
    for (int ph = 0; ph + 1 < PS_PHASES; ph++) { /* a phase above max_seeds hands its quota on */
        int hi, lo;
        gps_phase_range(s->g, ph, &hi, &lo);
        if (o->max_seeds > 0 && lo > o->max_seeds) {
            sp.want[ph + 1] += sp.want[ph];
            sp.want[ph] = 0;
        }
    }
    int rc = PS_OK;
    sp.game = malloc(MAX_PLIES * sizeof *sp.game);
    if (!sp.game)
        rc = PS_ENOMEM;
    char aerr[AGENT_ERRLEN], az[PS_SOURCE_MAX];
    if (o->net && strchr(o->net, ',')) { /* the agent spec's key separator */
        set_err(err, "--net %s: a path with a comma cannot be named in an agent spec: rename or link the file",
                o->net);
        rc = PS_EINVAL;
    } else if (o->net && snprintf(az, sizeof az, "az:net=%s,sims=100", o->net) >= (int)sizeof az) {
        set_err(err, "--net: the path is too long (%zu bytes)", strlen(o->net));
        rc = PS_EINVAL;
    }
    sp.n_agents = N_AGENTS + (o->net != NULL);
    for (int i = 0; rc == PS_OK && i < sp.n_agents; i++)
        if (!(sp.agents[i] = game_agent_create(i < N_AGENTS ? specs[i] : az, s->g, aerr))) {
            set_err(err, "%s%s", i < N_AGENTS ? "" : "--net: ", aerr);
            rc = PS_EINVAL;
        }
    /* A board with fewer distinct positions in a phase than asked for (a small one) stops finding new ones
     * there long before the cap: a run of `stall` draws that adds none to a phase still short ends the
     * search (the error below names the phase). */
    const size_t draws = 1000 + 200 * o->count, stall = 5000 + 10 * o->count;
    size_t d = 0, last_found[PS_PHASES] = {0}, had[PS_PHASES] = {0};
    int stalled = 0;
    for (; rc >= 0 && d < draws && !stalled && (needs(&sp, 0) || needs(&sp, 1) || needs(&sp, 2)); d++) {
        rc = mcts_rng_below(&sp.rng, 4) == 0 ? draw_opening(&sp) : draw_game(&sp, err);
        for (int ph = 0; ph < PS_PHASES; ph++) {
            if (sp.have[ph] != had[ph])
                last_found[ph] = d, had[ph] = sp.have[ph];
            stalled |= needs(&sp, ph) && d - last_found[ph] >= stall;
        }
    }
    if (rc == PS_ENOMEM)
        set_err(err, "out of memory");
    for (int ph = 0; rc >= 0 && ph < PS_PHASES; ph++)
        if (needs(&sp, ph)) {
            int hi, lo;
            gps_phase_range(s->g, ph, &hi, &lo);
            set_err(err, "after %zu draws (%s) only %zu of the %zu positions wanted with %d-%d seeds in the pits "
                    "were found (too few distinct positions of this board in that phase? ask for fewer "
                    "positions, or fewer early ones)", d, stalled ? "the last ones found no new position there" :
                    "the most for this count", sp.have[ph], sp.want[ph], hi, lo);
            rc = PS_EFAIL;
        }
    for (int i = 0; i < sp.n_agents; i++)
        game_agent_free(sp.agents[i]);
    free(sp.game);
    return rc < 0 ? rc : PS_OK;
}

/* ---- solving ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Every legal move of e's position solved on sv (gs_solver_moves): values[], value, best_mask. GAME_OK or
 * the solver's code (message in err). */
static int solve_entry(gs_solver *sv, gps_entry *e, char *err)
{
    uint64_t nodes = 0;
    int v[GAME_MAX_MOVES];
    int rc = gs_solver_moves(sv, &e->pos, v, &nodes, err);
    e->nodes = nodes;
    e->value = GPS_NO_VALUE;
    e->best_mask = 0;
    if (rc != GAME_OK)
        return rc;
    for (int k = 0; k < GAME_MAX_MOVES; k++) {
        e->values[k] = v[k] == GS_NO_VALUE ? GPS_NO_VALUE : v[k];
        if (v[k] == GS_NO_VALUE)
            continue;
        if (v[k] > e->value) {
            e->value = v[k];
            e->best_mask = 0;
        }
        if (v[k] == e->value)
            e->best_mask |= 1u << k;
    }
    return GAME_OK;
}

typedef struct {
    gps_set *set;
    const gps_solve_opts *o;
    size_t *order, n, next, done;
    pthread_mutex_t mu;
    int failed;
    size_t failed_at;
    char msg[GAME_ERRLEN];
    uint64_t nodes;
} job;

typedef struct {
    job *j;
    gs_solver *sv;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    job *j = w->j;
    for (;;) {
        pthread_mutex_lock(&j->mu);
        size_t k = j->failed ? j->n : j->next++;
        pthread_mutex_unlock(&j->mu);
        if (k >= j->n)
            break;
        gps_entry *e = &j->set->e[j->order[k]];
        char err[GAME_ERRLEN] = "";
        double t0 = now_s();
        int rc = solve_entry(w->sv, e, err);
        e->seconds = now_s() - t0;
        pthread_mutex_lock(&j->mu);
        j->nodes += e->nodes;
        if (rc != GAME_OK) {
            if (!j->failed) {
                j->failed = rc;
                j->failed_at = j->order[k];
                snprintf(j->msg, sizeof j->msg, "%s", err);
            }
        } else {
            e->solved = 1;
            j->done++;
            if (j->o->progress)
                j->o->progress(j->o->ctx, j->done, j->n, e);
        }
        pthread_mutex_unlock(&j->mu);
    }
    return NULL;
}

static const gps_set *sort_set; /* qsort has no context argument; set under sort_mu */
static pthread_mutex_t sort_mu = PTHREAD_MUTEX_INITIALIZER;

static int sows_left(const game *g, const game_pos *p)
{
    game_solve_props sp;
    game_solve_properties(g, &sp);
    return sp.ply_limit > 0 ? sp.ply_limit - p->ply : 0;
}

static int harder_first(const void *a, const void *b)
{
    const gps_entry *x = &sort_set->e[*(const size_t *)a], *y = &sort_set->e[*(const size_t *)b];
    if (x->seeds_in_pits != y->seeds_in_pits)
        return y->seeds_in_pits - x->seeds_in_pits;
    int lx = sows_left(sort_set->g, &x->pos), ly = sows_left(sort_set->g, &y->pos);
    if (lx != ly)
        return ly - lx;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

int gps_solve(gps_set *s, const gps_solve_opts *o, ps_solve_stats *stats, char *err)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (!o || o->threads < 1 || o->threads > 64 || o->endgame < 0 || o->endgame > 127) {
        set_err(err, "--threads must be 1..64, --endgame 0..127");
        return PS_EINVAL;
    }
    size_t per = o->tt_mb / (size_t)o->threads;
    if (per < 1)
        per = 1;
    job j = {.set = s, .o = o};
    j.order = malloc((s->n ? s->n : 1) * sizeof *j.order);
    worker *w = calloc((size_t)o->threads, sizeof *w);
    pthread_t *tid = calloc((size_t)o->threads, sizeof *tid);
    if (!j.order || !w || !tid) {
        free(j.order);
        free(w);
        free(tid);
        set_err(err, "out of memory");
        return PS_ENOMEM;
    }
    for (size_t i = 0; i < s->n; i++)
        if (!s->e[i].solved)
            j.order[j.n++] = i;
    pthread_mutex_lock(&sort_mu);
    sort_set = s;
    qsort(j.order, j.n, sizeof *j.order, harder_first);
    pthread_mutex_unlock(&sort_mu);
    pthread_mutex_init(&j.mu, NULL);
    int rc = PS_OK, started = 0;
    double built = 0;
    for (int t = 0; t < o->threads; t++) {
        char gerr[GAME_ERRLEN];
        w[t].j = &j;
        if (!(w[t].sv = gs_solver_create(s->g, per, gerr))) {
            set_err(err, "a %zu MiB table: %s", per, gerr);
            rc = PS_ENOMEM;
            break;
        }
        /* The endgame database: built (or mapped from a tablebase file) by the first solver on every thread,
         * then shared (eval/tbase.h's cache); each solver then searches on its own thread. */
        if (o->endgame > 0 &&
            (gs_solver_set_threads(w[t].sv, t == 0 ? o->threads : 1, gerr) != GAME_OK ||
             gs_solver_set_endgame(w[t].sv, o->endgame, t == 0 ? &built : NULL, gerr) != GAME_OK ||
             gs_solver_set_threads(w[t].sv, 1, gerr) != GAME_OK)) {
            set_err(err, "--endgame %d: %s", o->endgame, gerr);
            rc = PS_EINVAL;
            break;
        }
    }
    double t0 = now_s();
    for (int t = 0; rc == PS_OK && t < o->threads; t++)
        if (pthread_create(&tid[t], NULL, work, &w[t]) == 0)
            started++;
    if (rc == PS_OK && !started)
        work(&w[0]); /* no thread could start: solve on this one */
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
    for (int t = 0; t < o->threads; t++)
        gs_solver_free(w[t].sv);
    if (rc == PS_OK && j.failed) {
        char pos[GAME_POS_STR];
        game_pos_format(s->g, &s->e[j.failed_at].pos, pos, sizeof pos);
        set_err(err, "solving %s (after %d sowings): %s", pos, s->e[j.failed_at].pos.ply, j.msg);
        rc = PS_EFAIL;
    }
    if (stats) {
        stats->seconds = now_s() - t0;
        stats->endgame_seconds = built;
        stats->nodes = j.nodes;
        stats->threads = started ? started : 1;
    }
    pthread_mutex_destroy(&j.mu);
    free(j.order);
    free(w);
    free(tid);
    return rc;
}

/* ---- writing ---- */

static cJSON *header_json(const gps_set *s, const ps_header *h)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "format", PS_FORMAT);
    cJSON_AddNumberToObject(o, "format_version", PS_FORMAT_VERSION);
    cJSON_AddStringToObject(o, "rules", game_spec(s->g));
    cJSON_AddNumberToObject(o, "count", (double)s->n);
    cJSON_AddStringToObject(o, "command", h && h->command ? h->command : "");
    cJSON_AddStringToObject(o, "commit", h && h->commit ? h->commit : "unknown");
    cJSON_AddNumberToObject(o, "seed", h ? (double)h->seed : 0);
    return o;
}

void gps_seat_letter(const game *g, int player, char out[2])
{
    char name[32];
    game_seat_name(g, player, name, sizeof name);
    out[0] = game_get_kind(g)->seat_names ? name[0] : (char)('0' + player);
    out[1] = 0;
}

static cJSON *entry_json(const gps_set *s, const gps_entry *e)
{
    const game *g = s->g;
    const game_pos *p = &e->pos;
    const unsigned legal = game_legal(g, p);
    if (!e->solved || !legal)
        return NULL;
    int best = GPS_NO_VALUE;
    for (int k = 0; k < GAME_MAX_MOVES; k++)
        if (legal >> k & 1) {
            if (e->values[k] == GPS_NO_VALUE)
                return NULL;
            if (e->values[k] > best)
                best = e->values[k];
        }
    char pos[GAME_POS_STR], side[2];
    gps_seat_letter(g, p->to_move, side);
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "position", game_pos_format(g, p, pos, sizeof pos));
    cJSON_AddStringToObject(o, "to_move", side);
    cJSON_AddNumberToObject(o, "seeds_in_pits", game_seeds_in_pits(g, p));
    cJSON_AddNumberToObject(o, "ply", p->ply);
    game_solve_props sp;
    game_solve_properties(g, &sp);
    if (sp.ply_limit > 0)
        cJSON_AddNumberToObject(o, "sows_left", sp.ply_limit - p->ply);
    cJSON_AddStringToObject(o, "source", e->source);
    cJSON_AddNumberToObject(o, "value", best);
    cJSON *b = cJSON_AddArrayToObject(o, "best");
    cJSON *m = cJSON_AddObjectToObject(o, "moves");
    for (int k = 0; k < GAME_MAX_MOVES; k++)
        if (legal >> k & 1) {
            char l[8];
            game_move_format(g, p, k, l, sizeof l);
            if (e->values[k] == best)
                cJSON_AddItemToArray(b, cJSON_CreateString(l));
            cJSON_AddNumberToObject(m, l, e->values[k]);
        }
    return o;
}

int gps_format_line(gps_set *s, const ps_header *h, long i, char **out)
{
    *out = NULL;
    if (i < -1 || (i >= 0 && (size_t)i >= s->n))
        return PS_EINVAL;
    cJSON *o = i < 0 ? header_json(s, h) : entry_json(s, &s->e[i]);
    if (!o)
        return i < 0 ? PS_ENOMEM : PS_EINVAL;
    *out = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return *out ? PS_OK : PS_ENOMEM;
}

int gps_write(gps_set *s, const ps_header *h, const char *path, char *err)
{
    for (size_t i = 0; i < s->n; i++)
        if (!s->e[i].solved) {
            set_err(err, "%s: position %zu of the set is not solved", path, i + 1);
            return PS_EINVAL;
        }
    size_t len = strlen(path);
    char *tmp = malloc(len + 16);
    if (!tmp) {
        set_err(err, "out of memory");
        return PS_ENOMEM;
    }
    snprintf(tmp, len + 16, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        set_err(err, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        free(tmp);
        return PS_EIO;
    }
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    FILE *f = fdopen(fd, "w");
    int rc = f ? PS_OK : PS_EIO;
    if (!f)
        close(fd);
    for (long i = -1; rc == PS_OK && i < (long)s->n; i++) {
        char *line;
        rc = gps_format_line(s, h, i, &line);
        if (rc == PS_OK && (fputs(line, f) == EOF || fputc('\n', f) == EOF))
            rc = PS_EIO;
        free(line);
    }
    const char *why = rc == PS_ENOMEM ? "out of memory" : rc == PS_EINVAL ? "a position cannot be written" : NULL;
    if (f) {
        if (rc == PS_OK && (fflush(f) != 0 || fsync(fileno(f)) != 0))
            rc = PS_EIO;
        if (rc == PS_EIO && !why)
            why = strerror(errno);
        if (fclose(f) != 0 && rc == PS_OK) {
            rc = PS_EIO;
            why = strerror(errno);
        }
    } else {
        why = strerror(errno);
    }
    if (rc == PS_OK && rename(tmp, path) != 0) {
        rc = PS_EIO;
        why = strerror(errno);
    }
    if (rc != PS_OK) {
        set_err(err, "%s: %s", path, why ? why : "write failed");
        unlink(tmp);
    }
    free(tmp);
    return rc;
}
