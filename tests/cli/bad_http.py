"""HTTP servers that misbehave, on 127.0.0.1, for the REST sources' tests.

  silent    accepts the connection, reads the request, never answers
  chunked   200, Transfer-Encoding: chunked, chunks for ever (64 KiB each)
  bighdr    200 with one 200 KB header line, then a valid empty body
  status5xx 503 at once, every time

Each server counts the requests it got (`requests`) and runs in daemon
threads until stop().
"""
import socket
import threading
import time


class BadServer:
    def __init__(self, mode):
        self.mode = mode
        self.requests = 0
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.stopped = threading.Event()
        self.conns = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.stopped.is_set():
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            self.conns.append(c)
            threading.Thread(target=self._serve, args=(c,),
                             daemon=True).start()

    def _serve(self, c):
        try:
            req = b""
            while b"\r\n\r\n" not in req:
                got = c.recv(65536)
                if not got:
                    return
                req += got
            with self.lock:
                self.requests += 1
            if self.mode == "silent":
                self.stopped.wait(600)
            elif self.mode == "chunked":
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/"
                          b"json\r\nTransfer-Encoding: chunked\r\n\r\n")
                chunk = b"[" + b" " * 65535
                piece = b"%x\r\n%s\r\n" % (len(chunk), chunk)
                while not self.stopped.is_set():
                    c.sendall(piece)
            elif self.mode == "bighdr":
                c.sendall(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 200000 +
                          b"\r\nContent-Type: application/json\r\n"
                          b"Content-Length: 2\r\n\r\n[]")
            elif self.mode == "status5xx":
                c.sendall(b"HTTP/1.1 503 Service Unavailable\r\n"
                          b"Content-Length: 0\r\nConnection: close\r\n\r\n")
        except OSError:
            pass
        finally:
            c.close()

    def url(self, userinfo=""):
        return "http://%s127.0.0.1:%d" % (userinfo + "@" if userinfo else "",
                                          self.port)

    def stop(self):
        self.stopped.set()
        self.sock.close()
        for c in self.conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.stop()


def cmdline_while_running(argv, env=None, wait=1.0, timeout=60):
    """Start ARGV, read its /proc/PID/cmdline after WAIT seconds, wait for
    it.  (cmdline with NULs as blanks, exit status, stderr, seconds)."""
    import subprocess
    t0 = time.monotonic()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL, text=True, env=env)
    time.sleep(wait)
    try:
        with open("/proc/%d/cmdline" % p.pid, "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        cmd = None      # already gone: the caller's check fails
    _, err = p.communicate(timeout=timeout)
    return cmd, p.returncode, err, time.monotonic() - t0
