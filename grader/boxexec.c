/*
 * cudalab-box-exec — the last step before untrusted code, inside the box.
 *
 *   cudalab-box-exec [--uid U --gid G] [--data BYTES] [--nproc N]
 *                    [--fsize BYTES] [--keep-fd N | --close-under DIR]
 *                    [--hide /NAME] -- PROGRAM ARGS...
 *
 * bubblewrap has built the box (sandbox.h); this program, already inside
 * it, applies what bubblewrap cannot and then becomes PROGRAM:
 *   1. closes every descriptor but 0, 1, 2 and the --keep-fd ones; or,
 *      with --close-under DIR (a tool such as compute-sanitizer runs
 *      between bubblewrap and here, and may pass the program descriptors
 *      it needs), only those open on a file under DIR, the tool's report
 *      folder: the program must not inherit a way into its report;
 *   2. sets the resource limits: RLIMIT_DATA (memory: private writable
 *      mappings, which is what malloc and new use; RLIMIT_AS would break
 *      CUDA, which reserves very large virtual ranges), RLIMIT_NPROC,
 *      RLIMIT_FSIZE, no core files;
 *   3. when it runs as root (the grader is root: bubblewrap left this
 *      process only CAP_SETUID, CAP_SETGID and CAP_SETPCAP), empties the
 *      capability bounding set, drops the supplementary groups and switches
 *      to --uid/--gid for good (real, effective and saved), so every
 *      capability is gone and cannot come back; it checks that root is
 *      really gone and refuses to go on otherwise;
 *   4. sets no_new_privs (no set-uid binary or file capability can give
 *      anything back), and a seccomp filter that refuses the kernel's
 *      key management (add_key, keyctl, request_key: EPERM) and every
 *      system call of another ABI (x32, i386: ENOSYS); before dropping
 *      root it also joins a fresh session keyring. The kernel's keyrings
 *      are not of any namespace bubblewrap makes (red team, 2026-11-27):
 *      a box read the grader's session keyring (the instructor's keys
 *      after a login or sudo), and one box could leave a key in its
 *      uid's user keyring for a later box of the same uid;
 *   5. with --hide /NAME (NAME a folder at the box's root: the tool's
 *      report folder), restricts itself with Landlock (Linux 5.13+) so
 *      that everything under every other entry of / stays as it was and
 *      nothing under /NAME can be read, written, listed or made; Landlock
 *      also stops it from ptracing, or opening /proc/PID/fd or mem of, any
 *      process outside its domain (the tool that ran it, though both run
 *      as the same uid: compute-sanitizer and ncu do not work when the
 *      program runs as another uid than the tool, measured on the H100);
 *      refuses (126) when the kernel has no Landlock;
 *   6. execs PROGRAM.
 * Any failure is exit status 126 with a line on stderr starting "box:",
 * before a single instruction of PROGRAM ran.
 *
 * Without --uid (the grader is an ordinary user: bubblewrap made a user
 * namespace and dropped every capability itself) step 3 is skipped.
 */
#include <errno.h>
#include <grp.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/keyctl.h>
#include <linux/landlock.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define BOX_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define BOX_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

/* The seccomp filter of step 4; -1 with errno. */
static int deny_keyrings(void)
{
#ifdef BOX_AUDIT_ARCH
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BOX_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		/* x32's numbers carry bit 30 */
		BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_add_key, 3, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_keyctl, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_request_key, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
	};
	struct sock_fprog prog = {(unsigned short)(sizeof(f) / sizeof(f[0])),
				  f};
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
#else
	errno = ENOSYS;
	return -1;
#endif
}

static int die(const char *what)
{
	fprintf(stderr, "box: %s: %s\n", what, strerror(errno));
	return 126;
}

static long number(const char *s)
{
	char *end;
	long v = s ? strtol(s, &end, 10) : -1;
	return s && *s && !*end ? v : -1;
}

/* Lower a limit to value; one already lower (the runner's) is kept: this
 * process may not raise a hard limit. */
static int limit(int resource, long value)
{
	struct rlimit now;
	if (value <= 0 || getrlimit(resource, &now) < 0)
		return 0;
	rlim_t v = (rlim_t)value;
	if (now.rlim_max != RLIM_INFINITY && v > now.rlim_max)
		v = now.rlim_max;
	if (now.rlim_cur != RLIM_INFINITY && v > now.rlim_cur)
		v = now.rlim_cur;
	struct rlimit rl = {v, v};
	return setrlimit(resource, &rl);
}

/* Landlock: every right on each entry of / but hide ("/NAME"). */
static int hide_folder(const char *hide)
{
	int abi = (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
			       LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 1) {
		errno = abi < 0 ? errno : ENOSYS;
		return -1;
	}
	__u64 all = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1 */
	if (abi >= 2)
		all |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		all |= 1ULL << 14; /* LANDLOCK_ACCESS_FS_TRUNCATE */
	__u64 file_rights = LANDLOCK_ACCESS_FS_EXECUTE |
			    LANDLOCK_ACCESS_FS_WRITE_FILE |
			    LANDLOCK_ACCESS_FS_READ_FILE |
			    (abi >= 3 ? 1ULL << 14 : 0);
	struct landlock_ruleset_attr attr = {.handled_access_fs = all};
	int rs = (int)syscall(SYS_landlock_create_ruleset, &attr,
			      sizeof(attr), 0);
	if (rs < 0)
		return -1;
	DIR *d = opendir("/");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
		    !strcmp(e->d_name, hide + 1))
			continue;
		char path[512];
		snprintf(path, sizeof(path), "/%s", e->d_name);
		struct landlock_path_beneath_attr pb = {
			.allowed_access = all,
			.parent_fd = open(path, O_PATH | O_CLOEXEC)};
		if (pb.parent_fd < 0)
			continue;
		if (syscall(SYS_landlock_add_rule, rs,
			    LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0) {
			pb.allowed_access = file_rights; /* a file, not a folder */
			syscall(SYS_landlock_add_rule, rs,
				LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
		}
		close(pb.parent_fd);
	}
	if (d)
		closedir(d);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    syscall(SYS_landlock_restrict_self, rs, 0) < 0)
		return -1;
	close(rs);
	return 0;
}

int main(int argc, char **argv)
{
	long uid = -1, gid = -1, data = 0, nproc = 0, fsize = 0;
	int keep[8], nkeep = 0, i;
	const char *close_under = NULL, *hide = NULL;
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(argv[i], "--hide") && v && *v == '/' &&
		    !strchr(v + 1, '/')) {
			hide = v;
			i++;
			continue;
		}
		if (!strcmp(argv[i], "--close-under") && v && *v == '/') {
			close_under = v;
			i++;
			continue;
		}
		long n = number(v);
		if (n < 0) {
			fprintf(stderr, "box: bad option %s\n", argv[i]);
			return 126;
		}
		if (!strcmp(argv[i], "--uid"))
			uid = n;
		else if (!strcmp(argv[i], "--gid"))
			gid = n;
		else if (!strcmp(argv[i], "--data"))
			data = n;
		else if (!strcmp(argv[i], "--nproc"))
			nproc = n;
		else if (!strcmp(argv[i], "--fsize"))
			fsize = n;
		else if (!strcmp(argv[i], "--keep-fd") && nkeep < 8)
			keep[nkeep++] = (int)n;
		else {
			fprintf(stderr, "box: unknown option %s\n", argv[i]);
			return 126;
		}
		i++;
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "box: no program after --\n");
		return 126;
	}
	char **prog = argv + i + 1;

	size_t cu_len = close_under ? strlen(close_under) : 0;
	for (int fd = 3; fd < 1024; fd++) {
		if (close_under) {
			char link[64], target[4096];
			snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
			ssize_t n = readlink(link, target, sizeof(target) - 1);
			if (n < 0)
				continue;
			target[n] = 0;
			if (!strncmp(target, close_under, cu_len) &&
			    (target[cu_len] == '/' || !target[cu_len]))
				close(fd);
			continue;
		}
		int kept = 0;
		for (int k = 0; k < nkeep; k++)
			kept |= keep[k] == fd;
		if (!kept)
			close(fd);
	}
	struct rlimit core = {0, 0};
	if (limit(RLIMIT_DATA, data) < 0 || limit(RLIMIT_NPROC, nproc) < 0 ||
	    limit(RLIMIT_FSIZE, fsize) < 0 || setrlimit(RLIMIT_CORE, &core) < 0)
		return die("setrlimit");

	if (uid >= 0 && getuid() == 0) {
		if (uid == 0 || gid <= 0) {
			fprintf(stderr, "box: refusing to run as root\n");
			return 126;
		}
		/* a keyring of the box's own, not the grader's session's */
		if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) < 0)
			return die("joining a fresh session keyring");
		for (int cap = 0; cap < 64; cap++)
			if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 &&
			    errno != EINVAL)
				return die("dropping the capability bounding set");
		prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
		if (setgroups(0, NULL) < 0)
			return die("setgroups");
		if (setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) < 0)
			return die("setresgid");
		if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) < 0)
			return die("setresuid");
		/* root must be gone for good */
		if (setuid(0) == 0 || getuid() == 0 || geteuid() == 0) {
			fprintf(stderr, "box: still root after dropping it\n");
			return 126;
		}
	}
	/* nothing may be left in the inheritable set either */
	struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct caps[2];
	if (syscall(SYS_capget, &hdr, caps) == 0) {
		memset(caps, 0, sizeof(caps));
		syscall(SYS_capset, &hdr, caps);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return die("no_new_privs");
	if (deny_keyrings() < 0)
		return die("seccomp (the filter of the kernel's keyrings)");
	if (hide && hide_folder(hide) < 0)
		return die("Landlock (Linux 5.13 or later) is needed to keep "
			   "the program out of the tool's report");
	execvp(prog[0], prog);
	return die(prog[0]);
}
