#define _GNU_SOURCE
#include "cepoll.h"
#include <stdlib.h>
#include <sys/socket.h>

int cepoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int cepoll_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int cepoll_ctl(int epfd, int op, int fd, uint32_t events) {
    struct epoll_event ev;
    ev.events = events;
    ev.data.u64 = 0;
    ev.data.fd = fd;
    int cop = op == 1 ? EPOLL_CTL_ADD : (op == 2 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD);
    return epoll_ctl(epfd, cop, fd, &ev);
}

int cepoll_wait(int epfd, int *fds, uint32_t *events, int max, int timeout_ms) {
    struct epoll_event evs[512];
    if (max > 512) max = 512;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        fds[i] = evs[i].data.fd;
        events[i] = evs[i].events;
    }
    return n;
}

int cepoll_accept(int fd, void *addr, unsigned int *len) {
    socklen_t l = *len;
    int r = accept4(fd, (struct sockaddr *)addr, &l, SOCK_NONBLOCK | SOCK_CLOEXEC);
    *len = l;
    return r;
}

#include <malloc.h>

int cepoll_trim_memory(void) { return malloc_trim(0); }

#include <sched.h>
#include <unistd.h>

int cepoll_usable_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}
