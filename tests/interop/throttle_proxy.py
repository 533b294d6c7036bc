#!/usr/bin/env python3
"""A TCP proxy for replication tests: the server's bytes reach the client at a bounded rate,
and when the server goes away the client's connection is reset at once.

    throttle_proxy.py LISTEN_PORT SERVER_PORT KB_PER_S FAST_FILE

Each client connecting to 127.0.0.1:LISTEN_PORT gets its own connection to
127.0.0.1:SERVER_PORT. Client -> server bytes pass as they come; server -> client bytes are
sent in small chunks, at most KB_PER_S kilobytes a second (no limit once FAST_FILE exists).

Why: a replica reading a primary over loopback gets whole multi-megabyte transactions into its
socket buffers at once, and it keeps reading them after the primary has gone (the kernel
delivers what was buffered, then the FIN), so a stopped or killed primary almost never leaves
the replica inside a transaction. Behind this proxy the replica lags the primary by design, the
proxy's client socket has a small send buffer, and when the primary's side ends (clean
shutdown, kill -9) the proxy resets the client's connection (SO_LINGER 0) rather than handing
over what it still holds: the replica is left with the first part of a transaction, as it
would be if the primary had gone while sending it.
"""
import collections
import os
import socket
import struct
import sys
import threading
import time

CHUNK = 16 * 1024


def reset(sock, reader=None):
    """Close `sock` with a RST. A thread blocked reading it (`reader`) is woken first: a
    socket closed under a blocked recv() is released only when that recv() returns."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        if reader is not None:
            sock.shutdown(socket.SHUT_RD)
            reader.join(5)
    except OSError:
        pass
    sock.close()


def upstream(client, server):
    """Client -> server, unthrottled; the client closing closes the server side."""
    try:
        while True:
            data = client.recv(65536)
            if not data:
                break
            server.sendall(data)
    except OSError:
        pass
    try:
        server.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def downstream(client, server, rate, fast_file, reader):
    """Server -> client at `rate` bytes a second (a token bucket: no burst after an idle
    spell). The server's bytes are read as they come, whatever the client has taken, so the
    server going away is seen at once; then the client is reset and what it has not been sent
    is dropped."""
    chunks, cond, ended = collections.deque(), threading.Condition(), [False]

    def read_server():
        try:
            while True:
                data = server.recv(65536)
                if not data:
                    break
                with cond:
                    chunks.append(data)
                    cond.notify()
        except OSError:
            pass
        with cond:
            ended[0] = True
            cond.notify()

    threading.Thread(target=read_server, daemon=True).start()
    sent, tokens, last = 0, 0.0, time.monotonic()
    try:
        while True:
            with cond:
                while not chunks and not ended[0]:
                    cond.wait()
                if ended[0]:
                    break
                data = chunks.popleft()
            for i in range(0, len(data), CHUNK):
                piece = data[i : i + CHUNK]
                if not os.path.exists(fast_file):
                    now = time.monotonic()
                    tokens = min(tokens + (now - last) * rate, float(CHUNK))
                    last = now
                    if tokens < len(piece):
                        time.sleep((len(piece) - tokens) / rate)
                        tokens = float(len(piece))
                        last = time.monotonic()
                    tokens -= len(piece)
                if ended[0]:
                    break
                client.sendall(piece)
                sent += len(piece)
    except OSError:
        pass
    reset(client, reader)
    server.close()
    print("connection: %d bytes sent to the client" % sent, file=sys.stderr, flush=True)


def main():
    listen_port, server_port = int(sys.argv[1]), int(sys.argv[2])
    rate, fast_file = float(sys.argv[3]) * 1024, sys.argv[4]
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", listen_port))
    lsock.listen(16)
    while True:
        client, _ = lsock.accept()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 32 * 1024)
        try:
            server = socket.create_connection(("127.0.0.1", server_port))
        except OSError:
            reset(client)
            continue
        server.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)
        up = threading.Thread(target=upstream, args=(client, server), daemon=True)
        up.start()
        threading.Thread(
            target=downstream, args=(client, server, rate, fast_file, up), daemon=True
        ).start()


if __name__ == "__main__":
    main()
