/*
 * The STM32H743ZI port's console and exit (common/port.h): the system calls over them, and the
 * semihosting calls themselves, are every port's (../common/syscalls.c, ../common/semihost.c, built
 * here with -DRHO_PORT_OWN_CONSOLE).
 *
 * The console is SEGGER RTT's up-channel 0 ("Terminal") by default: a ring buffer in DTCM that
 * the debug probe reads while the core runs (`probe-rs run` prints it). Built with
 * CONSOLE=semihosting (-DRHO_PORT_CONSOLE_SEMIHOSTING) it is the semihosting console instead
 * (`bkpt 0xAB` per write: slower, but what QEMU and OpenOCD show too).
 *
 * The exit is semihosting's SYS_EXIT_EXTENDED, which `probe-rs run` (and QEMU) turn into their
 * own exit status. Without a debugger attached (DHCSR.C_DEBUGEN clear) neither talks to anyone:
 * writes are dropped instead of blocking, and the exit parks the core.
 *
 * RTT: the control block `_SEGGER_RTT` (the symbol name probe-rs, J-Link and OpenOCD look up in
 * the ELF, or scan RAM for the block's ID) describes one up-buffer. The target writes at WrOff,
 * the probe reads at RdOff and moves it; both are offsets into the buffer, and the buffer is
 * empty when they are equal. The port runs the channel in "block if full" mode: while the probe
 * is attached, a write waits for room, so a stream of hundreds of kilobytes arrives whole. The
 * block lives in .bss, which the linker script puts in DTCM: not cached, so the probe's reads
 * see what the core wrote without cache maintenance.
 */
#include "../common/port.h"
#include "../common/semihost.h"

#include <stddef.h>
#include <stdint.h>

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

#if defined(RHO_PORT_CONSOLE_SEMIHOSTING)

int rho_port_console_write(const char *bytes, size_t len)
{
    if (!debugger_attached()) {
        return -1; /* a bkpt with nobody to answer it would fault */
    }
    return rho_port_semihost_write(bytes, len);
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
        rho_port_semihost_exit(code); /* parks the core if the probe does not end the run */
    }
    rho_port_park();
}
