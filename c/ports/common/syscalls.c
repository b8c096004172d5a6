/*
 * The C library's system calls for every bare-metal port, over the port's console and exit
 * (port.h): the handful a C suite can reach (malloc -> _sbrk, printf -> _write, exit -> _exit;
 * newlib's names, which picolibc's libsemihost-free build also calls), kill and getpid (abort(),
 * and so a failed assert(), reaches them through raise()), picolibc's stdout, and the harness's
 * output hook.
 *
 * Everything here is in its own section (-ffunction-sections) so that --gc-sections drops
 * what a suite does not call.
 */
#include "port.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#if defined(__PICOLIBC__)
#include <stdio.h>
#endif

/* The harness's output hook on bare metal: the wire stream goes to the console. */
void rho_bench_port_write(const char *bytes, unsigned long len);
void rho_bench_port_write(const char *bytes, unsigned long len)
{
    (void)rho_port_console_write(bytes, (size_t)len);
}

/* Declared here because the C libraries' headers do not declare the underscore versions. */
void *_sbrk(ptrdiff_t increment);
int _write(int fd, const char *bytes, int len);
int _read(int fd, char *bytes, int len);
int _close(int fd);
int _fstat(int fd, struct stat *status);
int _isatty(int fd);
int _lseek(int fd, int offset, int whence);
void _exit(int code) __attribute__((noreturn));
int _kill(int pid, int signal);
int _getpid(void);

/* Heap bounds, from the linker script. */
extern char __heap_start__[];
extern char __heap_end__[];

void *_sbrk(ptrdiff_t increment)
{
    /* malloc grows its arena through here; refuse to hand out the stack region. */
    static char *heap_top = __heap_start__;
    if (increment > __heap_end__ - heap_top || increment < __heap_start__ - heap_top) {
        errno = ENOMEM;
        return (void *)-1;
    }
    char *previous = heap_top;
    heap_top += increment;
    return previous;
}

int _write(int fd, const char *bytes, int len)
{
    if ((fd != 1 && fd != 2) || len < 0) {
        errno = EBADF;
        return -1;
    }
    if (rho_port_console_write(bytes, (size_t)len) != 0) {
        errno = EIO;
        return -1;
    }
    return len;
}

int _read(int fd, char *bytes, int len)
{
    (void)fd;
    (void)bytes;
    (void)len;
    return 0; /* no input: end of file */
}

int _close(int fd)
{
    (void)fd;
    errno = EBADF;
    return -1;
}

int _fstat(int fd, struct stat *status)
{
    (void)fd;
    status->st_mode = S_IFCHR; /* a terminal: newlib line-buffers it */
    return 0;
}

int _isatty(int fd)
{
    return fd >= 0 && fd <= 2;
}

int _lseek(int fd, int offset, int whence)
{
    (void)fd;
    (void)offset;
    (void)whence;
    errno = ESPIPE;
    return -1;
}

void _exit(int code)
{
    rho_port_exit(code);
}

/* The program is process 1, and a signal it sends itself ends it as a host's process would end:
 * abort() (a failed assert()) raises SIGABRT, and the board exits with 128 + 6, the status rho
 * reads as a crash, after the C library has printed the assertion's message to the console. */
#define RHO_PORT_PID 1

int _kill(int pid, int signal)
{
    if (pid == RHO_PORT_PID && signal > 0) {
        rho_port_exit(128 + signal);
    }
    errno = EINVAL;
    return -1;
}

int _getpid(void)
{
    return RHO_PORT_PID;
}

#if defined(__PICOLIBC__)
/* picolibc's raise() (which abort() and so assert() call) names them without the underscore. */
int kill(int pid, int signal);
int getpid(void);

int kill(int pid, int signal)
{
    return _kill(pid, signal);
}

int getpid(void)
{
    return _getpid();
}
#endif

#if defined(__PICOLIBC__)
/* picolibc's stdio writes through a FILE the program supplies: the console, for a suite that
 * prints (the harness itself never uses stdio). */
static int console_putc(char c, FILE *file)
{
    (void)file;
    return rho_port_console_write(&c, 1) == 0 ? (unsigned char)c : EOF;
}
static FILE console = FDEV_SETUP_STREAM(console_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdout = &console;
FILE *const stderr = &console;
#endif
