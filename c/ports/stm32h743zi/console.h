/*
 * The STM32H743ZI port's console and exit (console.c).
 *
 * The console is SEGGER RTT's up-channel 0 ("Terminal") by default: a ring buffer in DTCM that
 * the debug probe reads while the core runs (`probe-rs run` prints it). Built with
 * CONSOLE=semihosting (-DRHO_PORT_CONSOLE_SEMIHOSTING) it is the semihosting console instead
 * (`bkpt 0xAB` per write: slower, but what QEMU and OpenOCD show too).
 *
 * The exit is semihosting's SYS_EXIT_EXTENDED, which `probe-rs run` (and QEMU) turn into their
 * own exit status. Without a debugger attached (DHCSR.C_DEBUGEN clear) neither talks to anyone:
 * writes are dropped instead of blocking, and the exit parks the core.
 */
#ifndef RHO_PORT_CONSOLE_H
#define RHO_PORT_CONSOLE_H

#include <stddef.h>

/* Write len bytes to the console. Returns 0 when every byte went out, -1 otherwise. */
int rho_port_console_write(const char *bytes, size_t len);

/* Wait for the console to be drained, then stop with status `code`. */
void rho_port_exit(int code) __attribute__((noreturn));

#endif
