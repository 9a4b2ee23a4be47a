"""Checks `sowzero engine AGENT --port N`: two clients one after the other on 127.0.0.1 each get the
handshake and a move for a KGP state; a client that vanishes mid-request does not end the engine.

    python3 port_check.py SOWZERO_BIN AGENT

Exits 0 when every check passed, else 1 with the reason."""
import socket
import subprocess
import sys
import time

binary, agent = sys.argv[1], sys.argv[2]
probe = socket.socket()
probe.bind(("127.0.0.1", 0))
port = probe.getsockname()[1]
probe.close()
eng = subprocess.Popen([binary, "engine", agent, "--port", str(port)], stderr=subprocess.DEVNULL)


def fail(msg):
    eng.kill()
    eng.wait()
    print("port_check:", msg)
    sys.exit(1)


def connect():
    for _ in range(100):
        try:
            return socket.create_connection(("127.0.0.1", port), timeout=10)
        except OSError:
            time.sleep(0.05)
    fail("no engine listening on port %d" % port)


def session(board, legal):
    s = connect()
    f = s.makefile("rw", newline="")
    f.write("kgp 1 0 0\r\n2 init\r\n4 state %s\r\n" % board)
    f.flush()
    got = [f.readline() for _ in range(2)]
    if got[0] != "mode freeplay\r\n":
        fail("handshake answered %r" % got[0])
    if not got[1].startswith("@4 move ") or int(got[1].split()[2]) not in legal:
        fail("state answered %r" % got[1])
    f.write("goodbye\r\n")
    f.flush()
    s.close()


session("<6,0,0,4,4,4,4,4,4,4,4,4,4,4,4>", range(1, 7))
vanish = connect()  # sends a request and leaves without reading
vanish.sendall(b"kgp 1 0 0\r\n4 state <6,0,0,4,4,4,4,4,4,4,4,4,4,4,4>\r\n")
vanish.close()
session("<3,1,0,0,4,4,3,3,3>", (2, 3))
if eng.poll() is not None:
    fail("the engine exited (status %s)" % eng.returncode)
eng.terminate()
eng.wait()
print("port_check: ok")
