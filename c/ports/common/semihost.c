/*
 * Semihosting for every port (Cortex-M and RISC-V, emulated or on a probe): a write to the host's
 * console and the exit that hands main's status to the host (semihost.h). The one
 * architecture-specific part is the trap that calls the host (semihost_call).
 *
 * The built-in boards' console and exit (port.h) are these calls as they are; a port with a console
 * of its own (stm32h743zi: RTT, and a check for the debugger before each call) builds this file with
 * -DRHO_PORT_OWN_CONSOLE and defines rho_port_console_write and rho_port_exit itself.
 *
 * Everything here is in its own section (-ffunction-sections) so that --gc-sections drops
 * what a suite does not call.
 */
#include "semihost.h"

#include "port.h"

#include <stddef.h>
#include <stdint.h>

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

int rho_port_semihost_write(const char *bytes, size_t len)
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

void rho_port_semihost_exit(int code)
{
    /* SYS_EXIT_EXTENDED carries the status (QEMU and probe-rs exit with it). A host that lacks
     * it gets SYS_EXIT, which on AArch32 can only say success or failure. */
    const uintptr_t exit_block[2] = {ADP_STOPPED_APPLICATION_EXIT, (uintptr_t)code};
    semihost_call(SYS_EXIT_EXTENDED, exit_block);
    semihost_call(SYS_EXIT, (const void *)(code == 0 ? ADP_STOPPED_APPLICATION_EXIT
                                                      : ADP_STOPPED_RUN_TIME_ERROR));
    rho_port_park();
}

void rho_port_park(void)
{
    for (;;) {
        /* Nobody to hand the status to: wait for a reset or a debugger. */
        __asm__ volatile("wfi");
    }
}

#if !defined(RHO_PORT_OWN_CONSOLE)
/* The built-in boards: the console and the exit are semihosting's, as they are. */
int rho_port_console_write(const char *bytes, size_t len)
    __attribute__((alias("rho_port_semihost_write")));
void rho_port_exit(int code) __attribute__((alias("rho_port_semihost_exit")));
#endif
