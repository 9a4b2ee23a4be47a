/* elo_report.c — ratings tables for the CLI (see elo_report.h). */
#include "cli/elo_report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void elo_report_print(const elo_result *r, FILE *f)
{
    int w = 4;
    for (int i = 0; i < r->n; i++)
        if ((int)strlen(r->name[i]) > w)
            w = (int)strlen(r->name[i]);
    fprintf(f, "%4s  %-*s %7s  %17s  %6s  %6s\n", "rank", w, "name", "elo", "95% interval", "games", "score");
    for (int k = 0; k < r->n; k++) {
        int i = r->order[k];
        char iv[40];
        if (i == r->anchor)
            snprintf(iv, sizeof iv, "(anchor)");
        else
            snprintf(iv, sizeof iv, "[%+.0f, %+.0f]", r->lo[i], r->hi[i]);
        const char *note = r->perfect[i] > 0 ? "  won every game" : r->perfect[i] < 0 ? "  lost every game" : "";
        fprintf(f, "%4d  %-*s %+7.1f  %17s  %6d  %5.1f%%%s\n", k + 1, w, r->name[i], r->elo[i], iv, r->games[i],
                100 * r->score[i], note);
    }
    if (r->n <= 12) {
        /* Columns by rank number: names (often specs) are too long for column heads. */
        fprintf(f, "\nlikelihood of superiority (row better than column):\n%*s", w + 6, "");
        for (int k = 0; k < r->n; k++) {
            char head[16];
            snprintf(head, sizeof head, "#%d", k + 1);
            fprintf(f, " %6s", head);
        }
        fputc('\n', f);
        for (int a = 0; a < r->n; a++) {
            int i = r->order[a];
            fprintf(f, "  %2d  %-*s", a + 1, w, r->name[i]);
            for (int b = 0; b < r->n; b++) {
                int j = r->order[b];
                if (i == j)
                    fprintf(f, " %6s", "-");
                else
                    fprintf(f, " %6.3f", r->los[i * r->n + j]);
            }
            fputc('\n', f);
        }
    }
    fprintf(f, "\nBradley-Terry maximum likelihood, draws = half a win each; anchor %s = %+.0f; intervals are 95%% "
               "(observed Fisher information), relative to the anchor.\n",
            r->name[r->anchor], r->anchor_elo);
    if (r->prior)
        fprintf(f, "note: some agents scored no point against the others (or every point), so the maximum-"
                   "likelihood ratings are infinite; one virtual draw was added to every pair that met to keep "
                   "them finite: read those ratings as bounds.\n");
}

cJSON *elo_report_json(const elo_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(o, "ratings");
    for (int k = 0; k < r->n; k++) {
        int i = r->order[k];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", r->name[i]);
        cJSON_AddNumberToObject(e, "elo", r->elo[i]);
        cJSON_AddNumberToObject(e, "lo", r->lo[i]);
        cJSON_AddNumberToObject(e, "hi", r->hi[i]);
        cJSON_AddNumberToObject(e, "games", r->games[i]);
        cJSON_AddNumberToObject(e, "score", r->score[i]);
        if (r->perfect[i])
            cJSON_AddStringToObject(e, "perfect", r->perfect[i] > 0 ? "won every game" : "lost every game");
        else
            cJSON_AddNullToObject(e, "perfect");
        cJSON_AddItemToArray(arr, e);
    }
    cJSON_AddStringToObject(o, "anchor", r->name[r->anchor]);
    cJSON_AddNumberToObject(o, "anchor_elo", r->anchor_elo);
    cJSON_AddBoolToObject(o, "prior", r->prior);
    cJSON *los = cJSON_AddObjectToObject(o, "los");
    for (int i = 0; i < r->n; i++) {
        cJSON *row = cJSON_AddObjectToObject(los, r->name[i]);
        for (int j = 0; j < r->n; j++)
            if (i != j)
                cJSON_AddNumberToObject(row, r->name[j], r->los[i * r->n + j]);
    }
    return o;
}

int elo_report_csv(const elo_result *r, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "name,elo,lo,hi,games,score\n");
    for (int k = 0; k < r->n; k++) {
        int i = r->order[k];
        /* Names are agent specs, which hold commas: quote them (RFC 4180). */
        fputc('"', f);
        for (const char *s = r->name[i]; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fprintf(f, "\",%.2f,%.2f,%.2f,%d,%.4f\n", r->elo[i], r->lo[i], r->hi[i], r->games[i], r->score[i]);
    }
    int bad = ferror(f);
    if (fclose(f) || bad) {
        if (!errno)
            errno = EIO;
        return -1;
    }
    return 0;
}

int elo_report_anchor(const char *text, const elo_pool *pool, char *name_buf, size_t n, elo_options *opt)
{
    snprintf(name_buf, n, "%s", text);
    opt->anchor = name_buf;
    opt->anchor_elo = 0;
    for (int i = 0; i < elo_pool_count(pool); i++)
        if (!strcmp(elo_pool_name(pool, i), text))
            return 0; /* a player's whole name (specs such as ab:depth=8 hold '=') */
    char *eq = strrchr(name_buf, '=');
    if (!eq)
        return 0;
    char *end;
    errno = 0;
    double v = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || errno || !(fabs(v) <= ELO_ANCHOR_MAX)) /* NaN fails the last test too */
        return -1;
    *eq = 0;
    opt->anchor_elo = v;
    return 0;
}
