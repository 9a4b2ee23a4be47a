/* net_search.c — a net's search record for the CLI's displays (net_search.h). */
#include "cli/net_search.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *ns_keys(const nn_search *s, char *buf, size_t n)
{
    int w = snprintf(buf, n, "sims=%d,c_puct=%g,fpu=%g,batch=%d,margin=%g,solver=%d,root=%s", s->sims, s->c_puct,
                     s->fpu_reduction, s->batch, s->margin_utility, s->solver, s->root);
    if (w >= 0 && (size_t)w < n && !strcmp(s->root, "gumbel"))
        snprintf(buf + w, n - (size_t)w, ",gumbel_k=%d,gumbel_c_visit=%g,gumbel_c_scale=%g", s->gumbel_k,
                 s->gumbel_c_visit, s->gumbel_c_scale);
    return buf;
}

cJSON *ns_json(const nn_search *s)
{
    if (!s)
        return cJSON_CreateNull();
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "sims", s->sims);
    cJSON_AddNumberToObject(o, "batch", s->batch);
    cJSON_AddNumberToObject(o, "c_puct", s->c_puct);
    cJSON_AddNumberToObject(o, "fpu_reduction", s->fpu_reduction);
    cJSON_AddNumberToObject(o, "margin_utility", s->margin_utility);
    cJSON_AddBoolToObject(o, "solver", s->solver);
    cJSON_AddStringToObject(o, "root", s->root);
    cJSON_AddNumberToObject(o, "gumbel_k", s->gumbel_k);
    cJSON_AddNumberToObject(o, "gumbel_c_visit", s->gumbel_c_visit);
    cJSON_AddNumberToObject(o, "gumbel_c_scale", s->gumbel_c_scale);
    return o;
}

void ns_print_plays(const char *indent, const char *spec, const char *desc)
{
    if (desc && strcmp(desc, spec))
        printf("%splays as %s\n", indent, desc);
}

void ns_add_plays_json(cJSON *o, const char *spec, const char *desc)
{
    if (!desc || !strcmp(desc, spec)) {
        cJSON_AddNullToObject(o, "plays");
        cJSON_AddNullToObject(o, "plays_note");
        return;
    }
    /* the note is the last " (...)" that ends desc: a net path may hold " (" itself */
    size_t n = strlen(desc), cut = n;
    if (n && desc[n - 1] == ')')
        for (size_t i = n - 1; i-- > 0;)
            if (desc[i] == ' ' && desc[i + 1] == '(') {
                cut = i;
                break;
            }
    char *head = strndup(desc, cut);
    cJSON_AddItemToObject(o, "plays", head ? cJSON_CreateString(head) : cJSON_CreateNull());
    free(head);
    if (cut < n) {
        char *note = strndup(desc + cut + 2, n - cut - 3);
        cJSON_AddItemToObject(o, "plays_note", note ? cJSON_CreateString(note) : cJSON_CreateNull());
        free(note);
    } else
        cJSON_AddNullToObject(o, "plays_note");
}
