/* sockets tries every way a command might reach a named unix socket (argv[1])
 * under network deny, and prints what each got: "<way>: <reply>" when it
 * connected and read the server's line, "<way>: refused (<error>)" else;
 * then sends a UDP datagram to 127.0.0.1, port argv[2], makes an SCTP stream
 * socket and connects to the abstract unix socket argv[3] ("@name"). Built
 * and run by TestNetworkDeny. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/un.h>
#include <unistd.h>
#include "int80.h"

static void try(const char *way, long fd, const char *path) {
	if (fd < 0) {
		printf("%s: refused (%s)\n", way, strerror(errno));
		return;
	}
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path);
	socklen_t len = sizeof addr;
	if (path[0] == '@') { /* abstract: a NUL, then the name without one */
		addr.sun_path[0] = 0;
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path));
	}
	char b[64] = {0};
	if (connect((int)fd, (struct sockaddr *)&addr, len) < 0) {
		printf("%s: refused (connect: %s)\n", way, strerror(errno));
	} else if (read((int)fd, b, sizeof b - 1) > 0) {
		printf("%s: %s", way, b);
	}
	close((int)fd);
}

int main(int argc, char **argv) {
	if (argc != 4) return 2;
	try("socket", socket(AF_UNIX, SOCK_STREAM, 0), argv[1]);
	/* The kernel reads the family as an int: the upper half is ignored. */
	try("socket, family's upper half set", syscall(SYS_socket, 0x100000000L | AF_UNIX, SOCK_STREAM, 0), argv[1]);
#ifdef __x86_64__
	/* The i386 ABI's socket(2) (359) through int 0x80. */
	long fd;
	fd = int80(359L, AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0) errno = (int)-fd, fd = -1;
	try("int 0x80", fd, argv[1]);
#endif
	/* A datagram pair sends to any named socket. */
	int pair[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) < 0) {
		printf("datagram socketpair: refused (%s)\n", strerror(errno));
	} else {
		printf("datagram socketpair: made\n");
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0) printf("stream socketpair: made\n");
	/* io_uring's socket and connect operations are not seen by seccomp. */
	char params[120] = {0};
	long ring = syscall(SYS_io_uring_setup, 8, params);
	printf("io_uring: %s\n", ring < 0 ? strerror(errno) : "set up");
	int udp = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(argv[2])), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	if (udp < 0) printf("udp: refused (%s)\n", strerror(errno));
	else if (sendto(udp, "host secret?", 12, 0, (struct sockaddr *)&to, sizeof to) < 0) printf("udp: refused (sendto: %s)\n", strerror(errno));
	else printf("udp: sent\n");
	int sctp = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
	printf("sctp: %s\n", sctp < 0 ? "refused" : "made");
	try("abstract", socket(AF_UNIX, SOCK_STREAM, 0), argv[3]);
	return 0;
}
