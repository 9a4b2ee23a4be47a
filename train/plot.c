#include "train/plot.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "train/metrics.h"

extern char **environ;

/* Writes s as a gnuplot single-quoted string (inside which only ' needs escaping, as ''). */
static void gp_string(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

static void write_script(FILE *f, const char *run_dir, const char *const *opponents, int n_opp, int what)
{
    char csv[4200], out[4200];
    snprintf(csv, sizeof csv, "%s/metrics.csv", run_dir);
    fprintf(f, "set datafile separator ','\nset termoption noenhanced\n"
               "set terminal png size 900,540\nset grid\nset xlabel 'iteration'\nset key outside right top\n");
    fputs("csv = ", f);
    gp_string(f, csv);
    fputc('\n', f);

    if (what & TRAIN_PLOT_LOSS) {
        snprintf(out, sizeof out, "%s/loss.png.tmp", run_dir);
        fputs("set output ", f);
        gp_string(f, out);
        fputs("\nset title 'training loss'\nset ylabel 'loss'\nset y2label 'learning rate'\n"
              "set ytics nomirror\nset y2tics\n"
              "plot csv using 'iteration':'loss' with lines lw 2 title 'total', \\\n"
              "     csv using 'iteration':'loss_policy' with lines title 'policy', \\\n"
              "     csv using 'iteration':'loss_value' with lines title 'value', \\\n"
              "     csv using 'iteration':'loss_margin' with lines title 'margin', \\\n"
              "     csv using 'iteration':'lr' axes x1y2 with lines dt 3 title 'lr'\n"
              "set output\nunset y2tics\nunset y2label\nset ytics mirror\n",
              f);
    }

    if (what & TRAIN_PLOT_ACCURACY) {
        snprintf(out, sizeof out, "%s/accuracy.png.tmp", run_dir);
        fputs("set output ", f);
        gp_string(f, out);
        fputs("\nset title 'accuracy against perfect play (eval.positions)'\nset ylabel 'optimal-move share'\n"
              "set y2label 'mean regret (seeds)'\nset yrange [0:1]\nset ytics nomirror\nset y2tics\n"
              "plot csv using 'iteration':'accuracy_search' with linespoints lw 2 pt 7 title 'search', \\\n"
              "     csv using 'iteration':'accuracy_raw' with linespoints pt 1 title 'raw policy', \\\n"
              "     csv using 'iteration':'regret_search' axes x1y2 with linespoints dt 2 pt 7 title 'regret, search', "
              "\\\n     csv using 'iteration':'regret_raw' axes x1y2 with linespoints dt 3 pt 1 title 'regret, raw'\n"
              "set output\nunset y2tics\nunset y2label\nset ytics mirror\nset autoscale y\n",
              f);
        /* the same accuracies against wall time (the time-to-accuracy curve) */
        snprintf(out, sizeof out, "%s/accuracy-time.png.tmp", run_dir);
        fputs("set output ", f);
        gp_string(f, out);
        fputs("\nset title 'time to accuracy against perfect play (eval.positions)'\nset xlabel 'wall minutes'\n"
              "set ylabel 'optimal-move share'\nset yrange [0:1]\n"
              "plot csv using (column('elapsed_s') / 60):'accuracy_search' with linespoints lw 2 pt 7 "
              "title 'search', \\\n"
              "     csv using (column('elapsed_s') / 60):'accuracy_raw' with linespoints pt 1 title 'raw policy'\n"
              "set output\nset xlabel 'iteration'\nset autoscale y\n",
              f);
    }
    if (!(what & TRAIN_PLOT_EVAL) || n_opp == 0)
        return;
    snprintf(out, sizeof out, "%s/eval.png.tmp", run_dir);
    fputs("set output ", f);
    gp_string(f, out);
    fputs("\nset title 'evaluation score (wins + draws/2)'\nset ylabel 'score'\nset yrange [0:1]\nplot ", f);
    for (int k = 0; k < n_opp; k++) {
        char col[128], name[160];
        train_metrics_column_name(opponents[k], col, sizeof col);
        const char *seat[3] = {"score", "south", "north"};
        for (int s = 0; s < 3; s++) {
            snprintf(name, sizeof name, "%s_%s", seat[s], col);
            fputs(k || s ? ", \\\n     csv using 'iteration':" : "csv using 'iteration':", f);
            gp_string(f, name);
            fprintf(f, " with linespoints lc %d %s title ", k + 1, s == 0 ? "lw 2 pt 7" : s == 1 ? "dt 2 pt 1" : "dt 3 pt 2");
            char title[200];
            snprintf(title, sizeof title, "%s%s", opponents[k], s == 0 ? "" : s == 1 ? " (as South)" : " (as North)");
            gp_string(f, title);
        }
    }
    fputs("\nset output\n", f);
}

static int finish(const char *run_dir, const char *name, char *err, size_t errlen)
{
    char tmp[4200], dst[4200];
    snprintf(tmp, sizeof tmp, "%s/%s.tmp", run_dir, name);
    snprintf(dst, sizeof dst, "%s/%s", run_dir, name);
    if (rename(tmp, dst) != 0) {
        if (err && errlen)
            snprintf(err, errlen, "gnuplot did not write '%s': %s", tmp, strerror(errno));
        return -1;
    }
    return 0;
}

int train_plot(const char *run_dir, const char *const *opponents, int n_opp, int what, char *err,
               size_t errlen)
{
    char script[4200];
    snprintf(script, sizeof script, "%s/.plot.gp.tmp", run_dir);   /* *.tmp: removed on resume if a kill leaves it */
    FILE *f = fopen(script, "w");
    if (!f) {
        if (err && errlen)
            snprintf(err, errlen, "cannot write '%s': %s", script, strerror(errno));
        return TRAIN_PLOT_ERROR;
    }
    write_script(f, run_dir, opponents, n_opp, what);
    if (fclose(f) != 0) {
        if (err && errlen)
            snprintf(err, errlen, "cannot write '%s': %s", script, strerror(errno));
        return TRAIN_PLOT_ERROR;
    }

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {"gnuplot", script, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        remove(script);
        if (rc == ENOENT)
            return TRAIN_PLOT_NO_GNUPLOT;
        if (err && errlen)
            snprintf(err, errlen, "cannot run gnuplot: %s", strerror(rc));
        return TRAIN_PLOT_ERROR;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) {
            st = -1;
            break;
        }
    remove(script);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        /* 127: the shell-less spawn found a gnuplot that could not start; treat it like a missing one. */
        if (st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127)
            return TRAIN_PLOT_NO_GNUPLOT;
        if (err && errlen)
            snprintf(err, errlen, "gnuplot failed on '%s/metrics.csv' (status %d)", run_dir, st);
        return TRAIN_PLOT_ERROR;
    }
    if ((what & TRAIN_PLOT_LOSS) && finish(run_dir, "loss.png", err, errlen) != 0)
        return TRAIN_PLOT_ERROR;
    if ((what & TRAIN_PLOT_EVAL) && n_opp > 0 && finish(run_dir, "eval.png", err, errlen) != 0)
        return TRAIN_PLOT_ERROR;
    if ((what & TRAIN_PLOT_ACCURACY) && (finish(run_dir, "accuracy.png", err, errlen) != 0 ||
                                         finish(run_dir, "accuracy-time.png", err, errlen) != 0))
        return TRAIN_PLOT_ERROR;
    return TRAIN_PLOT_OK;
}
