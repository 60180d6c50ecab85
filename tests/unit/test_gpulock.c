/* gpulock: two processes, one GPU — who waits, who gets it, and a crash. */
#include "check.h"
#include "gpulock.h"
#include "runner.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UUID "GPU-0a1b2c3d-0000-1111-2222-333344445555"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (long)s) * 1e9)};
	nanosleep(&ts, NULL);
}

/*
 * A child that opens the lock itself, takes it in mode (after `delay`
 * seconds), writes the time it got it to the pipe, holds it `hold` seconds
 * and exits (or, with crash, kills itself while holding it).
 */
static pid_t holder(enum gpulock_mode mode, double delay, double hold,
		    int crash, int *read_end)
{
	int p[2];
	if (pipe(p) < 0)
		exit(2);
	pid_t pid = fork();
	if (pid == 0) {
		close(p[0]);
		char err[256];
		int fd = gpulock_open(UUID, err, sizeof(err));
		sleep_s(delay);
		if (fd < 0 || gpulock_acquire(fd, mode, NULL, NULL, NULL) < 0)
			_exit(3);
		double got = now_s();
		if (write(p[1], &got, sizeof(got)) != sizeof(got))
			_exit(4);
		if (crash)
			kill(getpid(), SIGKILL);
		sleep_s(hold);
		_exit(0);
	}
	close(p[1]);
	*read_end = p[0];
	return pid;
}

static double got_at(int read_end)
{
	double t = -1;
	if (read(read_end, &t, sizeof(t)) != sizeof(t))
		t = -1;
	close(read_end);
	return t;
}

static int reports;
static double last_report;
static void waiting(void *arg, double waited)
{
	(void)arg;
	reports++;
	last_report = waited;
}

int main(void)
{
	char dir[] = "/tmp/cudalab-locktest-XXXXXX";
	if (!mkdtemp(dir))
		return 2;
	char locks[64];
	snprintf(locks, sizeof(locks), "%s/locks", dir);
	setenv("CUDALAB_GPU_LOCK_DIR", locks, 1);
	char err[256];

	int fd = gpulock_open(UUID, err, sizeof(err));
	CHECK(fd >= 0, "the lock file opens (%s)", fd < 0 ? err : "ok");
	struct stat st;
	CHECK(stat(locks, &st) == 0 && (st.st_mode & 07777) == 01777,
	      "the lock folder is world-writable and sticky, like /tmp");
	char path[128];
	snprintf(path, sizeof(path), "%s/%s.lock", locks, UUID);
	CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0666,
	      "the lock file of the GPU is named by its UUID, mode 0666");
	CHECK(gpulock_open("??", err, sizeof(err)) < 0 && strstr(err, "UUID"),
	      "no UUID, no lock: the error says so (%s)", err);

	/* exclusive against exclusive: the second waits and says so */
	int r;
	pid_t a = holder(GPULOCK_EXCLUSIVE, 0, 0.7, 0, &r);
	double a_got = got_at(r);
	double waited = 0;
	reports = 0;
	CHECK(gpulock_acquire(fd, GPULOCK_EXCLUSIVE, waiting, NULL, &waited) == 0,
	      "the second exclusive request gets the lock in the end");
	double b_got = now_s();
	CHECK(waited > 0.4 && b_got > a_got + 0.5,
	      "it waited for the holder (waited %.2f s)", waited);
	CHECK(reports >= 1 && last_report > GPULOCK_REPORT_AFTER_S,
	      "while waiting it reported how long it had waited (%d reports, "
	      "last %.2f s)", reports, last_report);
	waitpid(a, NULL, 0);

	/* while we hold it exclusive, nobody gets it shared either */
	a = holder(GPULOCK_SHARED, 0, 0, 0, &r);
	sleep_s(0.4);
	gpulock_release(fd);
	double released = now_s();
	a_got = got_at(r);
	CHECK(a_got >= released, "a shared request waits for an exclusive "
	      "holder (got it %.2f s after the release)", a_got - released);
	waitpid(a, NULL, 0);

	/* shared with shared: no waiting */
	a = holder(GPULOCK_SHARED, 0, 0.6, 0, &r);
	got_at(r);
	CHECK(gpulock_acquire(fd, GPULOCK_SHARED, NULL, NULL, &waited) == 0 &&
		      waited < 0.2,
	      "two shared holders at once: correctness runs overlap (waited "
	      "%.2f s)", waited);
	gpulock_release(fd);
	waitpid(a, NULL, 0);

	/* shared blocks exclusive: a timer waits for correctness to end */
	a = holder(GPULOCK_SHARED, 0, 0.6, 0, &r);
	a_got = got_at(r);
	gpulock_acquire(fd, GPULOCK_EXCLUSIVE, NULL, NULL, &waited);
	CHECK(waited > 0.3, "an exclusive request waits for a shared holder "
	      "(waited %.2f s)", waited);
	gpulock_release(fd);
	waitpid(a, NULL, 0);

	/* the turnstile: once a timer waits, later shared requests queue
	 * behind it instead of starving it */
	int rh, rt;
	pid_t h = holder(GPULOCK_SHARED, 0, 0.8, 0, &rh);
	got_at(rh);
	pid_t t = holder(GPULOCK_EXCLUSIVE, 0.1, 0.3, 0, &rt);
	sleep_s(0.3); /* the timer is queued now */
	gpulock_acquire(fd, GPULOCK_SHARED, NULL, NULL, NULL);
	double shared_got = now_s();
	double timer_got = got_at(rt);
	CHECK(timer_got > 0 && shared_got > timer_got + 0.2,
	      "a shared request made while a timer waits gets the lock after "
	      "the timer's turn (timer %.2f s before it)",
	      shared_got - timer_got);
	gpulock_release(fd);
	waitpid(h, NULL, 0);
	waitpid(t, NULL, 0);

	/* from exclusive back to shared: others may share, nobody times */
	gpulock_acquire(fd, GPULOCK_EXCLUSIVE, NULL, NULL, NULL);
	CHECK(gpulock_downgrade(fd) == 0, "exclusive downgrades to shared");
	a = holder(GPULOCK_SHARED, 0, 0, 0, &r);
	double before = now_s();
	a_got = got_at(r);
	CHECK(a_got - before < 0.3, "after the downgrade a shared request gets "
	      "in at once (%.2f s)", a_got - before);
	waitpid(a, NULL, 0);
	a = holder(GPULOCK_EXCLUSIVE, 0, 0, 0, &r);
	sleep_s(0.3);
	gpulock_release(fd);
	released = now_s();
	a_got = got_at(r);
	CHECK(a_got >= released, "but an exclusive one still waits for it");
	waitpid(a, NULL, 0);

	/* a holder killed while holding the lock releases it */
	int status = 0;
	a = holder(GPULOCK_EXCLUSIVE, 0, 60, 1, &r);
	got_at(r);
	waitpid(a, &status, 0);
	CHECK(WIFSIGNALED(status), "the holder was killed while holding it");
	gpulock_acquire(fd, GPULOCK_EXCLUSIVE, NULL, NULL, &waited);
	CHECK(waited < 0.3, "a crashed holder leaves the GPU free (waited "
	      "%.2f s)", waited);
	gpulock_release(fd);

	/* the grader hands the lock to a step as fd 4 (runner: pass_fd); the
	 * child sees that file there, whatever number the grader had */
	const char *argv[] = {"sh", "-c", "readlink /proc/self/fd/4; "
				  "readlink /proc/self/fd/5 || echo none", NULL};
	struct child c = CHILD_INIT;
	c.argv = argv;
	c.pass_fd = fd;
	c.pass_fd_as = 4;
	c.wall_limit_s = 10;
	child_run(&c);
	const char *out = strbuf_str(&c.out);
	CHECK(strstr(out, UUID ".lock") != NULL && strstr(out, "none"),
	      "a child gets the lock at fd 4 and nothing else there (%s)", out);
	child_release(&c);
	close(fd);

	/* time spent waiting for the GPU does not count against the step's
	 * wall-clock limit: the caller extends it (runner: extend_s) */
	const char *sleeper[] = {"sleep", "1.5", NULL};
	double waited_for_gpu = 1.0;
	struct child w = CHILD_INIT;
	w.argv = sleeper;
	w.wall_limit_s = 1;
	w.extend_s = &waited_for_gpu;
	w.max_extend_s = 600;
	child_run(&w);
	CHECK(!w.timed_out && w.exited,
	      "a step that waited 1 s for the GPU may run 1 s longer");
	child_release(&w);
	struct child x = CHILD_INIT;
	x.argv = sleeper;
	x.wall_limit_s = 1;
	x.extend_s = &waited_for_gpu;
	x.max_extend_s = 0.2;
	child_run(&x);
	CHECK(x.timed_out, "but no more than the cap");
	child_release(&x);

	unlink(path);
	rmdir(locks);
	rmdir(dir);
	return check_done();
}
