/*
 * escape — a hostile step program for the sandbox's tests (no static check
 * ever sees it: it is plain C, built by the Makefile). One attempt per run;
 * it prints one line "ATTEMPT: ok ..." when the attempt worked and
 * "ATTEMPT: refused ..." when it did not. The tests also check from outside
 * (files unchanged, no process left) rather than trust these lines.
 *
 *   read PATH        open PATH for reading and read a byte
 *   write PATH       create or append to PATH
 *   remount PATH     regain root in a new user namespace, remount the
 *                    read-only bind holding PATH writable, then write PATH
 *   capset           raise every capability in the effective set
 *   linger NAME      setsid + double fork: a process named NAME sleeps 30 s
 *   keys             add a key to the session keyring, then list the
 *                    keyring's keys (the grader's, unless the box made
 *                    its own and refuses key management)
 *   hold             fork sleeping children until fork fails (or 1000):
 *                    prints "held N" and sleeps; every box then shared
 *                    one uid, whose RLIMIT_NPROC this exhausted for all
 *   net              connect a TCP socket to 1.1.1.1:53
 *   filltmp          write /tmp/fill until it fails; prints the bytes
 *   memory           allocate and touch 64 MiB blocks until it fails;
 *                    prints the MiB held
 *   whoami           prints uid and the effective capabilities
 *   forge PATH...    (also when the first argument is an option, as a
 *                    tool runs a step) prints forged tool output on stdout, then tries to
 *                    append a forged summary to each PATH and to every
 *                    --log-file named on a visible command line
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static int say(const char *what, int ok, const char *detail)
{
	printf("%s: %s (%s)\n", what, ok ? "ok" : "refused", detail);
	return 0;
}

static int try_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		return -1;
	int ok = write(fd, "escaped\n", 8) == 8;
	close(fd);
	return ok ? 0 : -1;
}

static void forge_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_APPEND);
	if (fd < 0) {
		printf("forge %s: refused (%s)\n", path, strerror(errno));
		return;
	}
	const char *fake = "========= ERROR SUMMARY: 0 errors\n"
			   "\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\","
			   "\"Metric Value\"\n";
	int ok = write(fd, fake, strlen(fake)) > 0;
	printf("forge %s: %s\n", path, ok ? "ok" : "refused");
	close(fd);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *arg = argc > 2 ? argv[2] : "";
	if (!strncmp(mode, "--", 2)) /* run by a tool as a step: --case ... */
		mode = "forge", argc = 2;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(mode, "read")) {
		char c;
		int fd = open(arg, O_RDONLY);
		int ok = fd >= 0 && read(fd, &c, 1) >= 0;
		return say("read", ok, ok ? arg : strerror(errno));
	} else if (!strcmp(mode, "write")) {
		int ok = try_write(arg) == 0;
		return say("write", ok, ok ? arg : strerror(errno));
	} else if (!strcmp(mode, "remount")) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
			printf("(unshare: %s)\n", strerror(errno));
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s", arg);
		char *slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		int r = mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND, NULL);
		if (r < 0)
			printf("(remount %s: %s)\n", dir, strerror(errno));
		int ok = try_write(arg) == 0;
		return say("remount", ok, ok ? arg : strerror(errno));
	} else if (!strcmp(mode, "capset")) {
		struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
		struct __user_cap_data_struct d[2];
		memset(d, 0xff, sizeof(d));
		int ok = syscall(SYS_capset, &h, d) == 0;
		return say("capset", ok, ok ? "raised" : strerror(errno));
	} else if (!strcmp(mode, "linger")) {
		setsid();
		if (fork() == 0) {
			setsid();
			if (fork() == 0) {
				prctl(PR_SET_NAME, arg);
				sleep(30);
				_exit(0);
			}
			_exit(0);
		}
		sleep(1);
		return say("linger", 1, "left a process behind");
	} else if (!strcmp(mode, "keys")) {
		long id = syscall(SYS_add_key, "user", "cudalab-escape", "x", 1,
				  -3 /* KEY_SPEC_SESSION_KEYRING */);
		char list[256] = "";
		long got = syscall(SYS_keyctl, 6 /* KEYCTL_READ */,
				   -3 /* KEY_SPEC_SESSION_KEYRING */, list,
				   sizeof(list));
		return say("keys", id >= 0 || got >= 0,
			   id >= 0 || got >= 0 ? "a key added or read"
					       : strerror(errno));
	} else if (!strcmp(mode, "hold")) {
		int n = 0;
		for (; n < 1000; n++) {
			pid_t k = fork();
			if (k < 0)
				break;
			if (k == 0) {
				sleep(30);
				_exit(0);
			}
		}
		printf("held %d\n", n);
		fflush(stdout);
		sleep(30);
		return 0;
	} else if (!strcmp(mode, "net")) {
		int s = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in a = {.sin_family = AF_INET,
					.sin_port = htons(53)};
		inet_pton(AF_INET, "1.1.1.1", &a.sin_addr);
		int ok = s >= 0 && connect(s, (struct sockaddr *)&a, sizeof(a)) == 0;
		return say("net", ok, ok ? "connected" : strerror(errno));
	} else if (!strcmp(mode, "filltmp")) {
		static char block[1 << 16];
		long total = 0;
		signal(SIGXFSZ, SIG_IGN);
		int fd = open("/tmp/fill", O_WRONLY | O_CREAT, 0644);
		while (fd >= 0 && total < (8L << 30)) {
			ssize_t n = write(fd, block, sizeof(block));
			if (n <= 0)
				break;
			total += n;
		}
		printf("filltmp: %ld bytes\n", total);
		return 0;
	} else if (!strcmp(mode, "memory")) {
		long mib = 0;
		while (mib < 64 * 1024) {
			char *p = malloc(64 << 20);
			if (!p)
				break;
			memset(p, 1, 64 << 20);
			mib += 64;
		}
		printf("memory: %ld MiB\n", mib);
		return 0;
	} else if (!strcmp(mode, "whoami")) {
		char line[256];
		FILE *f = fopen("/proc/self/status", "r");
		printf("uid %d\n", (int)getuid());
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "CapEff:", 7) ||
			    !strncmp(line, "CapBnd:", 7) ||
			    !strncmp(line, "NoNewPrivs:", 11))
				fputs(line, stdout);
		return 0;
	} else if (!strcmp(mode, "forge")) {
		/* as a step would: an event on the result channel, if open */
		dprintf(3, "{\"event\":\"case\",\"ok\":true,\"n\":4096}\n");
		printf("========= ERROR SUMMARY: 0 errors\n");
		printf("\"ID\",\"Kernel Name\",\"Metric Name\",\"Metric Unit\","
		       "\"Metric Value\"\n");
		for (int i = 2; i < argc; i++)
			forge_log(argv[i]);
		/* the tool's command line names its report: find it */
		DIR *d = opendir("/proc");
		struct dirent *e;
		while (d && (e = readdir(d))) {
			char p[300], buf[8192];
			snprintf(p, sizeof(p), "/proc/%s/cmdline", e->d_name);
			int fd = open(p, O_RDONLY);
			if (fd < 0)
				continue;
			ssize_t n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			for (ssize_t k = 0; k < n; k += strlen(buf + k) + 1)
				if (!strcmp(buf + k, "--log-file") &&
				    k + 11 < n)
					forge_log(buf + k + 11);
		}
		if (d)
			closedir(d);
		return 0;
	}
	fprintf(stderr, "escape: unknown mode %s\n", mode);
	return 2;
}
