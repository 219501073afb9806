#define _GNU_SOURCE
#include "cspawn.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

int cspawn_start(pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *cwd,
                 int stdin_fd, int stdout_fd, int stderr_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    int rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) return rc;
    rc = posix_spawnattr_init(&attr);
    if (rc != 0) { posix_spawn_file_actions_destroy(&actions); return rc; }

    if (rc == 0 && stdin_fd >= 0 && stdin_fd != STDIN_FILENO) rc = posix_spawn_file_actions_adddup2(&actions, stdin_fd, STDIN_FILENO);
    if (rc == 0 && stdout_fd >= 0 && stdout_fd != STDOUT_FILENO) rc = posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
    if (rc == 0 && stderr_fd >= 0 && stderr_fd != STDERR_FILENO) rc = posix_spawn_file_actions_adddup2(&actions, stderr_fd, STDERR_FILENO);
    // After the dup2s, so the pipes' own descriptors are closed in the child too.
    if (rc == 0) rc = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (rc == 0 && cwd != NULL) rc = posix_spawn_file_actions_addchdir_np(&actions, cwd);

    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    sigdelset(&all, SIGKILL);
    sigdelset(&all, SIGSTOP);
    if (rc == 0) rc = posix_spawnattr_setsigmask(&attr, &none);
    if (rc == 0) rc = posix_spawnattr_setsigdefault(&attr, &all);
    if (rc == 0) rc = posix_spawnattr_setpgroup(&attr, 0);
    if (rc == 0) rc = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
    if (rc == 0) rc = posix_spawn(pid, path, &actions, &attr, argv, envp);

    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    return rc;
}

/// Moves `*fd` to a descriptor >= 3 (close-on-exec) when it is one of 0-2, which happens only
/// when the emulator was started with a standard descriptor closed: the child's 0-2 are set up by
/// dup2 in order, and a pipe end sitting on one of them would be overwritten or lose its
/// redirection. Returns 0 or an errno value (then `*fd` is closed).
static int above_standard(int *fd) {
    if (*fd > STDERR_FILENO) return 0;
    int moved = fcntl(*fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
    int err = errno;
    close(*fd);
    *fd = moved;
    return moved < 0 ? err : 0;
}

int cspawn_pipe(int fds[2]) {
    if (pipe2(fds, O_CLOEXEC) != 0) return errno;
    int rc = above_standard(&fds[0]);
    if (rc == 0) rc = above_standard(&fds[1]);
    if (rc != 0) {
        if (fds[0] >= 0) close(fds[0]);
        if (fds[1] >= 0) close(fds[1]);
    }
    return rc;
}

int cspawn_open_null(void) {
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    int rc = above_standard(&fd);
    return rc == 0 ? fd : -rc;
}

int cspawn_wait_exit(pid_t pid) {
    siginfo_t info;
    for (;;) {
        if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) == 0) return 0;
        if (errno != EINTR) return errno;
    }
}

int cspawn_reap(pid_t pid, int *signalled, int *code) {
    int status = 0;
    for (;;) {
        if (waitpid(pid, &status, 0) == pid) break;
        if (errno != EINTR) return errno;
    }
    *signalled = WIFSIGNALED(status) ? 1 : 0;
    *code = WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status);
    return 0;
}
