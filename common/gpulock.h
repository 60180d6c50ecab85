/*
 * gpulock — one machine-wide lock per physical GPU, across processes and users.
 *
 * Why: a GPU is a shared instrument. Kernels of other processes time-slice
 * with ours and inflate event times; the timing audit's host clock sees them
 * too and would accuse honest code of hiding work. So timing runs alone.
 *
 * The scheme (a readers-writer lock with a turnstile):
 *   - GPU work that is not timing (a step's correctness cases, the re-check
 *     after timing) holds the lock SHARED: many students' correctness runs
 *     overlap freely.
 *   - Timing (and the copy-ceiling measurement) holds it EXCLUSIVE: while one
 *     process times, no other cudalab process has work on that GPU (their
 *     CUDA contexts may exist, idle, waiting for the lock).
 *   - A turnstile keeps timing from being starved by a stream of correctness
 *     runs: a process that wants the lock exclusive first passes the
 *     turnstile and keeps it while it waits; a process that wants it shared
 *     passes the turnstile too (and lets go at once), so once a timer waits,
 *     new correctness runs queue behind it.
 *   Why shared for correctness at all (the issue says correctness "needs no
 *   lock"): correctness kernels of other students disturb timing just as much
 *   as their timed kernels do, and nothing in a kernel says which one it is.
 *   Compiling needs no lock (it does not touch the GPU).
 *
 * Mechanics: one file per GPU, DIR/<uuid>.lock (DIR: $CUDALAB_GPU_LOCK_DIR,
 * else /tmp/cudalab-gpu-locks, created mode 01777 like /tmp; files mode 0666
 * so every user of the machine shares them). Two open-file-description
 * (OFD) byte-range locks on that one file: byte 0 is the turnstile, byte 1
 * the lock. OFD locks (fcntl F_OFD_SETLK) behave like flock: they belong to
 * the open file, are inherited across fork/exec with the descriptor, and are
 * released by the kernel when the last descriptor of that open file closes —
 * so a crashed or killed holder never leaves the GPU locked.
 *
 * Who opens: the grader (gpulock_open) opens one fresh file per child it
 * starts and hands the descriptor to the step as --gpu-lock-fd N: steps run
 * in a sandbox with a private /tmp, where the lock file cannot be opened,
 * and handing a descriptor of one regular file opens no path into the host.
 * Each child needs its own open (OFD locks of one open file never conflict
 * with each other).
 *
 * What a student's code could do with the descriptor (it runs in the same
 * process): release or take the lock. That only changes how fairly the GPU
 * is shared, never a verdict: a run that is disturbed is seen by NVML and
 * re-measured or not graded (gpustate.h), a run that holds the lock forever
 * is ended by its time limit.
 *
 * Conversions: gpulock_acquire(fd, GPULOCK_EXCLUSIVE) from SHARED first
 * releases the shared hold (so two processes both going from shared to
 * exclusive cannot deadlock), then waits. From EXCLUSIVE back to SHARED is
 * gpulock_downgrade: atomic, nobody gets in between.
 *
 * C11 + POSIX, usable from CUDA C++ (the harness runtime).
 */
#ifndef CUDALAB_GPULOCK_H
#define CUDALAB_GPULOCK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum gpulock_mode { GPULOCK_NONE, GPULOCK_SHARED, GPULOCK_EXCLUSIVE };

/* The directory of the lock files ($CUDALAB_GPU_LOCK_DIR or the default). */
const char *gpulock_dir(void);

/*
 * Open (creating it if needed) the lock file of the GPU whose UUID is uuid
 * (letters, digits and dashes, e.g. "GPU-5f0e..." or 32 hex digits; other
 * characters are dropped).
 * Returns a new O_CLOEXEC descriptor, or -1 with the reason in err.
 */
int gpulock_open(const char *uuid, char *err, size_t errlen);

/*
 * Called about once a second while gpulock_acquire waits (first after
 * wait_report_s), with the seconds waited so far.
 */
typedef void (*gpulock_waiting_fn)(void *arg, double waited_s);

/*
 * Take the lock in `mode` (SHARED or EXCLUSIVE), waiting as long as it takes
 * (the caller's time limit bounds it). Returns 0, or -1 with errno set (a
 * descriptor that is not a lock file). *waited_s (may be NULL) gets the
 * seconds spent waiting. GPULOCK_NONE releases, like gpulock_release.
 */
int gpulock_acquire(int fd, enum gpulock_mode mode, gpulock_waiting_fn waiting,
		    void *arg, double *waited_s);

/*
 * From EXCLUSIVE to SHARED, atomically and without the turnstile (a timer
 * queued in the turnstile waits for this very lock: going through it would
 * deadlock). Returns 0 or -1 with errno.
 */
int gpulock_downgrade(int fd);

/* Release whatever this open file holds. */
int gpulock_release(int fd);

/* Seconds of waiting before the first call to the waiting callback. */
#define GPULOCK_REPORT_AFTER_S 0.2

#ifdef __cplusplus
}
#endif
#endif
