"""store — the workshop server's state: one SQLite file, its schema here.

Tables (the whole schema is SCHEMA below, and nothing else creates one):
  students  id (the roster's), name, token_hash (sha256 hex of the token
            handed out; the token itself is never stored), revoked
  jobs      one submission: student, lab, step (NULL: every step), the step
            files (JSON {name: text}), state queued -> running -> done,
            the GPU it ran on, the grader's exit status, timestamps
  events    the job's event stream, one JSON line per row, in order (seq);
            what a client streams live and what a client re-attaching reads
  results   one row per (job, step) from the step_end events: the verdict
            and the % of copy; written with the job's `done` state in ONE
            transaction, so a result is either fully there or not at all

Guarantees (what a restart, even kill -9, keeps):
  * a job is inserted `queued` in one committed transaction before the
    client hears its id: a queued job is never lost;
  * at startup, jobs left `running` (the server died under them) go back to
    `queued` and their partial events are dropped: each job ends `done`
    exactly once, so none is graded twice to the record;
  * results land with `done` in one transaction.

Fairness (next_job): among students with a queued job and no running one
(one job per student at a time), the one served least recently (the
oldest start of any of their jobs; never served first), then their oldest
job. With every student busy this is round robin.

Every method opens its own short transaction; the object is shared by the
server's threads (check_same_thread=False, one lock around writes).
"""
import hashlib
import json
import os
import secrets
import sqlite3
import threading
import time

SCHEMA = """
CREATE TABLE IF NOT EXISTS students (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    token_hash TEXT UNIQUE,
    revoked INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    student TEXT NOT NULL REFERENCES students(id),
    lab TEXT NOT NULL,
    step TEXT,
    files TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done')),
    submitted REAL NOT NULL,
    started REAL,
    finished REAL,
    gpu TEXT,
    exit_code INTEGER,
    runs INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS jobs_state ON jobs(state, student);
CREATE TABLE IF NOT EXISTS events (
    job INTEGER NOT NULL REFERENCES jobs(id),
    seq INTEGER NOT NULL,
    line TEXT NOT NULL,
    PRIMARY KEY (job, seq)
);
CREATE TABLE IF NOT EXISTS results (
    job INTEGER NOT NULL REFERENCES jobs(id),
    student TEXT NOT NULL,
    lab TEXT NOT NULL,
    step TEXT NOT NULL,
    verdict TEXT NOT NULL,
    pct_of_copy REAL,
    finished REAL NOT NULL,
    PRIMARY KEY (job, step)
);
"""


def token_hash(token):
    return hashlib.sha256(token.encode()).hexdigest()


class Store:
    def __init__(self, path):
        self.path = path
        self.db = sqlite3.connect(path, check_same_thread=False,
                                  isolation_level=None, timeout=30)
        self.db.row_factory = sqlite3.Row
        self.lock = threading.RLock()
        with self.lock:
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.executescript(SCHEMA)

    def close(self):
        self.db.close()

    def _tx(self):
        return _Tx(self)

    def _all(self, sql, args=()):
        with self.lock:
            return [dict(r) for r in self.db.execute(sql, args)]

    def _one(self, sql, args=()):
        rows = self._all(sql, args)
        return rows[0] if rows else None

    # --- students and tokens ---------------------------------------------
    def add_student(self, sid, name=""):
        """A new student with a fresh token: returns the token (shown once)
        or None when the id exists already."""
        token = secrets.token_urlsafe(24)
        with self._tx() as db:
            if db.execute("SELECT 1 FROM students WHERE id=?",
                          (sid,)).fetchone():
                return None
            db.execute("INSERT INTO students (id, name, token_hash, created)"
                       " VALUES (?, ?, ?, ?)",
                       (sid, name, token_hash(token), time.time()))
        return token

    def set_revoked(self, sid, revoked=True):
        with self._tx() as db:
            cur = db.execute("UPDATE students SET revoked=? WHERE id=?",
                             (1 if revoked else 0, sid))
            return cur.rowcount > 0

    def student_for_token(self, token):
        """(student row or None, why): why is 'unknown' or 'revoked'."""
        row = self._one("SELECT * FROM students WHERE token_hash=?",
                        (token_hash(token or ""),))
        if not row:
            return None, "unknown"
        if row["revoked"]:
            return None, "revoked"
        return row, ""

    def students(self):
        return self._all("SELECT id, name, revoked FROM students ORDER BY id")

    # --- jobs --------------------------------------------------------------
    def submit(self, student, lab, step, files):
        with self._tx() as db:
            cur = db.execute(
                "INSERT INTO jobs (student, lab, step, files, state, "
                "submitted) VALUES (?, ?, ?, ?, 'queued', ?)",
                (student, lab, step, json.dumps(files), time.time()))
            return cur.lastrowid

    def requeue_running(self):
        """At startup: jobs the last server left running start again."""
        with self._tx() as db:
            ids = [r[0] for r in db.execute(
                "SELECT id FROM jobs WHERE state='running'")]
            for jid in ids:
                db.execute("DELETE FROM events WHERE job=?", (jid,))
                db.execute("DELETE FROM results WHERE job=?", (jid,))
                db.execute("UPDATE jobs SET state='queued', started=NULL, "
                           "gpu=NULL WHERE id=?", (jid,))
        return ids

    NEXT_JOB = """
        SELECT j.id FROM jobs j
        WHERE j.state = 'queued'
          AND j.student NOT IN (SELECT student FROM jobs
                                WHERE state = 'running')
        ORDER BY (SELECT COALESCE(MAX(k.started), 0) FROM jobs k
                  WHERE k.student = j.student), j.id
        LIMIT 1"""

    def claim_next(self, gpu):
        """Take the next fair job for a worker: it becomes running on gpu.
        Returns the job row or None."""
        with self._tx() as db:
            row = db.execute(self.NEXT_JOB).fetchone()
            if not row:
                return None
            db.execute("UPDATE jobs SET state='running', started=?, gpu=?, "
                       "runs=runs+1 WHERE id=?", (time.time(), gpu, row[0]))
            job = db.execute("SELECT * FROM jobs WHERE id=?",
                             (row[0],)).fetchone()
            return dict(job)

    def add_event(self, job, seq, line):
        with self._tx() as db:
            db.execute("INSERT INTO events (job, seq, line) VALUES (?, ?, ?)",
                       (job, seq, line))

    def finish(self, job, student, lab, exit_code, step_ends):
        """The job's results and its `done` state, in one transaction."""
        now = time.time()
        with self._tx() as db:
            for e in step_ends:
                pct = e.get("pct_of_copy")
                db.execute(
                    "INSERT OR REPLACE INTO results (job, student, lab, step,"
                    " verdict, pct_of_copy, finished) VALUES (?,?,?,?,?,?,?)",
                    (job, student, lab, str(e.get("step")),
                     str(e.get("verdict")),
                     pct if isinstance(pct, (int, float)) else None, now))
            db.execute("UPDATE jobs SET state='done', finished=?, "
                       "exit_code=? WHERE id=?", (now, exit_code, job))

    def job(self, jid):
        return self._one("SELECT * FROM jobs WHERE id=?", (jid,))

    def events(self, jid, after=-1):
        return self._all("SELECT seq, line FROM events WHERE job=? AND seq>? "
                         "ORDER BY seq", (jid, after))

    def queued(self):
        return self._all("SELECT id, student, lab, step, submitted FROM jobs "
                         "WHERE state='queued' ORDER BY id")

    def running(self):
        return self._all("SELECT id, student, lab, step, started, gpu FROM "
                         "jobs WHERE state='running' ORDER BY started")

    def count_jobs(self, student, since=0.0, states=None):
        sql = "SELECT COUNT(*) AS n FROM jobs WHERE student=? AND submitted>=?"
        args = [student, since]
        if states:
            sql += " AND state IN (%s)" % ",".join("?" * len(states))
            args += list(states)
        return self._one(sql, args)["n"]

    def last_submit(self, student):
        row = self._one("SELECT MAX(submitted) AS t FROM jobs WHERE "
                        "student=?", (student,))
        return row["t"] or 0.0

    def first_submit_since(self, student, since):
        row = self._one("SELECT MIN(submitted) AS t FROM jobs WHERE "
                        "student=? AND submitted>=?", (student, since))
        return row["t"]

    def mean_job_seconds(self, default=30.0, last=20):
        rows = self._all("SELECT finished - started AS s FROM jobs WHERE "
                         "state='done' AND started IS NOT NULL ORDER BY "
                         "finished DESC LIMIT ?", (last,))
        times = [r["s"] for r in rows if r["s"] is not None]
        return sum(times) / len(times) if times else default

    def done_jobs(self):
        """Finished jobs in the order they finished (for the gradebook)."""
        return self._all("SELECT id, student, lab, step, exit_code, finished "
                         "FROM jobs WHERE state='done' ORDER BY finished, id")

    def generation(self):
        """Changes whenever a job finishes (caches of the gradebook)."""
        row = self._one("SELECT COUNT(*) AS n, MAX(finished) AS t FROM jobs "
                        "WHERE state='done'")
        return (row["n"], row["t"])

    def queue_ahead(self, jid):
        """How many jobs run before this queued one, under the fair order:
        its student's earlier queued jobs, plus, from each other student, as
        many of theirs as rounds it waits (k + 1), plus none running."""
        job = self.job(jid)
        if not job or job["state"] != "queued":
            return 0
        mine = self._one("SELECT COUNT(*) AS n FROM jobs WHERE state="
                         "'queued' AND student=? AND id<?",
                         (job["student"], jid))["n"]
        others = self._all("SELECT student, COUNT(*) AS n FROM jobs WHERE "
                           "state='queued' AND student<>? GROUP BY student",
                           (job["student"],))
        return mine + sum(min(r["n"], mine + 1) for r in others)


class _Tx:
    """`with store._tx() as db:` one IMMEDIATE transaction under the lock."""

    def __init__(self, store):
        self.store = store

    def __enter__(self):
        self.store.lock.acquire()
        self.store.db.execute("BEGIN IMMEDIATE")
        return self.store.db

    def __exit__(self, exc_type, *rest):
        try:
            self.store.db.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self.store.lock.release()
        return False


def open_store(state_dir):
    os.makedirs(state_dir, exist_ok=True)
    return Store(os.path.join(state_dir, "server.sqlite"))
