// The lab driver: the judge, the student's process and the wire between
// them. The contract is in harness.h ("the lab driver"); the toolkit both
// sides use is harness.cu.
//
// The wire: one AF_UNIX SOCK_SEQPACKET pair (message boundaries kept, so a
// message is read whole or not at all). Every message is a fixed-size
// struct below; the judge reads one into a buffer one byte larger than the
// struct it expects and accepts it only when the length and magic match,
// then checks every count against its cap and terminates every string.
//   judge -> student: wire_req   MAP (an allocation's IPC handle), UNMAP,
//                                CALL (a student call or, with call -1, an
//                                empty one), QUIT
//   student -> judge: wire_reply status (ok, launch error, run error, todo,
//                                harness error, bad request), the error text,
//                                the claimed event time; after an ok CALL
//                                with WF_RECORD also wire_launches (the
//                                recorder's launches and kernel symbols)
#include "event.h"
#include "harness.h"
#include "harness_private.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <vector>

/* ---- the wire ----------------------------------------------------------- */

#define WIRE_REQ_MAGIC 0x51525848u /* "HXRQ" */
#define WIRE_REP_MAGIC 0x50525848u /* "HXRP" */
#define WIRE_LAU_MAGIC 0x4C525848u /* "HXRL" */
#define WIRE_LAUNCHES 64
#define WIRE_SYMBOLS 64
#define MAX_ALLOCS 256

enum wire_type { W_MAP = 1, W_UNMAP, W_CALL, W_QUIT, W_INIT };
/* WF_STAGE: run the call on the student's process's own copies of the
 * allocations (cudaMalloc'd there, copied in before and back after), for
 * runs under ncu and compute-sanitizer: their replay and bounds checks then
 * see plain allocations of that process, not memory imported through IPC.
 * Never while timing. */
enum wire_flags { WF_RECORD = 1, WF_TIME = 2, WF_STAGE = 4 };
enum wire_status {
	WS_OK = 0,
	WS_LAUNCH_ERROR,
	WS_RUN_ERROR,
	WS_TODO,
	WS_HARNESS,
	WS_BAD_REQUEST,
	WS_COUNT
};

struct wire_req {
	uint32_t magic, type;
	uint64_t seq;
	uint32_t alloc_id, flags;
	uint64_t alloc_bytes; /* MAP: the bytes a staged call copies ... */
	uint64_t stage_off;   /* ... from here in the allocation */
	cudaIpcMemHandle_t handle;
	int32_t call, nbuf;
	uint32_t buf_alloc[HX_MAX_BUFS];
	uint64_t buf_off[HX_MAX_BUFS];
	long long i[HX_MAX_IARGS];
	double f[HX_MAX_FARGS];
	char what[160];
};

struct wire_reply {
	uint32_t magic, status;
	uint64_t seq;
	double event_us;
	int32_t launches, line;
	/* kernels the call launched on a stream other than the default one
	 * (the launch wrappers count every launch, harness.cu) */
	int32_t off_stream, pad;
	/* the student's process's own clock (CLOCK_MONOTONIC, us) when it
	 * received the request, had enqueued the call, had synchronised and
	 * sent the reply: printed by CUDALAB_CLOCK_TRACE only, never trusted */
	double trace_us[4];
	char message[1024];
};

struct wire_launches {
	uint32_t magic, pad;
	uint64_t seq;
	int32_t count, nrec, nsym, kernels_complete;
	struct hx_launch rec[WIRE_LAUNCHES];
	char sym[WIRE_SYMBOLS][256];
};

static int wire_send(int sock, const void *msg, size_t len)
{
	for (;;) {
		ssize_t n = send(sock, msg, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		return n == (ssize_t)len ? 0 : -1;
	}
}

/* ---- the judge's state --------------------------------------------------- */

struct export_entry {
	void *alloc;
	size_t bytes, stage_off;
	uint32_t id;
	int mapped; /* the student's process has opened it */
};

static struct {
	const struct hx_lab *lab;
	int sock; /* -1: --in-process */
	pid_t child;
	uint64_t seq;
	uint32_t next_id;
	struct export_entry ex[MAX_ALLOCS];
	int nex;
	/* the judge's clock's zero, measured before the student's code first
	 * ran in its process (empty_round_trips): -1 until then; and the
	 * median of the same calls' overheads (the central bound's zero) */
	double pristine_null_us, pristine_null_med_us;
} J = {NULL, -1, 0, 0, 1, {}, 0, -1, -1};

struct hx_run {
	struct hx_case c;
	const struct hx_lab *lab;
	int nbufs;
	struct hx_buffer buf[HX_MAX_BUFS];
	enum hx_role role[HX_MAX_BUFS];
	size_t elem[HX_MAX_BUFS];
	/* what a staged call copies (WF_STAGE): the whole allocation, guards
	 * included, or for HX_IN_EXACT only the data, so that the student's
	 * process's copy ends where the data ends */
	size_t alloc_bytes[HX_MAX_BUFS], stage_off[HX_MAX_BUFS];
	unsigned long long fingerprint[HX_MAX_BUFS];
	struct hx_request req;
	char what[160];
};

/* ---- the student's process ------------------------------------------------ */

static struct {
	int sock;
	uint64_t seq; /* of the request being served */
	const struct hx_lab *lab;
	struct {
		uint32_t id;
		void *base;
		size_t bytes, stage_off; /* the staged part */
		void *twin; /* this process's own copy (WF_STAGE), or NULL */
	} maps[MAX_ALLOCS];
	int nmaps;
	cudaEvent_t ev[2];
	int have_events;
	double received_us; /* when the request being served arrived */
} S;

static void student_reply(uint32_t status, const char *message, double us,
			  int launches, int line)
{
	struct wire_reply r;
	memset(&r, 0, sizeof(r));
	r.magic = WIRE_REP_MAGIC;
	r.status = status;
	r.seq = S.seq;
	r.event_us = us;
	r.launches = launches;
	r.line = line;
	snprintf(r.message, sizeof(r.message), "%s", message ? message : "");
	if (wire_send(S.sock, &r, sizeof(r)) < 0)
		_exit(4); /* the judge is gone */
}

static void student_die(const char *kind, const char *message)
{
	char msg[1024];
	snprintf(msg, sizeof(msg), "%s: %s", kind, message);
	student_reply(WS_HARNESS, msg, 0, 0, 0);
}

static void student_todo(const char *file, int line)
{
	const char *base = strrchr(file, '/');
	student_reply(WS_TODO, base ? base + 1 : file, 0, 0, line);
}

/* Where allocation id lives in this process (child: its IPC mapping;
 * in-process: the judge's own pointer). NULL: unknown. */
static void *alloc_base(uint32_t id)
{
	if (J.sock < 0 && !hx__is_student()) {
		for (int i = 0; i < J.nex; i++)
			if (J.ex[i].id == id)
				return J.ex[i].alloc;
		return NULL;
	}
	for (int i = 0; i < S.nmaps; i++)
		if (S.maps[i].id == id)
			return S.maps[i].base;
	return NULL;
}

static int map_index(uint32_t id)
{
	for (int i = 0; i < S.nmaps; i++)
		if (S.maps[i].id == id)
			return i;
	return -1;
}

/* WF_STAGE: copy the request's allocations into this process's twins
 * (dir 0) or back (dir 1). Returns the first error. */
static cudaError_t stage(const struct wire_req *q, int dir)
{
	for (int b = 0; b < q->nbuf; b++) {
		int mi = map_index(q->buf_alloc[b]), seen = 0;
		for (int c = 0; c < b; c++)
			seen |= q->buf_alloc[c] == q->buf_alloc[b];
		if (mi < 0 || seen)
			continue;
		cudaError_t err = cudaSuccess;
		if (!S.maps[mi].twin)
			err = cudaMalloc(&S.maps[mi].twin, S.maps[mi].bytes);
		unsigned char *part = (unsigned char *)S.maps[mi].base +
				      S.maps[mi].stage_off;
		if (err == cudaSuccess)
			err = dir ? cudaMemcpy(part, S.maps[mi].twin,
					       S.maps[mi].bytes,
					       cudaMemcpyDeviceToDevice)
				  : cudaMemcpy(S.maps[mi].twin, part,
					       S.maps[mi].bytes,
					       cudaMemcpyDeviceToDevice);
		if (err != cudaSuccess)
			return err;
	}
	/* a device-to-device cudaMemcpy may return before it is done: the
	 * judge reads what was copied back as soon as the reply arrives */
	return cudaDeviceSynchronize();
}

/*
 * Serve one CALL: resolve the pointers, run the lab's student call (or
 * nothing for call -1) between two events when timing, check the launch
 * and the run, reply. Used by the student's process and by --in-process.
 */
/* The judge's own calls, numbered below the lab's: CALL_EMPTY runs nothing
 * between the two events, CALL_TINY one block of an empty kernel (the
 * judge's clock's zero, empty_round_trips). */
enum { CALL_TINY = -2, CALL_EMPTY = -1 };

__global__ void hx_tiny_kernel(void) {}

static void serve_call(const struct wire_req *q, struct wire_reply *rep,
		       struct wire_launches *ls)
{
	memset(rep, 0, sizeof(*rep));
	rep->magic = WIRE_REP_MAGIC;
	rep->seq = q->seq;
	struct hx_args a;
	memset(&a, 0, sizeof(a));
	const struct hx_lab *lab = J.lab ? J.lab : S.lab;
	if (q->call < CALL_TINY || q->call >= lab->ncalls || q->nbuf < 0 ||
	    q->nbuf > HX_MAX_BUFS) {
		rep->status = WS_BAD_REQUEST;
		snprintf(rep->message, sizeof(rep->message),
			 "request names call %d with %d buffers", (int)q->call,
			 (int)q->nbuf);
		return;
	}
	for (int b = 0; b < q->nbuf; b++) {
		unsigned char *base = (unsigned char *)alloc_base(q->buf_alloc[b]);
		if (!base) {
			rep->status = WS_BAD_REQUEST;
			snprintf(rep->message, sizeof(rep->message),
				 "buffer %d names allocation %u, never mapped",
				 b, (unsigned)q->buf_alloc[b]);
			return;
		}
		a.buf[b] = base + q->buf_off[b];
	}
	int staged = (q->flags & WF_STAGE) && hx__is_student() &&
		     !(q->flags & WF_TIME);
	if (staged) {
		cudaError_t err = stage(q, 0);
		for (int b = 0; b < q->nbuf && err == cudaSuccess; b++) {
			int mi = map_index(q->buf_alloc[b]);
			if (mi < 0 || q->buf_off[b] < S.maps[mi].stage_off ||
			    q->buf_off[b] - S.maps[mi].stage_off >
				    S.maps[mi].bytes) {
				err = cudaErrorInvalidValue;
				break;
			}
			a.buf[b] = (unsigned char *)S.maps[mi].twin +
				   (q->buf_off[b] - S.maps[mi].stage_off);
		}
		if (err != cudaSuccess) {
			rep->status = WS_HARNESS;
			snprintf(rep->message, sizeof(rep->message),
				 "staging the buffers: %s",
				 cudaGetErrorString(err));
			return;
		}
	}
	memcpy(a.i, q->i, sizeof(a.i));
	memcpy(a.f, q->f, sizeof(a.f));
	char what[sizeof(q->what)];
	memcpy(what, q->what, sizeof(what));
	what[sizeof(what) - 1] = 0;

	int timed = (q->flags & WF_TIME) != 0;
	int record = (q->flags & WF_RECORD) != 0;
	if (timed && !S.have_events) {
		if (cudaEventCreate(&S.ev[0]) != cudaSuccess ||
		    cudaEventCreate(&S.ev[1]) != cudaSuccess) {
			rep->status = WS_HARNESS;
			snprintf(rep->message, sizeof(rep->message),
				 "cudaEventCreate failed: %s",
				 cudaGetErrorString(cudaGetLastError()));
			return;
		}
		S.have_events = 1;
	}
	cudaError_t err = cudaSuccess;
	if (timed)
		err = cudaEventRecord(S.ev[0], 0);
	if (record)
		hx_launches_begin();
	unsigned long long off_before = hx__off_stream_launches();
	if (err == cudaSuccess && q->call >= 0)
		lab->calls[q->call](&a);
	else if (err == cudaSuccess && q->call == CALL_TINY)
		hx_tiny_kernel<<<1, 32>>>();
	int count = 0;
	if (record)
		count = hx_launches_end(ls->rec, WIRE_LAUNCHES);
	if (err == cudaSuccess && timed)
		err = cudaEventRecord(S.ev[1], 0);
	rep->off_stream = (int32_t)(hx__off_stream_launches() - off_before);
	rep->trace_us[1] = hx__now_us();
	cudaError_t last = cudaGetLastError();
	int launching = 1;
	if (last != cudaSuccess)
		err = last;
	if (err == cudaSuccess) {
		launching = 0;
		err = cudaDeviceSynchronize();
	}
	rep->trace_us[2] = hx__now_us();
	if (err != cudaSuccess) {
		rep->status = launching ? WS_LAUNCH_ERROR : WS_RUN_ERROR;
		hx__call_error_text(err, launching, what, rep->message,
				    sizeof(rep->message));
		return;
	}
	if (staged && (err = stage(q, 1)) != cudaSuccess) {
		rep->status = WS_HARNESS;
		snprintf(rep->message, sizeof(rep->message),
			 "copying the buffers back: %s", cudaGetErrorString(err));
		return;
	}
	if (timed) {
		float ms = 0;
		err = cudaEventElapsedTime(&ms, S.ev[0], S.ev[1]);
		if (err != cudaSuccess) {
			rep->status = WS_RUN_ERROR;
			hx__call_error_text(err, 0, what, rep->message,
					    sizeof(rep->message));
			return;
		}
		rep->event_us = 1000.0 * ms;
	}
	rep->launches = count;
	if (record) {
		ls->magic = WIRE_LAU_MAGIC;
		ls->seq = q->seq;
		ls->count = count;
		ls->nrec = count < WIRE_LAUNCHES ? count : WIRE_LAUNCHES;
		const char *syms[WIRE_SYMBOLS];
		ls->nsym = hx__launch_symbols(syms, WIRE_SYMBOLS);
		for (int i = 0; i < ls->nsym; i++)
			snprintf(ls->sym[i], sizeof(ls->sym[i]), "%s", syms[i]);
		ls->kernels_complete = hx__launch_kernels_complete();
	}
}

static void student_map(const struct wire_req *q)
{
	if (S.nmaps == MAX_ALLOCS) {
		student_reply(WS_HARNESS, "too many shared buffers", 0, 0, 0);
		return;
	}
	void *p = NULL;
	cudaError_t err = cudaIpcOpenMemHandle(&p, q->handle,
					       cudaIpcMemLazyEnablePeerAccess);
	if (err != cudaSuccess) {
		char msg[512];
		snprintf(msg, sizeof(msg),
			 "cudaIpcOpenMemHandle failed in the student's process: "
			 "%s (%s)", cudaGetErrorString(err), cudaGetErrorName(err));
		student_reply(WS_HARNESS, msg, 0, 0, 0);
		return;
	}
	S.maps[S.nmaps].id = q->alloc_id;
	S.maps[S.nmaps].base = p;
	S.maps[S.nmaps].bytes = (size_t)q->alloc_bytes;
	S.maps[S.nmaps].stage_off = (size_t)q->stage_off;
	S.maps[S.nmaps].twin = NULL;
	S.nmaps++;
	/* the allocation's first bytes as this process sees them: the judge
	 * compares them with its own (a mapping that starts elsewhere would
	 * make every check fail for no visible reason) */
	unsigned char head[8];
	char hex[17] = "";
	size_t nh = q->alloc_bytes < 8 ? (size_t)q->alloc_bytes : 8;
	err = cudaMemcpy(head, p, nh, cudaMemcpyDeviceToHost);
	if (err != cudaSuccess) {
		char msg[256];
		snprintf(msg, sizeof(msg), "reading a shared buffer: %s",
			 cudaGetErrorString(err));
		student_reply(WS_HARNESS, msg, 0, 0, 0);
		return;
	}
	for (size_t i = 0; i < nh; i++)
		snprintf(hex + 2 * i, 3, "%02x", head[i]);
	student_reply(WS_OK, hex, 0, 0, 0);
}

static void student_unmap(const struct wire_req *q)
{
	for (int i = 0; i < S.nmaps; i++) {
		if (S.maps[i].id != q->alloc_id)
			continue;
		cudaError_t err = cudaIpcCloseMemHandle(S.maps[i].base);
		if (S.maps[i].twin && err == cudaSuccess)
			err = cudaFree(S.maps[i].twin);
		S.maps[i] = S.maps[--S.nmaps];
		if (err != cudaSuccess) {
			char msg[256];
			snprintf(msg, sizeof(msg), "cudaIpcCloseMemHandle: %s",
				 cudaGetErrorString(err));
			student_reply(WS_HARNESS, msg, 0, 0, 0);
			return;
		}
		break;
	}
	student_reply(WS_OK, NULL, 0, 0, 0);
}

/* The student's process ends: what the launcher printed is flushed (the
 * grader keeps a step's output for people to read), nothing else runs. */
static void __attribute__((noreturn)) student_exit(int code)
{
	fflush(NULL);
	_exit(code);
}

/* Close every descriptor from `from` up. */
static void close_from(int from)
{
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)from, ~0u, 0) == 0)
		return;
#endif
	struct rlimit rl;
	long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
				   rl.rlim_cur != RLIM_INFINITY
			   ? (long)rl.rlim_cur
			   : 65536;
	if (max > (1L << 20))
		max = 1L << 20;
	for (long fd = from; fd < max; fd++)
		close((int)fd);
}

/* nvcc's registration of the student's kernels (__sti____cudaRegisterAll),
 * which the grader moved out of the static initialisers into the section
 * hx_register (grader/objcheck.h, objcheck_defer_registration): run here,
 * in the student's process after the fork, so that nothing of the
 * student's object runs in the judge. The linker defines these bounds
 * when the section is there; a step program linked without it (nothing
 * to register) has neither. */
extern "C" {
extern void (*const __start_hx_register[])(void)
	__attribute__((weak, visibility("hidden")));
extern void (*const __stop_hx_register[])(void)
	__attribute__((weak, visibility("hidden")));
}

static void student_registration(void)
{
	if (!__start_hx_register || !__stop_hx_register)
		return;
	for (void (*const *f)(void) = __start_hx_register;
	     f < __stop_hx_register; f++)
		(*f)();
}

/*
 * The student's process, from fork to its end: no descriptor but 0, 1, 2
 * and the socket (now 3); dies with the judge; its own CUDA context; then
 * requests, one at a time, until QUIT or the judge goes away.
 */
static void __attribute__((noreturn))
student_main(int sock, pid_t judge, const struct hx_lab *lab)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != judge)
		student_exit(0); /* the judge died before the line above */
	if (sock != 3) {
		if (dup2(sock, 3) < 0)
			student_exit(4);
		if (sock < 3) { /* 0-2 were closed: they become /dev/null */
			int nul = open("/dev/null", O_RDWR);
			if (nul < 0 || dup2(nul, sock) < 0)
				student_exit(4);
			if (nul != sock)
				close(nul);
		} else {
			close(sock);
		}
		sock = 3;
	}
	close_from(4);
	S.sock = sock;
	S.lab = lab;
	struct hx__student_side side = {student_die, student_todo};
	hx__become_student(&side);
	student_registration();
	signal(SIGPIPE, SIG_IGN);
	/* ready: nothing of the judge's is open here any more */
	student_reply(WS_OK, NULL, 0, 0, 0);

	static struct wire_req q;
	static struct wire_reply rep;
	static struct wire_launches ls;
	for (;;) {
		/* the next request, polled without sleeping for half a second
		 * first: between timed calls the judge's spot check, new inputs
		 * and L2 flush take longer than between its empty calls, and a
		 * core that slept longer wakes later, on the judge's clock
		 * only (judge_recv_spin says the same of the judge) */
		ssize_t n = -1;
		errno = EAGAIN;
		for (double until = hx__now_us() + 5e5;
		     n < 0 && errno == EAGAIN && hx__now_us() < until;) {
			n = recv(sock, &q, sizeof(q), MSG_TRUNC | MSG_DONTWAIT);
			if (n < 0 && errno == EAGAIN)
				sched_yield();
		}
		if (n < 0 && errno == EAGAIN)
			n = recv(sock, &q, sizeof(q), MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			student_exit(0); /* the judge closed: nothing left to do */
		if (n != (ssize_t)sizeof(q) || q.magic != WIRE_REQ_MAGIC)
			student_exit(4);
		S.received_us = hx__now_us();
		S.seq = q.seq;
		if (q.type == W_INIT) {
			/* the context, once the judge holds the GPU lock (no
			 * GPU work outside it, gpulock.h), while the judge makes
			 * its own */
			cudaError_t err = cudaSetDevice(0);
			if (err == cudaSuccess)
				err = cudaFree(0);
			if (err != cudaSuccess) {
				char msg[512];
				snprintf(msg, sizeof(msg),
					 "the student's process cannot use the "
					 "GPU: %s (%s)", cudaGetErrorString(err),
					 cudaGetErrorName(err));
				student_reply(WS_HARNESS, msg, 0, 0, 0);
				student_exit(3);
			}
			student_reply(WS_OK, NULL, 0, 0, 0);
			continue;
		}
		switch (q.type) {
		case W_MAP:
			student_map(&q);
			break;
		case W_UNMAP:
			student_unmap(&q);
			break;
		case W_CALL:
			memset(&ls, 0, sizeof(ls));
			serve_call(&q, &rep, &ls);
			rep.trace_us[0] = S.received_us;
			rep.trace_us[3] = hx__now_us();
			if (wire_send(sock, &rep, sizeof(rep)) < 0)
				student_exit(4);
			if (rep.status == WS_OK && (q.flags & WF_RECORD) &&
			    wire_send(sock, &ls, sizeof(ls)) < 0)
				student_exit(4);
			if (rep.status != WS_OK)
				student_exit(3); /* a context after an error is no use */
			break;
		case W_QUIT:
			student_exit(0);
		default:
			student_exit(4);
		}
	}
}

/* ---- the judge: the student's process ------------------------------------ */

static void judge_recv(void *buf, size_t size, const char *during);
static void expect_ok(const struct wire_reply *r, uint64_t seq,
		      const char *during);
static void __attribute__((noreturn)) reply_failed(struct wire_reply *r,
						   const char *during);

static void start_student(const struct hx_lab *lab)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		fprintf(stderr, "harness: socketpair: %s\n", strerror(errno));
		exit(2);
	}
	int buf = 1 << 18; /* a launch record message is ~45 KB */
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	fflush(NULL);
	pid_t judge = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, "harness: fork: %s\n", strerror(errno));
		exit(2);
	}
	if (pid == 0) {
		close(sv[0]);
		student_main(sv[1], judge, lab);
	}
	close(sv[1]);
	J.sock = sv[0];
	J.child = pid;
	/* the student's process says it is ready: its descriptors are closed
	 * before the judge opens anything (the GPU, NVML) */
	struct wire_reply r;
	judge_recv(&r, sizeof(r), "starting the student's process");
	expect_ok(&r, 0, "starting the student's process");
	if (r.status != WS_OK)
		reply_failed(&r, "starting the student's process");
	/* neither ptrace nor /proc/PID/mem, fd or environ of the judge for
	 * the student's process (same uid) */
	if (prctl(PR_SET_DUMPABLE, 0) < 0) {
		fprintf(stderr, "harness: PR_SET_DUMPABLE: %s\n", strerror(errno));
		exit(2);
	}
	signal(SIGPIPE, SIG_IGN);
	hx__set_own_processes(2);
}

/* How the student's process ended, in words; reaps it. */
static void describe_child_end(char *buf, size_t len, int wait_for_it)
{
	int st = 0;
	/* a second at most: a process that closed its end of the channel
	 * (close(3)) and then sleeps must not hold the judge until the
	 * grader's time limit */
	pid_t r = waitpid(J.child, &st, WNOHANG);
	for (int i = 0; wait_for_it && r == 0 && i < 100; i++) {
		usleep(10000);
		r = waitpid(J.child, &st, WNOHANG);
	}
	if (r == 0 || r < 0) {
		kill(J.child, SIGKILL);
		r = waitpid(J.child, &st, 0);
		if (r <= 0) {
			snprintf(buf, len, "it closed its channel");
			return;
		}
		snprintf(buf, len, "it closed its channel and was stopped");
		return;
	}
	if (WIFEXITED(st))
		snprintf(buf, len, "it exited with status %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "it was killed by signal %d (%s)",
			 WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "it stopped");
}

static void __attribute__((noreturn)) child_gone(const char *during)
{
	char how[160];
	describe_child_end(how, sizeof(how), 1);
	J.child = 0;
	hx_die("student_process",
	       "the student's process ended during %s: %s (a crash in the "
	       "launcher, exit(), or a signal; nothing it printed is read)",
	       during, how);
}

static void __attribute__((noreturn)) garbage(const char *during, ssize_t n,
					      const char *what)
{
	kill(J.child, SIGKILL);
	hx_die("student_process",
	       "the student's process answered %s with something that is not "
	       "a reply (%zd bytes, %s): its memory or its channel was "
	       "tampered with",
	       during, n, what);
}

/* One message of exactly `size` bytes, or the step ends (crash). */
static void judge_recv(void *buf, size_t size, const char *during)
{
	for (;;) {
		struct pollfd p = {J.sock, POLLIN, 0};
		int rc = poll(&p, 1, 250);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc == 0) {
			/* alive? (a descendant may hold the socket open) */
			int st;
			if (waitpid(J.child, &st, WNOHANG) == J.child) {
				char how[160];
				if (WIFEXITED(st))
					snprintf(how, sizeof(how),
						 "it exited with status %d",
						 WEXITSTATUS(st));
				else
					snprintf(how, sizeof(how),
						 "it was killed by signal %d (%s)",
						 WTERMSIG(st),
						 strsignal(WTERMSIG(st)));
				J.child = 0;
				hx_die("student_process",
				       "the student's process ended during "
				       "%s: %s", during, how);
			}
			continue;
		}
		ssize_t n = recv(J.sock, buf, size, MSG_TRUNC | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			child_gone(during);
		if ((size_t)n != size)
			garbage(during, n, "wrong length");
		return;
	}
}

/*
 * The reply to a timed call: read by polling without sleeping (yielding the
 * CPU to anything else runnable), at most a second, then as judge_recv.
 * A judge asleep in poll() through a call of a millisecond lets its core
 * drop into a deep idle state (or its vCPU be descheduled), and the wake-up
 * (tens of us or more) lands on the judge's clock but not between the
 * events: an honest long call would then breach the clock bound
 * (HX_CLOCK_*), which compares with the empty calls' round trips, short
 * enough to wake fast. The student's process waits the same way (CUDA's
 * default spin in cudaDeviceSynchronize), as one process did before.
 */
static void judge_recv_spin(void *buf, size_t size, const char *during)
{
	double until = hx__now_us() + 1e6;
	while (hx__now_us() < until) {
		ssize_t n = recv(J.sock, buf, size, MSG_TRUNC | MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
			sched_yield();
			continue;
		}
		if (n <= 0)
			child_gone(during);
		if ((size_t)n != size)
			garbage(during, n, "wrong length");
		return;
	}
	judge_recv(buf, size, during);
}

static void collect_init(void);

static void judge_send(const struct wire_req *q, const char *during)
{
	collect_init();
	if (wire_send(J.sock, q, sizeof(*q)) < 0)
		child_gone(during);
}

static struct export_entry *find_export(void *alloc)
{
	for (int i = 0; i < J.nex; i++)
		if (J.ex[i].alloc == alloc)
			return &J.ex[i];
	return NULL;
}

static void expect_ok(const struct wire_reply *r, uint64_t seq,
		      const char *during)
{
	if (r->magic != WIRE_REP_MAGIC || r->status >= WS_COUNT)
		garbage(during, (ssize_t)sizeof(*r), "bad magic or status");
	if (r->status == WS_OK && r->seq != seq)
		garbage(during, (ssize_t)sizeof(*r), "out of order");
}

/* The reply's text, as far as it is text. */
static void reply_text(struct wire_reply *r)
{
	r->message[sizeof(r->message) - 1] = 0;
	for (char *p = r->message; *p; p++)
		if ((unsigned char)*p < 0x20 && *p != '\n')
			*p = ' ';
}

/* A reply that is not ok ends the step, the way an in-process error did. */
static void __attribute__((noreturn)) reply_failed(struct wire_reply *r,
						   const char *during)
{
	reply_text(r);
	switch (r->status) {
	case WS_TODO: {
		int line = r->line;
		hx_emit(json_pack("{s:s, s:s, s:i}", "event", "todo", "file",
				  r->message, "line", line));
		exit(hx_finish(0));
	}
	case WS_LAUNCH_ERROR:
	case WS_RUN_ERROR:
		hx_die("cuda", "%s", r->message);
	case WS_BAD_REQUEST:
		hx_die("harness", "the student's process refused %s: %s",
		       during, r->message);
	default:
		hx_die("student_process",
		       "the student's process failed during %s: %s", during,
		       r->message);
	}
}

/* The student's process makes its CUDA context when told (W_INIT, sent
 * once the judge holds the GPU lock); its answer is read before the next
 * request. */
static uint64_t init_seq;

static void send_init(void)
{
	if (J.sock < 0)
		return;
	struct wire_req q;
	memset(&q, 0, sizeof(q));
	q.magic = WIRE_REQ_MAGIC;
	q.type = W_INIT;
	q.seq = init_seq = ++J.seq;
	if (wire_send(J.sock, &q, sizeof(q)) < 0)
		child_gone("starting");
}

static void collect_init(void)
{
	if (!init_seq)
		return;
	uint64_t seq = init_seq;
	init_seq = 0;
	struct wire_reply r;
	judge_recv(&r, sizeof(r), "starting the student's process");
	expect_ok(&r, seq, "starting the student's process");
	if (r.status != WS_OK)
		reply_failed(&r, "starting the student's process");
}

/* Share allocation alloc with the student's process (once). */
static uint32_t export_alloc(void *alloc, size_t bytes, size_t stage_off)
{
	struct export_entry *e = find_export(alloc);
	if (!e) {
		if (J.nex == MAX_ALLOCS)
			hx_die("harness", "more than %d buffers shared",
			       MAX_ALLOCS);
		e = &J.ex[J.nex++];
		e->alloc = alloc;
		e->bytes = bytes;
		e->stage_off = stage_off;
		e->id = J.next_id++;
		e->mapped = 0;
	}
	if (e->mapped || J.sock < 0) {
		e->mapped = 1;
		return e->id;
	}
	struct wire_req q;
	memset(&q, 0, sizeof(q));
	q.magic = WIRE_REQ_MAGIC;
	q.type = W_MAP;
	q.seq = ++J.seq;
	q.alloc_id = e->id;
	q.alloc_bytes = e->bytes;
	q.stage_off = e->stage_off;
	HX_CHECK(cudaIpcGetMemHandle(&q.handle, alloc));
	/* the judge's writes so far (hx_buffer_new's guard memset, a lab's
	 * fill or cudaMemset in its timing function) are finished before the
	 * student's process reads the head below: two contexts are ordered
	 * only by a full synchronisation of the one that wrote */
	HX_CHECK(cudaDeviceSynchronize());
	judge_send(&q, "sharing a buffer");
	struct wire_reply r;
	judge_recv(&r, sizeof(r), "sharing a buffer");
	expect_ok(&r, q.seq, "sharing a buffer");
	if (r.status != WS_OK)
		reply_failed(&r, "sharing a buffer");
	unsigned char head[8];
	char hex[17] = "";
	size_t nh = e->bytes < 8 ? e->bytes : 8;
	HX_CHECK(cudaMemcpy(head, alloc, nh, cudaMemcpyDeviceToHost));
	for (size_t i = 0; i < nh; i++)
		snprintf(hex + 2 * i, 3, "%02x", head[i]);
	r.message[sizeof(r.message) - 1] = 0;
	if (strcmp(hex, r.message))
		hx_die("harness",
		       "CUDA IPC: the student's process sees %.16s at the start "
		       "of a shared buffer where the judge has %s (the mapping "
		       "does not start at the allocation)", r.message, hex);
	e->mapped = 1;
	return e->id;
}

/* hx_buffer_free's pool gives alloc back: the student's process first
 * drops its mapping. */
static void release_alloc(void *alloc)
{
	struct export_entry *e = find_export(alloc);
	if (!e)
		return;
	if (e->mapped && J.sock >= 0) {
		struct wire_req q;
		memset(&q, 0, sizeof(q));
		q.magic = WIRE_REQ_MAGIC;
		q.type = W_UNMAP;
		q.seq = ++J.seq;
		q.alloc_id = e->id;
		judge_send(&q, "releasing a buffer");
		struct wire_reply r;
		judge_recv(&r, sizeof(r), "releasing a buffer");
		expect_ok(&r, q.seq, "releasing a buffer");
		if (r.status != WS_OK)
			reply_failed(&r, "releasing a buffer");
	}
	*e = J.ex[--J.nex];
}

static void stop_student(void)
{
	if (J.sock < 0 || !J.child)
		return;
	struct wire_req q;
	memset(&q, 0, sizeof(q));
	q.magic = WIRE_REQ_MAGIC;
	q.type = W_QUIT;
	q.seq = ++J.seq;
	wire_send(J.sock, &q, sizeof(q));
	close(J.sock);
	J.sock = -1;
	/* a second for it to go, then it is stopped */
	for (int i = 0; i < 100; i++) {
		int st;
		if (waitpid(J.child, &st, WNOHANG) == J.child) {
			J.child = 0;
			return;
		}
		usleep(10000);
	}
	kill(J.child, SIGKILL);
	waitpid(J.child, NULL, 0);
	J.child = 0;
}

/* ---- the judge: requests ------------------------------------------------- */

struct call_result {
	double event_us; /* the student's process's claim (WF_TIME) */
	double trace_us[4]; /* its own clock's readings (CUDALAB_CLOCK_TRACE) */
	double t0_us;       /* the judge's clock at the request (timed calls) */
	int launches;
	int off_stream; /* launches on a stream other than the default */
	struct wire_launches *ls; /* with WF_RECORD */
};

struct clock_zero {
	double min_us, median_us; /* of the empty calls' overheads */
};
static struct clock_zero empty_round_trips(struct hx_run *r,
					   const struct hx_request *req,
					   const char *kind);
static double timed_round_trip(struct hx_run *r, const struct hx_request *req,
			       int call, struct call_result *res);

/* Send one request (call -1: an empty one) and wait for the reply; any
 * failure ends the step with its message. */
static void judge_call(struct hx_run *r, const struct hx_request *req,
		       int call, uint32_t flags, struct call_result *out)
{
	static struct wire_req q;
	static struct wire_reply rep;
	static struct wire_launches ls;
	memset(&q, 0, sizeof(q));
	q.magic = WIRE_REQ_MAGIC;
	q.type = W_CALL;
	q.flags = flags;
	q.call = call;
	const char *what = req && req->what ? req->what
					    : r ? r->what : "an empty call";
	snprintf(q.what, sizeof(q.what), "%s", what);
	if (req && call >= 0) {
		q.nbuf = req->nbuf;
		for (int b = 0; b < req->nbuf; b++) {
			struct hx_buffer *hb = &r->buf[req->buf[b]];
			q.buf_alloc[b] = export_alloc(
				hb->alloc, r->alloc_bytes[req->buf[b]],
				r->stage_off[req->buf[b]]);
			q.buf_off[b] = (uint64_t)((unsigned char *)hb->data -
						  hb->alloc) +
				       req->buf_offset[b];
		}
		memcpy(q.i, req->i, sizeof(q.i));
		memcpy(q.f, req->f, sizeof(q.f));
	}
	q.seq = ++J.seq;
	memset(out, 0, sizeof(*out));
	/* whatever the judge wrote (inputs, poison, a perturbation) is done
	 * before the other context runs the call; a timed call's caller has
	 * just synchronised, outside the clock */
	if (!(flags & WF_TIME))
		HX_CHECK(cudaDeviceSynchronize());
	if (J.sock < 0) { /* --in-process */
		memset(&ls, 0, sizeof(ls));
		serve_call(&q, &rep, &ls);
	} else {
		judge_send(&q, q.what);
		if (flags & WF_TIME)
			judge_recv_spin(&rep, sizeof(rep), q.what);
		else
			judge_recv(&rep, sizeof(rep), q.what);
		expect_ok(&rep, q.seq, q.what);
	}
	if (rep.status != WS_OK)
		reply_failed(&rep, q.what);
	if (!isfinite(rep.event_us) || rep.event_us < 0 ||
	    rep.event_us > 3.6e9)
		garbage(q.what, (ssize_t)sizeof(rep), "a time that is no time");
	out->event_us = rep.event_us;
	memcpy(out->trace_us, rep.trace_us, sizeof(out->trace_us));
	out->launches = rep.launches < 0 ? 0 : rep.launches;
	out->off_stream = rep.off_stream;
	if (flags & WF_RECORD) {
		if (J.sock >= 0) {
			judge_recv(&ls, sizeof(ls), q.what);
			if (ls.magic != WIRE_LAU_MAGIC || ls.seq != q.seq)
				garbage(q.what, (ssize_t)sizeof(ls),
					"launch records out of order");
		}
		if (ls.nrec < 0 || ls.nrec > WIRE_LAUNCHES || ls.nsym < 0 ||
		    ls.nsym > WIRE_SYMBOLS || ls.count < ls.nrec)
			garbage(q.what, (ssize_t)sizeof(ls),
				"launch counts out of range");
		for (int i = 0; i < ls.nrec; i++) {
			ls.rec[i].kernel[sizeof(ls.rec[i].kernel) - 1] = 0;
			ls.rec[i].symbol[sizeof(ls.rec[i].symbol) - 1] = 0;
		}
		for (int i = 0; i < ls.nsym; i++)
			ls.sym[i][sizeof(ls.sym[i]) - 1] = 0;
		out->ls = &ls;
	}
}

/* ---- the judge: buffers --------------------------------------------------- */

static unsigned long long fresh_key(void)
{
	unsigned long long k;
	if (getrandom(&k, sizeof(k), 0) == (ssize_t)sizeof(k))
		return k;
	static unsigned long long n;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return hx_key_bits((unsigned long long)ts.tv_nsec ^
				   ((unsigned long long)ts.tv_sec << 30),
			   ++n);
}


int hx_buf(struct hx_run *r, const char *name, size_t bytes, size_t offset,
	   size_t elem_size, enum hx_role role)
{
	if (r->nbufs == HX_MAX_BUFS)
		hx_die("harness", "case %s: more than %d buffers", r->c.name,
		       HX_MAX_BUFS);
	int i = r->nbufs++;
	r->role[i] = role;
	r->elem[i] = elem_size ? elem_size : 1;
	if (role == HX_IN_EXACT) {
		/* the data at the start of a block of its own (whole 2 MiB
		 * units): cudaMalloc may carve a small allocation out of a
		 * block it shares with others, and CUDA IPC then maps the whole
		 * block into the student's process (the judge's other small
		 * allocations with it) and may return the block's start rather
		 * than the data's. A read past the data's end stays in the
		 * block (no fault in an ordinary run, as the exact allocation
		 * of one process gave); compute-sanitizer's memcheck sees it in
		 * the staged runs, where the student's process's copy is a
		 * cudaMalloc of exactly the data's bytes (alloc_bytes).
		 * --in-process shares nothing and runs nothing staged: there
		 * the allocation itself is exact, for memcheck */
		unsigned char *p = NULL;
		size_t total = J.sock < 0 ? (bytes ? bytes : 1)
					  : hx__alloc_total(bytes, 0);
		HX_CHECK(cudaMalloc((void **)&p, total));
		struct hx_buffer b = {name, p, p, bytes, 0, HX_GUARD_BYTE};
		r->buf[i] = b;
		r->alloc_bytes[i] = bytes;
		r->stage_off[i] = 0;
	} else {
		r->buf[i] = hx_buffer_new(name, bytes, offset);
		r->alloc_bytes[i] = hx__alloc_total(bytes, offset);
		r->stage_off[i] = 0;
	}
	return i;
}

struct hx_buffer *hx_buf_get(struct hx_run *r, int i)
{
	if (i < 0 || i >= r->nbufs)
		hx_die("harness", "case %s: no buffer %d", r->c.name, i);
	return &r->buf[i];
}

struct hx_request *hx_run_request(struct hx_run *r)
{
	return &r->req;
}

const struct hx_case *hx_run_case(const struct hx_run *r)
{
	return &r->c;
}

void *hx_run_lab_ctx(const struct hx_run *r)
{
	return r->lab->ctx;
}

static void free_run(struct hx_run *r)
{
	for (int i = 0; i < r->nbufs; i++) {
		if (!r->buf[i].alloc)
			continue;
		if (r->role[i] == HX_IN_EXACT) {
			release_alloc(r->buf[i].alloc);
			HX_CHECK(cudaFree(r->buf[i].alloc));
			r->buf[i].alloc = NULL;
		} else {
			hx_buffer_free(&r->buf[i]);
		}
	}
	r->nbufs = 0;
}

__global__ void hx_sample_kernel(const unsigned char *base,
				 const unsigned long long *index, int count,
				 unsigned elem, unsigned char *out)
{
	int k = blockIdx.x * blockDim.x + threadIdx.x;
	if (k >= count)
		return;
	const unsigned char *src = base + index[k] * elem;
	for (unsigned b = 0; b < elem; b++)
		out[(size_t)k * elem + b] = src[b];
}

void hx_buf_sample(struct hx_run *r, int i, unsigned long long byte_offset,
		   size_t elem_size, const size_t *index, int count, void *out)
{
	struct hx_buffer *b = hx_buf_get(r, i);
	if (count <= 0)
		return;
	if (count > HX_SPOT_MAX || elem_size == 0 || elem_size > 64)
		hx_die("harness", "hx_buf_sample: %d elements of %zu bytes",
		       count, elem_size);
	size_t n = (b->bytes - (byte_offset < b->bytes ? byte_offset : b->bytes)) /
		   elem_size;
	static unsigned long long *d_index;
	static unsigned char *d_out;
	if (!d_index) {
		HX_CHECK(cudaMalloc((void **)&d_index,
				    HX_SPOT_MAX * sizeof(*d_index)));
		HX_CHECK(cudaMalloc((void **)&d_out, HX_SPOT_MAX * 64));
	}
	unsigned long long h_index[HX_SPOT_MAX];
	for (int k = 0; k < count; k++) {
		if (index[k] >= n)
			hx_die("harness", "hx_buf_sample: index %zu of %zu in %s",
			       index[k], n, b->name);
		h_index[k] = index[k];
	}
	HX_CHECK(cudaMemcpy(d_index, h_index, count * sizeof(*d_index),
			    cudaMemcpyHostToDevice));
	hx_sample_kernel<<<(count + 127) / 128, 128>>>(
		(const unsigned char *)b->data + byte_offset, d_index, count,
		(unsigned)elem_size, d_out);
	HX_CHECK(cudaGetLastError());
	HX_CHECK(cudaMemcpy(out, d_out, count * elem_size,
			    cudaMemcpyDeviceToHost));
}

void hx_spot_indices(size_t n, size_t *index, int count)
{
	for (int k = 0; k < count; k++)
		index[k] = n ? (size_t)(fresh_key() % n) : 0;
}

__global__ void hx_fill_floats_kernel(float *p, size_t n,
				      unsigned long long key, int lo, int hi)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
	     k += stride)
		p[k] = hx_key_float(key, k, lo, hi);
}

void hx_buf_fill_floats(struct hx_run *r, int i,
			unsigned long long byte_offset, size_t count,
			unsigned long long key, int lo_exp, int hi_exp)
{
	struct hx_buffer *b = hx_buf_get(r, i);
	if (byte_offset > b->bytes ||
	    count > (b->bytes - byte_offset) / sizeof(float) ||
	    byte_offset % sizeof(float))
		hx_die("harness", "hx_buf_fill_floats: %zu floats at byte %llu "
				  "of %s (%zu bytes)",
		       count, byte_offset, b->name, b->bytes);
	if (count == 0)
		return;
	hx_fill_floats_kernel<<<4 * hx_device()->multiProcessorCount, 256>>>(
		(float *)((unsigned char *)b->data + byte_offset), count, key,
		lo_exp, hi_exp);
	HX_CHECK(cudaGetLastError());
}

/* A fingerprint of a buffer's bytes, on the GPU: a sum of mixed (index,
 * byte) pairs, so any change of a byte changes it (but for a 2^-64
 * chance). */
__global__ void hx_fingerprint_kernel(const unsigned char *p, size_t n,
				      unsigned long long *out)
{
	size_t stride = (size_t)gridDim.x * blockDim.x;
	unsigned long long h = 0;
	for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n;
	     k += stride)
		h += hx_key_bits(0x6A09E667F3BCC909ull ^ p[k], k);
	atomicAdd(out, h);
}

static unsigned long long fingerprint(const struct hx_buffer *b)
{
	static unsigned long long *d;
	if (!d)
		HX_CHECK(cudaMalloc((void **)&d, sizeof(*d)));
	HX_CHECK(cudaMemset(d, 0, sizeof(*d)));
	if (b->bytes) {
		hx_fingerprint_kernel<<<4 * hx_device()->multiProcessorCount,
					256>>>((const unsigned char *)b->data,
					       b->bytes, d);
		HX_CHECK(cudaGetLastError());
	}
	unsigned long long h = 0;
	HX_CHECK(cudaMemcpy(&h, d, sizeof(h), cudaMemcpyDeviceToHost));
	return h;
}

/* ---- the judge: cases ----------------------------------------------------- */

#define MAX_CASES 600

struct hx_plan {
	struct hx_case *cases;
	int n;
	struct hx_case timed;
	int has_timed;
};

static struct hx_case *add_case(struct hx_plan *p, int timed, const char *fmt,
				va_list ap)
{
	struct hx_case *c;
	if (timed) {
		if (p->has_timed)
			hx_die("harness", "a lab declares one timed case");
		c = &p->timed;
		p->has_timed = 1;
	} else {
		if (p->n == MAX_CASES)
			hx_die("harness", "more than %d cases", MAX_CASES);
		c = &p->cases[p->n++];
	}
	memset(c, 0, sizeof(*c));
	vsnprintf(c->name, sizeof(c->name), fmt, ap);
	if (timed) {
		size_t len = strlen(c->name);
		snprintf(c->name + len, sizeof(c->name) - len, " (timed size)");
		c->timed = 1;
	}
	return c;
}

struct hx_case *hx_add_case(struct hx_plan *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct hx_case *c = add_case(p, 0, fmt, ap);
	va_end(ap);
	return c;
}

struct hx_case *hx_add_timed_case(struct hx_plan *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	struct hx_case *c = add_case(p, 1, fmt, ap);
	va_end(ap);
	return c;
}

static void check_request(const struct hx_run *r, const struct hx_request *q)
{
	if (q->call < 0 || q->call >= r->lab->ncalls || q->nbuf < 0 ||
	    q->nbuf > HX_MAX_BUFS)
		hx_die("harness", "case %s: a request of call %d with %d "
				  "buffers", r->c.name, q->call, q->nbuf);
	for (int b = 0; b < q->nbuf; b++) {
		if (q->buf[b] < 0 || q->buf[b] >= r->nbufs)
			hx_die("harness", "case %s: request buffer %d is %d",
			       r->c.name, b, q->buf[b]);
		if (q->buf_offset[b] > r->buf[q->buf[b]].bytes)
			hx_die("harness", "case %s: offset %llu past the end "
					  "of %s", r->c.name, q->buf_offset[b],
			       r->buf[q->buf[b]].name);
	}
}

/* Poison outputs, fingerprint inputs: what every call gets first. */
static void before_call(struct hx_run *r)
{
	for (int i = 0; i < r->nbufs; i++) {
		if (r->role[i] == HX_OUT || r->role[i] == HX_SCRATCH)
			hx_buffer_poison(&r->buf[i]);
		if (r->role[i] == HX_IN || r->role[i] == HX_IN_EXACT)
			r->fingerprint[i] = fingerprint(&r->buf[i]);
	}
	HX_CHECK(cudaDeviceSynchronize());
}

/*
 * One case: setup, the call in the student's process, the checks. keep:
 * the run stays allocated (the timed case, for timing). Returns 1 when the
 * case passed.
 */
static int run_case(const struct hx_lab *lab, const struct hx_case *c,
		    struct hx_run *r, int keep)
{
	memset(r, 0, sizeof(*r));
	r->c = *c;
	r->lab = lab;
	lab->setup(r, &r->c);
	struct hx_request *q = &r->req;
	snprintf(r->what, sizeof(r->what), "%s", q->what ? q->what : c->name);
	q->what = r->what;
	check_request(r, q);
	before_call(r);

	int record = c->timed && !c->again;
	/* correctness-only runs are the ones under ncu and compute-sanitizer:
	 * staged (WF_STAGE) */
	const struct hx_options *o = hx_opts();
	uint32_t flags = (record ? WF_RECORD : 0) |
			 (o->profile || !o->timing ? WF_STAGE : 0);
	struct call_result res;
	judge_call(r, q, q->call, flags, &res);
	if (record) {
		const char *syms[WIRE_SYMBOLS];
		for (int i = 0; i < res.ls->nsym; i++)
			syms[i] = res.ls->sym[i];
		hx__launch_report(res.ls->rec, res.ls->count, (double)c->n, syms,
				  res.ls->nsym, res.ls->kernels_complete);
	}

	struct hx_mismatches m;
	hx_mismatches_init(&m);
	char msg[512] = "";
	lab->check(r, &r->c, &m, msg, sizeof(msg));
	for (int i = 0; i < r->nbufs; i++) {
		if (r->role[i] != HX_IN && r->role[i] != HX_IN_EXACT)
			continue;
		if (fingerprint(&r->buf[i]) == r->fingerprint[i])
			continue;
		size_t len = strlen(msg);
		snprintf(msg + len, sizeof(msg) - len,
			 "%s%s was changed, but it is read-only",
			 len ? "; " : "", r->buf[i].name);
		if (!m.count) {
			char want[64], got[64];
			snprintf(want, sizeof(want), "%s unchanged",
				 r->buf[i].name);
			snprintf(got, sizeof(got), "%s modified", r->buf[i].name);
			hx_mismatch(&m, 0, want, got, NULL);
		}
	}
	int ok = hx_case_end(c->name, (size_t)c->n, &m, msg[0] ? msg : NULL);
	for (int i = 0; i < r->nbufs; i++)
		if (r->role[i] != HX_IN_EXACT)
			ok &= hx_buffer_check_guards(&r->buf[i], r->elem[i]);
	if (!keep)
		free_run(r);
	return ok;
}

/* ---- the judge: timing ------------------------------------------------------ */


/* CUDALAB_CLOCK_TRACE=1: one stderr line per empty and timed call of the
 * judge's clock, with the student's process's own clock readings, for a
 * developer asking where a round trip's time goes (the readings come from
 * the student's process: shown, never used). */
static int clock_trace(void)
{
	static int on = -1;
	if (on < 0) {
		const char *v = getenv("CUDALAB_CLOCK_TRACE");
		on = v && *v && strcmp(v, "0");
	}
	return on;
}

static void trace_call(const char *kind, int i, double t0, double host,
		       const struct call_result *res)
{
	if (!clock_trace())
		return;
	const double *d = res->trace_us;
	fprintf(stderr,
		"clock %-6s %3d host %8.1f event %8.1f  send->recv %7.1f "
		"enqueue %7.1f sync %8.1f reply %6.1f back %7.1f\n",
		kind, i, host, res->event_us, d[0] - t0, d[1] - d[0],
		d[2] - d[1], d[3] - d[2], t0 + host - d[3]);
}

/* One timed call: new inputs, the L2 flush, the call; host and claimed
 * time; then the spot check. */
/* A timed call launched work off the default stream: the timing events on
 * stream 0 need not see it (a non-blocking stream runs beside them), and a
 * launcher that did so on all calls but a few kept the judge's smallest gap
 * honest. Every timed call is checked, not only the one described. */
static void off_stream_caught(struct hx_run *r, int callno, int launches,
			      const char *what)
{
	char msg[480];
	snprintf(msg, sizeof(msg),
		 "timed call %d of %s launched %d kernel%s on a stream other "
		 "than the default stream: the timing events on stream 0 do "
		 "not wait for it, so the claimed time leaves that work out "
		 "(enqueue every kernel on the default stream)",
		 callno + 1, what, launches, launches == 1 ? "" : "s");
	hx_emit(json_pack("{s:s, s:s, s:b, s:s, s:s}", "event", "integrity",
			  "check", "timed_stream", "ok", 0, "case", r->c.name,
			  "message", msg));
	exit(hx_finish(0)); /* the GPU lock goes with the process */
}

static void timed_call(struct hx_run *r, const struct hx_request *req,
		       int spot, int callno, double *claimed, double *host,
		       const char *what)
{
	const struct hx_lab *lab = r->lab;
	unsigned long long key = fresh_key();
	if (spot && lab->perturb)
		lab->perturb(r, req, key);
	hx__flush_l2(callno);
	HX_CHECK(cudaDeviceSynchronize());
	struct call_result res;
	*host = timed_round_trip(r, req, req->call, &res);
	*claimed = res.event_us;
	trace_call(spot ? "timed" : "warmup", callno, res.t0_us, *host, &res);
	if (res.off_stream)
		off_stream_caught(r, callno, res.off_stream, what);
	if (!spot || !lab->spot)
		return;
	struct hx_mismatches m;
	hx_mismatches_init(&m);
	lab->spot(r, req, key, &m);
	if (!m.count) {
		json_decref(m.first);
		return;
	}
	char name[160], msg[512];
	snprintf(name, sizeof(name), "%s: timed call %d (spot check)",
		 r->c.name, callno + 1);
	snprintf(msg, sizeof(msg),
		 "timed call %d of %s left wrong outputs (%zu of %zu sampled "
		 "elements differ from the reference for that call's inputs): "
		 "every timed call gets new inputs, so a launcher that skips "
		 "calls, caches results or returns before its work is done is "
		 "caught here",
		 callno + 1, what, m.count, m.checked);
	hx_case_end(name, (size_t)r->c.n, &m, msg);
	exit(hx_finish(0));
}

#define BATCH 10
#define NULL_CALLS 10
#define GPU_ATTEMPTS 3

/*
 * The judge's clock's zero: what a call that launches one empty kernel costs
 * on the judge's clock beyond its events. Each of NULL_CALLS calls follows
 * the judge's L2 flush as a timed call does: on an H100 the GPU spends about
 * 145 us switching to the student's context after any work of the judge's
 * (a flush, a 256-byte memset), but only about 5 us at times, e.g. right
 * after the student's process opened a shared buffer (CUDALAB_CLOCK_TRACE).
 * The first NULL_SKIP calls are left out (a cold start, the cheap switch);
 * the zero is the shortest of the rest, and the central bound's zero their
 * median.
 *
 * Made once in a pristine student's process ("first", hx_lab_main: before
 * any buffer is shared and before the student's code first runs, so that
 * process cannot yet answer slowly to widen the bound), and again before
 * each timing ("now": which the student's code can lengthen, so it only
 * tells a call the judge cannot bound from one it caught).
 */
#define NULL_SKIP 3
/*
 * The judge's clock around one timed call ends at a kernel of the judge's
 * own context after the reply, not at the reply: the synchronization that
 * ends a call runs in the student's process, and a process whose code took
 * over its side of the protocol could reply while its kernel still runs.
 * Without MPS the GPU runs one context's kernels at a time, so the judge's
 * kernel starts only when the student's context has no work left or its
 * time slice ends (a copy would not do: copy engines serve another context
 * while kernels run). The zero (empty_round_trips) is measured the same
 * way, so an honest call's fence costs nothing against it.
 */
static void judge_fence(void)
{
	hx_tiny_kernel<<<1, 32>>>();
	HX_CHECK(cudaGetLastError());
	HX_CHECK(cudaDeviceSynchronize());
}

/* One call the judge times: request, reply, fence; the host time. */
static double timed_round_trip(struct hx_run *r, const struct hx_request *req,
			       int call, struct call_result *res)
{
	double t0 = hx__now_us();
	judge_call(r, req, call, WF_TIME, res);
	judge_fence();
	double host = hx__now_us() - t0;
	res->t0_us = t0;
	return host;
}

static struct clock_zero empty_round_trips(struct hx_run *r,
					   const struct hx_request *req,
					   const char *kind)
{
	double over[NULL_CALLS];
	for (int i = 0; i < NULL_SKIP + NULL_CALLS; i++) {
		struct call_result res;
		hx__flush_l2(i);
		HX_CHECK(cudaDeviceSynchronize());
		double h = timed_round_trip(r, req, CALL_TINY, &res);
		trace_call(kind, i, res.t0_us, h, &res);
		if (i >= NULL_SKIP)
			over[i - NULL_SKIP] = h - res.event_us;
	}
	struct sample_stats st;
	struct clock_zero z = {INFINITY, INFINITY};
	if (stats_summarize(over, NULL_CALLS, &st) == 0)
		z.min_us = st.min, z.median_us = st.median;
	return z;
}

struct hx_timing hx_time_student(struct hx_run *r, const struct hx_request *req,
				 const char *what)
{
	check_request(r, req);
	struct hx_request q = *req;
	char whatbuf[160];
	snprintf(whatbuf, sizeof(whatbuf), "%s", what ? what : r->what);
	if (!q.what)
		q.what = whatbuf;

	struct hx_timing t;
	memset(&t, 0, sizeof(t));
	const struct hx_options *o = hx_opts();
	t.rounds = o->rounds;
	struct stop_rule rule;
	size_t fixed;
	hx__stop_rule(&rule, &fixed);

	double began = hx__now_us();
	hx_gpu_exclusive_begin();
	for (int b = 0; b < q.nbuf; b++) /* shared before the clock runs */
		export_alloc(r->buf[q.buf[b]].alloc,
			     r->alloc_bytes[q.buf[b]], r->stage_off[q.buf[b]]);

	if (J.pristine_null_us < 0)
		hx_die("harness", "timing without the judge's clock zero (the "
				  "program ran with --no-timing or --profile)");
	double null_gap = J.pristine_null_us;
	double null_med = J.pristine_null_med_us;

	std::vector<double> claimed, host;
	claimed.reserve(fixed ? fixed : rule.max_n + BATCH);
	host.reserve(claimed.capacity());
	struct gpu_reading seen;
	enum gpu_condition cond = GPU_OURS;
	char why[512] = "";
	double gap = 0, now_null = 0, over_us = 0, med_gap = 0, now_med = 0;
	enum clock_verdict central = CLOCK_OK;
	int ok = 1, callno = 0;
	for (int attempt = 1; attempt <= GPU_ATTEMPTS; attempt++) {
		struct clock_zero now = empty_round_trips(r, &q, "empty");
		now_null = now.min_us;
		now_med = now.median_us;
		unsigned long long since = gpustate_now_us();
		memset(&seen, 0, sizeof(seen));
		seen.processes = seen.active_processes = -1;
		for (int i = 0; i < o->warmup; i++) {
			double c, h;
			timed_call(r, &q, 0, i, &c, &h, whatbuf);
		}
		double gap_min = INFINITY;
		over_us = 0;
		for (int round = 0; round < o->rounds; round++) {
			hx_emit(json_pack("{s:s, s:s, s:i, s:i}", "event",
					  "progress", "phase", "timing", "done",
					  round, "total", o->rounds));
			claimed.clear();
			host.clear();
			double measured_s = 0;
			const char *stop = NULL;
			struct sample_stats s;
			while (!stop) {
				size_t b = BATCH;
				if (fixed && fixed - claimed.size() < b)
					b = fixed - claimed.size();
				for (size_t i = 0; i < b; i++) {
					double c, h;
					timed_call(r, &q, 1, callno++, &c, &h,
						   whatbuf);
					claimed.push_back(c);
					host.push_back(h);
					measured_s += 1e-6 * c;
					if (h - c < gap_min)
						gap_min = h - c;
					/* a call's events lie inside the judge's
					 * clock around it (red team, 2026-11-27:
					 * one claim longer than its call made the
					 * smallest gap negative, and every other
					 * call's claim free) */
					double over = stats_claim_over_call(
						c, h, HX_CLOCK_GRAIN_US);
					if (over > over_us)
						over_us = over;
				}
				hx__read_gpu(since, &seen);
				stats_summarize(claimed.data(), claimed.size(),
						&s);
				if (fixed)
					stop = claimed.size() >= fixed ? "fixed"
								       : NULL;
				else
					stop = stats_should_stop(&rule, &s,
								 measured_s);
			}
			t.stop = stop;
			stats_summarize(claimed.data(), claimed.size(), &t.us);
			if (round < 16)
				t.round_median_us[round] = t.us.median;
		}
		t.reps = (int)claimed.size();
		double bound = HX_CLOCK_SLACK_US +
			       HX_CLOCK_FRACTION * t.us.median;
		gap = gap_min - null_gap;
		enum clock_verdict cv = over_us > 0 ? CLOCK_CAUGHT :
				stats_clock_verdict(gap_min, null_gap, now_null,
						    bound);
		ok = cv == CLOCK_OK;
		/* the central bound: the median overhead of the graded round's
		 * calls against the empty calls' median (harness.h,
		 * HX_CLOCK_MEDIAN_SLACK_US) */
		med_gap = stats_median_gap(claimed.data(), host.data(),
					   claimed.size());
		central = stats_clock_verdict(med_gap, null_med, now_med,
					      HX_CLOCK_MEDIAN_SLACK_US +
						      HX_CLOCK_FRACTION *
							      t.us.median);
		hx__read_gpu(since, &seen);
		cond = gpustate_judge(&seen, why, sizeof(why));
		if (cond == GPU_OURS && cv == CLOCK_UNBOUNDED) {
			/* the calls are within the bound of what an empty round
			 * trip costs now, not of what it cost before the
			 * student's code ran: the GPU's context switches got
			 * slower, or the student's process answers empty calls
			 * slowly. Either way no accusation and no pass. */
			cond = GPU_BUSY;
			snprintf(why, sizeof(why),
				 "the judge's clock cannot bound %s: an empty "
				 "round trip to the student's process takes "
				 "%.0f us now against %.0f us before its code "
				 "first ran, and each timed call took %.0f us "
				 "more than its events claimed",
				 whatbuf, now_null, null_gap, gap_min);
		}
		if (cond == GPU_OURS && ok && central != CLOCK_OK) {
			/* most calls took longer on the judge's clock than
			 * their claims and an empty call explain, though the
			 * shortest did not: claims shortened on all calls but
			 * a few, or a CPU so busy that most replies came
			 * late. The judge cannot tell which: no pass, no
			 * accusation. */
			cond = GPU_BUSY;
			snprintf(why, sizeof(why),
				 "the judge's clock cannot bound %s: the median "
				 "call took %.0f us longer than its timing "
				 "events claimed, against %.0f us for an empty "
				 "call (median; %.0f us now), more than the "
				 "%.0f us + %.0f %% allowed; the claims were "
				 "shortened or most replies came late (a busy "
				 "CPU)",
				 whatbuf, med_gap, null_med, now_med,
				 HX_CLOCK_MEDIAN_SLACK_US,
				 100 * HX_CLOCK_FRACTION);
		}
		if (cond == GPU_OURS && !ok && !gpustate_audit_trusted(&seen)) {
			cond = GPU_BUSY;
			snprintf(why, sizeof(why),
				 "GPU busy: the judge's clock saw %.0f us more "
				 "per call than the timing events claimed, while "
				 "%d processes had a context on the GPU and NVML "
				 "could not say which of them worked",
				 gap, seen.processes);
		}
		int last = cond == GPU_OURS || attempt == GPU_ATTEMPTS;
		hx_emit(gpustate_event(&seen, cond, why, attempt,
				       last && cond != GPU_OURS));
		if (last)
			break;
		sleep(1);
	}
	t.gpu_condition = (int)cond;
	snprintf(t.gpu_message, sizeof(t.gpu_message), "%s", why);
	if (ok || cond == GPU_OURS) {
		char msg[480] = "";
		struct sample_stats h;
		stats_summarize(host.data(), host.size(), &h);
		if (!ok && over_us > 0)
			snprintf(msg, sizeof(msg),
				 "%s claimed more time for a call than the "
				 "judge's own clock saw around that whole call "
				 "(%.1f us more): a call's timing events cannot "
				 "outlast the call, so its times were rewritten",
				 whatbuf, over_us);
		else if (!ok)
			snprintf(msg, sizeof(msg),
				 "%s claimed a median of "
				 "%.1f us per call, but the judge's clock saw "
				 "%.1f us per call (median), %.1f us more on "
				 "every call than on an empty one (allowed: "
				 "%.0f us + %.0f %%): the work was not all "
				 "between the timing events (another stream, a "
				 "host thread, or the times were rewritten)",
				 whatbuf, t.us.median, h.median, gap,
				 HX_CLOCK_SLACK_US, 100 * HX_CLOCK_FRACTION);
		hx_emit(json_pack("{s:s, s:s, s:b, s:f, s:f, s:f, s:f, s:f, "
				  "s:f, s:f, s:f, s:b, s:s}",
				  "event", "integrity", "check", "judge_clock",
				  "ok", ok, "event_us", t.us.median, "host_us",
				  h.median, "gap_us", gap, "null_us",
				  null_gap, "empty_now_us", now_null,
				  "median_gap_us", med_gap, "null_median_us",
				  null_med, "empty_now_median_us", now_med,
				  "central_ok", central == CLOCK_OK,
				  "message", msg));
	}
	hx_gpu_exclusive_end();
	hx__add_timing_s(1e-6 * (hx__now_us() - began));
	return t;
}

/* ---- the driver ------------------------------------------------------------- */

static int default_timing(struct hx_run *r, const struct hx_case *c)
{
	struct hx_timing t = hx_time_student(r, hx_run_request(r), NULL);
	hx_timing_report("student", NULL, (double)c->n, r->lab->bytes(c), &t);
	return 1;
}

static void progress(int done, int total)
{
	int every = total > 32 ? total / 32 : 1;
	if (done % every && done != total - 1)
		return;
	hx_emit(json_pack("{s:s, s:s, s:i, s:i}", "event", "progress", "phase",
			  "correctness", "done", done, "total", total));
}

int hx_lab_main(int argc, char **argv, const struct hx_lab *lab)
{
	if (!lab || !lab->calls || lab->ncalls < 1 || !lab->cases ||
	    !lab->setup || !lab->check || (!lab->timing && !lab->bytes)) {
		fprintf(stderr, "harness: the lab's struct hx_lab is "
				"incomplete\n");
		return 2;
	}
	J.lab = lab;
	hx__parse_options(argc, argv);
	if (!hx__in_process())
		start_student(lab); /* before any CUDA call */
	else
		student_registration(); /* one process: the judge's too */
	hx__device_start(send_init);
	/* under the shared GPU lock: others' correctness work may lengthen
	 * these calls (a looser bound), never shorten them; taking the lock
	 * exclusive here, at every step's start, queued every step of every
	 * student behind all others' correctness work (8 students on one H100
	 * beside another suite: shared_saxpy, 64 s before, had not ended after
	 * 315 s) */
	if (hx_opts()->timing) { /* a run that times nothing needs no zero */
		struct clock_zero z = empty_round_trips(NULL, NULL, "first");
		J.pristine_null_us = z.min_us;
		J.pristine_null_med_us = z.median_us;
	}
	hx__on_buffer_release(release_alloc);

	static struct hx_case cases[MAX_CASES];
	struct hx_plan plan;
	memset(&plan, 0, sizeof(plan));
	plan.cases = cases;
	lab->cases(&plan);
	int total = plan.n + plan.has_timed, all_ok = 1;
	for (int i = 0; i < plan.n; i++) {
		progress(i, total);
		if (!hx_case_selected(cases[i].name))
			continue;
		static struct hx_run run;
		all_ok &= run_case(lab, &cases[i], &run, 0);
	}
	static struct hx_run timed;
	int have_timed = 0;
	if (plan.has_timed) {
		progress(total - 1, total);
		if (hx_case_selected(plan.timed.name)) {
			all_ok &= run_case(lab, &plan.timed, &timed, 1);
			have_timed = 1;
		}
	}
	const struct hx_options *o = hx_opts();
	/* time only a correct kernel: a wrong one's speed means nothing */
	if (all_ok && o->timing && have_timed)
		all_ok &= lab->timing ? lab->timing(&timed, &timed.c)
				      : default_timing(&timed, &timed.c);
	if (have_timed)
		free_run(&timed);
	/* fresh inputs in the buffers the timed calls used: a launcher that
	 * skipped or cached work shows stale output here */
	if (all_ok && o->timing && have_timed) {
		struct hx_case again = plan.timed;
		again.again = 1;
		char *cut = strstr(again.name, " (timed size)");
		if (cut)
			*cut = 0;
		size_t len = strlen(again.name);
		snprintf(again.name + len, sizeof(again.name) - len,
			 " (after timing, fresh inputs)");
		if (lab->recheck)
			lab->recheck(&plan.timed, &again);
		static struct hx_run run;
		all_ok &= run_case(lab, &again, &run, 0);
	}
	stop_student();
	return hx_finish(all_ok);
}
