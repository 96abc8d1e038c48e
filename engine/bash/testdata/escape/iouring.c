/* iouring tries to write past the sandbox through io_uring, whose
 * operations seccomp does not see: it creates argv[1] (IORING_OP_OPENAT)
 * and sets an extended attribute on argv[2] (IORING_OP_SETXATTR), and
 * prints "<op>: made" or "<op>: refused (<error>)", or why no ring was set
 * up. Built and run by TestIoUring. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int ring;
static struct io_uring_params p;
static char *sq, *cq;
static struct io_uring_sqe *sqes;

/* submit runs one operation and returns its result. */
static int submit(const struct io_uring_sqe *op) {
	unsigned *tail = (unsigned *)(sq + p.sq_off.tail), mask = *(unsigned *)(sq + p.sq_off.ring_mask);
	unsigned i = *tail & mask;
	sqes[i] = *op;
	((unsigned *)(sq + p.sq_off.array))[i] = i;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(SYS_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) return -errno;
	unsigned *head = (unsigned *)(cq + p.cq_off.head), cmask = *(unsigned *)(cq + p.cq_off.ring_mask);
	int res = ((struct io_uring_cqe *)(cq + p.cq_off.cqes))[*head & cmask].res;
	__atomic_store_n(head, *head + 1, __ATOMIC_RELEASE);
	return res;
}

static void report(const char *op, int res) {
	if (res < 0) printf("%s: refused (%s)\n", op, strerror(-res));
	else printf("%s: made\n", op);
}

int main(int argc, char **argv) {
	if (argc != 3) return 2;
	ring = (int)syscall(SYS_io_uring_setup, 4, &p);
	if (ring < 0) {
		printf("io_uring: %s\n", strerror(errno));
		return 0;
	}
	size_t sqsz = p.sq_off.array + p.sq_entries * sizeof(unsigned), cqsz = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (p.features & IORING_FEAT_SINGLE_MMAP) sqsz = cqsz = sqsz > cqsz ? sqsz : cqsz;
	sq = mmap(NULL, sqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
	cq = p.features & IORING_FEAT_SINGLE_MMAP ? sq : mmap(NULL, cqsz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) return 1;
	struct io_uring_sqe op = {.opcode = IORING_OP_OPENAT, .fd = AT_FDCWD, .addr = (unsigned long)argv[1], .len = 0644, .open_flags = O_WRONLY | O_CREAT};
	report("openat", submit(&op));
	static const char name[] = "user.interlock", value[] = "1";
	op = (struct io_uring_sqe){.opcode = IORING_OP_SETXATTR, .addr = (unsigned long)name, .off = (unsigned long)value, .len = 1, .addr3 = (unsigned long)argv[2]};
	report("setxattr", submit(&op));
	return 0;
}
