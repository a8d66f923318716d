// Process file descriptors (pidfd), which glibc 2.36 offers only through syscall(2): a variadic
// function that Swift cannot call. A pidfd names one process for as long as it is open, so a
// signal sent through it can never reach another process that reused the pid.
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/// pidfd_open(2): a descriptor for process `pid`, close-on-exec; -1 and errno on failure (ENOSYS
/// before Linux 5.3, ESRCH when there is no such process).
static inline int transcribe_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
  return (int)syscall(SYS_pidfd_open, pid, 0);
#else
  errno = ENOSYS;
  return -1;
#endif
}

/// pidfd_send_signal(2): sends `signal` to the process `pidfd` names; -1 and errno (ESRCH once
/// it has exited) on failure.
static inline int transcribe_pidfd_send_signal(int pidfd, int signal) {
#ifdef SYS_pidfd_send_signal
  return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, (void *)0, 0);
#else
  errno = ENOSYS;
  return -1;
#endif
}
