/* int80 makes an i386 system call through int 0x80 (the attack programs'
 * way around seccomp filters written for x86_64 numbers), and returns
 * -errno like the kernel. */
#ifndef INT80_H
#define INT80_H
#ifdef __x86_64__
#include <errno.h>
#include <setjmp.h>
#include <signal.h>

/* A kernel built without i386 emulation (CONFIG_IA32_EMULATION off, or
 * ia32_emulation=0) answers int 0x80 with SIGSEGV: that too is a refusal. */
static sigjmp_buf no_i386;
static void on_segv(int sig) { (void)sig; siglongjmp(no_i386, 1); }
static long int80(long nr, long b, long c, long d) {
	struct sigaction sa = {.sa_handler = on_segv}, old;
	sigaction(SIGSEGV, &sa, &old);
	long r;
	if (sigsetjmp(no_i386, 1)) {
		r = -ENOSYS;
	} else {
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(b), "c"(c), "d"(d) : "memory");
	}
	sigaction(SIGSEGV, &old, NULL);
	return r;
}
#endif
#endif
