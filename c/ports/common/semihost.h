/*
 * Semihosting, the few calls the ports use (Arm's "Semihosting for AArch32 and AArch64", which
 * RISC-V's semihosting specification adopts).
 *
 * Semihosting is a debugger (or emulator) service: the program executes `bkpt 0xAB` (Arm; RISC-V:
 * `ebreak` between two marker instructions) with an operation number in r0 (a0) and an argument
 * in r1 (a1), and the host carries out the operation and resumes the program with a result in r0. QEMU implements it with
 * `-semihosting-config enable=on`; a debug probe (probe-rs, OpenOCD, a J-Link) implements
 * it when semihosting is enabled there.
 *
 * On a real board WITHOUT a debugger attached, `bkpt` escalates to a HardFault (or
 * locks the core up): do not ship firmware that calls these. For a board, write the
 * stream to a UART or an RTT buffer instead (see ../README.md, "Adding a board", and
 * ../stm32h743zi/console.c).
 */
#ifndef RHO_PORT_SEMIHOST_H
#define RHO_PORT_SEMIHOST_H

#include <stddef.h>

/* Write len bytes to the host console (QEMU's semihosting console). Returns 0 when all
 * bytes were written, -1 otherwise. */
int rho_port_semihost_write(const char *bytes, size_t len);

/* Make the host exit with status `code` (QEMU and probe-rs exit with it); when no host answers,
 * park the core (rho_port_park). */
void rho_port_semihost_exit(int code) __attribute__((noreturn));

/* Park the core for good (`wfi` in a loop). */
void rho_port_park(void) __attribute__((noreturn));

#endif
