/*
 * interlock-run is the supervisor the Interlock bash tool starts for every
 * command (see package engine/bash/contain for the tool's side and the
 * wire). It keeps the command's process tree, kills it when asked or when
 * the host dies, and applies the Landlock sandbox:
 *
 *   - with --ns it makes new user and PID namespaces (and a network
 *     namespace with --net-ns) itself and clones their PID 1, which
 *     supervises: when PID 1 exits the kernel kills every process left in
 *     the namespace. PID 1 shares our memory, and the shell's process
 *     shares PID 1's until its exec (CLONE_VM): one address space of ours
 *     per command, not three copies for the kernel to make and tear down.
 *     Where the kernel refuses namespaces it supervises as a child
 *     subreaper that walks /proc and kills its descendants;
 *   - it dies with its host: EOF on its control socket (fd 3: the host
 *     died, even by SIGKILL), SIGTERM/SIGHUP/SIGINT or its parent-death
 *     signal kill the tree;
 *   - a stop message ('s') sends SIGTERM to the tree, SIGKILL after the
 *     grace, and the report follows once no process of the tree is left;
 *   - its child restricts itself with Landlock before it execs the shell,
 *     so the command's tree runs under the policy the tool computed
 *     (--read/--write paths, TCP deny, signal and abstract-socket scoping)
 *     and the supervisor stays outside it: the command can neither signal
 *     nor trace its supervisor. In a PID namespace it also makes every
 *     mount read-only but the --write paths, for what Landlock does not
 *     cover (chmod, chown, utime, xattrs); without one, the --metadata
 *     filter hands those to the supervisor, which makes them inside the
 *     --write paths only (metadata_change);
 *   - the command loses the capabilities of a root host that step around
 *     Landlock (apply_ruleset);
 *   - under network deny it also runs under the seccomp filter the tool
 *     passes (--seccomp: every socket but TCP, io_uring and other ABIs refused,
 *     which neither the network namespace nor Landlock covers);
 *   - it closes every descriptor the host passed but its control socket
 *     and output, so the command writes through none the sandbox did not
 *     check, and the command has no controlling terminal (drop_terminal).
 *
 * It is written in C, not Go, because it runs for every command and its
 * start-up is on the path of every command's latency: a Go runtime starts
 * in ~1 ms here, this in ~0.1 ms (BENCHMARKS.md, bash_spawn_overhead_ms).
 * It is single-threaded: one poll(2) loop over the control socket and a
 * signalfd.
 *
 * Usage (by the tool, never by hand):
 *   interlock-run --probe
 *   interlock-run [--ns] [--net-ns] [--grace-ms N] [--max-procs N] [--mode M] [--network N]
 *                 [--required] [--no-landlock] [--seccomp HEX] [--metadata HEX]
 *                 [--read P]... [--write P]...
 *                 -- SHELL COMMAND
 * and writes one JSON report line on fd 3 (see contain.Report).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define CONTROL_FD 3
#define MSG_STOP 's'
#define MAX_PATHS 256

/* Landlock's ABI, defined here so that old kernel headers build it. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#define MOUNT_ATTR_RO 0x1
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_RULE_PATH_BENEATH 1
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REFER (1ULL << 13)
#define LL_FS_TRUNCATE (1ULL << 14)
#define LL_FS_IOCTL_DEV (1ULL << 15)
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)
#define ABI_NETWORK 4 /* TCP bind and connect */
#define ABI_SCOPES 6  /* signals and abstract unix sockets */

struct ll_ruleset_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

struct ll_path_beneath_attr {
	uint64_t allowed_access;
	int32_t parent_fd;
} __attribute__((packed));

/* request is what the tool asked for (argv). */
struct request {
	int ns, net_ns, required, no_landlock;
	long grace_ms, max_procs;
	const char *mode;    /* "workspace-write", "read-only", "off" */
	const char *network; /* "allow", "deny" */
	const char *read[MAX_PATHS];
	int nread;
	const char *write[MAX_PATHS];
	int nwrite;
	const char *seccomp;  /* hex of a BPF program (--seccomp), or NULL */
	const char *metadata; /* hex of the metadata filter (--metadata), or NULL */
	const char *shell, *command;
};

/* report is what the supervisor says once the tree is gone. */
struct report {
	int exit_code;
	const char *signal;
	int stopped;
	const char *tree;
	int namespaces_refused;
	const char *mode;
	int landlock_abi, filesystem, signals, read_only_mounts, metadata_checked;
	long max_processes;
	const char *network;
	char network_buf[160];
	char error[1024];
};

static struct report rep = {.tree = "subreaper", .network = "allow"};

/* Set by fail: the report says why the command did not start. */
static void fail(const char *fmt, ...) {
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rep.error, sizeof rep.error, fmt, ap);
	va_end(ap);
}

/* json_string appends s to out as a JSON string. */
static size_t json_string(char *out, size_t cap, size_t n, const char *s) {
	if (n < cap) out[n++] = '"';
	for (; *s && n + 8 < cap; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			out[n++] = '\\';
			out[n++] = (char)c;
		} else if (c < 0x20) {
			n += (size_t)snprintf(out + n, cap - n, "\\u%04x", c);
		} else {
			out[n++] = (char)c;
		}
	}
	if (n < cap) out[n++] = '"';
	return n;
}

static void write_all(int fd, const char *b, size_t n) {
	while (n > 0) {
		ssize_t w = write(fd, b, n);
		if (w < 0 && errno == EINTR) continue;
		if (w <= 0) return;
		b += w;
		n -= (size_t)w;
	}
}

/* write_report sends the report as one JSON line on the control socket. */
static void write_report(void) {
	char b[4096];
	size_t n = (size_t)snprintf(b, sizeof b, "{\"exit_code\":%d,", rep.exit_code);
	if (rep.signal) {
		n += (size_t)snprintf(b + n, sizeof b - n, "\"signal\":");
		n = json_string(b, sizeof b, n, rep.signal);
		b[n++] = ',';
	}
	if (rep.stopped) n += (size_t)snprintf(b + n, sizeof b - n, "\"stopped\":true,");
	if (rep.namespaces_refused) n += (size_t)snprintf(b + n, sizeof b - n, "\"namespaces_refused\":true,");
	n += (size_t)snprintf(b + n, sizeof b - n, "\"tree\":\"%s\",\"sandbox\":{\"mode\":", rep.tree);
	n = json_string(b, sizeof b, n, rep.mode ? rep.mode : "");
	n += (size_t)snprintf(b + n, sizeof b - n, ",\"landlock_abi\":%d,\"filesystem\":%s,\"network\":", rep.landlock_abi,
	                      rep.filesystem ? "true" : "false");
	n = json_string(b, sizeof b, n, rep.network);
	n += (size_t)snprintf(b + n, sizeof b - n, ",\"signals\":%s", rep.signals ? "true" : "false");
	if (rep.read_only_mounts) n += (size_t)snprintf(b + n, sizeof b - n, ",\"read_only_mounts\":true");
	if (rep.metadata_checked) n += (size_t)snprintf(b + n, sizeof b - n, ",\"metadata_checked\":true");
	if (rep.max_processes) n += (size_t)snprintf(b + n, sizeof b - n, ",\"max_processes\":%ld", rep.max_processes);
	n += (size_t)snprintf(b + n, sizeof b - n, "}");
	if (rep.error[0]) {
		n += (size_t)snprintf(b + n, sizeof b - n, ",\"error\":");
		n = json_string(b, sizeof b, n, rep.error);
	}
	n += (size_t)snprintf(b + n, sizeof b - n, "}\n");
	write_all(CONTROL_FD, b, n < sizeof b ? n : sizeof b);
}

/* landlock_abi is the kernel's Landlock ABI version, 0 without Landlock. */
static int landlock_abi(void) {
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
	return v < 0 ? 0 : (int)v;
}

/* fs_rights are the file system rights Landlock handles at abi. */
static uint64_t fs_rights(int abi) {
	uint64_t r = (1ULL << 13) - 1; /* ABI 1: execute .. make_sym */
	if (abi >= 2) r |= LL_FS_REFER;
	if (abi >= 3) r |= LL_FS_TRUNCATE;
	if (abi >= 5) r |= LL_FS_IOCTL_DEV;
	return r;
}

/* add_path allows access beneath path (only the file rights when it is not
 * a directory); a missing path is skipped. */
static int add_path(int ruleset, const char *path, uint64_t access) {
	int fd = open(path, O_PATH | O_CLOEXEC);
	if (fd < 0) return errno == ENOENT ? 0 : -1;
	struct stat st;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		access &= LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV;
	struct ll_path_beneath_attr attr = {.allowed_access = access, .parent_fd = fd};
	long err = syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &attr, 0);
	int saved = errno;
	close(fd);
	errno = saved;
	return err < 0 ? -1 : 0;
}

/* make_ruleset turns the policy into a Landlock ruleset (-1: none) for the
 * command to apply to itself (apply_ruleset, after the fork: the supervisor
 * stays outside the command's domain, which can then neither signal nor
 * trace it) and fills in what will be in force. It fails only when the
 * policy is required and the kernel cannot enforce it. */
static int make_ruleset(const struct request *req, int *ruleset) {
	*ruleset = -1;
	rep.mode = req->mode;
	if (strcmp(req->mode, "off") == 0) return 0;
	int deny = strcmp(req->network, "deny") == 0;
	if (deny) rep.network = req->net_ns && rep.tree[0] == 'p' ? "deny (namespace)" : "allow (deny not enforced: needs a network namespace or Landlock ABI 4)";
	int abi = req->no_landlock ? 0 : landlock_abi();
	if (req->required && abi < ABI_SCOPES) {
		fail("sandbox required (bash.sandbox.required) but this kernel has Landlock ABI %d and needs %d or newer (Linux 6.12+, with landlock in the lsm= boot list): the command was not run", abi, ABI_SCOPES);
		return -1;
	}
	if (abi == 0) return 0;
	struct ll_ruleset_attr attr = {.handled_access_fs = fs_rights(abi)};
	if (deny && abi >= ABI_NETWORK) attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
	if (abi >= ABI_SCOPES) attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
	const char *failed = "landlock_create_ruleset";
	int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (fd < 0) goto out;
	failed = "landlock_add_rule";
	for (int i = 0; i < req->nread; i++)
		if (add_path(fd, req->read[i], LL_FS_EXECUTE | LL_FS_READ_FILE | LL_FS_READ_DIR) < 0) goto out;
	for (int i = 0; i < req->nwrite; i++)
		if (add_path(fd, req->write[i], attr.handled_access_fs) < 0) goto out;
	*ruleset = fd;
	rep.landlock_abi = abi;
	rep.filesystem = 1;
	rep.signals = abi >= ABI_SCOPES;
	if (deny && abi >= ABI_NETWORK && strcmp(rep.network, "deny (namespace)") != 0) rep.network = "deny (tcp)";
	return 0;
out:;
	int saved = errno;
	if (fd >= 0) close(fd);
	if (req->required) {
		fail("sandbox required (bash.sandbox.required) but Landlock failed: %s: %s: the command was not run", failed, strerror(saved));
		return -1;
	}
	return 0;
}

/* is_device reports whether path is a device file (writable for its data
 * only: /dev/null, /dev/tty). */
static int is_device(const char *path) {
	struct stat st;
	return stat(path, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode));
}

/* read_only_mounts makes, in a mount namespace of its own, every mount
 * read-only but the writable paths: Landlock does not cover a file's mode,
 * owner, times and extended attributes (chmod, chown, touch -d, setfattr),
 * a read-only mount refuses them. It needs the user namespace's
 * capabilities: in a PID namespace only. */
static int read_only_mounts(const struct request *req) {
	struct {
		uint64_t attr_set, attr_clr, propagation, userns_fd;
	} ro = {.attr_set = MOUNT_ATTR_RO}, rw = {.attr_clr = MOUNT_ATTR_RO};
	char cwd[4096];
	if (!getcwd(cwd, sizeof cwd) || unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) return -1;
	/* Each writable path becomes a mount of its own, made writable again
	 * once all are read-only. The writable device files (/dev/null) stay
	 * on the read-only mount, which refuses a change of their mode or owner
	 * (chmod 600 /dev/null by a root host's command) but not writing them. */
	int own[MAX_PATHS] = {0};
	for (int i = 0; i < req->nwrite; i++) {
		own[i] = !is_device(req->write[i]);
		if (own[i] && mount(req->write[i], req->write[i], NULL, MS_BIND | MS_REC, NULL) < 0 && errno != ENOENT) return -1;
	}
	if (syscall(SYS_mount_setattr, AT_FDCWD, "/", AT_RECURSIVE, &ro, sizeof ro) < 0) return -1;
	for (int i = 0; i < req->nwrite; i++)
		if (own[i] && syscall(SYS_mount_setattr, AT_FDCWD, req->write[i], AT_RECURSIVE, &rw, sizeof rw) < 0 && errno != ENOENT) return -1;
	/* The working directory was looked up before its bind mount. */
	return chdir(cwd);
}

/* apply_ruleset restricts the calling process (the command, before its
 * exec) with ruleset; it returns errno on failure. A host run as root (with
 * no user namespace around the command) would also hand the command the
 * capabilities that step around Landlock: device nodes made in the
 * workspace (a disk's block device), the host's /proc/PID/environ read
 * with CAP_SYS_PTRACE, modules, reboot, raw I/O, file handles; and those
 * that let it take the machine: real-time scheduling (a busy loop at
 * SCHED_FIFO), limits raised, memory locked. They are
 * dropped from the bounding set, so that the shell's exec does not get
 * them; without CAP_SETPCAP (not root) there are none to drop. */
static int apply_ruleset(int ruleset) {
	static const int dropped[] = {CAP_MKNOD, CAP_SYS_PTRACE, CAP_SYS_MODULE, CAP_SYS_RAWIO, CAP_SYS_ADMIN, CAP_SYS_BOOT,
	                              CAP_SYS_TIME, CAP_NET_ADMIN, CAP_DAC_READ_SEARCH, CAP_LINUX_IMMUTABLE, CAP_SYS_PACCT,
	                              CAP_AUDIT_CONTROL, CAP_MAC_OVERRIDE, CAP_MAC_ADMIN, CAP_SYSLOG, CAP_SYS_NICE,
	                              CAP_SYS_RESOURCE, CAP_IPC_LOCK, CAP_SYS_TTY_CONFIG, CAP_WAKE_ALARM, CAP_BLOCK_SUSPEND,
#ifdef CAP_BPF
	                              CAP_BPF, CAP_PERFMON,
#endif
	                              CAP_SETPCAP /* last: it allows the drops */};
	for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++) prctl(PR_CAPBSET_DROP, dropped[i], 0, 0, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) return errno;
	return 0;
}

/* sandbox_failed notes that the command could not apply the ruleset (err):
 * nothing of it is in force. It fails when the policy is required. */
static int sandbox_failed(const struct request *req, int err) {
	rep.landlock_abi = rep.filesystem = rep.signals = 0;
	if (strcmp(rep.network, "deny (tcp)") == 0) rep.network = "allow (deny not enforced: landlock_restrict_self failed)";
	if (!req->required) return 0;
	fail("sandbox required (bash.sandbox.required) but Landlock failed: landlock_restrict_self: %s: the command was not run", strerror(err));
	return -1;
}

/* The command's seccomp filter (--seccomp): under network deny it refuses
 * the sockets a network namespace and Landlock leave open (named unix
 * sockets, vsock: see contain.networkDenyFilter, which builds it). */
static struct sock_filter filter[BPF_MAXINSNS], metadata_filter[BPF_MAXINSNS];
static struct sock_fprog filter_prog = {.filter = filter}, metadata_prog = {.filter = metadata_filter};

/* decode_filter reads the hex of a --seccomp or --metadata program into
 * prog (8 bytes an instruction, the host's byte order). */
static int decode_filter(const char *hex, struct sock_fprog *prog) {
	size_t n = strlen(hex);
	if (n == 0 || n % 16 != 0 || n / 16 > BPF_MAXINSNS) return -1;
	unsigned char *b = (unsigned char *)prog->filter;
	for (size_t i = 0; i < n; i++) {
		char c = hex[i];
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
		if (v < 0) return -1;
		b[i / 2] = (unsigned char)(i % 2 ? b[i / 2] | v : v << 4);
	}
	prog->len = (unsigned short)(n / 16);
	return 0;
}

/* other_sockets says in the report's network whether the filter refused the
 * sockets a deny leaves open (refused: 1) or not, and why. */
static void other_sockets(int refused, const char *why) {
	if (strncmp(rep.network, "deny (", 6) != 0) return;
	size_t n = strlen(rep.network) - 1; /* without its ')' */
	if (refused)
		snprintf(rep.network_buf, sizeof rep.network_buf, "%.*s, other sockets refused)", (int)n, rep.network);
	else
		snprintf(rep.network_buf, sizeof rep.network_buf, "%.*s; other sockets not refused: %s)", (int)n, rep.network, why);
	rep.network = rep.network_buf;
}

/* What the child says on its socket to the supervisor, beside Landlock's
 * errno: a filter failed (with errno), or the metadata filter's listener
 * (the descriptor attached). */
#define SECCOMP_FAILED 0x10000
#define METADATA_FAILED 0x20000
#define METADATA_LISTENER 0x40000

/* tell sends code, and fd when it is not -1, to the supervisor. */
static void tell(int sock, int code, int fd) {
	struct iovec iov = {.iov_base = &code, .iov_len = sizeof code};
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		m.msg_control = cbuf;
		m.msg_controllen = sizeof cbuf;
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof fd);
	}
	while (sendmsg(sock, &m, MSG_NOSIGNAL) < 0 && errno == EINTR) {
	}
}

/* Without a mount namespace (a subreaper), the command's changes of a
 * file's mode, owner, times, extended attributes and inode flags come to
 * the supervisor (the metadata filter, SECCOMP_RET_USER_NOTIF), which makes
 * them for it inside the writable directories and refuses them elsewhere:
 * Landlock does not cover them. The file is resolved here, from the
 * command's working directory or descriptor, to a descriptor of ours; its
 * path is checked and the change made through that descriptor, so a
 * symlink or a path in the command's memory changed meanwhile cannot
 * redirect it. The change is made with our credentials, the command's
 * (no user namespace, no set-id program under no_new_privs). */
static int notify_fd = -1;
static char *writable[MAX_PATHS];
static int nwritable;

/* note_writable keeps the writable paths, resolved, but the device files
 * (writable for their data only): metadata changes are made in them. */
static void note_writable(const struct request *req) {
	for (int i = 0; i < req->nwrite; i++) {
		char *p = is_device(req->write[i]) ? NULL : realpath(req->write[i], NULL);
		if (p) writable[nwritable++] = p;
	}
}

/* inside_writable reports whether the file fd is a writable path or
 * beneath one. */
static int inside_writable(int fd) {
	char link[64], path[4096];
	snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, path, sizeof path - 1);
	if (n <= 0 || path[0] != '/') return 0; /* a pipe, a socket, an anonymous inode */
	path[n] = 0;
	for (int i = 0; i < nwritable; i++) {
		size_t l = strlen(writable[i]);
		if (strncmp(path, writable[i], l) == 0 && (path[l] == 0 || path[l] == '/' || l == 1)) return 1;
	}
	return 0;
}

/* read_mem copies len bytes at addr of process pid. */
static int read_mem(pid_t pid, uint64_t addr, void *buf, size_t len) {
	struct iovec local = {.iov_base = buf, .iov_len = len}, remote = {.iov_base = (void *)(uintptr_t)addr, .iov_len = len};
	if (len == 0) return 0;
	if (process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len) return 0;
	errno = EFAULT;
	return -1;
}

/* read_string copies the string at addr of process pid, a page at most at
 * a time (the next page may not be mapped). */
static int read_string(pid_t pid, uint64_t addr, char *buf, size_t cap) {
	for (size_t n = 0; n < cap;) {
		size_t chunk = 4096 - ((addr + n) & 4095);
		if (chunk > cap - n) chunk = cap - n;
		if (read_mem(pid, addr + n, buf + n, chunk) < 0) return -1;
		if (memchr(buf + n, 0, chunk)) return 0;
		n += chunk;
	}
	errno = ENAMETOOLONG;
	return -1;
}

/* their_fd is a descriptor of ours for the command's descriptor fd. */
static int their_fd(int pidfd, uint64_t fd) {
	if ((int)fd < 0) {
		errno = EBADF;
		return -1;
	}
	return (int)syscall(SYS_pidfd_getfd, pidfd, (int)fd, 0);
}

/* their_dir is a descriptor of ours for the command's directory dirfd
 * (AT_FDCWD: its working directory). */
static int their_dir(pid_t pid, int pidfd, uint64_t dirfd) {
	if ((int)dirfd != AT_FDCWD) return their_fd(pidfd, dirfd);
	char cwd[64];
	snprintf(cwd, sizeof cwd, "/proc/%d/cwd", pid);
	return open(cwd, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* resolve opens (O_PATH) what the command's path at addr names from its
 * directory dirfd, following a last symlink when follow is set; an empty
 * path (or none) names dirfd itself when empty is set. */
static int resolve(pid_t pid, int pidfd, uint64_t dirfd, uint64_t addr, int follow, int empty) {
	char path[4096];
	if (addr == 0 && empty) return their_dir(pid, pidfd, dirfd);
	if (read_string(pid, addr, path, sizeof path) < 0) return -1;
	if (path[0] == 0) {
		if (empty) return their_dir(pid, pidfd, dirfd);
		errno = ENOENT;
		return -1;
	}
	/* /proc/self is the process that looks it up: the command's own, for
	 * it (the C library's fchmodat(AT_SYMLINK_NOFOLLOW) chmods
	 * /proc/self/fd/N of an O_PATH descriptor). */
	char own[4200];
	for (int i = 0; i < 2; i++) {
		const char *self = i ? "/proc/thread-self" : "/proc/self";
		size_t l = strlen(self);
		if (strncmp(path, self, l) == 0 && (path[l] == '/' || path[l] == 0)) {
			if (i) snprintf(own, sizeof own, "/proc/%d/task/%d%s", pid, pid, path + l);
			else snprintf(own, sizeof own, "/proc/%d%s", pid, path + l);
			if (strlen(own) >= sizeof path) {
				errno = ENAMETOOLONG;
				return -1;
			}
			strcpy(path, own);
			break;
		}
	}
	int base = their_dir(pid, pidfd, dirfd);
	if (base < 0) return -1;
	int fd = openat(base, path, O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	int saved = errno;
	close(base);
	errno = saved;
	return fd;
}

/* times_of reads the command's times at addr (struct utimbuf, timeval[2]
 * or timespec[2], per kind; none: now) into ts; it returns ts or NULL. */
static struct timespec *times_of(pid_t pid, uint64_t addr, char kind, struct timespec ts[2], int *err) {
	*err = 0;
	if (addr == 0) return NULL;
	if (kind == 'n') {
		if (read_mem(pid, addr, ts, 2 * sizeof *ts) < 0) *err = errno;
	} else if (kind == 'b') {
		time_t t[2];
		if (read_mem(pid, addr, t, sizeof t) < 0) *err = errno;
		ts[0] = (struct timespec){.tv_sec = t[0]}, ts[1] = (struct timespec){.tv_sec = t[1]};
	} else {
		struct timeval tv[2];
		if (read_mem(pid, addr, tv, sizeof tv) < 0) *err = errno;
		for (int i = 0; i < 2; i++) ts[i] = (struct timespec){.tv_sec = tv[i].tv_sec, .tv_nsec = tv[i].tv_usec * 1000};
	}
	return ts;
}

/* metadata_change makes the change the notification n asks for, or says
 * why not; it returns 0 or an errno. */
static int metadata_change(const struct seccomp_notif *n) {
	const __u64 *a = n->data.args;
	pid_t pid = (pid_t)n->pid;
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) return ESRCH;
	/* What: 'm' mode, 'o' owner, 't' times, 'x' set or 'r' remove an
	 * attribute, 'f' inode flags; at the file obj. */
	char what = 0, kind = 0;
	int obj = -1;
	uint64_t mode = 0, uid = 0, gid = 0, name = 0, value = 0, size = 0, flags = 0, times = 0;
	switch (n->data.nr) {
	case SYS_chmod: what = 'm', mode = a[1], obj = resolve(pid, pidfd, AT_FDCWD, a[0], 1, 0); break;
	case SYS_fchmod: what = 'm', mode = a[1], obj = their_fd(pidfd, a[0]); break;
	case SYS_fchmodat: what = 'm', mode = a[2], obj = resolve(pid, pidfd, a[0], a[1], 1, 0); break;
	case SYS_fchmodat2: what = 'm', mode = a[2], obj = resolve(pid, pidfd, a[0], a[1], !(a[3] & AT_SYMLINK_NOFOLLOW), a[3] & AT_EMPTY_PATH); break;
	case SYS_chown: what = 'o', uid = a[1], gid = a[2], obj = resolve(pid, pidfd, AT_FDCWD, a[0], 1, 0); break;
	case SYS_lchown: what = 'o', uid = a[1], gid = a[2], obj = resolve(pid, pidfd, AT_FDCWD, a[0], 0, 0); break;
	case SYS_fchown: what = 'o', uid = a[1], gid = a[2], obj = their_fd(pidfd, a[0]); break;
	case SYS_fchownat: what = 'o', uid = a[2], gid = a[3], obj = resolve(pid, pidfd, a[0], a[1], !(a[4] & AT_SYMLINK_NOFOLLOW), a[4] & AT_EMPTY_PATH); break;
	case SYS_utime: what = 't', kind = 'b', times = a[1], obj = resolve(pid, pidfd, AT_FDCWD, a[0], 1, 0); break;
	case SYS_utimes: what = 't', kind = 'v', times = a[1], obj = resolve(pid, pidfd, AT_FDCWD, a[0], 1, 0); break;
	case SYS_futimesat: what = 't', kind = 'v', times = a[2], obj = resolve(pid, pidfd, a[0], a[1], 1, 0); break;
	case SYS_utimensat:
		/* A null path names the descriptor (futimens). */
		what = 't', kind = 'n', times = a[2], obj = resolve(pid, pidfd, a[0], a[1], !(a[3] & AT_SYMLINK_NOFOLLOW), a[1] == 0 || (a[3] & AT_EMPTY_PATH));
		break;
	case SYS_setxattr: what = 'x', name = a[1], value = a[2], size = a[3], flags = a[4], obj = resolve(pid, pidfd, AT_FDCWD, a[0], 1, 0); break;
	case SYS_lsetxattr: what = 'x', name = a[1], value = a[2], size = a[3], flags = a[4], obj = resolve(pid, pidfd, AT_FDCWD, a[0], 0, 0); break;
	case SYS_fsetxattr: what = 'x', name = a[1], value = a[2], size = a[3], flags = a[4], obj = their_fd(pidfd, a[0]); break;
	case SYS_removexattr: what = 'r', name = a[1], obj = resolve(pid, pidfd, AT_FDCWD, a[0], 1, 0); break;
	case SYS_lremovexattr: what = 'r', name = a[1], obj = resolve(pid, pidfd, AT_FDCWD, a[0], 0, 0); break;
	case SYS_fremovexattr: what = 'r', name = a[1], obj = their_fd(pidfd, a[0]); break;
	case SYS_ioctl: what = 'f', flags = a[1], value = a[2], obj = their_fd(pidfd, a[0]); break;
	default: close(pidfd); return ENOSYS;
	}
	int err = obj < 0 ? errno : 0;
	close(pidfd);
	if (err) return err;
	/* The notification is still the one we read the command's memory
	 * for (its process may have died, and its pid been reused). */
	if (ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) < 0) {
		close(obj);
		return ESRCH;
	}
	struct stat st;
	if (fstat(obj, &st) < 0 || !inside_writable(obj)) {
		close(obj);
		return EPERM;
	}
	char self[64], attr[XATTR_NAME_MAX + 1];
	snprintf(self, sizeof self, "/proc/self/fd/%d", obj);
	static char buf[XATTR_SIZE_MAX];
	struct timespec ts[2], *t;
	int r = -1;
	errno = 0;
	switch (what) {
	case 'm':
		if (S_ISLNK(st.st_mode)) errno = EOPNOTSUPP;
		else r = chmod(self, (mode_t)mode);
		break;
	case 'o': r = fchownat(obj, "", (uid_t)uid, (gid_t)gid, AT_EMPTY_PATH); break;
	case 't':
		t = times_of(pid, times, kind, ts, &err);
		if (err) errno = err;
		else r = utimensat(obj, "", t, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
		break;
	case 'x':
	case 'r':
		/* Only the kernel's own attributes go on a symlink. */
		if (S_ISLNK(st.st_mode)) errno = EPERM;
		else if (read_string(pid, name, attr, sizeof attr) < 0) errno = errno == ENAMETOOLONG ? ERANGE : errno;
		else if (what == 'r') r = removexattr(self, attr);
		else if (size > sizeof buf) errno = E2BIG;
		else if (read_mem(pid, value, buf, (size_t)size) == 0) r = setxattr(self, attr, buf, (size_t)size, (int)flags);
		break;
	case 'f': {
		/* FS_IOC_SETFLAGS reads an int, FS_IOC_FSSETXATTR a struct
		 * fsxattr (28 bytes). */
		size_t len = (uint32_t)flags == 0x401c5820 ? 28 : sizeof(int);
		if (read_mem(pid, value, buf, len) == 0) r = ioctl(obj, (unsigned long)(uint32_t)flags, buf);
		break;
	}
	}
	err = r < 0 ? (errno ? errno : EPERM) : 0;
	close(obj);
	return err;
}

/* handle_metadata answers one notification of the metadata filter. */
static void handle_metadata(void) {
	struct seccomp_notif n;
	memset(&n, 0, sizeof n);
	if (ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_RECV, &n) < 0) return; /* its process died */
	struct seccomp_notif_resp resp = {.id = n.id};
	resp.error = -metadata_change(&n);
	ioctl(notify_fd, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}

/* write_file writes s to path (for the namespace's id maps). */
static int write_file(const char *path, const char *s) {
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) return -1;
	ssize_t n = write(fd, s, strlen(s));
	int saved = errno;
	close(fd);
	errno = saved;
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* enter_namespaces makes new user and PID (and network) namespaces with
 * this process's own ids mapped; the next child is the PID namespace's 1.
 * It returns -1 when the kernel refused the namespaces (nothing changed),
 * and -2 with *what set when they were made but the id maps could not be
 * written (an LSM that allows unshare but no capability in the new
 * namespace): this process is then in a user namespace it cannot use. */
static int enter_namespaces(int net, const char **what) {
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (unshare(CLONE_NEWUSER | CLONE_NEWPID | (net ? CLONE_NEWNET : 0)) < 0) return -1;
	char m[64];
	snprintf(m, sizeof m, "%u %u 1\n", uid, uid);
	*what = "/proc/self/uid_map";
	if (write_file(*what, m) < 0) return -2;
	*what = "/proc/self/setgroups";
	if (write_file(*what, "deny") < 0 && errno != ENOENT) return -2;
	snprintf(m, sizeof m, "%u %u 1\n", gid, gid);
	*what = "/proc/self/gid_map";
	return write_file(*what, m) < 0 ? -2 : 0;
}

static long now_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* The supervising process's state. */
static int pid_ns;         /* PID 1 of the command's namespace */
static pid_t shell_pid;    /* the shell, until reaped */
static int shell_status;   /* its wait status once reaped */
static int shell_reaped;
static int all_gone;       /* no child is left: the tree is gone */
static int stop_requested; /* a stop message came */
static int host_gone;      /* control EOF or a fatal signal */
static int sig_fd = -1;
static sigset_t supervised_signals; /* blocked, read from sig_fd */

/* reap waits for every child that exited (orphans of the tree are
 * reparented to us) and notes when none is left. */
static void reap(void) {
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG | __WALL);
		if (p > 0) {
			if (p == shell_pid) {
				shell_status = st;
				shell_reaped = 1;
			}
			continue;
		}
		if (p < 0 && errno == EINTR) continue;
		if (p < 0 && errno == ECHILD) all_gone = 1;
		return;
	}
}

/* wait_events waits up to timeout_ms (-1: no limit) for the control
 * socket or a signal and handles what came. */
static void wait_events(int timeout_ms) {
	struct pollfd fds[3] = {{.fd = sig_fd, .events = POLLIN}, {.fd = host_gone ? -1 : CONTROL_FD, .events = POLLIN}, {.fd = notify_fd, .events = POLLIN}};
	int n = poll(fds, 3, timeout_ms);
	if (n <= 0) return;
	if (fds[2].revents & POLLIN) {
		handle_metadata();
	} else if (fds[2].revents) { /* no process of the tree is left */
		close(notify_fd);
		notify_fd = -1;
	}
	if (fds[0].revents & POLLIN) {
		struct signalfd_siginfo si;
		while (read(sig_fd, &si, sizeof si) == sizeof si) {
			if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGHUP || si.ssi_signo == SIGINT) host_gone = 1;
		}
		reap();
	}
	if (fds[1].revents) {
		char b[64];
		ssize_t r = read(CONTROL_FD, b, sizeof b);
		if (r <= 0 && !(r < 0 && (errno == EINTR || errno == EAGAIN))) {
			host_gone = 1;
		} else {
			for (ssize_t i = 0; i < r; i++)
				if (b[i] == MSG_STOP) stop_requested = 1;
		}
	}
}

/* children_of appends the children of pid to out (from
 * /proc/PID/task/TID/children); it returns -1 when the kernel lacks them. */
static int children_of(pid_t pid, pid_t *out, int n, int cap) {
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/task", pid);
	DIR *d = opendir(path);
	if (!d) return n;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.') continue;
		char cpath[300];
		snprintf(cpath, sizeof cpath, "/proc/%d/task/%s/children", pid, e->d_name);
		FILE *f = fopen(cpath, "re");
		if (!f) {
			if (errno == ENOENT && pid == getpid()) {
				closedir(d);
				return -1;
			}
			continue;
		}
		int c;
		while (n < cap && fscanf(f, "%d", &c) == 1) out[n++] = c;
		fclose(f);
	}
	closedir(d);
	return n;
}

/* parent_of reads pid's parent from /proc/PID/stat ("pid (comm) state
 * ppid ...", where comm may hold spaces and ')'). */
static pid_t parent_of(pid_t pid) {
	char path[64], b[512];
	snprintf(path, sizeof path, "/proc/%d/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) return -1;
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n <= 0) return -1;
	b[n] = 0;
	char *p = strrchr(b, ')');
	char state;
	int ppid;
	if (!p || sscanf(p + 1, " %c %d", &state, &ppid) != 2) return -1;
	return ppid;
}

/* scan_descendants finds the descendants of root from the parent of every
 * process in /proc, for kernels without the children files. */
static int scan_descendants(pid_t root, pid_t *out, int cap) {
	DIR *d = opendir("/proc");
	if (!d) return 0;
	static pid_t pids[65536], ppids[65536];
	int np = 0;
	struct dirent *e;
	while ((e = readdir(d)) && np < 65536) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0) continue;
		pids[np] = (pid_t)pid;
		ppids[np++] = parent_of((pid_t)pid);
	}
	closedir(d);
	int n = 0;
	out[n++] = root;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < np && n < cap; j++)
			if (ppids[j] == out[i]) out[n++] = pids[j];
	memmove(out, out + 1, (size_t)(n - 1) * sizeof *out);
	return n - 1;
}

/* signal_tree sends sigs (up to two, 0-terminated) to every process of the
 * tree but this one. */
static void signal_tree(int sig1, int sig2) {
	if (pid_ns) {
		kill(-1, sig1); /* every process of our namespace but its init, us */
		if (sig2) kill(-1, sig2);
		return;
	}
	static pid_t tree[65536];
	int n = 0, cap = 65536;
	tree[n++] = getpid();
	for (int i = 0; i < n && n < cap; i++) {
		int m = children_of(tree[i], tree, n, cap);
		if (m < 0) {
			n = 1 + scan_descendants(getpid(), tree + 1, cap - 1);
			break;
		}
		n = m;
	}
	for (int i = 1; i < n; i++) {
		kill(tree[i], sig1);
		if (sig2) kill(tree[i], sig2);
	}
}

/* kill_tree ends the tree: SIGTERM, then after the grace SIGKILL until no
 * process is left. The host's death during the grace cuts it short. */
static void kill_tree(long grace_ms) {
	reap();
	if (all_gone) return;
	if (grace_ms > 0 && !host_gone) {
		signal_tree(SIGTERM, SIGCONT); /* a stopped process must run to die of SIGTERM */
		long deadline = now_ms() + grace_ms;
		while (!all_gone && !host_gone) {
			long left = deadline - now_ms();
			if (left <= 0) break;
			wait_events((int)left);
		}
	}
	/* Repeated: a process forking while we walk the tree is caught by the
	 * next round (in a PID namespace one round reaches every process). */
	for (long wait_us = 100; !all_gone; wait_us = wait_us * 2 > 10000 ? 10000 : wait_us * 2) {
		signal_tree(SIGKILL, 0);
		/* SIGCHLD wakes the poll; the timeout bounds a lost wake-up. */
		wait_events((int)((wait_us + 999) / 1000));
		reap();
	}
}

/* drop_terminal gives up the controlling terminal of the host's session
 * (the user's terminal, where the TUI runs) for the calling process and
 * what it starts: through /dev/tty a command could type into it (TIOCSTI:
 * keys the TUI reads as the user's), write escape sequences the TUI never
 * sees, or wait there for a password. TIOCNOTTY in a process that does not
 * lead its session drops the terminal for it alone, and leaves it in the
 * supervisor's process group; a session it makes later cannot take the
 * terminal, which belongs to the host's session. */
static void drop_terminal(void) {
	int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (tty < 0) return; /* none (ENXIO) */
	ioctl(tty, TIOCNOTTY);
	close(tty);
}

/* processes_limited reports whether the command's tree is held to
 * --max-procs processes and threads: RLIMIT_NPROC counts a user's processes
 * per user namespace, so only in ours (without one it would count all of
 * the user's); the kernel does not hold root to it. */
static int processes_limited(const struct request *req) {
	return req->max_procs > 0 && pid_ns && getuid() != 0;
}

/* limit_processes holds the command's tree (forked from the caller) to
 * --max-procs processes and threads at once: a fork bomb gets EAGAIN
 * instead of taking the machine. */
static void limit_processes(const struct request *req) {
	if (!processes_limited(req)) return;
	struct rlimit rl = {.rlim_cur = (rlim_t)req->max_procs, .rlim_max = (rlim_t)req->max_procs};
	setrlimit(RLIMIT_NPROC, &rl);
}

/* find_shell resolves name on the PATH, as execvp would. */
static int find_shell(const char *name, char *out, size_t cap) {
	if (strchr(name, '/')) {
		snprintf(out, cap, "%s", name);
		return access(out, X_OK);
	}
	const char *path = getenv("PATH");
	if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t len = end ? (size_t)(end - path) : strlen(path);
		snprintf(out, cap, "%.*s/%s", (int)len, len ? path : ".", name);
		struct stat st;
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0) return 0;
		path += len + (end ? 1 : 0);
	}
	errno = ENOENT;
	return -1;
}

/* reset_signals sets every signal's disposition to its default, through
 * the system call: the C library refuses the real-time signals it reserves
 * (32, 33), which a host may have ignored. */
static void reset_signals(void) {
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		uint64_t mask;
	} dfl = {0};
	for (int sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP) syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof dfl.mask);
}

/* signal_name names sig as Go's syscall.Signal.String does (the report's
 * wire), in English whatever the command's locale. */
static const char *signal_name(int sig) {
	static const char *names[] = {
	    [SIGHUP] = "hangup", [SIGINT] = "interrupt", [SIGQUIT] = "quit", [SIGILL] = "illegal instruction",
	    [SIGTRAP] = "trace/breakpoint trap", [SIGABRT] = "aborted", [SIGBUS] = "bus error",
	    [SIGFPE] = "floating point exception", [SIGKILL] = "killed", [SIGUSR1] = "user defined signal 1",
	    [SIGSEGV] = "segmentation fault", [SIGUSR2] = "user defined signal 2", [SIGPIPE] = "broken pipe",
	    [SIGALRM] = "alarm clock", [SIGTERM] = "terminated", [SIGXCPU] = "CPU time limit exceeded",
	    [SIGXFSZ] = "file size limit exceeded", [SIGSYS] = "bad system call",
	};
	static char other[32];
	if (sig > 0 && sig < (int)(sizeof names / sizeof *names) && names[sig]) return names[sig];
	snprintf(other, sizeof other, "signal %d", sig);
	return other;
}

/* new_stack maps a stack of size bytes for a process cloned with CLONE_VM,
 * below a page that faults (no silent overflow into our data); it returns
 * its top, or NULL. */
static char *new_stack(size_t size) {
	size_t guard = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, guard + size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (p == MAP_FAILED || mprotect(p, guard, PROT_NONE) < 0) return NULL;
	return p + guard + size;
}

/* What start_shell needs: the shell, the sandbox and the socket on which it
 * tells what it could not apply. */
struct shell_start {
	const struct request *req;
	const char *shell;
	int ruleset, applied, dev_null, check_metadata;
};

/* start_shell is the shell's process until its exec: it applies the
 * sandbox to itself and execs the shell. It runs in the supervisor's
 * memory (CLONE_VM | CLONE_VFORK, as posix_spawn does: the supervisor waits
 * meanwhile), so it changes none of it; its exec gives it its own. */
static int start_shell(void *arg) {
	const struct shell_start *s = arg;
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	drop_terminal();
	limit_processes(s->req);
	int check_metadata = s->check_metadata;
	if (s->ruleset >= 0) {
		int err = apply_ruleset(s->ruleset);
		if (err) {
			tell(s->applied, err, -1);
			if (s->req->required) _exit(127);
			check_metadata = 0;
		}
	}
	if (s->req->seccomp && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &filter_prog) < 0)) {
		tell(s->applied, errno | SECCOMP_FAILED, -1);
		if (s->req->required) _exit(127);
	}
	if (check_metadata) {
		int listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &metadata_prog);
		tell(s->applied, listener < 0 ? errno | METADATA_FAILED : METADATA_LISTENER, listener);
		if (listener < 0 && s->req->required) _exit(127);
		if (listener >= 0) close(listener);
	}
	dup2(s->dev_null, 0);
	/* The command starts as from a terminal's shell: default signal
	 * dispositions (Node ignores SIGPIPE, and ignored signals survive
	 * exec) and nothing blocked. */
	reset_signals();
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	char *argv[] = {(char *)s->req->shell, "-c", (char *)s->req->command, NULL};
	execv(s->shell, argv);
	_exit(127);
}

/* supervise runs the shell and keeps its tree; it fills in the report and
 * returns once no process of the tree is left. */
static void supervise(const struct request *req) {
	if (!pid_ns && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) {
		fail("interlock-run: PR_SET_CHILD_SUBREAPER: %s: the command's tree could not be kept, so it was not started", strerror(errno));
		return;
	}
	char shell[4096];
	if (find_shell(req->shell, shell, sizeof shell) < 0) {
		fail("interlock-run: exec: \"%s\": executable file not found in $PATH: install it or put it on the PATH of the host", req->shell);
		return;
	}
	int deny = strcmp(req->mode, "off") != 0 && strcmp(req->network, "deny") == 0;
	if ((req->seccomp && decode_filter(req->seccomp, &filter_prog) < 0) || (req->metadata && decode_filter(req->metadata, &metadata_prog) < 0)) {
		fail("interlock-run: --seccomp or --metadata is not a BPF program in hex: the command was not run");
		return;
	}
	if (deny && !req->seccomp && req->required) {
		fail("sandbox required (bash.sandbox.required) but no seccomp filter refuses unix sockets and UDP on this architecture, so network deny is not in force: the command was not run");
		return;
	}
	int ruleset;
	if (make_ruleset(req, &ruleset) < 0) return;
	if (pid_ns && ruleset >= 0) rep.read_only_mounts = read_only_mounts(req) == 0;
	/* Without a PID namespace (and so no read-only mounts) the supervisor
	 * checks metadata changes: it finds the command's processes in /proc,
	 * which shows the host's. */
	int check_metadata = ruleset >= 0 && !pid_ns && req->metadata;
	if (check_metadata) note_writable(req);
	int dev_null = open("/dev/null", O_RDONLY | O_CLOEXEC);
	/* The child says on it why it could not apply the ruleset and hands
	 * over the metadata filter's listener; its exec closes it. */
	int applied[2];
	if (dev_null < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, applied) < 0) {
		fail("interlock-run: open /dev/null or a socket pair: %s", strerror(errno));
		return;
	}
	/* No copy of the supervisor's page tables for a process that execs
	 * at once: see start_shell. */
	struct shell_start start = {.req = req, .shell = shell, .ruleset = ruleset, .applied = applied[1], .dev_null = dev_null, .check_metadata = check_metadata};
	char *stack = new_stack(64 * 1024);
	pid_t pid = stack ? clone(start_shell, stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &start) : -1;
	if (pid < 0) {
		fail("interlock-run: start %s: %s", shell, strerror(errno));
		return;
	}
	shell_pid = pid;
	close(applied[1]);
	if (ruleset >= 0) close(ruleset);
	int err, filtered = req->seccomp != NULL;
	ssize_t n;
	const char *why = "no filter for this architecture";
	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec iov = {.iov_base = &err, .iov_len = sizeof err};
		struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
		while ((n = recvmsg(applied[0], &m, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
		}
		if (n != sizeof err) break;
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		if (err == METADATA_LISTENER && c && c->cmsg_type == SCM_RIGHTS) {
			memcpy(&notify_fd, CMSG_DATA(c), sizeof notify_fd);
			rep.metadata_checked = 1;
		} else if (err & METADATA_FAILED) {
			if (req->required) fail("sandbox required (bash.sandbox.required) but the metadata filter failed: %s: the command was not run", strerror(err & ~METADATA_FAILED));
		} else if (err & SECCOMP_FAILED) {
			filtered = 0;
			why = strerror(err & ~SECCOMP_FAILED);
			if (req->required) fail("sandbox required (bash.sandbox.required) but the seccomp filter failed: %s: the command was not run", why);
		} else if (sandbox_failed(req, err) < 0) {
			break;
		}
	}
	close(applied[0]);
	if (rep.error[0]) {
		kill_tree(0); /* it did not exec */
		return;
	}
	if (deny) other_sockets(filtered, why);
	if (processes_limited(req)) rep.max_processes = req->max_procs;
	/* The command's output pipe ends when its tree does, not when we exit. */
	dup2(dev_null, 1);
	dup2(dev_null, 2);
	close(dev_null);

	while (!shell_reaped && !stop_requested && !host_gone) wait_events(-1);
	if (host_gone) {
		kill_tree(0);
		_exit(1);
	}
	if (stop_requested && !shell_reaped) rep.stopped = 1;
	/* What the shell left running in the background ends with it. */
	kill_tree(req->grace_ms);
	if (host_gone) _exit(1);
	if (WIFSIGNALED(shell_status)) {
		rep.exit_code = -1;
		rep.signal = signal_name(WTERMSIG(shell_status));
	} else {
		rep.exit_code = WEXITSTATUS(shell_status);
	}
}

/* probe prints what the kernel offers, as contain.Features. */
static int probe(void) {
	int abi = landlock_abi(), ns = 0;
	pid_t pid = fork();
	if (pid == 0) {
		const char *what;
		if (enter_namespaces(0, &what) < 0) _exit(1);
		pid_t c = fork();
		if (c < 0) _exit(1);
		if (c == 0) _exit(getpid() == 1 ? 0 : 1);
		int st;
		_exit(waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1);
	}
	int st;
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0) ns = 1;
	printf("{\"landlock_abi\":%d,\"pid_namespace\":%s}\n", abi, ns ? "true" : "false");
	return 0;
}

/* first_to_go makes the command's tree (which inherits it) the first the
 * kernel's OOM killer takes, before the host and the user's programs: a
 * runaway allocation ends the command, not the session. Set here, before
 * the read-only mounts cover /proc. The command cannot lower it: /proc is
 * not writable for it (Landlock, and the read-only mounts). Without
 * Landlock (sandbox off) it can, down to the host's value. */
static void first_to_go(void) {
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
	if (fd < 0) return;
	write_all(fd, "1000", 4);
	close(fd);
}

/* close_inherited closes every descriptor above the control socket: the
 * host's descriptors without close-on-exec (a log file, a socket its own
 * parent passed down) would reach the command, whose writes through them
 * no sandbox checks. */
static void close_inherited(void) {
	if (syscall(SYS_close_range, CONTROL_FD + 1, ~0U, 0) == 0) return;
	DIR *d = opendir("/proc/self/fd"); /* before Linux 5.9 */
	if (!d) return;
	struct dirent *e;
	while ((e = readdir(d))) {
		int fd = atoi(e->d_name);
		if (fd > CONTROL_FD && fd != dirfd(d)) close(fd);
	}
	closedir(d);
}

/* supervise_and_report supervises the command (as the PID namespace's 1,
 * or as a subreaper) and writes the report once its tree is gone. */
static int supervise_and_report(struct request *req) {
	/* The host's death, as a second line to the control socket's EOF:
	 * SIGTERM (through the signalfd) makes the subreaper kill the tree. */
	if (!pid_ns) prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
	sig_fd = signalfd(-1, &supervised_signals, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sig_fd < 0) {
		fail("interlock-run: signalfd: %s", strerror(errno));
		write_report();
		return 0;
	}
	rep.mode = req->mode;
	supervise(req);
	write_report();
	return 0;
}

/* run_init is the PID namespace's 1, cloned by the outer process. */
static int run_init(void *req) {
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	pid_ns = 1;
	rep.tree = "pid-namespace";
	return supervise_and_report(req);
}

static int usage(void) {
	fprintf(stderr, "usage: interlock-run [--ns] [--net-ns] [--grace-ms N] [--max-procs N] [--mode M] [--network N] [--required] [--no-landlock] [--seccomp HEX] [--metadata HEX] [--read PATH]... [--write PATH]... -- SHELL COMMAND\n"
	                "  (started by the Interlock bash tool, with its control socket on fd 3) | interlock-run --probe\n");
	return 2;
}

int main(int argc, char **argv) {
	if (argc == 2 && strcmp(argv[1], "--probe") == 0) return probe();
	struct request req = {.mode = "workspace-write", .network = "allow"};
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		} else if (strcmp(a, "--ns") == 0) {
			req.ns = 1;
		} else if (strcmp(a, "--net-ns") == 0) {
			req.net_ns = 1;
		} else if (strcmp(a, "--required") == 0) {
			req.required = 1;
		} else if (strcmp(a, "--no-landlock") == 0) {
			req.no_landlock = 1;
		} else if (v && strcmp(a, "--grace-ms") == 0) {
			req.grace_ms = atol(v), i++;
		} else if (v && strcmp(a, "--max-procs") == 0) {
			req.max_procs = atol(v), i++;
		} else if (v && strcmp(a, "--mode") == 0) {
			req.mode = v, i++;
		} else if (v && strcmp(a, "--network") == 0) {
			req.network = v, i++;
		} else if (v && strcmp(a, "--seccomp") == 0) {
			req.seccomp = v, i++;
		} else if (v && strcmp(a, "--metadata") == 0) {
			req.metadata = v, i++;
		} else if (v && (strcmp(a, "--read") == 0 || strcmp(a, "--write") == 0)) {
			int *n = a[2] == 'r' ? &req.nread : &req.nwrite;
			if (*n == MAX_PATHS) {
				fprintf(stderr, "interlock-run: more than %d %s paths\n", MAX_PATHS, a + 2);
				return usage();
			}
			(a[2] == 'r' ? req.read : req.write)[(*n)++] = v, i++;
		} else {
			fprintf(stderr, "interlock-run: unknown or incomplete argument %s\n", a);
			return usage();
		}
	}
	if (argc - i != 2) return usage();
	req.shell = argv[i];
	/* The command is the shell's business: our own command line (ps,
	 * /proc/PID/cmdline) does not repeat it, so a search for the command's
	 * text finds the command, not its supervisor. */
	req.command = strdup(argv[i + 1]);
	if (!req.command) return 1;
	memset(argv[i + 1], 0, strlen(argv[i + 1]));
	int fl = fcntl(CONTROL_FD, F_GETFD);
	struct stat st;
	if (fl < 0 || fstat(CONTROL_FD, &st) < 0 || !S_ISSOCK(st.st_mode)) {
		fprintf(stderr, "interlock-run: no control socket on fd 3: it is started by the Interlock bash tool, not by hand (try --probe)\n");
		return 2;
	}
	fcntl(CONTROL_FD, F_SETFD, fl | FD_CLOEXEC);
	close_inherited();
	first_to_go();

	sigset_t *mask = &supervised_signals;
	sigemptyset(mask);
	sigaddset(mask, SIGCHLD);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGHUP);
	sigaddset(mask, SIGINT);
	sigprocmask(SIG_BLOCK, mask, NULL);
	signal(SIGCHLD, SIG_DFL); /* an ignored SIGCHLD would reap our children for us */
	signal(SIGPIPE, SIG_IGN);

	if (req.ns) {
		const char *what = "";
		int ns = enter_namespaces(req.net_ns, &what);
		if (ns == -2) {
			rep.namespaces_refused = 1;
			fail("interlock-run: made a user namespace but could not write %s: %s (an LSM such as AppArmor's restrict_unprivileged_userns?): the command was not run; the next one runs without namespaces", what, strerror(errno));
			write_report();
			return 0;
		}
		if (ns == -1) {
			rep.namespaces_refused = 1; /* keep the tree as a subreaper instead */
		} else {
			/* PID 1 shares this process's memory (CLONE_VM): no copy of
			 * its page tables to make, and one address space, not two,
			 * for the kernel to tear down when the command ends (on a
			 * stop of many commands at once, that teardown is what
			 * takes the CPU). This process touches nothing of it after
			 * the clone: it only waits. */
			char *stack = new_stack(256 * 1024);
			pid_t init = stack ? clone(run_init, stack, CLONE_VM | SIGCHLD, &req) : -1;
			if (init < 0) {
				fail("interlock-run: start the namespace's init: %s", strerror(errno));
				write_report();
				return 0;
			}
			/* The host's death, as a second line to the control
			 * socket's EOF: our death kills PID 1, and so the
			 * namespace. */
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
			/* The outer process only waits: PID 1 supervises and
			 * reports; if we are killed, PID 1 gets SIGKILL
			 * (PDEATHSIG) and the kernel kills the namespace. */
			int null = open("/dev/null", O_RDWR | O_CLOEXEC);
			dup2(null, 1);
			dup2(null, 2);
			close(CONTROL_FD);
			int st2;
			while (waitpid(init, &st2, 0) < 0 && errno == EINTR) {
			}
			_exit(0);
		}
	}
	return supervise_and_report(&req);
}
