#!/usr/bin/env python3
"""CLI tests of `streamtime distiller jobs --api URL` (SPEC 4.4, 5.5).

usage: distiller_rest_check.py STREAMTIME

The real Distiller service (FastAPI, Kafka, PostgreSQL, its users and
keys) cannot run here, so this is a STAND-IN: a small http.server on
127.0.0.1 that plays the documented API -- GET /api/v1/jobs?job_type=&skip=
&limit= (a JSON array, newest first, the total in X-Total-Count, elapsed in
float seconds, scan_ids[]) and GET /api/v1/scans/{id} (404 for an unknown
scan), with an API key header or a bearer token checked -- and misbehaves
on request: 401, 500, a slow reply, malformed JSON, a redirect, no
X-Total-Count.  It logs every request, so the test checks what the real
binary asks for (pages, each scan once, the headers) as well as the
files it writes.  The expected CSVs are computed here from the fixture,
independently of the program (Decimal seconds, Python formatting).
"""
import decimal
import http.server
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import setup_rule  # noqa: E402
from sshd_helper import free_port  # noqa: E402

BIN = os.path.abspath(sys.argv[1])
from checks import CHECKS, FAILS, check  # noqa: E402
from checks import run as run_cmd  # noqa: E402
KEY = "k3y-Sekret-0a1b2c"
TOKEN = "t0ken-Sekret-9z8y"
STDERRS = []
MISSING = []        # parts skipped for want of a tool (setup_rule)

# ---- the fixture ----

SCANS = {
    11: {"Dimensions 1": 128, "Dimensions 2": 128, "Other": [1, 2]},
    12: {"Dimensions.1": 256, "Dimensions.2": 256},
    13: {"Dimensions 1": 256, "Dimensions.2": 256},      # one of each
    14: {"Dimensions 1": 128, "Dimensions 2": 256},      # mismatched
    15: {"Dimensions 1": "128", "Dimensions 2": "128"},  # not numbers
    16: {"Dimensions 1": 1024.0, "Dimensions 2": 1024},  # not asked for
    17: {"Dimensions 1": 128.0, "Dimensions 2": 128},    # a float counts
    # 18: unknown to the API (404)
    19: {"Dimensions 1": None, "Dimensions.1": 128, "Dimensions.2": 128},
    20: None,                                            # metadata null
    21: {"Dimensions 1": 256, "Dimensions.1": 128,       # spaced wins
         "Dimensions 2": 256, "Dimensions.2": 128},
}

JOBS = [  # id, job_type, slurm_id, elapsed, scan_ids
    (1, "count", 1001, 259.5, [12, 11]),
    (2, "count", None, 90061.0, [13]),
    (3, "transfer", 1003, 5, [11]),
    (4, "count", 1004, None, [14, 15, 16, 12]),
    (5, "count", 1005, 0.25, [17, 18]),
    (6, "count", 1006, 360000, [21, 11]),
    (7, "count", 1007, 30, [19, 20, 11]),
    (8, "transfer", None, None, [12]),
    (9, "count", 1009, 3599.999999, [13, 11]),
]


def job_json(j):
    return {"id": j[0], "job_type": j[1], "slurm_id": j[2], "elapsed": j[3],
            "scan_ids": j[4], "state": "COMPLETED", "params": {},
            "output": "", "machine": "perlmutter"}


def scan_json(i):
    return {"id": i, "scan_id": 1000 + i, "created": "2023-03-16T10:%02d:00"
            "+00:00" % (i % 60), "metadata": SCANS[i], "notes": None}


def size_of(meta):
    if not isinstance(meta, dict):
        return None
    dims = []
    for k in ("1", "2"):
        v = meta["Dimensions " + k] if "Dimensions " + k in meta \
            else meta.get("Dimensions." + k)
        if isinstance(v, bool) or not isinstance(v, (int, float)) or \
                v != int(v):
            return None
        dims.append(int(v))
    return dims[0] if dims[0] == dims[1] else None


def hms(seconds):
    if seconds is None:
        return ""
    us = int((decimal.Decimal(repr(seconds)) * 1000000).to_integral_value(
        decimal.ROUND_HALF_UP))
    h, rest = divmod(us, 3600 * 10**6)
    m, rest = divmod(rest, 60 * 10**6)
    s, frac = divmod(rest, 10**6)
    return "%02d:%02d:%02d" % (h, m, s) + (".%06d" % frac if frac else "")


def expected(sizes, job_type):
    out = {n: ["id,slurm_id,elapsed"] for n in sizes}
    for jid, jt, slurm, el, scans in sorted(JOBS):
        if job_type and jt != job_type:
            continue
        for s in sorted(set(scans)):
            if s in SCANS and size_of(SCANS[s]) in out:
                out[size_of(SCANS[s])].append("%d,%s,%s" % (
                    s, "" if slurm is None else slurm, hms(el)))
    return {n: "\n".join(rows) + "\n" for n, rows in out.items()}


# ---- the stand-in server ----

class State:
    def __init__(self, **kw):
        self.require = {}           # header -> value, else 401
        self.jobs_status = None     # answer every /jobs with this status
        self.jobs_body = None       # ... or this body
        self.scan_body = None       # every /scans/ID with this body
        self.delay = 0              # seconds before answering /jobs
        self.ignore_type = False    # no server-side job_type filter
        self.total = True           # send X-Total-Count
        self.redirect = False
        self.announce = None        # X-Total-Count to send instead
        self.cap = None             # the most jobs per page, whatever limit
        self.__dict__.update(kw)
        self.log = []               # (path, headers)
        self.lock = threading.Lock()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, status, body, headers=()):
        data = body.encode() if isinstance(body, str) else body
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_GET(self):
        st = self.server.state
        with st.lock:
            st.log.append((self.path, {k.lower(): v for k, v in
                                       self.headers.items()}))
        for k, v in st.require.items():
            if self.headers.get(k) != v:
                return self.send(401, '{"detail":"Could not validate '
                                 'credentials"}')
        u = urllib.parse.urlsplit(self.path)
        q = urllib.parse.parse_qs(u.query)
        if st.redirect:
            return self.send(302, "", [("Location", "http://127.0.0.1:9/x")])
        if u.path == "/api/v1/jobs":
            if st.delay:
                time.sleep(st.delay)
            if st.jobs_status:
                return self.send(st.jobs_status, '{"detail":"boom"}')
            if st.jobs_body is not None:
                return self.send(200, st.jobs_body, [("X-Total-Count", "1")])
            jobs = sorted(JOBS, reverse=True)    # newest first
            if "job_type" in q and not st.ignore_type:
                jobs = [j for j in jobs if j[1] == q["job_type"][0]]
            skip, limit = int(q["skip"][0]), int(q["limit"][0])
            if st.cap:
                limit = min(limit, st.cap)
            page = [job_json(j) for j in jobs[skip:skip + limit]]
            total = st.announce if st.announce is not None else len(jobs)
            hdr = [("X-Total-Count", str(total))] if st.total else []
            return self.send(200, json.dumps(page), hdr)
        if u.path.startswith("/api/v1/scans/"):
            i = int(u.path.rsplit("/", 1)[1])
            if i not in SCANS:
                return self.send(404, '{"detail":"Scan not found"}')
            if st.scan_body is not None:
                return self.send(200, st.scan_body)
            return self.send(200, json.dumps(scan_json(i)))
        self.send(404, '{"detail":"Not Found"}')


class Server:
    def __init__(self, state, tls=None):
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                                     Handler)
        self.httpd.daemon_threads = True
        self.httpd.state = state
        if tls:
            self.httpd.socket = tls.wrap_socket(self.httpd.socket,
                                                server_side=True)
        self.port = self.httpd.server_address[1]
        self.t = threading.Thread(target=self.httpd.serve_forever,
                                  daemon=True)

    def __enter__(self):
        self.t.start()
        return self

    def __exit__(self, *a):
        self.httpd.shutdown()
        self.httpd.server_close()


# ---- helpers ----

def run(url, out, *args, key=KEY, token=None, timeout=60):
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISTILLER_API_KEY", "DISTILLER_TOKEN")}
    if key is not None:
        env["DISTILLER_API_KEY"] = key
    if token is not None:
        env["DISTILLER_TOKEN"] = token
    p = run_cmd(BIN, "distiller", "jobs", "--api", url, "--size", "128",
                "--size", "256", "--out-dir", out, *args, timeout=timeout,
                env=env)
    STDERRS.append(p.stderr + p.stdout)
    return p


def files(d):
    return sorted(os.listdir(d)) if os.path.isdir(d) else []


def read(path):
    with open(path) as f:
        return f.read()


def check_output(d, job_type, what):
    want = expected([128, 256], job_type)
    check(files(d) == ["128_128.csv", "256_256.csv"],
          "%s: files %s" % (what, files(d)))
    for n in (128, 256):
        p = os.path.join(d, "%d_%d.csv" % (n, n))
        got = read(p) if os.path.exists(p) else None
        check(got == want[n], "%s: %d_%d.csv\n got %r\nwant %r" %
              (what, n, n, got, want[n]))


def jobs_requests(st):
    return [p for p, h in st.log if p.startswith("/api/v1/jobs")]


def scan_requests(st):
    return sorted(p for p, h in st.log if p.startswith("/api/v1/scans/"))


# ---- the cases ----

def test_pages(tmp):
    # 7 count jobs in pages of 3: skip 0, 3, 6; every scan once; the key
    st = State(require={"X-API-KEY": KEY})
    with Server(st) as srv:
        d = os.path.join(tmp, "pages")
        p = run("http://127.0.0.1:%d/" % srv.port, d, "--job-type", "count",
                "--page-size", "3")
    check(p.returncode == 0, "pages: exit %d: %s" % (p.returncode, p.stderr))
    check(jobs_requests(st) == ["/api/v1/jobs?job_type=count&skip=%d&limit=3"
                                % s for s in (0, 3, 6)],
          "pages: %s" % jobs_requests(st))
    want = sorted("/api/v1/scans/%d" % s for s in
                  {s for j in JOBS if j[1] == "count" for s in j[4]})
    check(scan_requests(st) == want, "each scan once: %s" % scan_requests(st))
    check(all(h.get("x-api-key") == KEY and "authorization" not in h
              for _, h in st.log), "the key on every request, no token")
    check(all(h.get("accept") == "application/json" for _, h in st.log),
          "Accept: application/json")
    check_output(d, "count", "pages")
    check("scan 18" in p.stderr and "404" in p.stderr,
          "the unknown scan is named: %s" % p.stderr)

    # every job type, pages of 3 of 9; a page size the server honours
    st = State(require={"X-API-KEY": KEY})
    with Server(st) as srv:
        d = os.path.join(tmp, "all")
        p = run("http://127.0.0.1:%d" % srv.port, d, "--page-size", "3")
    check(p.returncode == 0, "all types: %s" % p.stderr)
    check(jobs_requests(st) == ["/api/v1/jobs?skip=%d&limit=3" % s
                                for s in (0, 3, 6)],
          "all types: %s" % jobs_requests(st))
    check_output(d, None, "all types")

    # the server ignores job_type: the client filters as well
    st = State(ignore_type=True)
    with Server(st) as srv:
        d = os.path.join(tmp, "client-filter")
        p = run("http://127.0.0.1:%d" % srv.port, d, "--job-type", "count",
                "--page-size", "4")
    check(p.returncode == 0, "client filter: %s" % p.stderr)
    check(len(jobs_requests(st)) == 3, "9 jobs in pages of 4: %s" %
          jobs_requests(st))
    check_output(d, "count", "client filter")

    # no X-Total-Count: pages until an empty one; the default page size
    st = State(total=False)
    with Server(st) as srv:
        d = os.path.join(tmp, "no-total")
        p = run("http://127.0.0.1:%d" % srv.port, d, "--job-type", "count",
                "--page-size", "3")
        d2 = os.path.join(tmp, "default-page")
        st2 = srv.httpd.state = State()
        p2 = run("http://127.0.0.1:%d" % srv.port, d2, "-v")
    check(p.returncode == 0 and jobs_requests(st) ==
          ["/api/v1/jobs?job_type=count&skip=%d&limit=3" % s
           for s in (0, 3, 6, 7)], "no total: %d %s %s" %
          (p.returncode, jobs_requests(st), p.stderr))
    check_output(d, "count", "no total")
    check(p2.returncode == 0 and jobs_requests(st2) ==
          ["/api/v1/jobs?skip=0&limit=100"], "default page: %s %s" %
          (jobs_requests(st2), p2.stderr))
    check_output(d2, None, "default page, -v")


def test_auth(tmp):
    # a named header for the key, a token from a file
    tf = os.path.join(tmp, "token")
    with open(tf, "w") as f:
        f.write(TOKEN + "\n")
    os.chmod(tf, 0o600)
    st = State(require={"X-Distiller-Key": KEY,
                        "Authorization": "Bearer " + TOKEN})
    with Server(st) as srv:
        d = os.path.join(tmp, "auth")
        p = run("http://127.0.0.1:%d" % srv.port, d, "--api-key-header",
                "X-Distiller-Key", "--token-file", tf)
    check(p.returncode == 0, "header and token file: %s" % p.stderr)
    check(st.log and all("x-api-key" not in h for _, h in st.log),
          "no X-API-KEY with --api-key-header")
    check_output(d, None, "header and token file")

    # the token from the environment alone
    st = State(require={"Authorization": "Bearer " + TOKEN})
    with Server(st) as srv:
        d = os.path.join(tmp, "env-token")
        p = run("http://127.0.0.1:%d" % srv.port, d, key=None, token=TOKEN)
    check(p.returncode == 0, "$DISTILLER_TOKEN: %s" % p.stderr)
    check(all("x-api-key" not in h for _, h in st.log), "no key sent")

    # a wrong key: 401, exit 69, the key not shown, no files
    st = State(require={"X-API-KEY": "another"})
    with Server(st) as srv:
        d = os.path.join(tmp, "401")
        p = run("http://127.0.0.1:%d" % srv.port, d, "--retries", "2")
    check(p.returncode == 69 and "refused" in p.stderr and "401" in
          p.stderr, "401: %d %s" % (p.returncode, p.stderr))
    check(KEY not in p.stderr and KEY not in p.stdout, "401: key shown")
    check(len(st.log) == 1, "401 is not retried: %d" % len(st.log))
    check(files(d) == [], "401: files left %s" % files(d))

    # a key with a line break cannot smuggle a header
    st = State()
    with Server(st) as srv:
        d = os.path.join(tmp, "crlf")
        p = run("http://127.0.0.1:%d" % srv.port, d,
                key="k\r\nX-Evil: 1")
    check(p.returncode != 0 and not st.log and "Evil" not in p.stderr,
          "CR LF in the key: %d %s" % (p.returncode, p.stderr))

    # a header name that is no name
    st = State()
    with Server(st) as srv:
        d = os.path.join(tmp, "bad-name")
        p = run("http://127.0.0.1:%d" % srv.port, d, "--api-key-header",
                "X-Key: 1")
    check(p.returncode == 64 and not st.log and files(d) == [],
          "bad header name: %d %s" % (p.returncode, p.stderr))


def test_failures(tmp):
    # 500: retried, then 69 naming the status and the URL
    st = State(jobs_status=500)
    with Server(st) as srv:
        d = os.path.join(tmp, "500")
        p = run("http://127.0.0.1:%d" % srv.port, d, "--retries", "2")
    check(p.returncode == 69 and "HTTP 500" in p.stderr and
          "/api/v1/jobs?skip=0&limit=100" in p.stderr,
          "500: %d %s" % (p.returncode, p.stderr))
    check(len(jobs_requests(st)) == 3, "500: 1 + 2 retries: %d" %
          len(jobs_requests(st)))
    check(files(d) == [], "500: files left %s" % files(d))

    # a failure after pages were read leaves no files either
    st = State(scan_body="{\"id\": 1,")
    with Server(st) as srv:
        d = os.path.join(tmp, "bad-scan")
        p = run("http://127.0.0.1:%d" % srv.port, d)
    check(p.returncode == 65 and "/api/v1/scans/1" in p.stderr,
          "malformed scan: %d %s" % (p.returncode, p.stderr))
    check(files(d) == [], "malformed scan: files left %s" % files(d))

    # a slow reply
    st = State(delay=4)
    with Server(st) as srv:
        d = os.path.join(tmp, "slow")
        t0 = time.monotonic()
        p = run("http://127.0.0.1:%d" % srv.port, d, "--timeout", "1",
                "--retries", "0")
        took = time.monotonic() - t0
    check(p.returncode == 69 and "Distiller" in p.stderr and took < 3.5,
          "timeout: %d in %.1f s: %s" % (p.returncode, took, p.stderr))
    check(files(d) == [], "timeout: files left %s" % files(d))

    # malformed JSON, a field of the wrong type
    for body, says in (("[{\"id\": 1,", "cannot parse"),
                       ("{\"items\": []}", "array"),
                       (json.dumps([dict(job_json(JOBS[0]), elapsed="259.5")]),
                        "'elapsed'"),
                       (json.dumps([dict(job_json(JOBS[0]), scan_ids=None,
                                         id="1")]), "'id'")):
        st = State(jobs_body=body)
        with Server(st) as srv:
            d = os.path.join(tmp, "malformed")
            p = run("http://127.0.0.1:%d" % srv.port, d)
        check(p.returncode == 65 and says in p.stderr and
              "/api/v1/jobs?skip=0" in p.stderr,
              "malformed %r: %d %s" % (body[:30], p.returncode, p.stderr))
        check(files(d) == [], "malformed: files left %s" % files(d))

    # a redirect is not followed (it would carry the key elsewhere)
    st = State(redirect=True)
    with Server(st) as srv:
        d = os.path.join(tmp, "302")
        p = run("http://127.0.0.1:%d" % srv.port, d)
    check(p.returncode == 69 and "302" in p.stderr and len(st.log) == 1,
          "redirect: %d %s" % (p.returncode, p.stderr))

    # nobody listening
    port = free_port()
    d = os.path.join(tmp, "unreachable")
    p = run("http://127.0.0.1:%d" % port, d, "--retries", "1")
    check(p.returncode == 69 and "cannot reach the Distiller API at "
          "http://127.0.0.1:%d" % port in p.stderr,
          "unreachable: %d %s" % (p.returncode, p.stderr))
    check(files(d) == [], "unreachable: files left %s" % files(d))


def test_https(tmp):
    # https with a self-signed certificate: trusted through --cacert only
    cert, keyf = os.path.join(tmp, "cert.pem"), os.path.join(tmp, "key.pem")
    why = setup_rule.install(["openssl"])   # to make the certificate
    if why:
        if why[0]:
            MISSING.append("https: no openssl: " + why[1])
        else:
            check(False, "https: " + why[1])
        return
    p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                        "-nodes", "-days", "2", "-subj", "/CN=127.0.0.1",
                        "-addext", "subjectAltName=IP:127.0.0.1", "-keyout",
                        keyf, "-out", cert], capture_output=True, text=True)
    check(p.returncode == 0, "https: cannot set up a certificate: openssl "
          "exited %d: %s" % (p.returncode, p.stderr[-500:]))
    if p.returncode != 0:
        return
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(cert, keyf)
    st = State(require={"X-API-KEY": KEY})
    with Server(st, tls=ctx) as srv:
        url = "https://127.0.0.1:%d" % srv.port
        d = os.path.join(tmp, "https")
        p = run(url, d, "--cacert", cert, "--job-type", "count", "-q")
        check(p.returncode == 0, "https with --cacert: %s" % p.stderr)
        check_output(d, "count", "https")
        n = len(st.log)
        d = os.path.join(tmp, "https-untrusted")
        p = run(url, d, "--retries", "2")
        check(p.returncode == 69 and len(st.log) == n and
              files(d) == [], "https without the CA: %d %s" %
              (p.returncode, p.stderr))


def test_limits(tmp):
    """Servers that never answer, never stop, send a giant header, promise
    rows they do not give; a password in --api (issue 13, items 12, 16, 18,
    20)."""
    import bad_http

    def api(url, d, *extra):
        t0 = time.monotonic()
        p = run(url, d, *extra, timeout=120)
        return p, time.monotonic() - t0

    # a silent server: one request, the run over after --timeout (it was
    # --timeout per attempt, 4 attempts and the pauses between)
    with bad_http.BadServer("silent") as srv:
        d = os.path.join(tmp, "silent")
        p, took = api(srv.url(), d, "--timeout", "2", "--retries", "3")
        check(p.returncode == 69 and took < 8 and srv.requests == 1 and
              "within the timeout of 2 s" in p.stderr and files(d) == [],
              "silent server, --timeout bounds the retries: exit %d in %.1f"
              " s, %d requests: %s" % (p.returncode, took, srv.requests,
                                       p.stderr))

    # an endless chunked answer was buffered up to 1 GiB
    with bad_http.BadServer("chunked") as srv:
        d = os.path.join(tmp, "chunked")
        p, took = api(srv.url("bob:Pw-s3cret"), d, "--max-response-size",
                      "64K")
        check(p.returncode == 69 and took < 10 and "larger than the limit "
              "of 64 KiB" in p.stderr and "127.0.0.1:%d/api/v1/jobs" %
              srv.port in p.stderr and "Pw-s3cret" not in p.stderr and
              files(d) == [], "endless chunked response buffered up to 1 "
              "GiB (64K cap): exit %d in %.1f s: %s"
              % (p.returncode, took, p.stderr))
        p, took = api(srv.url(), d)
        check(p.returncode == 69 and "larger than the limit of 256 MiB" in
              p.stderr, "endless chunked response buffered up to 1 GiB "
              "(default cap): exit %d in %.1f s: %s"
              % (p.returncode, took, p.stderr))

    # a 200 KB header was "Out of memory"
    with bad_http.BadServer("bighdr") as srv:
        d = os.path.join(tmp, "bighdr")
        p, _ = api(srv.url(), d)
        check(p.returncode == 69 and "has a header larger than" in p.stderr
              and "127.0.0.1:%d/api/v1/jobs" % srv.port in p.stderr and
              "Out of memory" not in p.stderr,
              "200 KB HTTP header reported as Out of memory: %d %s"
              % (p.returncode, p.stderr))

    # X-Total-Count: 1000000, then an empty page: was exit 0 with the rows
    # of the first page
    st = State(announce=1000000)
    with Server(st) as srv:
        d = os.path.join(tmp, "announced")
        p = run("http://127.0.0.1:%d" % srv.port, d)
    check(p.returncode == 65 and "announced 1000000 jobs" in p.stderr and
          "gave 9" in p.stderr and "skip=9" in p.stderr and files(d) == [],
          "X-Total-Count 1000000 then an empty page: %d %s"
          % (p.returncode, p.stderr))
    # ... but a server that gives fewer per page than asked is fine
    st = State(cap=4)
    with Server(st) as srv:
        d = os.path.join(tmp, "capped")
        p = run("http://127.0.0.1:%d" % srv.port, d, "--page-size", "100")
    check(p.returncode == 0 and jobs_requests(st) ==
          ["/api/v1/jobs?skip=%d&limit=100" % k for k in (0, 4, 8)],
          "pages shorter than asked: %d %s %s"
          % (p.returncode, jobs_requests(st), p.stderr))
    check_output(d, None, "pages shorter than asked")

    # a negative elapsed from the API was written as it came
    st = State(jobs_body=json.dumps([dict(job_json(JOBS[0]),
                                          elapsed=-29.5)]))
    with Server(st) as srv:
        d = os.path.join(tmp, "negative")
        p = run("http://127.0.0.1:%d" % srv.port, d)
    check(p.returncode == 65 and "job 1: 'elapsed' is negative" in p.stderr
          and files(d) == [], "negative Distiller elapsed from the API: "
          "%d %s" % (p.returncode, p.stderr))

    # a password in --api stayed in /proc/PID/cmdline
    with bad_http.BadServer("silent") as srv:
        d = os.path.join(tmp, "cmdline")
        env = {k: v for k, v in os.environ.items()
               if k not in ("DISTILLER_API_KEY", "DISTILLER_TOKEN")}
        cmd, rc, err, _ = bad_http.cmdline_while_running(
            [BIN, "distiller", "jobs", "--api", srv.url("bob:Pw-s3cret"),
             "--timeout", "4", "--out-dir", d], env=env)
        check(cmd is not None and "Pw-s3cret" not in cmd and "--api" in cmd
              and "bob:" in cmd, "password in --api URL stays in "
              "/proc/PID/cmdline: %r" % cmd)
        check(rc == 69 and "password" in err and "--token-file" in err and
              "Pw-s3cret" not in err,
              "password in --api: a warning, never shown: %d %s" % (rc, err))

    # --max-response-size: a size, and only with --api
    for args in (["--api", "http://127.0.0.1:9", "--max-response-size", "0"],
                 ["--api", "http://127.0.0.1:9", "--max-response-size", "1T"],
                 ["--max-response-size", "1M"]):
        p = subprocess.run([BIN, "distiller", "jobs", "--out-dir",
                            os.path.join(tmp, "usage"), *args],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 64, "usage %s: %d %s" % (args, p.returncode,
                                                       p.stderr))


def main():
    tmp = tempfile.mkdtemp(prefix="st-distiller-rest-")
    try:
        test_pages(tmp)
        test_auth(tmp)
        test_failures(tmp)
        test_https(tmp)
        test_limits(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    check(not any(KEY in s or TOKEN in s for s in STDERRS),
          "a secret was printed")
    print("distiller rest: %d checks, %d failed" % (CHECKS[0], len(FAILS)))
    if FAILS or not CHECKS[0]:
        sys.exit(1)
    if MISSING:
        setup_rule.missing("cli-distiller-rest", "; ".join(MISSING))
    sys.exit(0)


if __name__ == "__main__":
    main()
