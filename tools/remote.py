"""remote — the student's side of the workshop server (tools/server.py).

  run.py login URL             asks for the token, checks it with the server,
                               keeps {url, token} in CONFIG (mode 0600):
                               $XDG_CONFIG_HOME/cudalab/remote.json, else
                               ~/.config/cudalab/remote.json — never in the
                               tree. CUDALAB_REMOTE_URL / CUDALAB_REMOTE_TOKEN
                               override it (Gradescope, CI).
  run.py test LAB --remote     sends the lab's step files (the manifest's
  (or CUDALAB_REMOTE=1)        names only, each under the server's cap) from
                               --src or labs/LAB, prints "queued: N ahead
                               (about S s)", then the job's events through
                               the same reporter as a local run (the C
                               grader's `report -`, or the dashboard, or
                               --json); exit status as local: 0 pass,
                               1 fail, 3 not graded.
  run.py test LAB --remote --job ID   re-attach to a job (after a dropped
                               connection or Ctrl-C: the job goes on).

Exit status of the client's own troubles: 2 what was sent or the token is
wrong (the message says what to fix), 4 the server is down, busy (429, with
when to try again) or broke.
"""
import getpass
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server import FILE_LIMIT  # noqa: E402  (one cap: the server's)
import exits  # noqa: E402
import labs as labs_mod  # noqa: E402  (the grader's list of the labs)


class RemoteError(Exception):
    def __init__(self, message, code=exits.GRADER_ERROR):
        Exception.__init__(self, message)
        self.message, self.code = message, code


def config_path():
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(
        os.path.expanduser("~"), ".config")
    return os.path.join(base, "cudalab", "remote.json")


def load_config():
    url = os.environ.get("CUDALAB_REMOTE_URL")
    token = os.environ.get("CUDALAB_REMOTE_TOKEN")
    if url and token:
        return {"url": url, "token": token}
    try:
        with open(config_path()) as f:
            cfg = json.load(f)
    except (OSError, ValueError):
        raise RemoteError("not logged in to a workshop server: run `python3 "
                          "run.py login URL` with the URL and token the "
                          "organiser gave you", exits.USAGE)
    if url:
        cfg["url"] = url
    return cfg


def save_config(url, token):
    path = config_path()
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    fd = os.open(path + ".tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({"url": url, "token": token}, f)
    os.chmod(path + ".tmp", 0o600)
    os.rename(path + ".tmp", path)
    return path


def request(cfg, method, path, body=None, timeout=30, stream=False):
    """The HTTP response (a file-like object) or RemoteError."""
    url = cfg["url"].rstrip("/") + path
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    if cfg.get("token"):
        req.add_header("Authorization", "Bearer " + cfg["token"])
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        return urllib.request.urlopen(req, timeout=timeout)
    except urllib.error.HTTPError as e:
        try:
            doc = json.loads(e.read() or b"{}")
        except ValueError:
            doc = {}
        why = doc.get("error") or e.reason
        if e.code == 429:
            raise RemoteError("the server is busy for you: %s (retry after "
                              "%s s)" % (why, e.headers.get("Retry-After",
                                                            "?")),
                              exits.GRADER_ERROR)
        if e.code >= 500:
            raise RemoteError("the server failed (%d): %s" % (e.code, why),
                              exits.GRADER_ERROR)
        raise RemoteError("the server refused: %s" % why, exits.USAGE)
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise RemoteError("cannot reach the workshop server at %s (%s): is "
                          "it running? ask the organiser, or work locally "
                          "without --remote" % (cfg["url"], reason),
                          exits.GRADER_ERROR)


def login(url, token=None):
    if not url.startswith(("http://", "https://")):
        url = "http://" + url
    if token is None:
        if sys.stdin.isatty():
            token = getpass.getpass("token for %s: " % url)
        else:
            token = sys.stdin.readline()
    token = token.strip()
    if not token:
        raise RemoteError("no token given", exits.USAGE)
    with request({"url": url, "token": token}, "GET", "/api/me") as r:
        me = json.load(r)
    path = save_config(url, token)
    print("logged in to %s as %s (token kept in %s)" % (url, me["student"],
                                                        path))
    return exits.PASS


def step_files(grader, root, lab, src, step=None):
    """{name: text} of the lab's step files found in src (only the names the
    manifest lists; with step, only that step's file)."""
    labs = {x["name"]: x for x in labs_mod.listing(grader=grader,
                                                   root=root)}
    if lab not in labs:
        raise RemoteError("no lab called %s (labs: %s)"
                          % (lab, ", ".join(labs)), exits.USAGE)
    steps = labs[lab]["step_list"]
    if step is not None:
        pick = [s for k, s in enumerate(steps, 1)
                if step in (s["id"], str(k))]
        if not pick:
            raise RemoteError("lab %s has no step \"%s\"" % (lab, step),
                              exits.USAGE)
        steps = pick
    files = {}
    for s in steps:
        path = os.path.join(src, s["file"])
        if not os.path.exists(path):
            continue
        if os.path.getsize(path) > FILE_LIMIT:
            raise RemoteError("%s is %d bytes: a step file may have at most "
                              "%d" % (path, os.path.getsize(path),
                                      FILE_LIMIT), exits.USAGE)
        with open(path, errors="replace") as f:
            files[s["file"]] = f.read()
    if not files:
        raise RemoteError("none of the step files of %s is in %s"
                          % (lab, src), exits.USAGE)
    return files


def submit(cfg, lab, step, files):
    with request(cfg, "POST", "/api/jobs", {"lab": lab, "step": step,
                                            "files": files}) as r:
        return json.load(r)


def events(cfg, job, after=-1):
    """The job's event lines (text), live. RemoteError if the stream
    breaks before the job's end."""
    resp = request(cfg, "GET", "/api/jobs/%s/events?after=%d" % (job, after),
                   timeout=None, stream=True)
    ended = False
    try:
        for raw in resp:
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            try:
                ended |= json.loads(line).get("event") == "job_end"
            except (ValueError, AttributeError):
                pass
            yield line
    except (OSError, ValueError):
        pass
    finally:
        resp.close()
    if not ended:
        raise RemoteError("lost the connection to the server; job %s goes "
                          "on there: re-attach with `python3 run.py test "
                          "--remote --job %s`" % (job, job),
                          exits.GRADER_ERROR)


def describe_server(ev):
    lim = ev.get("limits", {})
    return ("server: GPU %s, commit %s, %s; job limit %s s, one submission "
            "every %s s" % (ev.get("gpu"), ev.get("commit"),
                            "sandboxed" if ev.get("sandbox")
                            else "NOT sandboxed", lim.get("job_limit_s"),
                            lim.get("min_interval_s")))


def run(cfg, job, render, note=sys.stderr):
    """Feed job's events to render(line) (the grader's lines only) and
    say the server's own ones on note. Returns the job's exit status."""
    rc, said = exits.GRADER_ERROR, None
    for line in events(cfg, job):
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        kind = ev.get("event")
        if kind == "queued":
            msg = "queued: %d ahead (about %d s)" % (ev["ahead"],
                                                     ev["eta_s"])
            if msg != said and note:
                print(msg, file=note, flush=True)
            said = msg
            continue
        if kind == "server" and note:
            print(describe_server(ev), file=note, flush=True)
        if kind == "job_end":
            rc = ev.get("exit", exits.GRADER_ERROR)
        elif kind == "error" and ev.get("step") == "server" and note:
            print("server: %s" % ev.get("message"), file=note, flush=True)
        render(line, ev)
    return rc


def test(args, root, grader):
    """`run.py test LAB --remote`: submit (or re-attach), then render."""
    cfg = load_config()
    job = getattr(args, "job", None)
    lab = args.lab
    if not job:
        if not lab:
            raise RemoteError("--remote needs a lab, e.g. `python3 run.py "
                              "test saxpy --remote`", exits.USAGE)
        src = args.src or os.path.join(root, "labs", lab)
        files = step_files(grader, root, lab, src, args.step)
        reply = submit(cfg, lab, args.step, files)
        job = reply["job"]
        print("job %s sent to %s: %s (%d file(s))"
              % (job, cfg["url"], lab, len(files)), file=sys.stderr)
        print("queued: %d ahead (about %d s)" % (reply["ahead"],
                                                 reply["eta_s"]),
              file=sys.stderr, flush=True)
    try:
        rc = render_job(args, cfg, job, grader)
    except KeyboardInterrupt:
        print("\ndetached; job %s goes on on the server: re-attach with "
              "`python3 run.py test --remote --job %s`" % (job, job),
              file=sys.stderr)
        return 130
    if getattr(args, "gradescope", None):
        with request(cfg, "GET", "/api/jobs/%s/gradescope" % job) as r:
            doc = json.load(r)
        with open(args.gradescope, "w") as f:
            json.dump(doc, f, indent=1)
        print("wrote %s" % args.gradescope, file=sys.stderr)
    return rc


def render_job(args, cfg, job, grader):
    if args.json:
        def render(line, ev):
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
        rc = run(cfg, job, render)
    else:
        # the text reporter of a local run, fed the grader's events
        cmd = [grader, "report", "-"]
        if args.verbose:
            cmd.append("--verbose")
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, text=True)

        def render(line, ev):
            if ev.get("event") not in ("server", "queued", "job_end"):
                proc.stdin.write(line + "\n")
                proc.stdin.flush()
        try:
            rc = run(cfg, job, render)
        finally:
            proc.stdin.close()
            proc.wait()
    return rc


def stream_for_dashboard(argv, root, grader):
    """The dashboard's --grader: called as `PROG --root R test LAB [--step K]
    [--src D] ... --json`; submits and prints the job's events."""
    import argparse
    p = argparse.ArgumentParser(prog="remote-grader")
    p.add_argument("--root")
    p.add_argument("command")
    p.add_argument("lab")
    p.add_argument("--step")
    p.add_argument("--src")
    p.add_argument("--json", action="store_true")
    a, _ = p.parse_known_args(argv)
    a.json, a.verbose, a.job = True, False, os.environ.get("CUDALAB_JOB")
    try:
        return test(a, root, grader)
    except RemoteError as e:
        print("cudalab: %s" % e.message, file=sys.stderr)
        return e.code


def show_class(url, ui, size, dashboard):
    """`run.py show URL`: the server's gradebook in the class view."""
    import tempfile
    cfg = {"url": url if url.startswith(("http://", "https://"))
           else "http://" + url}
    with request(cfg, "GET", "/api/gradebook") as r:
        doc = json.load(r)
    tmp = tempfile.mkdtemp(prefix="cudalab-class-")
    path = os.path.join(tmp, "gradebook.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    cmd = [ui, "--gradebook", path]
    if not dashboard:
        cmd += ["--dump", size.replace("X", "x")]
    try:
        return subprocess.call(cmd)
    finally:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
