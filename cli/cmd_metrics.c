/* sowzero metrics — a run's time-to-accuracy table from its metrics.csv (train/curve.h). */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "train/curve.h"

static void help(void)
{
    puts("usage: sowzero metrics RUN_DIR [--json]\n"
         "Prints the time-to-accuracy curve of a training run: for every evaluation on the solved position\n"
         "set (eval.positions), the wall-clock minutes since the run started (resumed runs count their earlier\n"
         "sessions), the self-play games so far, and the accuracy against perfect play of the search\n"
         "(eval.sims) and of the raw policy (sims = 0): the share of optimal moves and the mean regret in\n"
         "seeds (eval/accuracy.h). Read from RUN_DIR/metrics.csv (RUN_DIR may also name the CSV file itself);\n"
         "the same curve is plotted as RUN_DIR/accuracy-time.png. A run without eval.positions has no rows.\n"
         "  --json   print {\"metrics\": PATH, \"points\": [{\"iteration\",\"minutes\",\"games\",\"accuracy_search\",\n"
         "           \"regret_search\",\"accuracy_raw\",\"regret_raw\"}, ...]} (accuracies as shares 0..1)");
}

int cmd_metrics(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'h': help(); return 0;
        default: return cli_usage_error("metrics");
        }
    }
    if (argc - optind != 1) {
        cli_error("metrics", "needs one RUN_DIR (got %d arguments)", argc - optind);
        return cli_usage_error("metrics");
    }
    const char *arg = argv[optind];
    size_t len = strlen(arg);
    char path[4200];
    if (len > 4 && !strcmp(arg + len - 4, ".csv"))
        snprintf(path, sizeof path, "%s", arg);
    else
        snprintf(path, sizeof path, "%s%smetrics.csv", arg, len && arg[len - 1] == '/' ? "" : "/");
    train_curve_point *pts;
    int n;
    char err[4400];
    int rc = train_curve_read(path, &pts, &n, err, sizeof err);
    if (rc != TRAIN_CURVE_OK) {
        cli_error("metrics", "%s", err);
        return rc == TRAIN_CURVE_ENOMEM ? 1 : 2;
    }
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "metrics", path);
        cJSON *arr = cJSON_AddArrayToObject(o, "points");
        for (int i = 0; i < n; i++) {
            cJSON *p = cJSON_CreateObject();
            cJSON_AddNumberToObject(p, "iteration", (double)pts[i].iteration);
            cJSON_AddNumberToObject(p, "minutes", pts[i].elapsed_s / 60);
            cJSON_AddNumberToObject(p, "games", (double)pts[i].games);
            cJSON_AddNumberToObject(p, "accuracy_search", pts[i].accuracy_search);
            cJSON_AddNumberToObject(p, "regret_search", pts[i].regret_search);
            cJSON_AddNumberToObject(p, "accuracy_raw", pts[i].accuracy_raw);
            cJSON_AddNumberToObject(p, "regret_raw", pts[i].regret_raw);
            cJSON_AddItemToArray(arr, p);
        }
        free(pts);
        return cli_print_json(o);
    }
    printf("time to accuracy (%s): accuracy against perfect play on eval.positions\n", path);
    if (!n) {
        printf("no evaluation on a position set yet (the run has no eval.positions, or has not evaluated)\n");
        return 0;
    }
    printf("%9s %8s %9s   %14s %8s   %14s %8s\n", "iteration", "minutes", "games", "search optimal", "regret",
           "raw optimal", "regret");
    for (int i = 0; i < n; i++)
        printf("%9" PRId64 " %8.1f %9" PRId64 "   %13.1f%% %8.3f   %13.1f%% %8.3f\n", pts[i].iteration,
               pts[i].elapsed_s / 60, pts[i].games, 100 * pts[i].accuracy_search, pts[i].regret_search,
               100 * pts[i].accuracy_raw, pts[i].regret_raw);
    free(pts);
    return fflush(stdout) == 0 ? 0 : 1;
}
