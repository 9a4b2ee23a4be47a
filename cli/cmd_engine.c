/* sowzero engine — one agent as a long-lived engine speaking the engine protocol (KGP 1.x freeplay and
 * sowzero's extension, docs/protocol.md) on stdin/stdout or on a TCP port of 127.0.0.1 (eval/engine_host.h). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "eval/agent.h"
#include "eval/engine_host.h"

#define CMD "engine"

static void help(void)
{
    puts("usage: sowzero engine AGENT [--rules SPEC] [--port N]\n"
         "AGENT (any agent spec: greedy, ab:depth=8, az:net=nets/kalah-6-4.h5, ...) as an engine speaking the\n"
         "Kalah Game Protocol 1.x in freeplay mode (github.com/KWARC/kalah-game, spec/) and sowzero's own\n"
         "extension, one command per line; docs/protocol.md describes every command, answer and error.\n"
         "The agent is created once (its net and tables loaded once) and answers until its input ends or a\n"
         "`goodbye`:\n"
         "  kgp 1 0 0                      the handshake: answered `mode freeplay`\n"
         "  4 state <6,0,0,4,4,4,4,4,4,4,4,4,4,4,4>\n"
         "                                 a Kalah board (n, mover's store, other store, mover's n pits, other's n\n"
         "                                 pits; any n up to 7): answered `@4 move K` (the mover's K-th pit),\n"
         "                                 maybe again with a better K, then `@4 yield`\n"
         "  6 sowzero go \"POS\"             the same for a position in sowzero's notation (sowzero help move)\n"
         "  8 sowzero analyse \"POS\"        per-move visits, Q, prior, exact values; best move, value, pv\n"
         "  sowzero rules | agent | newgame [SEED]\n"
         "  --rules SPEC  the rules (default kalah; any game: sowzero go then takes its positions)\n"
         "  --port N      serve TCP connections on 127.0.0.1:N instead, one client at a time (1..65535)");
}

/* Serves one client at a time on 127.0.0.1:port until killed. */
static int serve_port(engine_host *h, long port)
{
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (ls < 0) {
        cli_error(CMD, "socket: %s", strerror(errno));
        return 1;
    }
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 4)) {
        cli_error(CMD, "--port %ld: %s", port, strerror(errno));
        close(ls);
        return 1;
    }
    fprintf(stderr, "sowzero engine: listening on 127.0.0.1:%ld\n", port);
    for (;;) {
        int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            cli_error(CMD, "accept: %s", strerror(errno));
            close(ls);
            return 1;
        }
        engine_host_serve(h, fd, fd); /* a client that vanished just ends its session */
        close(fd);
    }
}

int cmd_engine(int argc, char **argv)
{
    static const struct option opts[] = {{"rules", required_argument, 0, 'r'},
                                         {"port", required_argument, 0, 'p'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *rules = NULL;
    long port = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r': rules = optarg; break;
        case 'p':
            if (!cli_long(CMD, "--port", optarg, 1, 65535, &port))
                return 2;
            break;
        case 'h': help(); return 0;
        default: return cli_usage_error(CMD);
        }
    }
    if (argc - optind != 1) {
        cli_error(CMD, "needs one agent spec (got %d arguments)", argc - optind);
        return cli_usage_error(CMD);
    }
    signal(SIGPIPE, SIG_IGN); /* a client gone is a failed write, not a dead engine */
    char err[AGENT_ERRLEN];
    engine_host *h = engine_host_create(argv[optind], rules, err);
    if (!h) {
        cli_error(CMD, "%s", err);
        return 2;
    }
    int rc = port ? serve_port(h, port) : (engine_host_serve(h, 0, 1) ? 1 : 0);
    engine_host_free(h);
    return rc;
}
