/*
 * The STM32H743ZI port's console (SEGGER RTT, or semihosting with CONSOLE=semihosting), its
 * exit (semihosting), and the newlib system calls a C suite can reach (malloc -> _sbrk,
 * printf -> _write, exit -> _exit). See console.h.
 *
 * RTT: the control block `_SEGGER_RTT` (the symbol name probe-rs, J-Link and OpenOCD look up in
 * the ELF, or scan RAM for the block's ID) describes one up-buffer. The target writes at WrOff,
 * the probe reads at RdOff and moves it; both are offsets into the buffer, and the buffer is
 * empty when they are equal. The port runs the channel in "block if full" mode: while the probe
 * is attached, a write waits for room, so a stream of hundreds of kilobytes arrives whole. The
 * block lives in .bss, which the linker script puts in DTCM: not cached, so the probe's reads
 * see what the core wrote without cache maintenance.
 */
#include "console.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* Debug Halting Control and Status Register: C_DEBUGEN (bit 0) is set while a debugger has
 * halting debug enabled, which a probe running the program (probe-rs run, OpenOCD) has. */
#define DHCSR (*(volatile uint32_t *)0xE000EDF0u)

static int debugger_attached(void)
{
#if defined(RHO_PORT_HOST_ALWAYS_THERE)
    return 1; /* QEMU answers semihosting, but its DHCSR says no debugger */
#else
    return (DHCSR & 1u) != 0;
#endif
}

/* ---- semihosting (the exit always; the console with CONSOLE=semihosting) --------------- */

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
    register uintptr_t r0 __asm__("r0") = operation;
    register const void *r1 __asm__("r1") = argument;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

#if defined(RHO_PORT_CONSOLE_SEMIHOSTING)

static int console_handle = -1;

int rho_port_console_write(const char *bytes, size_t len)
{
    if (!debugger_attached()) {
        return -1; /* a bkpt with nobody to answer it would fault */
    }
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
        const size_t unwritten = (size_t)semihost_call(SYS_WRITE, write_block);
        if (unwritten >= len) {
            return -1;
        }
        bytes += len - unwritten;
        len = unwritten;
    }
    return 0;
}

static void console_drain(void)
{
}

#else /* RTT */

#ifndef RHO_PORT_RTT_BUFFER_BYTES
#define RHO_PORT_RTT_BUFFER_BYTES 8192
#endif
#define RTT_MODE_BLOCK_IF_FULL 2u

struct rtt_buffer {
    const char *name;
    char *buffer;
    uint32_t size;
    volatile uint32_t write_offset; /* the target's */
    volatile uint32_t read_offset;  /* the probe's */
    uint32_t flags;
};

struct rtt_control_block {
    char id[16]; /* "SEGGER RTT", written last */
    int32_t up_buffers;
    int32_t down_buffers;
    struct rtt_buffer up[1];
    struct rtt_buffer down[1];
};

/* Zero until the first write fills it in; the name is the one every RTT host looks for. */
struct rtt_control_block _SEGGER_RTT __attribute__((aligned(4)));
static char rtt_up_bytes[RHO_PORT_RTT_BUFFER_BYTES];
static char rtt_down_bytes[16];

/* Called while the target waits for the probe (buffer full, or draining at exit). A function of its
 * own, never inlined, so that a debugger can stand in for the probe with a breakpoint here
 * (tests/cortex-m/rtt-host.py does, on QEMU): at the breakpoint it reads what is between RdOff and
 * WrOff and moves RdOff. */
void rho_port_rtt_wait(void) __attribute__((noinline));
void rho_port_rtt_wait(void)
{
    __asm__ volatile("" ::: "memory");
}

static void rtt_init(void)
{
    static const char terminal[] = "Terminal";
    _SEGGER_RTT.up_buffers = 1;
    _SEGGER_RTT.down_buffers = 1;
    _SEGGER_RTT.up[0].name = terminal;
    _SEGGER_RTT.up[0].buffer = rtt_up_bytes;
    _SEGGER_RTT.up[0].size = sizeof rtt_up_bytes;
    _SEGGER_RTT.up[0].flags = RTT_MODE_BLOCK_IF_FULL;
    _SEGGER_RTT.down[0].name = terminal;
    _SEGGER_RTT.down[0].buffer = rtt_down_bytes;
    _SEGGER_RTT.down[0].size = sizeof rtt_down_bytes;
    /* The ID last, so a probe scanning RAM never finds a half-made block; written from two
     * halves so that the string "SEGGER RTT" is nowhere else in the image for a scan to find. */
    static const char first[] = "SEGGER";
    static const char second[] = " RTT";
    volatile char *id = _SEGGER_RTT.id;
    for (size_t i = 0; i < sizeof second - 1; ++i) {
        id[sizeof first - 1 + i] = second[i];
    }
    __asm__ volatile("dmb" ::: "memory");
    for (size_t i = 0; i < sizeof first - 1; ++i) {
        id[i] = first[i];
    }
    __asm__ volatile("dmb" ::: "memory");
}

int rho_port_console_write(const char *bytes, size_t len)
{
    if (_SEGGER_RTT.up_buffers == 0) {
        rtt_init();
    }
    struct rtt_buffer *up = &_SEGGER_RTT.up[0];
    while (len > 0) {
        const uint32_t write = up->write_offset;
        const uint32_t read = up->read_offset;
        /* Room up to the end of the buffer, keeping one byte free (full != empty). */
        uint32_t room = read > write ? read - write - 1u : up->size - write - (read == 0 ? 1u : 0u);
        if (room == 0) {
            if (!debugger_attached()) {
                return -1; /* nobody will read it: drop the rest rather than hang */
            }
            rho_port_rtt_wait(); /* block if full: the probe is reading */
            continue;
        }
        if (room > len) {
            room = (uint32_t)len;
        }
        for (uint32_t i = 0; i < room; ++i) {
            up->buffer[write + i] = bytes[i];
        }
        __asm__ volatile("dmb" ::: "memory"); /* the bytes before the offset that shows them */
        up->write_offset = write + room == up->size ? 0u : write + room;
        bytes += room;
        len -= room;
    }
    return 0;
}

/* Until the probe has read everything (or there is no probe). */
static void console_drain(void)
{
    const struct rtt_buffer *up = &_SEGGER_RTT.up[0];
    while (debugger_attached() && up->read_offset != up->write_offset) {
        rho_port_rtt_wait();
    }
}

#endif

void rho_port_exit(int code)
{
    console_drain();
    if (debugger_attached()) {
        /* SYS_EXIT_EXTENDED carries the status (probe-rs and QEMU exit with it); a host without
         * it gets SYS_EXIT, which on AArch32 says success or failure only. */
        const uintptr_t exit_block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uintptr_t)code};
        semihost_call(SYS_EXIT_EXTENDED, exit_block);
        semihost_call(SYS_EXIT, (const void *)(code == 0 ? ADP_STOPPED_APPLICATION_EXIT
                                                          : ADP_STOPPED_RUN_TIME_ERROR));
    }
    for (;;) {
        __asm__ volatile("wfi");
    }
}

/* The harness's output hook on bare metal: the wire stream goes to the console. */
void rho_bench_port_write(const char *bytes, unsigned long len);
void rho_bench_port_write(const char *bytes, unsigned long len)
{
    (void)rho_port_console_write(bytes, (size_t)len);
}

/* ---- newlib system calls ------------------------------------------------------------ */

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

/* Heap bounds, from the linker script: all of AXI SRAM. */
extern char __heap_start__[];
extern char __heap_end__[];

void *_sbrk(ptrdiff_t increment)
{
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
    return 0;
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
    status->st_mode = S_IFCHR;
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
