/* train_util.h — what the training tests share (test_train.c, test_train_safety.c, test_train_crash.c):
 * a tiny config, scratch run directories, reading files back. Included after cmocka.h and test_util.h. */
#ifndef SOWZERO_TRAIN_UTIL_H
#define SOWZERO_TRAIN_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nn/h5io.h"
#include "train/config.h"
#include "train/train.h"

/* A cell of metrics.csv by column name (row 1-based); NAN when empty. */
static inline double csv_cell(const char *csv, int row, const char *column)
{
    char head[4096];
    snprintf(head, sizeof head, "%.*s", (int)strcspn(csv, "\n"), csv);
    int col = 0, found = -1;
    for (char *save = NULL, *t = strtok_r(head, ",", &save); t; t = strtok_r(NULL, ",", &save), col++)
        if (!strcmp(t, column))
            found = col;
    if (found < 0)
        fail_msg("no column %s", column);
    const char *line = csv;
    for (int r = 0; r < row; r++)
        line = strchr(line, '\n') + 1;
    for (int c = 0; c < found; c++)
        line = strchr(line, ',') + 1;
    return *line == ',' || *line == '\n' ? NAN : strtod(line, NULL);
}

/* A tiny, fast config: everything runs, nothing learns much. One self-play thread keeps it deterministic. */
static const char *const tiny_sets[] = {
    "run.iterations=1", "net.hidden=16,16", "mcts.sims=8", "selfplay.threads=1", "selfplay.games=6",
    "selfplay.games_per_thread=6", "train.batch_size=32", "train.steps_per_iteration=4", "train.min_replay=10",
    "train.replay_window=3000", "eval.opponents=greedy, ab:depth=1", "eval.games=4", "eval.every=1",
    "eval.sims=4", "run.checkpoint_every=1", "run.keep_checkpoints=2",
};

/* cfg_set of each space-separated "section.key=value" in extra (may be NULL). */
static inline void apply_sets(cfg_config *c, const char *extra)
{
    char err[CFG_ERRLEN];
    if (extra) {
        char buf[4096];
        if (snprintf(buf, sizeof buf, "%s", extra) >= (int)sizeof buf)
            fail_msg("overrides too long");
        char *save = NULL;
        for (char *s = strtok_r(buf, " ", &save); s; s = strtok_r(NULL, " ", &save))
            if (cfg_set(c, s, err))
                fail_msg("%s", err);
    }
}

static inline void tiny(cfg_config *c, const char *extra)
{
    char err[CFG_ERRLEN];
    cfg_defaults(c);
    for (size_t i = 0; i < sizeof tiny_sets / sizeof tiny_sets[0]; i++)
        if (cfg_set(c, tiny_sets[i], err))
            fail_msg("%s", err);
    apply_sets(c, extra);
    if (cfg_finish(c, err))
        fail_msg("%s", err);
}

/* A fresh, empty scratch directory SOWZERO_TMP/train-<name> (path in a static inline buffer per slot). */
static inline const char *scratch(const char *name)
{
    static char bufs[4][1024];
    static int slot;
    char *p = bufs[slot++ % 4];
    snprintf(p, 1024, "%s/train-%s", SOWZERO_TMP, name);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", p);
    assert_int_equal(system(cmd), 0);
    return p;
}

static inline char *slurp(const char *dir, const char *name)
{
    char path[2400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("missing %s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static inline int file_exists(const char *dir, const char *name)
{
    char path[2400];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
        return 0;
    return stat(path, &st) == 0 && st.st_size > 0;
}

static inline int count_char(const char *s, char ch)
{
    int n = 0;
    for (; *s; s++)
        n += *s == ch;
    return n;
}

/* Loads a net file's parameters (caller frees the net). */
static inline nn_net *load_net(const char *dir, const char *name)
{
    char path[2400], err[NN_ERRLEN];
    nn_net *net = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (nn_load(path, NULL, &net, NULL, err) != NN_OK)
        fail_msg("%s", err);
    return net;
}

/* " --set 'K=V'" for every tiny_sets entry into buf (n bytes), for `sowzero train` command lines. */
static inline char *tiny_cli_sets(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = 0;
    for (size_t i = 0; i < sizeof tiny_sets / sizeof tiny_sets[0] && len < n; i++)
        len += (size_t)snprintf(buf + len, n - len, " --set '%s'", tiny_sets[i]);
    return buf;
}

/* The config a `sowzero train --resume dir` uses: dir/config.ini plus the space-separated overrides in
 * extra (may be NULL). */
static inline void run_config(cfg_config *c, const char *dir, const char *extra)
{
    char path[2400], err[CFG_ERRLEN];
    snprintf(path, sizeof path, "%s/config.ini", dir);
    cfg_defaults(c);
    if (cfg_load(c, path, err))
        fail_msg("%s", err);
    apply_sets(c, extra);
    if (cfg_finish(c, err))
        fail_msg("%s", err);
}

/* 1 when the two nets' parameters are identical, bit for bit. */
static inline int same_params(const nn_net *a, const nn_net *b)
{
    return nn_param_count(a) == nn_param_count(b) &&
           memcmp(nn_params_const(a), nn_params_const(b), nn_param_count(a) * sizeof(float)) == 0;
}

#endif
