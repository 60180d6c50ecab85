/*
 * child — a misbehaving program for the runner's tests. One mode per run:
 *   hang            sleep forever
 *   crash           die of SIGSEGV
 *   flood           write to stdout forever
 *   exit N          exit with status N at once
 *   result TEXT     write TEXT and a newline to fd 3, then exit 0
 *   result_flood    write to fd 3 forever
 *   spin            burn CPU forever
 *   bigfile PATH    write an ever-growing file
 *   grandchild      fork a child that sleeps holding stdout; exit 0
 *   env NAME        print the value of NAME (or "(unset)")
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	char block[4096];
	memset(block, 'x', sizeof(block));
	if (!strcmp(mode, "hang")) {
		for (;;)
			pause();
	} else if (!strcmp(mode, "crash")) {
		raise(SIGSEGV);
	} else if (!strcmp(mode, "flood")) {
		for (;;)
			if (write(1, block, sizeof(block)) < 0)
				return 1;
	} else if (!strcmp(mode, "exit") && argc > 2) {
		return atoi(argv[2]);
	} else if (!strcmp(mode, "result") && argc > 2) {
		return dprintf(3, "%s\n", argv[2]) < 0 ? 1 : 0;
	} else if (!strcmp(mode, "result_flood")) {
		for (;;)
			if (write(3, block, sizeof(block)) < 0)
				return 1;
	} else if (!strcmp(mode, "spin")) {
		volatile unsigned long n = 0;
		for (;;)
			n++;
	} else if (!strcmp(mode, "bigfile") && argc > 2) {
		FILE *f = fopen(argv[2], "w");
		for (;;)
			if (fwrite(block, 1, sizeof(block), f) != sizeof(block))
				return 1;
	} else if (!strcmp(mode, "grandchild")) {
		if (fork() == 0) {
			sleep(100);
			_exit(0);
		}
		printf("parent done\n");
		return 0;
	} else if (!strcmp(mode, "forkbomb")) {
		int made = 0; /* bounded, so a broken limit cannot sink CI */
		while (made < 2000) {
			pid_t p = fork();
			if (p < 0)
				break;
			if (p == 0) {
				pause();
				_exit(0);
			}
			made++;
		}
		printf("forked %d\n", made);
		fflush(stdout);
		for (;;)
			pause();
	} else if (!strcmp(mode, "exists") && argc > 2) {
		for (int i = 2; i < argc; i++)
			printf("%s %s\n", argv[i],
			       access(argv[i], F_OK) == 0 ? "yes" : "no");
		return 0;
	} else if (!strcmp(mode, "cat") && argc > 2) {
		FILE *f = fopen(argv[2], "r");
		int ch;
		while (f && (ch = fgetc(f)) != EOF)
			putchar(ch);
		return f ? 0 : 1;
	} else if (!strcmp(mode, "touch") && argc > 2) {
		FILE *f = fopen(argv[2], "w");
		printf("%s\n", f ? "written" : "refused");
		return 0;
	} else if (!strcmp(mode, "env") && argc > 2) {
		const char *v = getenv(argv[2]);
		printf("%s\n", v ? v : "(unset)");
		return 0;
	}
	fprintf(stderr, "child: unknown mode\n");
	return 2;
}
