#ifndef EMULATOR_CSPAWN_H
#define EMULATOR_CSPAWN_H
// Child processes for the functions host and `emulator exec`: posix_spawn with a working
// directory and close-from (GNU extensions Swift's Glibc module does not import), and the
// wait-status macros, which Swift cannot call.
#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL-terminated) in its own process group, with an empty
/// signal mask and default signal dispositions (the emulator ignores SIGPIPE and blocks signals on
/// its threads; neither must leak into a child), only descriptors 0-2 open, standard input,
/// output and error taken from `stdin_fd`, `stdout_fd` and `stderr_fd` when they are >= 0 (the
/// same descriptor may serve for output and error), and the working directory `cwd` when not NULL.
/// Returns 0 and sets `*pid`, or an errno value (also when the program or `cwd` does not exist).
int cspawn_start(pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *cwd,
                 int stdin_fd, int stdout_fd, int stderr_fd);

/// pipe2 with O_CLOEXEC: `fds[0]` reads, `fds[1]` writes, both >= 3 even when the emulator runs
/// with a standard descriptor closed. Returns 0 or an errno value.
int cspawn_pipe(int fds[2]);

/// `/dev/null` opened for reading, O_CLOEXEC, on a descriptor >= 3; or minus an errno value.
int cspawn_open_null(void);

/// Blocks until `pid` has terminated, without reaping it (the pid stays reserved, so signalling
/// it until `cspawn_reap` is safe). Returns 0 or an errno value.
int cspawn_wait_exit(pid_t pid);

/// Reaps `pid`: sets `*signalled` (1 when a signal ended it) and `*code` (the exit code or the
/// signal number). Returns 0 or an errno value.
int cspawn_reap(pid_t pid, int *signalled, int *code);
#endif
