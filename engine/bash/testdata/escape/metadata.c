/* metadata tries to change the mode of a file outside the writable paths
 * (argv[1]) past a supervisor that checks the path: through the i386 ABI,
 * io_uring, and by racing the check (a thread flipping the path in memory
 * between a file inside and argv[1], or a symlink in the working directory
 * swapped between the two). It prints "<way>: changed" when the mode of
 * argv[1] changed. Built and run by TestSandboxFileMetadata; the working
 * directory is writable. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "int80.h"

static const char *outside;
static char path[4096]; /* static: below 4 GB in a non-PIE program, for int 0x80 */
static volatile int done;
static long mode; /* what the attack sets: not the mode argv[1] has */

static void report(const char *way, mode_t before) {
	struct stat st;
	stat(outside, &st);
	printf("%s: %s\n", way, (st.st_mode & 07777) != before ? "changed" : "refused");
	chmod(outside, before); /* refused as well, unless it changed */
}

static void *flip_path(void *arg) {
	(void)arg;
	for (int i = 0; !done; i++) snprintf(path, sizeof path, "%s", i % 2 ? outside : "inside");
	return NULL;
}

static void *swap_link(void *arg) {
	(void)arg;
	for (int i = 0; !done; i++) {
		symlink(i % 2 ? outside : "inside", "link.new");
		rename("link.new", "link");
	}
	return NULL;
}

static void race(const char *way, void *(*fn)(void *), const char *target, mode_t before) {
	pthread_t t;
	done = 0;
	pthread_create(&t, NULL, fn, NULL);
	for (int i = 0; i < 2000; i++) chmod(target, (mode_t)mode);
	done = 1;
	pthread_join(t, NULL);
	report(way, before);
}

int main(int argc, char **argv) {
	if (argc != 2) return 2;
	outside = argv[1];
	struct stat st;
	if (stat(outside, &st) < 0) return 2;
	mode_t before = st.st_mode & 07777;
	mode = before == 0600 ? 0640 : 0600;
	close(open("inside", O_CREAT | O_WRONLY, 0644));
	snprintf(path, sizeof path, "%s", outside);
#ifdef __x86_64__
	int80(15L /* i386 chmod */, (long)(unsigned long)path, mode, 0);
	report("int 0x80", before);
#endif
	char params[120] = {0};
	long ring = syscall(SYS_io_uring_setup, 8, params);
	printf("io_uring: %s\n", ring < 0 ? strerror(errno) : "set up");
	race("path flipped in memory", flip_path, path, before);
	race("symlink swapped", swap_link, "link", before);
	return 0;
}
