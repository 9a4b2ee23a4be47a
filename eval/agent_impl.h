/* agent_impl.h — internals shared by agent.c (spec parsing, random, greedy) and agent_search.c (ab, mcts,
 * az). Not a public header: include eval/agent.h instead. */
#ifndef SOWZERO_AGENT_IMPL_H
#define SOWZERO_AGENT_IMPL_H

#include "eval/agent.h"
#include "selfplay/mcts.h"

typedef struct {
    int (*choose)(agent *a, const kalah_pos *p, int *move_out);
    void (*new_game)(agent *a, const kalah_pos *start); /* after a->rng has been reseeded; may be NULL */
    void (*notify)(agent *a, const kalah_pos *before, int move); /* may be NULL */
    void (*destroy)(agent *a);                                   /* frees a->impl; may be NULL */
} agent_ops;

struct agent {
    const agent_ops *ops;
    char *spec;
    const char *kind;
    kalah_rules rules;
    uint64_t seed;      /* from the spec */
    uint64_t rng;       /* SplitMix64 state of this game */
    uint64_t game_seed; /* the seed mixed into rng (kinds with their own generators derive from it) */
    void *impl;
    int detail;         /* agent_set_detail */
    char err[AGENT_ERRLEN];
    char *desc;         /* agent_describe when it differs from the spec (owned; NULL: the spec) */
    game_agent_stats stats; /* of the last choose (pos unset); the search kinds fill it (agent_choose clears it first) */
    int64_t time_ms;    /* agent_set_time: each choose's time budget in ms, 0 = none */
    const int *abort;   /* agent_set_abort; NULL: none */
};

/* 1 when a's abort flag (agent_set_abort) is set. */
static inline int agent_aborted(const agent *a) { return a->abort && __atomic_load_n(a->abort, __ATOMIC_RELAXED); }

/* key=value pairs of a spec, in order. Parsers take the keys they know; whatever is left is an error. */
#define AGENT_MAX_KEYS 16
typedef struct {
    const char *spec; /* the whole spec, for messages */
    const char *kind;
    int n;
    char *key[AGENT_MAX_KEYS], *val[AGENT_MAX_KEYS];
    int used[AGENT_MAX_KEYS];
} agent_args;

/* A kind of agent spec: its name and the keys it takes, comma-separated (shown in messages as they are). */
typedef struct {
    const char *name, *keys;
} agent_kind_desc;

/* The spec grammar of docs/design.md §2, shared by the Kalah agents and the básico ones (basico_agent.c):
 * KIND, KIND:key=value,... or, for a kind without keys, KIND,seed=N. buf is a writable copy of spec (the args
 * point into it). kinds[0..n_kinds) are the kinds known; unknown_text follows "unknown kind 'X'" in the
 * message (e.g. "(random, greedy, ab, mcts, az)"); rules_keys (NULL-terminated) are refused with a pointer to
 * --rules. Checks every key against the kind's list and for repeats. Returns the kind's index, or -1 with
 * a message naming the spec and what is wrong in err (AGENT_ERRLEN). */
int agent_spec_split(const char *spec, char *buf, const agent_kind_desc *kinds, int n_kinds, const char *unknown_text,
                     const char *const *rules_keys, agent_args *args, char *err);

/* One value of a spec whose values may hold commas (engine:cmd=..., br:target=...) at *s: unquoted up to
 * ',' or the end; "..." with \" and \\ escapes; '...' literal. A new string (the caller frees it); *s
 * moves past it. NULL with a message naming spec and key in err (AGENT_ERRLEN) on a quote left open, text
 * after a closing quote, a quote inside an unquoted value, or no memory. */
char *agent_spec_value(const char *spec, const char **s, const char *key, char *err);

/* The next key=value of such a spec at *s (after the kind and its ':'): the key into key[n] (shorter than n,
 * no ','), its value (agent_spec_value: the caller frees it) into *value; *s moves past the value and its
 * comma. 1 with a pair, 0 at the end, -1 with a message naming spec and listing keys_text in err. */
int agent_spec_next(const char *spec, const char **s, char *key, size_t n, const char *keys_text, char **value,
                    char *err);

/* Value of key (marks it used) or NULL. */
const char *agent_arg_str(agent_args *a, const char *key);
/* Whole number in [lo, hi] for key; *out untouched if absent. 0 ok, -1 bad value (message in err). */
int agent_arg_long(agent_args *a, const char *key, long long lo, long long hi, long long *out, char *err);
int agent_arg_double(agent_args *a, const char *key, double lo, double hi, double *out, char *err);

/* The root keys of the tree kinds (docs/agents.md; Kalah's az, every other game's mcts and az):
 * root=puct|gumbel, gumbel_k (1..64), gumbel_c_visit (>= 0), gumbel_c_scale (> 0), read into cfg (a key
 * absent leaves cfg's value: built in or the net's search record). An agent's Gumbel root has no noise
 * (cfg->gumbel_scale = 0, as mcts_mp_search takes it). 0, or -1 with a message naming
 * args->spec and the key in err. */
int agent_root_args(agent_args *args, mcts_config *cfg, char *err);

/* SplitMix64 (Steele, Lea & Flood 2014): next output of *state. */
uint64_t agent_splitmix(uint64_t *state);
/* A seed derived from two values (one SplitMix64 finalisation of their combination). */
uint64_t agent_mix(uint64_t a, uint64_t b);
/* Uniform in [0, n), n >= 1. */
unsigned agent_below(agent *a, unsigned n);

/* Equal positions (cells, side, over, sows). */
int agent_same_pos(const kalah_rules *r, const kalah_pos *x, const kalah_pos *y);

/* The az kinds and a net's search record (nn/h5io.h nn_search; agent.h: a spec key > the record > built in).
 * keys: the AGENT_FROM_* bits of the settings the kind has keys for (AGENT_FROM_ALL: Kalah's az; the generic
 * az of game_agent.c: sims, c_puct, fpu, batch, root and the Gumbel constants). agent_from_net gives those
 * of keys that args does not set (the gumbel bit only when gumbel: the constants mean nothing to a puct
 * root). */
#define AGENT_FROM_ALL 255u
unsigned agent_from_net(const agent_args *args, unsigned keys, int gumbel);

/* agent_describe's text for an az agent on the net at path searching with si (its keys among `keys`, and
 * seed when not 0), followed by where the values came from. A new string (caller frees), NULL when out of
 * memory. */
char *agent_az_describe(const char *path, const agent_search_info *si, unsigned keys, uint64_t seed);

/* The search an az agent built from settings plays (agent_create_az, game_agent_create_az): s's sims (0: the
 * raw policy, *raw = 1), c_puct, fpu_reduction, batch, margin_utility, solver and root keys into *cfg, as a
 * spec's keys would set them (no noise, no temperature), each checked against nn/search_ranges.h and
 * mcts_config_check. 0, or -1 with "agent 'NAME': ..." in err (AGENT_ERRLEN). */
int agent_search_config(const agent_search_info *s, const char *name, mcts_config *cfg, int *raw, char *err);

/* Constructors of the search-based kinds (agent_search.c): fill a->ops and a->impl, or return -1 with the
 * message in err. The args not taken are reported by the caller. */
int agent_init_ab(agent *a, agent_args *args, char *err);
int agent_init_solver(agent *a, agent_args *args, char *err);

#endif
