"""server — `run.py serve`: the workshop's GPU server (HTTP, stdlib only).

Students hold tokens (tools/store.py keeps only their sha256); a submission
is a lab, an optional step and the lab's step files (the names the C
grader's manifest lists, nothing else, each under FILE_LIMIT bytes). A job
runs the C grader exactly as `grade` does one student's lab:

    cudalab-grader --root ROOT test LAB --src WORK/JOB --json --no-save
                   --no-color --sandbox [--step K]

pinned to one GPU (CUDA_VISIBLE_DEVICES) by one worker thread per GPU, or
(--slurm N: N worker threads) under `srun --gres=gpu:1` (--slurm-args),
where Slurm picks the node and sets CUDA_VISIBLE_DEVICES, with a
wall-clock limit per job; its
JSON-lines events are stored as they come and streamed to the client.

HTTP (JSON unless said otherwise; student routes take
`Authorization: Bearer TOKEN`):
  GET  /                      the status page (HTML, polls /api/status)
  GET  /api/status            queue, GPUs, limits, the class view's data
  GET  /api/gradebook         the class's gradebook.json (the C writer's);
                              to 127.0.0.1 only unless --public-gradebook
  GET  /api/me                who the token belongs to
  POST /api/jobs              {"lab", "step"?, "files": {name: text}}
                              -> 202 {"job", "ahead", "eta_s"}
  GET  /api/jobs/ID/events?after=SEQ   the job's events as JSON lines,
                              live until it ends: first a "server" event
                              (GPU, commit, limits), "queued" events while
                              it waits, the grader's events, last
                              {"event": "job_end", "exit": STATUS}
  GET  /api/jobs/ID/gradescope  Gradescope results.json of a finished job

Refusals: 401 unknown token, 403 revoked, 400 bad request (unknown lab or
step, a file that is not a step file), 413 too large, 404 no such job,
429 with Retry-After (rate limit, quota, too many jobs waiting).

The stream a client drops does not touch the job: it runs to the end and
its result is kept; GET .../events again re-attaches.
"""
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import threading
import time
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs as labs_mod  # noqa: E402
import store as store_mod  # noqa: E402

FILE_LIMIT = 256 << 10      # one step file
BODY_LIMIT = 4 << 20        # a whole submission (JSON)
ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")


class Limits:
    def __init__(self, job_limit=900.0, step_limit=None, min_interval=5.0,
                 max_waiting=2, per_hour=60):
        self.job_limit = job_limit        # seconds one job may run
        self.step_limit = step_limit      # --time-limit of each step run
        self.min_interval = min_interval  # seconds between two submissions
        self.max_waiting = max_waiting    # queued + running jobs per student
        self.per_hour = per_hour          # submissions per student per hour

    def as_json(self):
        return {"job_limit_s": self.job_limit, "step_limit_s": self.step_limit,
                "min_interval_s": self.min_interval,
                "max_waiting": self.max_waiting, "per_hour": self.per_hour,
                "file_limit_bytes": FILE_LIMIT}


def load_roster(path):
    """[(id, name, revoked)] from a CSV with a header: id[,name][,revoked]
    (revoked: yes/1/true). Raises ValueError naming the bad line."""
    import csv
    out = []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for n, row in enumerate(rows, start=2):
        row = {(k or "").strip().lower(): (v or "").strip()
               for k, v in row.items()}
        sid = row.get("id") or row.get("student") or ""
        if not ID_RE.match(sid):
            raise ValueError("%s line %d: the id \"%s\" must be letters, "
                             "digits, . _ - (at most 64)" % (path, n, sid))
        out.append((sid, row.get("name", ""),
                    row.get("revoked", "").lower() in ("1", "yes", "true",
                                                       "y", "x")))
    return out


def apply_roster(st, path, out=sys.stdout):
    """New students get a token, printed once; the revoked column is
    applied to everyone. Returns the number of new tokens."""
    new = 0
    for sid, name, revoked in load_roster(path):
        token = st.add_student(sid, name)
        if token:
            new += 1
            print("%-20s %s" % (sid, token), file=out)
        st.set_revoked(sid, revoked)
    return new


class Server:
    """The queue's workers, the exporter and the shared state."""

    def __init__(self, root, state_dir, grader, gpus, limits, slurm=False,
                 sandbox=True, commit="unknown", slurm_args="--gres=gpu:1",
                 real_grader=None):
        self.root, self.state_dir, self.grader = root, state_dir, grader
        # the C grader itself (lab listing, classbook), where run.py found
        # it (tools/programs.py: build/ or the per-user build folder);
        # `grader` may be a stand-in (CUDALAB_SERVER_GRADER, the tests)
        self.c_grader = real_grader or grader
        self.slurm_args = slurm_args
        self.public_gradebook = False
        self.gpus, self.limits, self.slurm = gpus, limits, slurm
        self.sandbox, self.commit = sandbox, commit
        self.store = store_mod.open_store(state_dir)
        self.changed = threading.Condition()
        self.stop = threading.Event()
        self.started = time.time()
        self.labs = self._labs()
        self.class_json = {"students": 0, "steps": []}
        self.class_gen = None
        self.export_wanted = threading.Event()
        self.threads = []

    def _labs(self):
        """{lab: [{"id", "title", "file"}]} from the C grader (which owns
        lab.json)."""
        labs = labs_mod.listing(quiet=True, grader=self.real_grader(),
                                root=self.root)
        return {lab["name"]: [{"id": s["id"], "title": s["title"],
                               "file": s["file"]} for s in lab["step_list"]]
                for lab in labs}

    def real_grader(self):
        return self.c_grader

    # --- the queue ----------------------------------------------------------
    def start(self):
        requeued = self.store.requeue_running()
        if requeued:
            print("serve: %d job(s) cut short by the last stop are queued "
                  "again: %s" % (len(requeued), ", ".join(map(str, requeued))),
                  file=sys.stderr)
        for gpu in self.gpus:
            t = threading.Thread(target=self.worker, args=(gpu,), daemon=True)
            t.start()
            self.threads.append(t)
        t = threading.Thread(target=self.exporter, daemon=True)
        t.start()
        self.export_wanted.set()

    def notify(self):
        with self.changed:
            self.changed.notify_all()

    def worker(self, gpu):
        while not self.stop.is_set():
            job = self.store.claim_next(gpu)
            if not job:
                with self.changed:
                    self.changed.wait(1.0)
                continue
            self.notify()
            try:
                self.run_job(job, gpu)
            except Exception:  # a bug here must not kill the worker
                traceback.print_exc()
                self.store.add_event(job["id"], 10 ** 6, json.dumps(
                    {"event": "job_end", "job": job["id"], "exit": 4}))
                self.store.finish(job["id"], job["student"], job["lab"], 4, [])
            self.export_wanted.set()
            self.notify()

    def server_event(self, job, gpu):
        return {"event": "server", "job": job["id"], "commit": self.commit,
                "gpu": "slurm" if self.slurm else gpu,
                "sandbox": self.sandbox, "limits": self.limits.as_json()}

    def run_job(self, job, gpu):
        jid = job["id"]
        work = os.path.join(self.state_dir, "work", str(jid))
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        for name, text in json.loads(job["files"]).items():
            with open(os.path.join(work, name), "w") as f:
                f.write(text)
        cmd = [self.grader, "--root", self.root, "test", job["lab"], "--src",
               work, "--json", "--no-save", "--no-color"]
        if self.sandbox:
            cmd.append("--sandbox")
        if job["step"]:
            cmd += ["--step", job["step"]]
        if self.limits.step_limit:
            cmd += ["--time-limit", str(self.limits.step_limit)]
        env = dict(os.environ, CUDALAB_COMMIT=self.commit)
        if self.slurm:
            cmd = ["srun", "--quiet", "--ntasks=1",
                   "--job-name=cudalab-%d" % jid,
                   "--time=%d" % max(1, int(self.limits.job_limit // 60 + 1))
                   ] + shlex.split(self.slurm_args) + cmd
        elif gpu != "any":
            env["CUDA_VISIBLE_DEVICES"] = gpu
        seq = 0
        self.store.add_event(jid, seq, json.dumps(self.server_event(job, gpu)))
        self.notify()
        err_path = os.path.join(work, "grader.stderr")
        with open(err_path, "w") as err_f:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                    stderr=err_f, stdin=subprocess.DEVNULL,
                                    env=env, text=True, cwd=work,
                                    start_new_session=True)
        timed_out = []

        def kill():
            timed_out.append(True)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                pass
        timer = threading.Timer(self.limits.job_limit, kill)
        timer.start()
        step_ends, saw_end = [], False
        try:
            for line in proc.stdout:
                line = line.strip()
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue
                if not isinstance(ev, dict) or "event" not in ev:
                    continue
                if ev["event"] in ("server", "queued", "job_end"):
                    continue  # names the server's own events: not the grader's
                if ev["event"] == "step_end":
                    step_ends.append(ev)
                saw_end |= ev["event"] == "run_end"
                seq += 1
                self.store.add_event(jid, seq, json.dumps(ev))
                self.notify()
            rc = proc.wait()
        finally:
            timer.cancel()
        if timed_out:
            rc = 4
            seq += 1
            self.store.add_event(jid, seq, json.dumps(
                {"event": "error", "step": "server", "message":
                 "the job ran past the server's limit of %.0f s and was "
                 "stopped" % self.limits.job_limit}))
        elif rc not in (0, 1, 3) or not saw_end:
            with open(err_path, errors="replace") as f:
                tail = f.read()[-600:].strip()
            seq += 1
            self.store.add_event(jid, seq, json.dumps(
                {"event": "error", "step": "server", "message":
                 "the grader ended with status %d without finishing the "
                 "run: %s" % (rc, tail or "(no message)")}))
            rc = rc if rc in (2, 4) else 4
        seq += 1
        self.store.add_event(jid, seq, json.dumps(
            {"event": "job_end", "job": jid, "exit": rc}))
        self.store.finish(jid, job["student"], job["lab"], rc, step_ends)
        shutil.rmtree(work, ignore_errors=True)

    # --- the class's gradebook ------------------------------------------------
    def exporter(self):
        while not self.stop.is_set():
            if not self.export_wanted.wait(1.0):
                continue
            self.export_wanted.clear()
            try:
                gen = self.store.generation()
                if gen != self.class_gen:
                    out = os.path.join(self.state_dir, "export")
                    export(self.store, self.labs, self.real_grader(),
                           self.root, out)
                    proc = subprocess.run([self.real_grader(), "classbook",
                                           out], stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, text=True)
                    if proc.returncode == 0:
                        self.class_json = json.loads(proc.stdout)
                    self.class_gen = gen
            except Exception:
                traceback.print_exc()
            time.sleep(0.5)

    def status(self):
        now = time.time()
        mean = self.store.mean_job_seconds()
        running = self.store.running()
        busy = {r["gpu"]: r for r in running}
        return {
            "server": {"commit": self.commit, "up_s": round(now - self.started),
                       "slurm": self.slurm, "sandbox": self.sandbox,
                       "limits": self.limits.as_json(),
                       "mean_job_s": round(mean, 1)},
            "gpus": [{"gpu": g, "job": busy[g]["id"] if g in busy else None,
                      "student": busy[g]["student"] if g in busy else None,
                      "lab": busy[g]["lab"] if g in busy else None,
                      "running_s": round(now - busy[g]["started"])
                      if g in busy else None} for g in self.gpus],
            "running": [{"job": r["id"], "student": r["student"],
                         "lab": r["lab"], "step": r["step"], "gpu": r["gpu"],
                         "running_s": round(now - r["started"])}
                        for r in running],
            "queue": [{"job": q["id"], "student": q["student"],
                       "lab": q["lab"], "step": q["step"],
                       "waiting_s": round(now - q["submitted"])}
                      for q in self.store.queued()],
            "class": self.class_json,
        }

    def ahead(self, jid):
        """Jobs that run before a queued one: the fair queue's estimate plus
        those running now; 0 once it runs."""
        with self.store.lock:  # one snapshot: no worker claims meanwhile
            job = self.store.job(jid)
            if not job or job["state"] != "queued":
                return 0
            return self.store.queue_ahead(jid) + len(self.store.running())

    def eta(self, ahead):
        per = self.store.mean_job_seconds()
        return round((ahead + 1) * per / max(1, len(self.gpus)))

    # --- admission ----------------------------------------------------------
    def admit(self, student):
        """None, or (retry-after seconds, why) when the student must wait."""
        now, lim = time.time(), self.limits
        waiting = self.store.count_jobs(student, 0, ("queued", "running"))
        if waiting >= lim.max_waiting:
            return (max(1, int(self.store.mean_job_seconds())),
                    "you have %d job(s) waiting or running (at most %d): "
                    "wait for one to finish" % (waiting, lim.max_waiting))
        since = now - self.store.last_submit(student)
        if since < lim.min_interval:
            return (max(1, int(lim.min_interval - since + 0.999)),
                    "one submission every %.0f s" % lim.min_interval)
        hour = self.store.count_jobs(student, now - 3600)
        if hour >= lim.per_hour:
            first = self.store.first_submit_since(student, now - 3600)
            return (max(1, int(first + 3600 - now + 1)),
                    "the quota is %d submissions an hour" % lim.per_hour)
        return None

    def validate(self, body):
        """(lab, step, files) or raises Refusal: a body of the wrong shape
        (a list as the lab, "²" as a step, a lone surrogate in a file) is
        refused, never a traceback (found by the red team)."""
        try:
            return _check_submission(self, body)
        except Refusal:
            raise
        except (TypeError, ValueError, UnicodeError) as e:
            raise Refusal(400, "the submission is malformed (%s)"
                          % type(e).__name__)

def _check_submission(self, body):
    """Server.validate's checks (self: the server)."""
    if not isinstance(body, dict):
        raise Refusal(400, "the request must be a JSON object")
    lab = body.get("lab")
    if lab not in self.labs:
        raise Refusal(400, "no lab called %s on this server (labs: %s)"
                      % (lab, ", ".join(self.labs)))
    steps = self.labs[lab]
    step = body.get("step")
    if step is not None:
        step = str(step)
        ids = [s["id"] for s in steps]
        if step not in ids and not (step.isdigit() and
                                    1 <= int(step) <= len(ids)):
            raise Refusal(400, "lab %s has no step \"%s\" (steps: %s)"
                          % (lab, step, ", ".join(ids)))
    files = body.get("files")
    if not isinstance(files, dict) or not files:
        raise Refusal(400, "no step files sent")
    allowed = {s["file"] for s in steps}
    for name, text in files.items():
        if name not in allowed:
            raise Refusal(400, "%s is not a step file of %s (its step "
                          "files: %s); only those are sent"
                          % (name, lab, ", ".join(sorted(allowed))))
        if not isinstance(text, str):
            raise Refusal(400, "%s: the file must be text" % name)
        if len(text.encode()) > FILE_LIMIT:
            raise Refusal(413, "%s is %d bytes; a step file may have at "
                          "most %d" % (name, len(text.encode()),
                                       FILE_LIMIT))
    return lab, step, files


class Refusal(Exception):
    def __init__(self, code, message, retry_after=None):
        Exception.__init__(self, message)
        self.code, self.message, self.retry_after = code, message, retry_after


def export(st, labs, grader, root, out):
    """Lay the server's results out as `grade` does (OUT/intake.json and
    OUT/results/STUDENT/LAB.jsonl: every finished job's events in the order
    they finished, so a step's latest verdict counts) and write the
    gradebook with the C writer (`cudalab-grader gradebook OUT`). Only labs
    somebody submitted to. Returns the writer's exit status."""
    done = st.done_jobs()
    tried = {}  # student -> lab -> set of step ids with a result
    per = {}    # (student, lab) -> [job ids]
    for j in done:
        per.setdefault((j["student"], j["lab"]), []).append(j["id"])
    results = st._all("SELECT student, lab, step FROM results")
    for r in results:
        tried.setdefault(r["student"], {}).setdefault(r["lab"], set()).add(
            r["step"])
    used = sorted({lab for _, lab in per if lab in labs},
                  key=list(labs).index)
    tmp = out + ".tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(tmp, "results"))
    students = []
    for sid in sorted({s for s, _ in per}):
        row = {"student": sid, "source": "workshop server", "notes": [],
               "labs": {}}
        for lab in used:
            if (sid, lab) not in per:
                continue
            have = tried.get(sid, {}).get(lab, set())
            row["labs"][lab] = {
                "files": [s["file"] for s in labs[lab] if s["id"] in have],
                "missing": [s["file"] for s in labs[lab]
                            if s["id"] not in have]}
            d = os.path.join(tmp, "results", sid)
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, lab + ".jsonl"), "w") as f:
                for jid in per[(sid, lab)]:
                    for e in st.events(jid):
                        f.write(e["line"] + "\n")
        students.append(row)
    intake = {"labs": {lab: [s["file"] for s in labs[lab]] for lab in used},
              "steps": {lab: labs[lab] for lab in used},
              "students": students}
    with open(os.path.join(tmp, "intake.json"), "w") as f:
        json.dump(intake, f, indent=1)
    rc = subprocess.call([grader, "--root", root, "gradebook", tmp],
                         stdout=subprocess.DEVNULL)
    old = out + ".old"
    shutil.rmtree(old, ignore_errors=True)
    if os.path.exists(out):
        os.rename(out, old)
    os.rename(tmp, out)
    shutil.rmtree(old, ignore_errors=True)
    return rc


def make_handler(srv):
    page = STATUS_PAGE

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"
        server_version = "cudalab-serve"

        def log_message(self, fmt, *args):
            if os.environ.get("CUDALAB_SERVE_LOG"):
                BaseHTTPRequestHandler.log_message(self, fmt, *args)

        def send_json(self, code, doc, headers=()):
            body = (json.dumps(doc) + "\n").encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            for k, v in headers:
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def refuse(self, r):
            headers = [("Retry-After", str(r.retry_after))] \
                if r.retry_after is not None else []
            doc = {"error": r.message}
            if r.retry_after is not None:
                doc["retry_after"] = r.retry_after
            self.send_json(r.code, doc, headers)

        def student(self):
            auth = self.headers.get("Authorization", "")
            token = auth[7:].strip() if auth.startswith("Bearer ") else ""
            if not token:
                raise Refusal(401, "no token: run `python3 run.py login URL` "
                                   "with the token the organiser gave you")
            row, why = srv.store.student_for_token(token)
            if why == "revoked":
                raise Refusal(403, "this token was revoked: ask the organiser")
            if not row:
                raise Refusal(401, "this token is not known to the server: "
                                   "check it, and run `python3 run.py login "
                                   "URL` again")
            return row

        def own_job(self, jid):
            me = self.student()
            job = srv.store.job(jid) if jid.isdigit() else None
            if not job or job["student"] != me["id"]:
                raise Refusal(404, "no job %s of yours on this server" % jid)
            return job

        def do_GET(self):
            try:
                self.route_get()
            except Refusal as r:
                self.refuse(r)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_POST(self):
            try:
                self.route_post()
            except Refusal as r:
                self.refuse(r)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def route_get(self):
            url = urlparse(self.path)
            parts = [p for p in url.path.split("/") if p]
            if url.path == "/":
                body = page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif url.path == "/api/status":
                self.send_json(200, srv.status())
            elif url.path == "/api/gradebook":
                # every student's verdicts: the organiser's, not the room's
                if not srv.public_gradebook and \
                        self.client_address[0] not in ("127.0.0.1", "::1"):
                    raise Refusal(403, "the gradebook is served to this "
                                       "machine only (serve "
                                       "--public-gradebook to change that)")
                path = os.path.join(srv.state_dir, "export", "gradebook.json")
                try:
                    with open(path) as f:
                        doc = json.load(f)
                except (OSError, ValueError):
                    doc = {"labs": {}, "students": []}
                self.send_json(200, doc)
            elif url.path == "/api/me":
                me = self.student()
                self.send_json(200, {"student": me["id"], "name": me["name"],
                                     "labs": list(srv.labs),
                                     "limits": srv.limits.as_json()})
            elif len(parts) == 4 and parts[:2] == ["api", "jobs"] \
                    and parts[3] == "events":
                job = self.own_job(parts[2])
                after = parse_qs(url.query).get("after", ["-1"])[0]
                self.stream(job["id"], int(after) if after.lstrip("-")
                            .isdigit() else -1)
            elif len(parts) == 4 and parts[:2] == ["api", "jobs"] \
                    and parts[3] == "gradescope":
                job = self.own_job(parts[2])
                self.send_json(200, gradescope_results(srv, job))
            else:
                raise Refusal(404, "no such page: %s" % url.path)

        def route_post(self):
            if urlparse(self.path).path != "/api/jobs":
                raise Refusal(404, "no such endpoint")
            me = self.student()
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                raise Refusal(411, "the request needs a Content-Length")
            if length > BODY_LIMIT:
                raise Refusal(413, "the submission is %d bytes; at most %d"
                              % (length, BODY_LIMIT))
            try:
                body = json.loads(self.rfile.read(length) or b"null")
            except ValueError:
                raise Refusal(400, "the request is not JSON")
            lab, step, files = srv.validate(body)
            with srv.store.lock:  # parallel requests of one student
                wait = srv.admit(me["id"])
                if wait:
                    raise Refusal(429, "too many submissions: %s; try again "
                                  "in %d s" % (wait[1], wait[0]), wait[0])
                jid = srv.store.submit(me["id"], lab, step, files)
            srv.notify()
            ahead = srv.ahead(jid)
            self.send_json(202, {"job": jid, "ahead": ahead,
                                 "eta_s": srv.eta(ahead),
                                 "events": "/api/jobs/%d/events" % jid})

        def stream(self, jid, after):
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            last_queued, last_sent = None, 0.0
            while not srv.stop.is_set():
                job = srv.store.job(jid)
                rows = srv.store.events(jid, after)
                for r in rows:
                    self.wfile.write((r["line"] + "\n").encode())
                    after = r["seq"]
                if rows:
                    self.wfile.flush()
                if job["state"] == "done" and not rows:
                    return
                if job["state"] == "queued":
                    ahead = srv.ahead(jid)
                    now = time.time()
                    if ahead != last_queued or now - last_sent > 10:
                        self.wfile.write((json.dumps(
                            {"event": "queued", "job": jid, "ahead": ahead,
                             "eta_s": srv.eta(ahead)}) + "\n").encode())
                        self.wfile.flush()
                        last_queued, last_sent = ahead, now
                with srv.changed:
                    srv.changed.wait(1.0)

    return Handler


def gradescope_results(srv, job):
    """The Gradescope results.json of one finished job, from the C writer."""
    if job["state"] != "done":
        raise Refusal(409, "job %d has not finished" % job["id"])
    out = os.path.join(srv.state_dir, "gradescope-%d" % job["id"])

    class OneJob:
        """The store, seen as holding only this job."""
        def done_jobs(self):
            return [j for j in srv.store.done_jobs() if j["id"] == job["id"]]

        def _all(self, sql, args=()):
            return [r for r in srv.store._all(
                "SELECT student, lab, step FROM results WHERE job=?",
                (job["id"],))]

        def events(self, jid):
            return srv.store.events(jid)
    export(OneJob(), srv.labs, srv.real_grader(), srv.root, out)
    path = os.path.join(out, "gradescope", job["student"], "results.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        doc = {"score": 0, "output": "the server could not write the "
                                     "results of job %d" % job["id"]}
    shutil.rmtree(out, ignore_errors=True)
    return doc


def default_gpus():
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env:
        return [g for g in env.split(",") if g]
    nodes = sorted(int(n[6:]) for n in os.listdir("/dev")
                   if re.match(r"^nvidia\d+$", n))
    return [str(n) for n in nodes] or ["any"]


def serve(args, root, commit, real_grader):
    """`run.py serve`. Returns an exit code."""
    state_dir = os.path.abspath(args.state or os.path.join(
        root, ".cudalab-server"))
    st = store_mod.open_store(state_dir)
    if args.revoke:
        ok = st.set_revoked(args.revoke, True)
        print("serve: %s" % ("revoked %s" % args.revoke if ok else
                             "no student %s in %s" % (args.revoke, state_dir)),
              file=sys.stderr)
        return 0 if ok else 2
    if args.roster:
        try:
            new = apply_roster(st, args.roster)
            sys.stdout.flush()
        except (OSError, ValueError) as e:
            print("serve: cannot use the roster: %s" % e, file=sys.stderr)
            return 2
        print("serve: %d new token(s) above — hand each student theirs now: "
              "they are not stored and not shown again" % new,
              file=sys.stderr)
    st.close()
    grader = os.environ.get("CUDALAB_SERVER_GRADER") or real_grader
    gpus = [g.strip() for g in args.gpus.split(",") if g.strip()] \
        if args.gpus else default_gpus()
    if args.slurm:
        gpus = ["slurm-%d" % k for k in range(args.slurm)]
    limits = Limits(job_limit=args.job_limit, step_limit=args.time_limit,
                    min_interval=args.min_interval,
                    max_waiting=args.max_waiting, per_hour=args.per_hour)
    srv = Server(root, state_dir, grader, gpus, limits, slurm=bool(args.slurm),
                 sandbox=not args.unsandboxed, commit=commit,
                 slurm_args=args.slurm_args, real_grader=real_grader)
    srv.public_gradebook = args.public_gradebook
    if args.export:
        rc = export(srv.store, srv.labs, srv.real_grader(), root,
                    os.path.abspath(args.export))
        print("serve: wrote the gradebook to %s" % args.export,
              file=sys.stderr)
        return 4 if rc else 0
    if not srv.store.students():
        print("serve: no students yet: start once with --roster "
              "students.csv (a CSV with a header id,name)", file=sys.stderr)
    class HTTPServer(ThreadingHTTPServer):
        request_queue_size = 256  # a room submitting at once: no refusals
        daemon_threads = True
    try:
        httpd = HTTPServer((args.host, args.port), make_handler(srv))
    except OSError as e:
        print("serve: cannot listen on %s:%d: %s" % (args.host, args.port, e),
              file=sys.stderr)
        return 4
    srv.start()
    host, port = httpd.server_address[:2]
    print("serve: listening on http://%s:%d/ (GPUs: %s; state: %s)"
          % (host, port, ", ".join(gpus), state_dir), file=sys.stderr)
    print("serve: students run `python3 run.py login http://%s:%d/` and "
          "`python3 run.py test LAB --remote`" % (host, port),
          file=sys.stderr)
    sys.stderr.flush()
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write("%d\n" % port)
        os.rename(args.port_file + ".tmp", args.port_file)
    signal.signal(signal.SIGTERM, lambda *a: (_ for _ in ()).throw(
        KeyboardInterrupt()))
    try:
        httpd.serve_forever(poll_interval=0.25)
    except KeyboardInterrupt:
        pass
    srv.stop.set()
    srv.notify()
    print("serve: stopped; queued jobs stay queued for the next start",
          file=sys.stderr)
    return 0


def add_arguments(p):
    p.add_argument("--port", type=int, default=8080,
                   help="TCP port (default 8080; 0: any free port)")
    p.add_argument("--host", default="0.0.0.0",
                   help="address to listen on (default: every interface)")
    p.add_argument("--roster", help="students.csv (header id,name[,revoked])"
                                    ": new students get a token, printed once")
    p.add_argument("--revoke", metavar="ID",
                   help="revoke a student's token, then exit")
    p.add_argument("--state",
                   help="the server's state folder (SQLite, work files, "
                        "export; default .cudalab-server in the checkout)")
    p.add_argument("--gpus", help="GPUs to use, e.g. 0,1 (default: "
                                  "CUDA_VISIBLE_DEVICES, else all)")
    p.add_argument("--slurm", type=int, metavar="N", nargs="?", const=4,
                   help="run each job as a Slurm job (srun --gres=gpu:1), "
                        "at most N at once (default 4)")
    p.add_argument("--slurm-args", dest="slurm_args", default="--gres=gpu:1",
                   help="srun options of each job (default --gres=gpu:1; "
                        "e.g. \"--gres=gpu:1 --partition=gpu\")")
    p.add_argument("--job-limit", dest="job_limit", type=float, default=900,
                   help="seconds one job may run (default 900)")
    p.add_argument("--time-limit", dest="time_limit", type=float,
                   help="seconds each step run may take (default: the lab's)")
    p.add_argument("--min-interval", dest="min_interval", type=float,
                   default=5, help="seconds between two submissions of a "
                                   "student (default 5)")
    p.add_argument("--max-waiting", dest="max_waiting", type=int, default=2,
                   help="jobs a student may have queued or running "
                        "(default 2)")
    p.add_argument("--per-hour", dest="per_hour", type=int, default=60,
                   help="submissions a student may make an hour "
                        "(default 60)")
    p.add_argument("--unsandboxed", action="store_true",
                   help="run the grader without --sandbox (a trusted room "
                        "only; every stream says so)")
    p.add_argument("--public-gradebook", dest="public_gradebook",
                   action="store_true",
                   help="serve /api/gradebook (every student's verdicts, "
                        "for `run.py show URL`) to any address, not only "
                        "to this machine")
    p.add_argument("--export", metavar="OUT",
                   help="write the class's gradebook (the files `grade` "
                        "writes) to OUT, then exit")
    p.add_argument("--port-file", dest="port_file", help=argparse_hidden())


def argparse_hidden():
    import argparse
    return argparse.SUPPRESS


STATUS_PAGE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "status_page.html")
with open(STATUS_PAGE_PATH) as _f:
    STATUS_PAGE = _f.read()
