#ifndef EMULATOR_CEPOLL_H
#define EMULATOR_CEPOLL_H
// Linux event notification for the HTTP event loop: epoll and eventfd are not part of Swift's
// Glibc module map, so they are exposed here with small wrappers that hide the epoll_data union
// (and malloc_trim, which the loop calls after a burst of connections or streams has closed).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <stdint.h>

static const uint32_t cepoll_in = EPOLLIN;
static const uint32_t cepoll_out = EPOLLOUT;
static const uint32_t cepoll_err = EPOLLERR;
static const uint32_t cepoll_hup = EPOLLHUP;
static const uint32_t cepoll_rdhup = EPOLLRDHUP;

/// Creates an epoll instance with close-on-exec.
int cepoll_create(void);
/// Creates a non-blocking, close-on-exec eventfd.
int cepoll_eventfd(void);
/// Adds (op 1), modifies (op 3) or deletes (op 2) `fd` with `events`; the fd is the event's data.
int cepoll_ctl(int epfd, int op, int fd, uint32_t events);
/// Waits; fills `fds` and `events` with up to `max` ready entries; returns the count or -1.
int cepoll_wait(int epfd, int *fds, uint32_t *events, int max, int timeout_ms);
/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC (a GNU extension Swift's Glibc does not import).
int cepoll_accept(int fd, void *addr, unsigned int *len);
/// malloc_trim(0): returns the allocator's free memory to the system (after many connections or
/// streams closed; glibc keeps freed pages in its arenas otherwise). Not in Swift's Glibc module.
int cepoll_trim_memory(void);
/// The processors this process may run on (its affinity mask; the online count if that fails).
int cepoll_usable_cpus(void);
#endif
