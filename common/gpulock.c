/* gpulock: see gpulock.h for the contract and the scheme. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* F_OFD_SETLK, when built by nvcc without it */
#endif
#include "gpulock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define TURNSTILE_BYTE 0
#define LOCK_BYTE 1

const char *gpulock_dir(void)
{
	const char *d = getenv("CUDALAB_GPU_LOCK_DIR");
	return d && *d ? d : "/tmp/cudalab-gpu-locks";
}

int gpulock_open(const char *uuid, char *err, size_t errlen)
{
	char name[80];
	size_t k = 0;
	for (const char *p = uuid; p && *p && k < sizeof(name) - 1; p++)
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z') || *p == '-')
			name[k++] = *p;
	name[k] = '\0';
	if (k < 8) {
		snprintf(err, errlen, "no usable GPU UUID (\"%s\") to name its "
			 "lock", uuid ? uuid : "");
		return -1;
	}
	const char *dir = gpulock_dir();
	if (mkdir(dir, 01777) == 0)
		chmod(dir, 01777); /* the umask took bits away */
	else if (errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", dir,
			 strerror(errno));
		return -1;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s.lock", dir, name);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0666);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open the GPU lock %s: %s", path,
			 strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) == 0 && st.st_uid == geteuid())
		fchmod(fd, 0666); /* every user of the machine shares it */
	return fd;
}

static int set_byte(int fd, int byte, short type)
{
	struct flock fl;
	memset(&fl, 0, sizeof(fl));
	fl.l_type = type;
	fl.l_whence = SEEK_SET;
	fl.l_start = byte;
	fl.l_len = 1;
	return fcntl(fd, F_OFD_SETLK, &fl);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

struct waiter {
	double start, next_report;
	gpulock_waiting_fn fn;
	void *arg;
	long pause_ns;
};

/* Poll until byte is taken as type; reports as it waits. */
static int take(int fd, int byte, short type, struct waiter *w)
{
	for (;;) {
		if (set_byte(fd, byte, type) == 0)
			return 0;
		if (errno != EAGAIN && errno != EACCES && errno != EINTR)
			return -1;
		double t = now_s();
		if (w->fn && t >= w->next_report) {
			w->fn(w->arg, t - w->start);
			w->next_report = t + 1.0;
		}
		struct timespec ts = {0, w->pause_ns};
		nanosleep(&ts, NULL);
		if (w->pause_ns < 20 * 1000 * 1000)
			w->pause_ns *= 2;
	}
}

int gpulock_acquire(int fd, enum gpulock_mode mode, gpulock_waiting_fn waiting,
		    void *arg, double *waited_s)
{
	if (waited_s)
		*waited_s = 0;
	if (mode == GPULOCK_NONE)
		return gpulock_release(fd);
	struct waiter w = {now_s(), 0, waiting, arg, 1000 * 1000};
	w.next_report = w.start + GPULOCK_REPORT_AFTER_S;
	if (mode == GPULOCK_EXCLUSIVE) {
		/* a shared hold is let go before queueing (see the header) */
		if (set_byte(fd, LOCK_BYTE, F_UNLCK) < 0)
			return -1;
	}
	if (take(fd, TURNSTILE_BYTE, F_WRLCK, &w) < 0)
		return -1;
	int rc = take(fd, LOCK_BYTE,
		      mode == GPULOCK_EXCLUSIVE ? F_WRLCK : F_RDLCK, &w);
	int e = errno;
	set_byte(fd, TURNSTILE_BYTE, F_UNLCK);
	errno = e;
	if (waited_s)
		*waited_s = now_s() - w.start;
	return rc;
}

int gpulock_downgrade(int fd)
{
	return set_byte(fd, LOCK_BYTE, F_RDLCK);
}

int gpulock_release(int fd)
{
	int a = set_byte(fd, LOCK_BYTE, F_UNLCK);
	int b = set_byte(fd, TURNSTILE_BYTE, F_UNLCK);
	return a < 0 || b < 0 ? -1 : 0;
}
