#!/usr/bin/env python3
"""A UDP proxy that delays each direction on its own, for the clock tests.

usage: udp_delay_proxy.py LISTEN_PORT TARGET_PORT OUT_MS OUT_JITTER_MS
                          BACK_MS BACK_JITTER_MS [SEED]

Datagrams from a client to 127.0.0.1:LISTEN_PORT go to 127.0.0.1:TARGET_PORT
after OUT_MS +- OUT_JITTER_MS (uniform); replies go back after BACK_MS +-
BACK_JITTER_MS.  It prints "ready" once listening.  The kernel's netem qdisc
is not available on the machines this runs on, so delays are made here, in
user space: a send happens no earlier than asked (sleep never returns early),
which is all the clock bound relies on.
"""
import heapq
import random
import socket
import sys
import threading
import time


def main():
    listen, target = int(sys.argv[1]), int(sys.argv[2])
    out_ms, out_j, back_ms, back_j = map(float, sys.argv[3:7])
    rng = random.Random(int(sys.argv[7]) if len(sys.argv) > 7 else 1)
    front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    front.bind(("127.0.0.1", listen))
    back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    back.connect(("127.0.0.1", target))
    queue, cond = [], threading.Condition()
    client = [None]
    seq = [0]

    def later(delay_ms, jitter_ms, sock, data, addr):
        d = max(0.0, delay_ms + rng.uniform(-jitter_ms, jitter_ms)) / 1000
        with cond:
            seq[0] += 1
            heapq.heappush(queue, (time.monotonic() + d, seq[0], sock, data, addr))
            cond.notify()

    def sender():
        while True:
            with cond:
                while not queue:
                    cond.wait()
                when, _, sock, data, addr = queue[0]
                now = time.monotonic()
                if when > now:
                    cond.wait(when - now)
                    continue
                heapq.heappop(queue)
            if addr is None:
                sock.send(data)
            else:
                sock.sendto(data, addr)

    def from_target():
        while True:
            data = back.recv(65536)
            if client[0] is not None:
                later(back_ms, back_j, front, data, client[0])

    threading.Thread(target=sender, daemon=True).start()
    threading.Thread(target=from_target, daemon=True).start()
    print("ready", flush=True)
    while True:
        data, addr = front.recvfrom(65536)
        client[0] = addr
        later(out_ms, out_j, back, data, None)


if __name__ == "__main__":
    main()
