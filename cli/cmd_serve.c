/* sowzero serve — play in a browser against the configured agents. Flags only: the game
 * logic is serve/srv_app.h, the HTTP side serve/srv_http.h. Runs until SIGINT (Ctrl-C) or SIGTERM, then
 * stops accepting connections, answers the requests in flight, those waiting for a request thread
 * included (60 s at most), and exits 0; a second signal
 * exits at once with 128 + its number. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "serve/srv_app.h"
#include "serve/srv_http.h"

#define MAX_AGENTS 32
#define MAX_GAMES 16
#define DRAIN_S 60 /* seconds the requests in flight get at a stop */

static int stop_pipe[2] = {-1, -1};

static void on_stop(int sig)
{
    int e = errno;
    unsigned char b = (unsigned char)sig;
    ssize_t w = stop_pipe[1] < 0 ? 0 : write(stop_pipe[1], &b, 1);
    (void)w;
    errno = e;
}

/* The next signal taken by on_stop, waiting up to timeout_ms (-1: for ever); 0 when none came. */
static int wait_signal(int timeout_ms)
{
    struct pollfd p = {stop_pipe[0], POLLIN, 0};
    unsigned char b;
    for (;;) {
        int n = poll(&p, 1, timeout_ms);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        if (read(stop_pipe[0], &b, 1) == 1)
            return b;
        if (timeout_ms >= 0)
            return 0;
    }
}

/* Closes the pipe. With old_int and old_term the handlers are restored; without, on_stop stays and ignores
 * further signals, so a Ctrl-C repeated while the server winds down cannot turn exit 0 into a kill. */
static void stop_signals(const sigset_t *sigs, const struct sigaction *old_int, const struct sigaction *old_term)
{
    int w = stop_pipe[1];
    stop_pipe[1] = -1;
    if (old_int && old_term) {
        sigaction(SIGINT, old_int, NULL);
        sigaction(SIGTERM, old_term, NULL);
    }
    pthread_sigmask(SIG_UNBLOCK, sigs, NULL);
    close(stop_pipe[0]);
    close(w);
    stop_pipe[0] = -1;
}

static void help(void)
{
    puts("usage: sowzero serve --agent NAME=SPEC [--agent NAME=SPEC]... [--bind ADDR] [--port N] [options]\n"
         "Serves a page to play against the agents in a browser (http://ADDR:PORT/) and its JSON API under\n"
         "/api/ (docs/serve.md). Ctrl-C or SIGTERM stops it: no new connections, the\n"
         "requests in flight, those queued for a --threads thread included, are answered (60 s at most),\n"
         "exit 0; a second Ctrl-C exits at once (130).\n"
         "  --agent NAME=SPEC  an agent to offer (repeatable, at least one): random, greedy, ab:depth=8,\n"
         "                     mcts:sims=800, az:net=PATH.h5,sims=200, maxn:depth=4, solve, ...; it is\n"
         "                     offered for every game it can play (Kalah: eval/agent.h, the others:\n"
         "                     eval/game_agent.h)\n"
         "  --game RULES       a game to offer (repeatable; any game of the game interface the page can\n"
         "                     draw; default: kalah, kalah:pits=4,seeds=3, congklak, oware,\n"
         "                     basico:players=2, basico:players=3, basico:players=4)\n"
         "  --bind ADDR        address to listen on: IPv4 (default 127.0.0.1: this machine only; 0.0.0.0:\n"
         "                     every interface), IPv6 (::1, ::) or a host name (localhost)\n"
         "  --port N           TCP port (default 8080; 0 picks a free one, printed at start)\n"
         "  --threads N        request threads (default 4)\n"
         "  --max-sessions N   live games at most (default 256); --idle S: a game idle S seconds may be\n"
         "                     dropped when room is needed (default 1800)\n"
         "  --max-body BYTES   request body limit (default 65536)\n"
         "  --max-ms MS        ab searches stop after MS per move (default 2000; ab without ms= gets it)\n"
         "  --max-sims N       refuse mcts/az specs with more simulations per move (default 20000)\n"
         "  --solve-seeds N    the analysis solves every move exactly once at most N seeds are in the pits\n"
         "                     (default 20); --solve-nodes N: its node budget (default 3000000)\n"
         "  --seed N          games' seeds (agents' randomness, the random side) follow from N, in the order\n"
         "                     the games are started (default: fresh random seeds)\n"
         "  --json             print {\"url\",\"bind\",\"port\",\"agents\",\"games\"} once listening");
}

int cmd_serve(int argc, char **argv)
{
    enum { O_BIND = 1, O_PORT, O_AGENT, O_GAME, O_THREADS, O_SESS, O_IDLE, O_BODY, O_MS, O_SIMS, O_SSEEDS, O_SNODES, O_SEED };
    static const struct option opts[] = {{"bind", required_argument, 0, O_BIND},
                                         {"port", required_argument, 0, O_PORT},
                                         {"agent", required_argument, 0, O_AGENT},
                                         {"game", required_argument, 0, O_GAME},
                                         {"threads", required_argument, 0, O_THREADS},
                                         {"max-sessions", required_argument, 0, O_SESS},
                                         {"idle", required_argument, 0, O_IDLE},
                                         {"max-body", required_argument, 0, O_BODY},
                                         {"max-ms", required_argument, 0, O_MS},
                                         {"max-sims", required_argument, 0, O_SIMS},
                                         {"solve-seeds", required_argument, 0, O_SSEEDS},
                                         {"solve-nodes", required_argument, 0, O_SNODES},
                                         {"seed", required_argument, 0, O_SEED},
                                         {"json", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *bind = "127.0.0.1", *names[MAX_AGENTS], *specs[MAX_AGENTS], *games[MAX_GAMES];
    char *agent_args[MAX_AGENTS];
    int n_agents = 0, n_games = 0, json = 0, c, rc = 2;
    long port = 8080, threads = 4, v;
    uint64_t seed = 0;
    srv_limits lim = srv_limits_default();
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_BIND: bind = optarg; break;
        case O_PORT: if (!cli_long("serve", "--port", optarg, 0, 65535, &port)) goto done; break;
        case O_THREADS: if (!cli_long("serve", "--threads", optarg, 1, 64, &threads)) goto done; break;
        case O_SESS: if (!cli_long("serve", "--max-sessions", optarg, 1, 100000, &v)) goto done; lim.max_sessions = (int)v; break;
        case O_IDLE: if (!cli_long("serve", "--idle", optarg, 1, 86400 * 30, &v)) goto done; lim.idle_s = (int)v; break;
        case O_BODY: if (!cli_long("serve", "--max-body", optarg, 1024, 1 << 26, &v)) goto done; lim.max_body = (size_t)v; break;
        case O_MS: if (!cli_long("serve", "--max-ms", optarg, 1, 600000, &v)) goto done; lim.max_ms = (int)v; break;
        case O_SIMS: if (!cli_long("serve", "--max-sims", optarg, 1, 10000000, &v)) goto done; lim.max_sims = (int)v; break;
        case O_SSEEDS: if (!cli_long("serve", "--solve-seeds", optarg, 0, 255, &v)) goto done; lim.solve_seeds = (int)v; break;
        case O_SNODES: if (!cli_long("serve", "--solve-nodes", optarg, 1, 1L << 40, &v)) goto done; lim.solve_nodes = (uint64_t)v; break;
        case O_SEED: if (!cli_long("serve", "--seed", optarg, 1, LONG_MAX, &v)) goto done; seed = (uint64_t)v; break;
        case O_GAME:
            if (n_games == MAX_GAMES) {
                cli_error("serve", "at most %d --game options", MAX_GAMES);
                goto done;
            }
            games[n_games++] = optarg;
            break;
        case O_AGENT: {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg || !eq[1]) {
                cli_error("serve", "--agent '%s': give NAME=SPEC, e.g. --agent greedy=greedy", optarg);
                goto done;
            }
            if (n_agents == MAX_AGENTS) {
                cli_error("serve", "at most %d --agent options", MAX_AGENTS);
                goto done;
            }
            if (!(agent_args[n_agents] = strdup(optarg))) {
                cli_error("serve", "out of memory");
                rc = 1;
                goto done;
            }
            agent_args[n_agents][eq - optarg] = 0;
            names[n_agents] = agent_args[n_agents];
            specs[n_agents] = agent_args[n_agents] + (eq - optarg) + 1;
            n_agents++;
            break;
        }
        case 'j': json = 1; break;
        case 'h': help(); rc = 0; goto done;
        default: rc = cli_usage_error("serve"); goto done;
        }
    }
    if (optind < argc) {
        cli_error("serve", "unexpected argument '%s' (agents are given as --agent NAME=SPEC)", argv[optind]);
        goto done;
    }
    if (!n_agents) {
        cli_error("serve", "give at least one --agent NAME=SPEC (e.g. --agent greedy=greedy)");
        goto done;
    }
    char err[SRV_ERRLEN];
    srv_app *app = srv_app_create(&lim, seed, n_agents, names, specs, n_games, n_games ? games : NULL, err);
    if (!app) {
        cli_error("serve", "%s", err);
        goto done;
    }
    /* Threads started before this point (OpenBLAS's pool) do not block the signals, so a sigwait could
     * lose them to the default action there: a handler (process-wide) writes them to a pipe instead. The
     * server's request threads start with the signals blocked (they inherit the mask), so a Ctrl-C never
     * interrupts a request. */
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    if (pipe2(stop_pipe, O_CLOEXEC | O_NONBLOCK)) {
        cli_error("serve", "cannot create a pipe: %s", strerror(errno));
        srv_app_free(app);
        rc = 1;
        goto done;
    }
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_stop;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    srv_http *h;
    int st = srv_http_start(app, bind, (int)port, (int)threads, &h, err);
    if (st != SRV_OK) {
        cli_error("serve", "%s", err);
        srv_app_free(app);
        stop_signals(&sigs, &old_int, &old_term);
        rc = st == SRV_EINVAL ? 2 : 1;
        goto done;
    }
    const char *addr = srv_http_address(h);
    char url[96];
    snprintf(url, sizeof url, strchr(addr, ':') ? "http://[%s]:%d/" : "http://%s:%d/", addr, srv_http_port(h));
    if (json) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "url", url);
        cJSON_AddStringToObject(o, "bind", addr);
        cJSON_AddNumberToObject(o, "port", srv_http_port(h));
        cJSON *ag = cJSON_AddArrayToObject(o, "agents"), *gm = cJSON_AddArrayToObject(o, "games");
        for (int i = 0; i < n_agents; i++)
            cJSON_AddItemToArray(ag, cJSON_CreateString(names[i]));
        for (int i = 0; srv_app_game(app, i); i++)
            cJSON_AddItemToArray(gm, cJSON_CreateString(srv_app_game(app, i)));
        cli_print_json(o);
    } else {
        printf("sowzero serve: listening on %s (Ctrl-C stops)\n", url);
    }
    fflush(stdout);
    pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);
    int sig = wait_signal(-1);
    /* No new connections; the requests in flight are answered (searches are bounded by --max-ms and
     * --max-sims), for DRAIN_S seconds at most. */
    int left = 1;
    for (int waited = 0; left && waited < DRAIN_S * 10; waited++) {
        left = srv_http_drain(h, 100);
        int again = left ? wait_signal(0) : 0;
        if (again) {
            /* The request threads cannot be interrupted inside a search, and stopping the daemon would
             * wait for them: leave at once. */
            fprintf(stderr, "sowzero serve: stopped again: %d request%s in flight cut short\n", left,
                    left == 1 ? "" : "s");
            fflush(stdout);
            _exit(128 + again);
        }
    }
    srv_http_stop(h);
    if (left)
        fprintf(stderr, "sowzero serve: %d request%s in flight cut short\n", left, left == 1 ? "" : "s");
    if (!json)
        printf("sowzero serve: %s: stopped with %d games open\n", sig == SIGINT ? "interrupt" : "terminated",
               srv_app_sessions(app));
    srv_app_free(app);
    stop_signals(&sigs, NULL, NULL);
    rc = 0;
done:
    for (int i = 0; i < n_agents; i++)
        free(agent_args[i]);
    return rc;
}
