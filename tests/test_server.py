"""Server suite: the workshop server (`run.py serve`) on 127.0.0.1.

A story in order: the organiser starts a server with a roster (tokens
printed once, stored hashed); students log in and send a lab; the job runs
through a stand-in grader (tests/programs/fake_grader.sh replaying a
recorded run) and its events come back through the text reporter, as JSON,
and into the dashboard; the queue is fair between students and pins one
GPU per worker; floods get 429 with Retry-After; kill -9 loses nothing;
every bad input gets a clear refusal; the status page draws in headless
Chromium; the class view and the gradebook come out of the server; and a
run with the real grader ends NOT GRADED without a GPU. Only 127.0.0.1,
ephemeral ports, every wait bounded.
"""
import hashlib
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import harness_util as hu

RUN = [sys.executable, os.path.join(hu.ROOT, "run.py")]
FAKE = os.path.join(hu.ROOT, "tests", "programs", "fake_grader.sh")
FIX = os.path.join(hu.ROOT, "tests", "fixtures", "ui")
ARTEFACTS = os.path.join(hu.ROOT, "build", "test-artifacts")


class Serve:
    """One `run.py serve` process with its own state folder."""

    def __init__(self, state, roster=None, args=(), env=None):
        self.state = state
        self.port_file = os.path.join(state, "port")
        if os.path.exists(self.port_file):
            os.unlink(self.port_file)
        self.env = dict(os.environ, CUDALAB_SERVER_GRADER=FAKE,
                        FAKE_MODE="complete",
                        FAKE_EVENTS=os.path.join(FIX, "pass.jsonl"),
                        CUDALAB_COMMIT="testcommit")
        self.env.update(env or {})
        cmd = RUN + ["serve", "--host", "127.0.0.1", "--port", "0",
                     "--state", state, "--port-file", self.port_file,
                     "--gpus", "0"] + list(args)
        if roster:
            cmd += ["--roster", roster]
        self.out_path = os.path.join(state, "serve.out")
        self.out = open(self.out_path, "a")
        self.err_path = os.path.join(state, "serve.err")
        self.proc = subprocess.Popen(cmd, stdout=self.out,
                                     stderr=open(self.err_path, "a"),
                                     env=self.env, text=True)
        self.tokens = {}
        end = time.time() + 60
        while time.time() < end and not os.path.exists(self.port_file):
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        self.port = int(open(self.port_file).read()) \
            if os.path.exists(self.port_file) else None
        self.url = "http://127.0.0.1:%s/" % self.port
        STARTED.append(self)

    def read_tokens(self):
        """The lines `ID TOKEN` printed before the server started."""
        for line in open(self.out_path):
            parts = line.split()
            if len(parts) == 2:
                self.tokens[parts[0]] = parts[1]
        return self.tokens

    def stop(self, kill9=False):
        if self.out.closed:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL if kill9 else signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.out.close()

    def errors(self):
        with open(self.err_path) as f:
            return f.read()[-2000:]


def run_cmd(args, env=None, timeout=120, input_text=None):
    """hu.run with text on stdin (a token typed at the prompt)."""
    full = dict(os.environ)
    full.update(env or {})
    proc = subprocess.run(args, input=input_text or "", text=True, env=full,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout, cwd=hu.ROOT)
    return proc.returncode, proc.stdout, proc.stderr


def http(url, method="GET", body=None, token=None, raw=None, timeout=20):
    """(status, headers, parsed JSON or text) of one request."""
    data = raw if raw is not None else (
        json.dumps(body).encode() if body is not None else None)
    req = urllib.request.Request(url, data=data, method=method)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            text = r.read().decode()
            code, headers = r.status, r.headers
    except urllib.error.HTTPError as e:
        text, code, headers = e.read().decode(), e.code, e.headers
    try:
        return code, headers, json.loads(text)
    except ValueError:
        return code, headers, text


def saxpy_files(text="__global__ void k() {}\n"):
    return {"saxpy_v%d.cu" % k: text for k in range(1, 6)}


def client_env(cfg, extra=None):
    env = {"XDG_CONFIG_HOME": cfg}
    env.update(extra or {})
    return env


def login(srv, cfg, sid):
    return run_cmd(RUN + ["login", srv.url], env=client_env(cfg),
                   input_text=srv.tokens[sid] + "\n")


def wait_done(srv, jobs, timeout=60):
    end = time.time() + timeout
    while time.time() < end:
        db = sqlite3.connect(os.path.join(srv.state, "server.sqlite"))
        states = dict(db.execute("SELECT id, state FROM jobs"))
        db.close()
        if all(states.get(j) == "done" for j in jobs):
            return True
        time.sleep(0.2)
    return False


def db_rows(state, sql, args=()):
    db = sqlite3.connect(os.path.join(state, "server.sqlite"))
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def write_roster(path, rows):
    with open(path, "w") as f:
        f.write("id,name,revoked\n")
        for r in rows:
            f.write(",".join(r) + "\n")


STARTED = []  # every Serve of the suite, stopped at its end whatever broke


def roster_and_login(t, base):
    roster = os.path.join(base, "roster.csv")
    write_roster(roster, [("alice", "Alice", ""), ("bob", "Bob", ""),
                          ("carol", "Carol", "yes")])
    state = os.path.join(base, "state")
    os.makedirs(state)
    srv = Serve(state, roster, ["--min-interval", "0", "--max-waiting", "5"])
    tokens = srv.read_tokens()
    t.record("server: --roster prints one token per student, once",
             srv.port and sorted(tokens) == ["alice", "bob", "carol"],
             "port %s, tokens %s\n%s" % (srv.port, tokens, srv.errors()))
    stored = db_rows(state, "SELECT id, token_hash FROM students")
    t.record("server: tokens are stored only as sha256 hashes",
             len(stored) == 3 and all(
                 h == hashlib.sha256(tokens.get(i, "").encode()).hexdigest()
                 for i, h in stored)
             and not any(tok.encode() in open(os.path.join(
                 state, "server.sqlite"), "rb").read()
                 for tok in tokens.values()), str(stored))
    cfg = os.path.join(base, "cfg-alice")
    rc, out, err = run_cmd(RUN + ["login", srv.url], env=client_env(cfg),
                           input_text="not-a-token\n")
    t.record("server: login with an unknown token is refused, exit 2",
             rc == 2 and "not known" in err, "rc=%d %s %s" % (rc, out, err))
    rc, out, err = login(srv, cfg, "alice")
    path = os.path.join(cfg, "cudalab", "remote.json")
    mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else None
    t.record("server: login keeps url and token in the config folder, mode "
             "0600, outside the tree",
             rc == 0 and "as alice" in out and mode == 0o600
             and json.load(open(path)).get("token") == tokens.get("alice")
             and not path.startswith(hu.ROOT),
             "rc=%d mode=%s %s %s" % (rc, mode, out, err))
    rc, out, err = login(srv, os.path.join(base, "cfg-carol"), "carol")
    t.record("server: a token revoked in the roster is refused (403)",
             rc == 2 and "revoked" in err, "rc=%d %s" % (rc, err))
    return srv, cfg


def submit_and_stream(t, srv, cfg):
    rc, out, err = hu.run(RUN + ["test", "saxpy", "--remote"],
                          env=client_env(cfg), timeout=120)
    t.record("server: `test saxpy --remote` prints the queue position, the "
             "server's GPU, commit and limits",
             "queued: 0 ahead (about" in err and "server: GPU 0, commit "
             "testcommit, sandboxed; job limit" in err, err)
    t.record("server: the remote run goes through the text reporter of a "
             "local run, exit 0 on pass",
             rc == 0 and "v1    naive, one element per thread" in out
             and out.strip().endswith("PASS: 5 passed, 0 failed, 0 not "
                                      "graded of 5 step(s) in 14.3 s"),
             "rc=%d\n%s\n%s" % (rc, out[-1500:], err))
    rc, out, err = hu.run(RUN + ["test", "saxpy", "--remote", "--json"],
                          env=client_env(cfg), timeout=120)
    events = [json.loads(line) for line in out.splitlines() if line.strip()]
    kinds = [e.get("event") for e in events]
    server = next((e for e in events if e.get("event") == "server"), {})
    t.record("server: --json streams the server event (gpu, commit, "
             "limits), the grader's events and job_end",
             kinds and kinds[0] == "server" and kinds[-1] == "job_end"
             and "run_end" in kinds and server.get("gpu") == "0"
             and server.get("commit") == "testcommit"
             and server.get("limits", {}).get("job_limit_s") == 900,
             "rc=%d kinds=%s\n%s" % (rc, kinds[:5], err))


def exit_status_and_env(t, base):
    """A failing grader's status reaches the client; CUDALAB_REMOTE=1."""
    state = os.path.join(base, "state-fail")
    os.makedirs(state)
    roster = os.path.join(base, "roster-fail.csv")
    write_roster(roster, [("dave", "", "")])
    srv = Serve(state, roster, ["--min-interval", "0"],
                env={"FAKE_EVENTS": os.path.join(FIX, "wrong_result.jsonl"),
                     "FAKE_EXIT": "1"})
    srv.read_tokens()
    cfg = os.path.join(base, "cfg-dave")
    try:
        login(srv, cfg, "dave")
        rc, out, err = hu.run(RUN + ["test", "saxpy"], env=client_env(
            cfg, {"CUDALAB_REMOTE": "1"}), timeout=120)
        t.record("server: CUDALAB_REMOTE=1 sends to the server; a failing "
                 "step exits 1 as locally, its failure printed",
                 rc == 1 and "FAIL" in out and "job 1 sent" in err,
                 "rc=%d\n%s\n%s" % (rc, out[-1200:], err))
    finally:
        srv.stop()


def job_limit(t, base):
    """A job past --job-limit is stopped: the stream says so, exit 4."""
    state = os.path.join(base, "state-limit")
    os.makedirs(state)
    roster = os.path.join(base, "roster-limit.csv")
    write_roster(roster, [("ivan", "", "")])
    srv = Serve(state, roster, ["--min-interval", "0", "--job-limit", "1"],
                env={"FAKE_SLEEP": "20"})
    srv.read_tokens()
    cfg = os.path.join(base, "cfg-ivan")
    try:
        login(srv, cfg, "ivan")
        start = time.time()
        rc, out, err = hu.run(RUN + ["test", "saxpy", "--remote"],
                              env=client_env(cfg), timeout=120)
        took = time.time() - start
        t.record("server: a job past --job-limit is stopped, the client is "
                 "told why, exit 4",
                 rc == 4 and "ran past the server's limit of 1 s" in err
                 and took < 15, "rc=%d %.1f s\n%s\n%s" % (rc, took, out, err))
    finally:
        srv.stop()


def fairness(t, base):
    state = os.path.join(base, "state-fair")
    os.makedirs(state)
    roster = os.path.join(base, "roster-fair.csv")
    write_roster(roster, [("alice", "", ""), ("bob", "", "")])
    log = os.path.join(base, "gpu.log")
    srv = Serve(state, roster, ["--min-interval", "0", "--max-waiting", "3",
                                "--gpus", "0,1"],
                env={"FAKE_SLEEP": "1", "FAKE_GPU_LOG": log})
    tok = srv.read_tokens()
    try:
        # one worker would make this a pure round robin; with two GPUs the
        # rule to check is: never two jobs of one student at once, and bob's
        # first job does not wait behind all of alice's
        ids = []
        for who in ("alice", "alice", "alice", "bob", "bob", "bob"):
            code, _, doc = http(srv.url + "api/jobs", "POST",
                                {"lab": "saxpy", "files": saxpy_files()},
                                tok[who])
            ids.append(doc.get("job") if code == 202 else None)
        done = wait_done(srv, ids, 90)
        lines = [ln.split() for ln in open(log)] if os.path.exists(log) \
            else []
        spans = {}
        for kind, when, gpu, *args in lines:
            job = int(args[args.index("--src") + 1].rstrip("/").split("/")[-1])
            spans.setdefault(job, {})[kind] = (float(when), gpu)
        owner = {j: ("alice" if k < 3 else "bob") for k, j in enumerate(ids)}
        overlap = [(a, b) for a in spans for b in spans if a < b
                   and owner[a] == owner[b]
                   and spans[a]["start"][0] < spans[b]["end"][0]
                   and spans[b]["start"][0] < spans[a]["end"][0]]
        order = sorted(spans, key=lambda j: spans[j]["start"][0])
        gpus = {spans[j]["start"][1] for j in spans}
        t.record("server: 2 students x 3 jobs on 2 GPUs: every job runs "
                 "once, one job per student at a time, alternating",
                 done and len(lines) == 12 and not overlap
                 and [owner[j] for j in order][:2] in (["alice", "bob"],
                                                       ["bob", "alice"])
                 and gpus == {"0", "1"},
                 "done=%s order=%s overlap=%s gpus=%s\n%s"
                 % (done, order, overlap, gpus, srv.errors()))
    finally:
        srv.stop()
    # one GPU: strict round robin in the order of service
    state = os.path.join(base, "state-rr")
    os.makedirs(state)
    log = os.path.join(base, "rr.log")
    srv = Serve(state, roster, ["--min-interval", "0", "--max-waiting", "3"],
                env={"FAKE_SLEEP": "1.5", "FAKE_LOG": log})
    tok = srv.read_tokens()
    try:
        ids = []
        for who in ("alice", "alice", "alice", "bob", "bob", "bob"):
            code, _, doc = http(srv.url + "api/jobs", "POST",
                                {"lab": "saxpy", "files": saxpy_files()},
                                tok[who])
            ids.append(doc.get("job"))
        wait_done(srv, ids, 90)
        ran = [int(ln.split("--src ")[1].split()[0].rstrip("/")
                   .split("/")[-1]) for ln in open(log)]
        a, b = ids[:3], ids[3:]
        t.record("server: one GPU, alice sends 3 then bob 3: they run "
                 "alternately (round robin), each once",
                 ran == [a[0], b[0], a[1], b[1], a[2], b[2]],
                 "ran %s, alice %s, bob %s" % (ran, a, b))
    finally:
        srv.stop()


def floods(t, base):
    state = os.path.join(base, "state-flood")
    os.makedirs(state)
    roster = os.path.join(base, "roster-flood.csv")
    write_roster(roster, [("eve", "", "")])
    srv = Serve(state, roster, ["--min-interval", "30", "--max-waiting", "1"],
                env={"FAKE_SLEEP": "3"})
    tok = srv.read_tokens()["eve"]
    cfg = os.path.join(base, "cfg-eve")
    try:
        login(srv, cfg, "eve")
        first = http(srv.url + "api/jobs", "POST",
                     {"lab": "saxpy", "files": saxpy_files()}, tok)
        code, headers, doc = http(srv.url + "api/jobs", "POST",
                                  {"lab": "saxpy", "files": saxpy_files()},
                                  tok)
        retry = headers.get("Retry-After") if headers else None
        t.record("server: a second job while one waits: 429 with "
                 "Retry-After and why",
                 first[0] == 202 and code == 429 and retry and
                 int(retry) >= 1 and "waiting or running" in doc.get(
                     "error", ""), "%s %s %s %s" % (first, code, retry, doc))
        wait_done(srv, [first[2]["job"]], 30)
        code, headers, doc = http(srv.url + "api/jobs", "POST",
                                  {"lab": "saxpy", "files": saxpy_files()},
                                  tok)
        retry = headers.get("Retry-After") if headers else None
        t.record("server: within --min-interval: 429, Retry-After counts "
                 "down from 30 s",
                 code == 429 and retry and 1 <= int(retry) <= 30
                 and "one submission every 30 s" in doc.get("error", ""),
                 "%s %s %s" % (code, retry, doc))
        rc, out, err = hu.run(RUN + ["test", "saxpy", "--remote"],
                              env=client_env(cfg), timeout=60)
        t.record("server: the client says busy and when to retry, exit 4",
                 rc == 4 and "retry after" in err and "one submission" in err,
                 "rc=%d %s" % (rc, err))
        n = db_rows(state, "SELECT COUNT(*) FROM jobs")[0][0]
        t.record("server: refused submissions leave no job behind", n == 1,
                 "%d jobs" % n)
    finally:
        srv.stop()
    # twelve requests of one student at the same instant: one job, no more
    import threading
    state = os.path.join(base, "state-burst")
    os.makedirs(state)
    srv = Serve(state, roster, ["--min-interval", "0", "--max-waiting", "1"],
                env={"FAKE_SLEEP": "2"})
    tok = srv.read_tokens()["eve"]
    codes = []
    try:
        def one():
            codes.append(http(srv.url + "api/jobs", "POST",
                              {"lab": "saxpy", "files": saxpy_files()},
                              tok)[0])
        threads = [threading.Thread(target=one) for _ in range(12)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(30)
        n = db_rows(state, "SELECT COUNT(*) FROM jobs")[0][0]
        t.record("server: a flood of parallel requests: one accepted, the "
                 "rest 429, one job stored",
                 sorted(codes) == [202] + [429] * 11 and n == 1,
                 "codes %s, %d jobs" % (sorted(codes), n))
    finally:
        srv.stop()


def restart_after_kill(t, base):
    state = os.path.join(base, "state-kill")
    os.makedirs(state)
    roster = os.path.join(base, "roster-kill.csv")
    write_roster(roster, [("s%d" % k, "", "") for k in range(3)])
    log = os.path.join(base, "kill.log")
    env = {"FAKE_SLEEP": "1.5", "FAKE_LOG": log}
    srv = Serve(state, roster, ["--min-interval", "0", "--max-waiting", "2"],
                env=env)
    tok = srv.read_tokens()
    ids = []
    for k in (0, 1, 2, 0, 1, 2):
        code, _, doc = http(srv.url + "api/jobs", "POST",
                            {"lab": "saxpy", "files": saxpy_files()},
                            tok["s%d" % k])
        ids.append(doc.get("job"))
    wait_done(srv, ids[:1], 30)
    time.sleep(0.5)  # the second job is under way
    srv.stop(kill9=True)
    before = dict(db_rows(state, "SELECT id, state FROM jobs"))
    srv2 = Serve(state, None, ["--min-interval", "0"], env=env)
    try:
        done = wait_done(srv2, ids, 90)
        ran = [int(ln.split("--src ")[1].split()[0].rstrip("/")
                   .split("/")[-1]) for ln in open(log)]
        cut = [j for j, s in before.items() if s == "running"]
        ends = dict(db_rows(state, "SELECT job, COUNT(*) FROM events WHERE "
                                   "line LIKE '{\"event\": \"job_end\"%' "
                                   "GROUP BY job"))
        results = dict(db_rows(state, "SELECT job, COUNT(*) FROM results "
                                      "GROUP BY job"))
        t.record("server: kill -9 mid-queue, restart: every job done once "
                 "(only the one cut short runs again), all results kept",
                 done and before.get(ids[0]) == "done" and len(cut) <= 1
                 and all(ran.count(j) == (2 if j in cut else 1) for j in ids)
                 and all(ends.get(j) == 1 for j in ids)
                 and all(results.get(j) == 5 for j in ids),
                 "before %s cut %s ran %s ends %s results %s\n%s"
                 % (before, cut, ran, ends, results, srv2.errors()))
    finally:
        srv2.stop()


def bad_input(t, srv, cfg, base):
    tok = srv.tokens
    url = srv.url + "api/jobs"
    cases = [
        ("no token", dict(body={"lab": "saxpy", "files": saxpy_files()}),
         401, "no token"),
        ("unknown token", dict(body={"lab": "saxpy", "files": saxpy_files()},
                               token="forged"), 401, "not known"),
        ("revoked token", dict(body={"lab": "saxpy", "files": saxpy_files()},
                               token=tok["carol"]), 403, "revoked"),
        ("unknown lab", dict(body={"lab": "nosuch", "files": saxpy_files()},
                             token=tok["bob"]), 400, "no lab called nosuch"),
        ("unknown step", dict(body={"lab": "saxpy", "step": "9",
                                    "files": saxpy_files()},
                              token=tok["bob"]), 400, "has no step \"9\""),
        ("a file that is not a step file",
         dict(body={"lab": "saxpy", "files": {"harness.cu": "x"}},
              token=tok["bob"]), 400, "harness.cu is not a step file"),
        ("a path as a file name",
         dict(body={"lab": "saxpy", "files": {"../saxpy_v1.cu": "x"}},
              token=tok["bob"]), 400, "is not a step file"),
        ("an oversized step file",
         dict(body={"lab": "saxpy", "files": {"saxpy_v1.cu": "x" * (300 << 10)}},
              token=tok["bob"]), 413, "at most 262144"),
        ("not JSON", dict(raw=b"lab=saxpy", token=tok["bob"]), 400,
         "not JSON"),
        ("no files", dict(body={"lab": "saxpy", "files": {}},
                          token=tok["bob"]), 400, "no step files"),
    ]
    for name, kw, want, text in cases:
        code, _, doc = http(url, "POST", **kw)
        msg = doc.get("error", "") if isinstance(doc, dict) else str(doc)
        t.record("server: %s -> %d, \"%s\"" % (name, want, text),
                 code == want and text in msg, "%s %s" % (code, doc))
    # a request announcing 5 MiB: refused on its header, before the body
    from http.client import HTTPConnection
    conn = HTTPConnection("127.0.0.1", srv.port, timeout=20)
    conn.putrequest("POST", "/api/jobs")
    conn.putheader("Authorization", "Bearer " + tok["bob"])
    conn.putheader("Content-Length", str(5 << 20))
    conn.endheaders()
    resp = conn.getresponse()
    doc = json.loads(resp.read() or b"{}")
    conn.close()
    t.record("server: an oversized request -> 413 before its body is read",
             resp.status == 413 and "the submission is" in doc.get("error",
                                                                   ""),
             "%s %s" % (resp.status, doc))
    code, _, doc = http(srv.url + "api/jobs/1/events", token=tok["bob"])
    t.record("server: another student's job -> 404",
             code == 404 and "no job 1 of yours" in doc.get("error", ""),
             "%s %s" % (code, doc))
    rc, out, err = hu.run(RUN + ["test", "nosuch", "--remote"],
                          env=client_env(cfg))
    t.record("server: client, unknown lab -> exit 2, \"no lab called\"",
             rc == 2 and "no lab called nosuch" in err, err)
    with hu.Scratch() as s:
        s.write("saxpy_v1.cu", "x" * (300 << 10))
        rc, out, err = hu.run(RUN + ["test", "saxpy", "--remote", "--src",
                                     s.path], env=client_env(cfg))
        t.record("server: client, an oversized step file is not sent, "
                 "exit 2", rc == 2 and "at most 262144" in err, err)
    with hu.Scratch() as s:
        s.write("notes.txt", "hello")
        rc, out, err = hu.run(RUN + ["test", "saxpy", "--remote", "--src",
                                     s.path], env=client_env(cfg))
        t.record("server: client, no step file in --src -> exit 2",
                 rc == 2 and "none of the step files" in err, err)
    # server down: a port nobody listens on
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    dead = sock.getsockname()[1]
    sock.close()
    rc, out, err = hu.run(RUN + ["test", "saxpy", "--remote"],
                          env=client_env(cfg, {
                              "CUDALAB_REMOTE_URL": "http://127.0.0.1:%d/"
                              % dead, "CUDALAB_REMOTE_TOKEN": "x"}))
    t.record("server: server down -> a clear message, exit 4",
             rc == 4 and "cannot reach the workshop server" in err, err)
    rc, out, err = hu.run(RUN + ["test", "saxpy", "--remote"],
                          env={"XDG_CONFIG_HOME": os.path.join(base, "none")})
    t.record("server: --remote before login -> exit 2, says to log in",
             rc == 2 and "run.py login URL" in err, err)


def disconnect(t, srv, cfg):
    """A client that goes away mid-stream: the job finishes, the result is
    kept, and `--job ID` re-attaches."""
    tok = srv.tokens["bob"]
    code, _, doc = http(srv.url + "api/jobs", "POST",
                        {"lab": "saxpy", "files": saxpy_files()}, tok)
    job = doc.get("job")
    req = urllib.request.Request(srv.url + "api/jobs/%s/events" % job)
    req.add_header("Authorization", "Bearer " + tok)
    r = urllib.request.urlopen(req, timeout=20)
    first = r.readline()
    r.close()  # gone, mid-stream
    done = wait_done(srv, [job], 60)
    results = db_rows(srv.state, "SELECT verdict FROM results WHERE job=?",
                      (job,))
    t.record("server: a client that disconnects mid-stream: the job "
             "finishes and its results are kept",
             code == 202 and first and done and len(results) == 5,
             "%s %s %s %s" % (code, first, done, results))
    bob_cfg = cfg + "-bob"
    login(srv, bob_cfg, "bob")
    rc, out, err = hu.run(RUN + ["test", "--remote", "--job", str(job)],
                          env=client_env(bob_cfg), timeout=60)
    t.record("server: `test --remote --job ID` re-attaches and shows the "
             "whole run",
             rc == 0 and "PASS: 5 passed" in out, "rc=%d\n%s\n%s"
             % (rc, out[-600:], err))


def revoke_live(t, srv, cfg):
    rc, out, err = hu.run(RUN + ["serve", "--state", srv.state, "--revoke",
                                 "bob"])
    code, _, doc = http(srv.url + "api/me", token=srv.tokens["bob"])
    t.record("server: `serve --revoke ID` takes effect on the running "
             "server (403)", rc == 0 and code == 403, "%d %s %s" % (rc, code,
                                                                  doc))


def status_and_class(t, srv, cfg, base):
    start = time.time()
    code, _, doc = http(srv.url + "api/status")
    took = time.time() - start
    steps = doc.get("class", {}).get("steps", []) if code == 200 else []
    end = time.time() + 15
    while not steps and time.time() < end:
        time.sleep(0.5)
        code, _, doc = http(srv.url + "api/status")
        steps = doc.get("class", {}).get("steps", [])
    v1 = next((s for s in steps if s["step"] == "v1"), {})
    t.record("server: /api/status: GPUs, queue, and the class's progress "
             "per step (passed/tried, histogram of % of copy)",
             code == 200 and doc["gpus"][0]["gpu"] == "0"
             and v1.get("passed") == v1.get("submitted") >= 1
             and sum(v1.get("histogram", [])) >= 1 and took < 2.0,
             "%s %.3f s %s" % (code, took, json.dumps(doc)[:800]))
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        t.skip("server: status page in headless Chromium",
               "chromium is not installed (run.py setup --for-tests)")
    else:
        os.makedirs(ARTEFACTS, exist_ok=True)
        shot = os.path.join(ARTEFACTS, "status_page.png")
        if os.path.exists(shot):
            os.unlink(shot)
        common = [chromium, "--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-dev-shm-usage", "--virtual-time-budget=4000",
                  "--user-data-dir=" + os.path.join(base, "chromium")]
        rc, dom, err = hu.run(common + ["--dump-dom", srv.url], timeout=120)
        rc2, _, err2 = hu.run(common + ["--window-size=1280,800",
                                        "--screenshot=" + shot, srv.url],
                              timeout=120)
        t.record("server: the status page, rendered by headless Chromium, "
                 "shows the GPUs, the queue and the class per step "
                 "(screenshot: build/test-artifacts/status_page.png)",
                 "GPU 0" in dom and "saxpy v1 · naive" in dom
                 and "Queue (" in dom and "commit testcommit" in dom
                 and os.path.exists(shot) and os.path.getsize(shot) > 1000,
                 "rc=%d/%d\n%s\n%s" % (rc, rc2, dom[-1500:], err[-500:]))
    rc, out, err = hu.run(RUN + ["show", srv.url, "--size", "24x100"])
    t.record("server: `run.py show URL` draws the class view from the "
             "server's gradebook",
             rc == 0 and "saxpy" in out and "v1" in out and "alice" in out
             and "threshold" in out, "rc=%d\n%s\n%s" % (rc, out, err))
    out_dir = os.path.join(base, "export")
    rc, out, err = hu.run(RUN + ["serve", "--state", srv.state, "--export",
                                 out_dir])
    csv = open(os.path.join(out_dir, "gradebook.csv")).read() \
        if os.path.exists(os.path.join(out_dir, "gradebook.csv")) else ""
    t.record("server: --export writes the gradebook files `grade` writes",
             rc == 0 and all(os.path.exists(os.path.join(out_dir, f)) for f in
                             ("gradebook.json", "junit.xml", "summary.txt"))
             and '"alice","workshop server","pass"' in csv,
             "rc=%d %s\n%s" % (rc, err, csv[:500]))


def gradescope(t, srv, cfg, base):
    results = os.path.join(base, "gs", "results", "results.json")
    sub = os.path.join(base, "gs", "submission", "nested")
    os.makedirs(sub)
    for k in range(1, 6):
        with open(os.path.join(sub, "saxpy_v%d.cu" % k), "w") as f:
            f.write("// step %d\n" % k)
    with open(os.path.join(sub, "README.txt"), "w") as f:
        f.write("not sent\n")
    env = {"AUTOGRADER": os.path.join(base, "gs"), "CUDALAB_SOURCE": hu.ROOT,
           "RETRIES": "1",
           "RESULTS": results, "CUDALAB_LAB": "saxpy",
           "CUDALAB_REMOTE_URL": srv.url,
           "CUDALAB_REMOTE_TOKEN": srv.tokens["alice"]}
    time.sleep(0.1)
    rc, out, err = hu.run([os.path.join(hu.ROOT, "tools", "gradescope",
                                        "run_autograder")], env=env,
                          timeout=120)
    doc = json.load(open(results)) if os.path.exists(results) else {}
    t.record("server: tools/gradescope/run_autograder sends the submission "
             "and writes Gradescope's results.json (score per step)",
             rc == 0 and doc.get("score") == 5 and doc.get("max_score") == 5
             and len(doc.get("tests", [])) == 5,
             "rc=%d %s\n%s\n%s" % (rc, doc, out[-500:], err[-800:]))
    env["CUDALAB_REMOTE_URL"] = "http://127.0.0.1:1/"
    if os.path.exists(results):
        os.unlink(results)
    rc, out, err = hu.run([os.path.join(hu.ROOT, "tools", "gradescope",
                                        "run_autograder")], env=env)
    doc = json.load(open(results)) if os.path.exists(results) else {}
    t.record("server: run_autograder with the server down writes score 0 "
             "and says so", doc.get("score") == 0
             and "could not grade" in doc.get("output", ""), str(doc))


def dashboard(t, srv, cfg):
    if not shutil.which("tmux"):
        t.skip("server: the dashboard on a remote run", "no tmux")
        return
    import test_ui
    p = test_ui.Pane("%s test saxpy --remote; sleep 60" % " ".join(RUN),
                     cols=100, rows=30, env={"XDG_CONFIG_HOME": cfg})
    try:
        s = p.wait_for("PASS: 5 passed", timeout=60)
        t.record("server: `test saxpy --remote` in a terminal: the dashboard "
                 "draws the server's run (the server's own events "
                 "understood, none flagged)", "PASS: 5 passed" in s
                 and "v5" in s and "malformed" not in s, s)
    finally:
        p.close()
    # while a job waits, the dashboard's header says where it is in the queue
    waiting = os.path.join(os.path.dirname(cfg), "waiting.jsonl")
    with open(os.path.join(FIX, "pass.jsonl")) as f, open(waiting, "w") as g:
        g.write(f.readline())
        g.write('{"event": "queued", "job": 7, "ahead": 3, "eta_s": 40}\n')
    p = test_ui.Pane("(cat %s; sleep 30) | %s --replay -; sleep 30"
                     % (waiting, os.path.join(hu.ROOT, "build", "cudalab-ui")),
                     cols=100, rows=30)
    try:
        s = p.wait_for("queued on the server", timeout=15)
        t.record("server: the dashboard shows a waiting job's place in the "
                 "server's queue", "queued on the server: 3 ahead (about "
                 "40 s)" in s and "malformed" not in s, s)
    finally:
        p.close()


def real_grader(t, base):
    state = os.path.join(base, "state-real")
    os.makedirs(state)
    roster = os.path.join(base, "roster-real.csv")
    write_roster(roster, [("frank", "", "")])
    srv = Serve(state, roster, ["--min-interval", "0"],
                env={"CUDALAB_SERVER_GRADER": "", "CUDALAB_NO_DEVICE": "1"})
    srv.read_tokens()
    cfg = os.path.join(base, "cfg-frank")
    try:
        login(srv, cfg, "frank")
        # the reference, made its own: the build cache keeps the path a file
        # was first compiled from (in its PTX line table), and the server's
        # work folder is gone after the job; a shared cache entry would
        # point other tests' `explain` at it
        src = os.path.join(base, "frank-saxpy")
        os.makedirs(src)
        with open(os.path.join(hu.ROOT, "solutions", "saxpy",
                               "saxpy_v1.cu")) as f, \
                open(os.path.join(src, "saxpy_v1.cu"), "w") as g:
            g.write(f.read() + "// sent by tests/test_server.py\n")
        rc, out, err = hu.run(RUN + ["test", "saxpy", "--step", "1",
                                     "--remote", "--src", src],
                              env=client_env(cfg), timeout=300)
        t.record("server: with the real grader and no GPU, a remote step "
                 "ends NOT GRADED, exit 3, as a local run",
                 rc == 3 and "NOT GRADED: no CUDA device" in out,
                 "rc=%d\n%s\n%s\n%s" % (rc, out[-1000:], err, srv.errors()))
    finally:
        srv.stop()


SLURM_CONF = """ClusterName=cudalabtest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={d}/munge.sock
CredType=cred/munge
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
SlurmctldPort={p1}
SlurmdPort={p2}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=500 State=UNKNOWN
PartitionName=cudalab Nodes={host} Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
"""


def free_port():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return port


def slurm_path(t, base):
    """`serve --slurm`: each job an `srun` job step of a real single-node
    Slurm (munged, slurmctld and slurmd started here, private socket and
    ports, as root), the grader the stand-in; no GPU, so --slurm-args "".
    """
    need = ["munged", "slurmctld", "slurmd", "srun", "sinfo"]
    missing = [p for p in need if not shutil.which(p)]
    if missing or os.geteuid() != 0 or not os.path.exists(
            "/etc/munge/munge.key"):
        t.skip("server: --slurm on a single-node Slurm",
               "needs root, /etc/munge/munge.key and %s (apt-get install "
               "slurmctld slurmd slurm-client munge)" % ", ".join(missing or
                                                                   need))
        return
    d = os.path.join(base, "slurm")
    os.makedirs(os.path.join(d, "state"))
    os.makedirs(os.path.join(d, "spool"))
    host = socket.gethostname().split(".")[0]
    conf = os.path.join(d, "slurm.conf")
    with open(conf, "w") as f:
        f.write(SLURM_CONF.format(host=host, d=d, p1=free_port(),
                                  p2=free_port(), cpus=os.cpu_count() or 1))
    env = dict(os.environ, SLURM_CONF=conf)
    srv = None
    try:
        subprocess.run(["munged", "--force", "--socket=%s/munge.sock" % d,
                        "--key-file=/etc/munge/munge.key",
                        "--pid-file=%s/munged.pid" % d,
                        "--log-file=%s/munged.log" % d,
                        "--seed-file=%s/munge.seed" % d], timeout=30,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for daemon in ("slurmctld", "slurmd"):
            subprocess.run([daemon, "-f", conf], env=env, timeout=30,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        up = False
        end = time.time() + 30
        while time.time() < end and not up:
            out = subprocess.run(["sinfo", "-h", "-o", "%T"], env=env,
                                 stdout=subprocess.PIPE, text=True,
                                 stderr=subprocess.DEVNULL).stdout
            up = "idle" in out
            time.sleep(0.5)
        if not up:
            t.record("server: a single-node Slurm starts for the --slurm "
                     "test", False, open(os.path.join(d, "slurmctld.log"))
                     .read()[-1500:] if os.path.exists(os.path.join(
                         d, "slurmctld.log")) else "no slurmctld log")
            return
        log = os.path.join(d, "jobs.log")
        wrapper = os.path.join(d, "grader.sh")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\necho \"slurm-job=${SLURM_JOB_ID:-none} $*\" "
                    ">> %s\nexec %s \"$@\"\n" % (log, FAKE))
        os.chmod(wrapper, 0o755)
        state = os.path.join(base, "state-slurm")
        os.makedirs(state)
        roster = os.path.join(base, "roster-slurm.csv")
        write_roster(roster, [("gina", "", ""), ("hugo", "", "")])
        srv = Serve(state, roster, ["--min-interval", "0", "--slurm", "2",
                                    "--slurm-args="],
                    env={"SLURM_CONF": conf, "CUDALAB_SERVER_GRADER": wrapper})
        tok = srv.read_tokens()
        ids = []
        for who in ("gina", "hugo"):
            code, _, doc = http(srv.url + "api/jobs", "POST",
                                {"lab": "saxpy", "files": saxpy_files()},
                                tok[who])
            ids.append(doc.get("job"))
        done = wait_done(srv, ids, 90)
        ran = open(log).read().splitlines() if os.path.exists(log) else []
        results = db_rows(state, "SELECT COUNT(*) FROM results")[0][0]
        t.record("server: --slurm runs each job as a Slurm job (srun on a "
                 "real single-node Slurm) and keeps its results",
                 done and len(ran) == 2 and results == 10 and all(
                     not r.startswith("slurm-job=none") for r in ran),
                 "done=%s ran=%s results=%d\n%s" % (done, ran, results,
                                                    srv.errors()))
    finally:
        if srv:
            srv.stop()
        for name in ("slurmd.pid", "slurmctld.pid", "munged.pid"):
            try:
                os.kill(int(open(os.path.join(d, name)).read()),
                        signal.SIGTERM)
            except (OSError, ValueError):
                pass
        time.sleep(1)


def report_command(t):
    """`cudalab-grader report`: the text reporter over a saved or piped
    stream (what a remote run is printed with); its exit status is the
    recorded run's, 4 when the stream was cut before run_end."""
    for name, want in (("pass.jsonl", 0), ("wrong_result.jsonl", 1),
                       ("no_gpu.jsonl", 3), ("truncated.jsonl", 4)):
        with open(os.path.join(FIX, name)) as f:
            proc = subprocess.run([hu.GRADER, "report", "-", "--no-color"],
                                  stdin=f, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True,
                                  timeout=30)
        t.record("server: `cudalab-grader report -` on %s exits %d" % (name,
                                                                      want),
                 proc.returncode == want and (want == 4 or "step(s) in"
                                              in proc.stdout),
                 "rc=%d\n%s" % (proc.returncode, proc.stdout[-600:]))
    proc = subprocess.run([hu.GRADER, "classbook", os.path.join(
        hu.ROOT, "tests", "fixtures", "class", "gradebook.json")],
        stdout=subprocess.PIPE, text=True, timeout=30)
    doc = json.loads(proc.stdout or "{}")
    v1 = (doc.get("steps") or [{}])[0]
    t.record("server: `cudalab-grader classbook` gives the class view's "
             "data (passed/submitted, histogram, threshold) as JSON",
             proc.returncode == 0 and doc.get("students") == 9
             and v1.get("passed") == 5 and v1.get("submitted") == 8
             and sum(v1.get("histogram", [])) == v1.get("measured") == 6
             and v1.get("threshold") == 60.0, proc.stdout[:600])


def malformed_bodies(t):
    """Submit bodies of the wrong shape are refused (400), never a
    traceback in the handler (red team, 2026-11-23)."""
    script = os.path.join(hu.ROOT, "tests", "fixtures", "attacks", "intake",
                          "server_validate_bodies.py")
    proc = subprocess.run([sys.executable, script], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=60)
    t.record("server: malformed submissions (a list as the lab, '\u00b2' as a "
             "step, a lone surrogate in a file) are refused with 400",
             proc.returncode == 0 and proc.stdout.count("refused 400") == 3,
             proc.stdout)


def run(t):
    malformed_bodies(t)
    base = tempfile.mkdtemp(prefix="cudalab-server-")
    srv = None
    report_command(t)
    try:
        srv, cfg = roster_and_login(t, base)
        submit_and_stream(t, srv, cfg)
        bad_input(t, srv, cfg, base)
        disconnect(t, srv, cfg)
        status_and_class(t, srv, cfg, base)
        gradescope(t, srv, cfg, base)
        dashboard(t, srv, cfg)
        revoke_live(t, srv, cfg)
        srv.stop()
        srv = None
        exit_status_and_env(t, base)
        job_limit(t, base)
        fairness(t, base)
        floods(t, base)
        restart_after_kill(t, base)
        real_grader(t, base)
        slurm_path(t, base)
    finally:
        for s in STARTED:
            s.stop()
        del STARTED[:]
        shutil.rmtree(base, ignore_errors=True)
