/*
 * sandbox — the box every piece of untrusted work runs in: the student's
 * compile (nvcc on their file), the step run, and the step under
 * compute-sanitizer and Nsight Compute. Built with bubblewrap (bwrap, the
 * Debian package bubblewrap, 0.8 or later) and the grader's own last step
 * inside it, cudalab-box-exec (grader/boxexec.c).
 *
 * A box is `struct box`: every limit and mount, built in one place
 * (box_for_run / box_for_compile below) and turned into a command line by
 * sandbox_argv(). What it gives and what it leaves open:
 *
 * Always (both privilege models):
 *   - new pid, mount, ipc, uts, network and (where the kernel has them)
 *     cgroup namespaces: no network but a private loopback, no view of the
 *     host's processes; --die-with-parent and bwrap as the box's pid 1: when
 *     the program ends (or the grader dies), every process left in the box
 *     is killed by the kernel, whatever setsid or double fork it used;
 *   - --new-session (no terminal to push keystrokes into);
 *   - read-only: /usr, /bin, /sbin, /lib*, /etc, /opt, /sys, the folders of
 *     LD_LIBRARY_PATH, and each path of box.ro; a fresh /proc; a /dev with
 *     null, zero, random... and, when box.gpu, the NVIDIA device nodes
 *     (a compile box shows less: box.compiler_view);
 *   - the box's own root (bwrap's tmpfs, holding the folders above the
 *     binds, made 0755) remounted read-only;
 *   - a private /tmp of box.tmp_bytes (tmpfs --size, mode 1777);
 *   - box.rw: the one writable folder of the host (a fresh folder of this
 *     run, made by sandbox_folder), the working directory;
 *   - box.report: a folder only a tool running before the program can
 *     write (see below);
 *   - limits on the program: RLIMIT_DATA box.data_bytes (heap: malloc, new;
 *     not the GPU's memory, not pinned or mapped device memory, which CUDA
 *     maps from the driver and the box does not bound), RLIMIT_NPROC
 *     box.nproc, RLIMIT_FSIZE box.file_bytes, no core files (each only
 *     lowers what the runner set: the runner adds the wall-clock and
 *     CPU-time limits and the group kill, runner.h).
 *   Nothing of the project tree, the build cache, solutions/, hidden cases,
 *   manifests, the class's results or other submissions is mounted.
 *
 * The grader runs as root (the instructor's `grade`, the workshop server):
 *   bwrap runs without a user namespace and keeps only CAP_SETUID,
 *   CAP_SETGID and CAP_SETPCAP; cudalab-box-exec empties the bounding set
 *   and switches to box.uid/box.gid (a uid of the box's own, sandbox_box_uid) for good, with
 *   no_new_privs, before the program (or before the tool, see below). So
 *   the program has no capability, cannot remount anything (a read-only
 *   bind stays read-only, even from a user namespace of its own), cannot
 *   read a root-only file of the system (/etc/shadow), and owns only
 *   box.rw.
 * The grader is an ordinary user (a student's `run.py test`):
 *   bwrap makes a user namespace and drops every capability (--cap-drop
 *   ALL); the uid inside is the user's own, and box.uid is not used.
 *
 * A tool (compute-sanitizer, ncu) runs in the box with the program:
 *   bwrap -> [cudalab-box-exec: drop to box.uid] -> tool -> cudalab-box-exec
 *   --hide /report -> program. The tool and the program share a uid (on the
 *   H100 both tools fail when the program runs as another uid than the
 *   tool: "Target application terminated before first instrumented API
 *   call", ncu "error code (6)"). What keeps the program out of the tool's
 *   report is Landlock (Linux 5.13+): the second cudalab-box-exec confines
 *   the program to everything but /report (box.report, mounted there), and
 *   Landlock also refuses it ptrace and /proc/PID/fd|mem of the tool. The
 *   tool writes its report to /report (--log-file); the grader reads that
 *   file only. Where the kernel has no Landlock, sb->landlock is 0 and the
 *   callers do not run tools in the box (the figures are "not measured").
 *   Still trusted: the tool's agent inside the program's own process
 *   (compute-sanitizer and ncu inject a library into it), and whatever the
 *   program sends the tool through the descriptors the tool gave it.
 *
 * Left open, on purpose: the GPU itself (device memory is bounded by the
 * device, not the box; the time limit ends a kernel that spins), the
 * system's read-only files in a run box (a compile box shows software
 * only), CPU time up to the limits, the loopback device
 * of its own network namespace.
 *
 * sandbox_probe() decides once whether a box works here: bwrap on PATH
 * (or the program CUDALAB_BWRAP names: tests name a missing one),
 * cudalab-box-exec beside the grader, and probe_argv run to a clean exit
 * inside a box with the GPU, with must_print in its output (NULL: any);
 * when not, sb->on is 0 and sb->reason says why. What a caller does then is
 * its policy (grade.h: refuse, or say so and go on without).
 */
#ifndef CUDALAB_SANDBOX_H
#define CUDALAB_SANDBOX_H

#include <limits.h>
#include <stddef.h>

#define SANDBOX_MAX_ARGS 640
#define SANDBOX_MAX_RO 24
#define SANDBOX_UID_BASE 0x40000000L /* box uids: this + (pid << 6) + k */
#define SANDBOX_REPORT "/report" /* the tool's report folder, inside */

struct sandbox {
	int on;
	int as_root;          /* the grader is root: the uid-dropping model */
	int landlock;         /* the kernel can hide /report from a program
				 (Landlock): tools may run in the box */
	char reason[512];
	char bwrap[PATH_MAX];
	char init[PATH_MAX];  /* cudalab-box-exec */
	char hide[PATH_MAX];  /* the cudalab tree (absolute; "" when not set):
				 when it lies inside a system folder the box
				 shows (a course installed in /opt/cudalab),
				 an empty tmpfs covers it, and only the paths
				 a box binds are shown again (red team,
				 2026-11-23: the compile saw solutions/) */
	/* storage for the strings of one command line */
	char paths[48][PATH_MAX];
	char nums[12][32];
	char dirs[96][PATH_MAX]; /* the folders above the binds (made 0755:
				    bwrap would make them 0700, which
				    nobody cannot cross) */
	const char *argv[SANDBOX_MAX_ARGS];
};

struct box {
	/* who runs inside (used only when the grader is root) */
	unsigned uid, gid;
	/* limits on the program (0: none) */
	long tmp_bytes;   /* size of the private /tmp */
	long data_bytes;  /* RLIMIT_DATA */
	long nproc;       /* RLIMIT_NPROC of box.uid */
	long file_bytes;  /* RLIMIT_FSIZE */
	/* what it sees besides the system */
	int compiler_view; /* the system as a compiler needs it, nothing
			      more: /usr, /bin, /sbin, /lib*, the CUDA
			      toolkit's real folder (when outside /usr), and
			      /dev/null; no /etc, /opt, /sys, /proc, and no
			      other device (red team, 2026-11-23: an
			      #include of /etc/passwd was quoted back in the
			      compile error, one of /dev/zero took GiBs).
			      nvcc runs without them (measured); its PATH
			      must name real folders (/usr/local/cuda may be
			      a link through /etc/alternatives) */
	int gpu;                          /* the NVIDIA device nodes */
	const char *ro[SANDBOX_MAX_RO];   /* read-only, same path inside */
	int nro;
	const char *rw;      /* the one writable folder, and the working dir */
	const char *report;  /* the tool's report folder on the host, mounted
				at SANDBOX_REPORT (NULL: none) */
	int keep_fd;         /* a descriptor the program keeps (-1: none) */
	int lock_fd;         /* the GPU lock's descriptor the program keeps
				through the box and the tool (-1: none;
				common/gpulock.h) */
};

/* The box of a step run (also under a tool): the GPU, 256 MiB of /tmp,
 * 16 GiB of heap, 512 processes, 64 MiB files; rw set by the caller. */
void box_for_run(struct box *b);
/*
 * The box of nvcc on one student file: no GPU, the compiler's view (see
 * compiler_view), SANDBOX_COMPILE_TMP of /tmp, SANDBOX_COMPILE_DATA of heap
 * per process, 256 processes, 64 MiB files; ro (the file, the headers) and
 * rw (the output folder) set by the caller.
 *
 * The heap limit, measured (nvcc 13.0, sm_90, 2026-11-23, RLIMIT_DATA on
 * the whole nvcc): every lab solution compiles with 192 MiB (128 MiB is
 * too little); a file that includes cub, cooperative groups and thrust
 * needs 768 MiB (512 MiB is too little; 670 MiB RSS, 25 s), and the text
 * lint refuses cub and thrust before any compile. 1 GiB: five times what
 * a lab file needs; a compile that reads a device or expands without end
 * stops there instead of at 8 GiB (red team: cc1plus held 4 GiB reading
 * /dev/zero).
 */
#define SANDBOX_COMPILE_DATA (1LL << 30)
#define SANDBOX_COMPILE_TMP (128LL << 20)
void box_for_compile(struct box *b);
/*
 * How many compile boxes may run at once: at most jobs, and no more than
 * half the machine's memory holds at their limits (SANDBOX_COMPILE_DATA +
 * SANDBOX_COMPILE_TMP each); at least 1. Every caller that starts compiles
 * in parallel (build_steps, the class run's build workers) uses it.
 */
int sandbox_compile_jobs(int jobs);
/* Add one read-only path (ignored past SANDBOX_MAX_RO). */
void box_ro(struct box *b, const char *path);

int sandbox_probe(struct sandbox *sb, const char *const *probe_argv,
		  const char *must_print);

/*
 * The command line: bwrap and the box's options, then tool_argv (NULL: no
 * tool), then cudalab-box-exec with the program's limits, then argv. The
 * strings it makes live in sb (valid until the next call); the others are
 * borrowed.
 */
const char *const *sandbox_argv(struct sandbox *sb, const struct box *b,
				const char *const *tool_argv,
				const char *const *argv);

/*
 * A uid (and gid) no other box of any grader on this machine has while
 * this one lives: SANDBOX_UID_BASE + (the grader's pid << 6) + a counter of
 * this process's boxes (mod 64), in no /etc/passwd. Each box its own uid,
 * because RLIMIT_NPROC counts every process of a uid on the machine: when
 * all boxes ran as nobody (red team, 2026-11-27), one student's program
 * holding 500 processes made every other box started meanwhile fail at
 * exec (another student's compile, run, sanitizer or profiler run).
 */
long sandbox_box_uid(void);

/*
 * A fresh folder under parent (made if missing) for one box: for_report 0
 * gives the program's writable folder (owned by uid, the box's, when
 * root), 1 the
 * tool's report folder (mode 0700, the grader's). 0, or -1 with errno.
 */
int sandbox_folder(const struct sandbox *sb, long uid, const char *parent,
		   int for_report, char *out, size_t len);
/* Remove a folder made by sandbox_folder and everything in it. */
void sandbox_remove(const char *dir);

/*
 * Whether a file (its real path) is in what a compile box shows of the
 * machine: the software folders (/usr, /bin, /sbin, /lib*) and the CUDA
 * toolkit's real folder. The object check holds an --unsandboxed compile
 * to the same view (objcheck_source.system_file).
 */
int sandbox_compiler_sees(const char *real);

#endif
