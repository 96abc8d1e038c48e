package contain

import (
	"encoding/binary"
	"encoding/hex"
	"sync"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// networkDenyFilter is the seccomp filter a command runs under when its
// policy denies the network, as interlock-run's --seccomp argument (hex of
// the BPF program, the host's byte order); "" when it cannot be built for
// this machine's architecture (the supervisor then reports other sockets
// open). A network namespace and Landlock's TCP rules leave a named unix
// socket reachable (connect(2) to /var/run/docker.sock, a host's control
// socket: the file system's sockets are in no network namespace, and
// Landlock, ABI 7, does not cover connecting to them), vsock and other
// families reach out of the machine past both, and without a namespace
// Landlock covers TCP only (UDP, SCTP, ICMP go out). The filter refuses
// (EACCES):
//
//   - socket(2) of every family but AF_INET and AF_INET6 TCP sockets (kept
//     by the namespace and Landlock) and AF_NETLINK (the local kernel):
//     AF_UNIX, AF_VSOCK, UDP, raw...;
//   - socketpair(2) but of AF_UNIX stream or seqpacket sockets (what pipes
//     to child processes use: they are connected for good); a datagram
//     pair can send to any named socket;
//   - io_uring (ENOSYS, so that programs fall back to plain calls): its
//     socket operations are not seen by seccomp;
//   - system calls of another ABI (ENOSYS): int 0x80 reaches the i386
//     socket calls, which a filter of the native numbers does not see.
//
// The kernel truncates the int arguments it compares: a family of
// 0x100000001 is AF_UNIX. The conditions below hold for any upper half:
// NotEqual is true when the upper half is not 0, and the type's bit tests
// look at the lower half only.
var networkDenyFilter = sync.OnceValue(buildNetworkDenyFilter)

// UnixSocketsRefused reports whether a command whose network is denied runs
// under the seccomp filter that refuses every socket but TCP (this machine's
// architecture has one).
func UnixSocketsRefused() bool { return networkDenyFilter() != "" }

func buildNetworkDenyFilter() string {
	refused := seccomp.ActionErrno | seccomp.Action(unix.EACCES)
	notFamily := func(families ...uint64) seccomp.ArgumentConditions {
		var c seccomp.ArgumentConditions
		for _, f := range families {
			c = append(c, seccomp.Condition{Argument: 0, Operation: seccomp.NotEqual, Value: f})
		}
		return c
	}
	// The socket type's low four bits (the rest are SOCK_NONBLOCK and
	// SOCK_CLOEXEC): anything but 1 (SOCK_STREAM) or 5 (SOCK_SEQPACKET),
	// i.e. bit 0 clear, bit 1 set or bit 3 set. SOCK_RAW (3) is a datagram
	// socket in AF_UNIX.
	typeBits := func(op seccomp.Operation, bits uint64) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: "socketpair", Conditions: seccomp.ArgumentConditions{{Argument: 1, Operation: op, Value: bits}}}
	}
	// An AF_INET or AF_INET6 socket but a TCP one: a type but SOCK_STREAM
	// (as above), or a protocol but 0 and IPPROTO_TCP (SCTP and MPTCP are
	// streams too). Equal fails when the family's upper half is set: then
	// notFamily refuses it.
	var notTCP []seccomp.NameWithConditions
	for _, family := range []uint64{unix.AF_INET, unix.AF_INET6} {
		is := seccomp.Condition{Argument: 0, Operation: seccomp.Equal, Value: family}
		for _, c := range []seccomp.ArgumentConditions{
			{is, {Argument: 1, Operation: seccomp.BitsNotSet, Value: 1}},
			{is, {Argument: 1, Operation: seccomp.BitsSet, Value: 0xe}},
			{is, {Argument: 2, Operation: seccomp.NotEqual, Value: 0}, {Argument: 2, Operation: seccomp.NotEqual, Value: unix.IPPROTO_TCP}},
		} {
			notTCP = append(notTCP, seccomp.NameWithConditions{Name: "socket", Conditions: c})
		}
	}
	policy := seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: refused, NamesWithCondtions: append([]seccomp.NameWithConditions{
				{Name: "socket", Conditions: notFamily(unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK)},
				{Name: "socketpair", Conditions: notFamily(unix.AF_UNIX)},
				typeBits(seccomp.BitsNotSet, 1),
				typeBits(seccomp.BitsSet, 2),
				typeBits(seccomp.BitsSet, 8),
			}, notTCP...)},
			{Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS), Names: []string{"io_uring_setup", "io_uring_enter", "io_uring_register"}},
		},
	}
	return assemble(policy)
}

// assemble is policy's program after the instructions first (which may
// return; they start with the system call's number loaded), as the hex of
// its instructions in the host's byte order; "" when the library has no
// system call table for this architecture.
func assemble(policy seccomp.Policy, first ...bpf.Instruction) string {
	native, err := arch.GetInfo("")
	if err != nil {
		return ""
	}
	prog, err := policy.Assemble()
	if err != nil {
		return ""
	}
	// The library's program lets another ABI's calls through (its default
	// action): refuse them first.
	prog = append(append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(native.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | uint32(unix.ENOSYS)},
	}, first...), prog...)
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return ""
	}
	b := make([]byte, 0, 8*len(raw))
	for _, in := range raw {
		b = binary.NativeEndian.AppendUint16(b, in.Op)
		b = append(b, in.Jt, in.Jf)
		b = binary.NativeEndian.AppendUint32(b, in.K)
	}
	return hex.EncodeToString(b)
}

// metadataFilter is the seccomp filter (hex, as networkDenyFilter) that
// hands a command's changes of a file's mode, owner, times, extended
// attributes and inode flags to its supervisor (SECCOMP_RET_USER_NOTIF),
// where no read-only mount refuses them outside the writable paths (no user
// namespace: Landlock does not cover them). The supervisor resolves the
// file itself, checks that it is inside a writable directory, and makes
// the change there or refuses it (EPERM): the command's memory and paths
// are read once, so nothing it changes afterwards reaches the change. It
// also refuses, with ENOSYS, what the supervisor does not make for it:
// setxattrat and removexattrat, file_setattr (468, newer than the
// library's table), io_uring (its operations are not seen by seccomp),
// userfaultfd and system calls of another ABI. And, with EPERM, changing the resource
// limits, priority, scheduling, CPUs or I/O priority of another process
// (or of all the user's): without a PID namespace the host's pid is in the
// command's reach, and Landlock does not cover them (prlimit --cpu=1 kills
// the host, chrt -i starves it). A command sets them for itself (pid 0) and
// what it starts inherits them.
var metadataFilter = sync.OnceValue(buildMetadataFilter)

// MetadataChecked reports whether this machine's architecture has the
// filter that hands metadata changes to the supervisor.
func MetadataChecked() bool { return metadataFilter() != "" }

// fileSetattr is file_setattr(2) (Linux 6.17), on every architecture.
const fileSetattr = 468

// ioprioWhoProcess is ioprio_set's IOPRIO_WHO_PROCESS.
const ioprioWhoProcess = 1

// Inode flag ioctls (chattr): FS_IOC_SETFLAGS, its 32-bit form and
// FS_IOC_FSSETXATTR.
var flagIoctls = []uint64{0x40086602, 0x40046602, 0x401c5820}

func buildMetadataFilter() string {
	enosys := seccomp.ActionErrno | seccomp.Action(unix.ENOSYS)
	var ioctls []seccomp.NameWithConditions
	for _, cmd := range flagIoctls {
		// The lower half equals cmd, whatever the upper half (the kernel
		// reads an unsigned int).
		ioctls = append(ioctls, seccomp.NameWithConditions{Name: "ioctl", Conditions: seccomp.ArgumentConditions{
			{Argument: 1, Operation: seccomp.BitsSet, Value: cmd},
			{Argument: 1, Operation: seccomp.BitsNotSet, Value: ^cmd & 0xffffffff},
		}})
	}
	// Another process than the caller: a pid (or who) but 0. NotEqual holds
	// when the upper half is set too.
	other := func(name string, arg uint32, more ...seccomp.Condition) seccomp.NameWithConditions {
		return seccomp.NameWithConditions{Name: name, Conditions: append(seccomp.ArgumentConditions{{Argument: arg, Operation: seccomp.NotEqual, Value: 0}}, more...)}
	}
	policy := seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: seccomp.ActionErrno | seccomp.Action(unix.EPERM), NamesWithCondtions: []seccomp.NameWithConditions{
				other("prlimit64", 0, seccomp.Condition{Argument: 2, Operation: seccomp.NotEqual, Value: 0}), // a new limit
				other("setpriority", 0), other("setpriority", 1), // PRIO_PROCESS (0) of itself (0) only
				other("sched_setaffinity", 0), other("sched_setscheduler", 0), other("sched_setparam", 0), other("sched_setattr", 0),
				{Name: "ioprio_set", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.NotEqual, Value: ioprioWhoProcess}}},
				other("ioprio_set", 1),
			}},
			{Action: seccomp.ActionUserNotify, Names: []string{
				"chmod", "fchmod", "fchmodat", "fchmodat2", "chown", "fchown", "lchown", "fchownat",
				"utime", "utimes", "futimesat", "utimensat",
				"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
			}, NamesWithCondtions: ioctls},
			// userfaultfd: a path in a page whose faults the command
			// handles would hold the supervisor in process_vm_readv (the
			// kernel lets only user-mode faults be handled without
			// CAP_SYS_PTRACE unless vm.unprivileged_userfaultfd is 1).
			{Action: enosys, Names: []string{"setxattrat", "removexattrat", "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd"}},
		},
	}
	return assemble(policy, bpf.LoadAbsolute{Off: 0, Size: 4}, bpf.JumpIf{Cond: bpf.JumpEqual, Val: fileSetattr, SkipFalse: 1}, bpf.RetConstant{Val: uint32(enosys)})
}
