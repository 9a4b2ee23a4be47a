/* sowzero kgp connect — play on a KGP tournament server over TCP (the Kalah Game Protocol 1.x, freeplay;
 * docs/protocol.md): the agent answers every `state` the server sends, as `sowzero engine` does. */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "eval/agent.h"
#include "eval/engine_host.h"

#define CMD "kgp"

static void help(void)
{
    puts("usage: sowzero kgp connect HOST:PORT AGENT [--rules SPEC]\n"
         "Connects to the KGP server at HOST:PORT (TCP) and plays AGENT there in freeplay mode: the server's\n"
         "`kgp 1 x y` is answered `mode freeplay`, every `state <board>` with the agent's moves and `yield`,\n"
         "until the server says `goodbye` or closes the connection (exit status 0). The agent is created once.\n"
         "  --rules SPEC  Kalah rules beyond the board size (capture=, end=; default kalah): the server's boards\n"
         "                give the pits\n"
         "docs/protocol.md describes the protocol. Exit status 2: a bad HOST:PORT, agent spec or rules; 1: no\n"
         "connection, a connection that broke, or a server of another major version than KGP 1.");
}

/* A connected TCP socket to "HOST:PORT" (the last ':' splits), or after printing why -2 (not HOST:PORT) or
 * -1 (no connection). */
static int dial(const char *where)
{
    char host[256];
    const char *colon = strrchr(where, ':');
    if (!colon || colon == where || !colon[1] || (size_t)(colon - where) >= sizeof host) {
        cli_error(CMD, "'%s' is not HOST:PORT", where);
        return -2;
    }
    memcpy(host, where, (size_t)(colon - where));
    host[colon - where] = 0;
    long port;
    if (!cli_long(CMD, "the port of HOST:PORT", colon + 1, 1, 65535, &port))
        return -2;
    struct addrinfo hints, *res, *ai;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, colon + 1, &hints, &res);
    if (rc) {
        cli_error(CMD, "%s: %s", host, gai_strerror(rc));
        return -1;
    }
    int fd = -1, last = 0;
    for (ai = res; ai && fd < 0; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen)) {
            last = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0)
        cli_error(CMD, "cannot connect to %s: %s", where, strerror(last));
    return fd;
}

int cmd_kgp(int argc, char **argv)
{
    static const struct option opts[] = {{"rules", required_argument, 0, 'r'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *rules = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'r': rules = optarg; break;
        case 'h': help(); return 0;
        default: return cli_usage_error(CMD);
        }
    }
    if (argc - optind != 3 || strcmp(argv[optind], "connect")) {
        cli_error(CMD, "expected: kgp connect HOST:PORT AGENT");
        return cli_usage_error(CMD);
    }
    char err[AGENT_ERRLEN];
    engine_host *h = engine_host_create(argv[optind + 2], rules, err);
    if (!h) {
        cli_error(CMD, "%s", err);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int fd = dial(argv[optind + 1]);
    if (fd < 0) {
        engine_host_free(h);
        return fd == -2 ? 2 : 1;
    }
    int rc = engine_host_serve(h, fd, fd), refused = engine_host_refused_version(h);
    close(fd);
    engine_host_free(h);
    if (rc) {
        cli_error(CMD, "the connection to %s broke", argv[optind + 1]);
        return 1;
    }
    if (refused) {
        cli_error(CMD, "%s speaks another major version of KGP than 1.x: no game played", argv[optind + 1]);
        return 1;
    }
    return 0;
}
