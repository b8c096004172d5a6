/*
 * Semihosting for every built-in board (Cortex-M and RISC-V): the console the wire stream goes
 * to, the exit that hands main's status to QEMU, and the handful of C-library system calls a C
 * suite can reach (malloc -> _sbrk, printf -> _write, exit -> _exit; newlib's names, which
 * picolibc's libsemihost-free build also calls). The one architecture-specific part is the trap
 * that calls the host (semihost_call).
 *
 * Everything here is in its own section (-ffunction-sections) so that --gc-sections drops
 * what a suite does not call.
 */
#include "semihost.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Operation numbers and constants from Arm's "Semihosting for AArch32 and AArch64". */
#define SYS_OPEN 0x01u
#define SYS_WRITE 0x05u
#define SYS_EXIT 0x18u
#define SYS_EXIT_EXTENDED 0x20u
#define ADP_STOPPED_APPLICATION_EXIT 0x20026u
#define ADP_STOPPED_RUN_TIME_ERROR 0x20023u
#define OPEN_MODE_WRITE 4u /* fopen mode "w" */

static uintptr_t semihost_call(uintptr_t operation, const void *argument)
{
#if defined(__riscv)
    /* RISC-V: the operands in a0/a1 and `ebreak` between two marker instructions (the RISC-V
     * semihosting specification), uncompressed so the host finds them at fixed offsets. */
    register uintptr_t a0 __asm__("a0") = operation;
    register const void *a1 __asm__("a1") = argument;
    __asm__ volatile(".option push\n\t"
                     ".option norvc\n\t"
                     ".balign 16\n\t"
                     "slli x0, x0, 0x1f\n\t"
                     "ebreak\n\t"
                     "srai x0, x0, 7\n\t"
                     ".option pop"
                     : "+r"(a0)
                     : "r"(a1)
                     : "memory");
    return a0;
#else
    /* Arm (Thumb): r0/r1 must hold the operands at the bkpt; the host writes the result into r0
     * and may read or write memory through the argument block ("memory" clobber). */
    register uintptr_t r0 __asm__("r0") = operation;
    register const void *r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
#endif
}

/* The console's handle. Semihosting has no pre-opened stdout: the special file name
 * ":tt" opened for writing is the host's console. Opened on first use; -1 until then. */
static int console_handle = -1;

int rho_port_console_write(const char *bytes, size_t len)
{
    if (console_handle < 0) {
        static const char tt[] = ":tt";
        const uintptr_t open_block[3] = {(uintptr_t)tt, OPEN_MODE_WRITE, sizeof tt - 1};
        console_handle = (int)semihost_call(SYS_OPEN, open_block);
        if (console_handle < 0) {
            return -1;
        }
    }
    while (len > 0) {
        const uintptr_t write_block[3] = {(uintptr_t)console_handle, (uintptr_t)bytes, len};
        /* SYS_WRITE returns the number of bytes NOT written. */
        const size_t unwritten = (size_t)semihost_call(SYS_WRITE, write_block);
        if (unwritten >= len) {
            return -1; /* nothing went out: give up rather than spin */
        }
        bytes += len - unwritten;
        len = unwritten;
    }
    return 0;
}

void rho_port_exit(int code)
{
    /* SYS_EXIT_EXTENDED carries the status (QEMU exits with it). A host that lacks it
     * gets SYS_EXIT, which on AArch32 can only say success or failure. */
    const uintptr_t exit_block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uintptr_t)code};
    semihost_call(SYS_EXIT_EXTENDED, exit_block);
    semihost_call(SYS_EXIT, (const void *)(code == 0 ? ADP_STOPPED_APPLICATION_EXIT
                                                      : ADP_STOPPED_RUN_TIME_ERROR));
    for (;;) {
        /* No host answered: park the core. */
    }
}

/* The harness's output hook on bare metal: the wire stream goes to the console. */
void rho_bench_port_write(const char *bytes, unsigned long len);
void rho_bench_port_write(const char *bytes, unsigned long len)
{
    (void)rho_port_console_write(bytes, (size_t)len);
}

/* ---- C library system calls ---------------------------------------------------------- */

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

int _kill(int pid, int signal)
{
    (void)pid;
    (void)signal;
    errno = EINVAL;
    return -1;
}

int _getpid(void)
{
    return 1;
}
