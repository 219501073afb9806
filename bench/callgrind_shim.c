/* LD_PRELOAD for bench/callgrind.py: valgrind 3.19 crashes (an internal SIGSEGV) when
 * libdispatch's dispatch_main parks the main thread in sigsuspend. The main thread has nothing
 * else to do, so it sleeps instead; signals still reach the process's other threads. */
#include <signal.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    (void)mask;
    for (;;) sleep(3600);
}
