/* net_search.h — how the CLI shows a net file's search record (nn/h5io.h nn_search): `sowzero net` and
 * `sowzero export`. */
#ifndef SOWZERO_CLI_NET_SEARCH_H
#define SOWZERO_CLI_NET_SEARCH_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "nn/h5io.h"

/* The record in the az agent's key names (eval/agent.h), as a user would write them after az:net=FILE:
 * "sims=800,c_puct=0.75,fpu=0.25,batch=1,margin=5,solver=1,root=puct" (gumbel adds gumbel_k, gumbel_c_visit,
 * gumbel_c_scale). Returns buf. */
char *ns_keys(const nn_search *s, char *buf, size_t n);

/* The record as a JSON object {"sims","batch","c_puct","fpu_reduction","margin_utility","solver","root",
 * "gumbel_k","gumbel_c_visit","gumbel_c_scale"} (the file's field names), or JSON null when s is NULL. The
 * caller owns it. */
cJSON *ns_json(const nn_search *s);

/* Prints "<indent>plays as DESC\n" when the agent's description (agent_describe, game_agent_describe) says more
 * than its spec — an az agent shows its effective search settings so — and nothing otherwise. */
void ns_print_plays(const char *indent, const char *spec, const char *desc);

/* desc when it says more than spec, else NULL: the JSON outputs' "plays" (null when the spec says it all). */
cJSON *ns_plays_json(const char *spec, const char *desc);

#endif
