/*
 * What every port shares (the built-in boards' cortex-m/ and riscv/ families, and the ports of their
 * own such as stm32h743zi/): the console and exit a port provides, and the start-up and fault-report
 * pieces common/runtime.c implements once for all of them.
 */
#ifndef RHO_PORT_PORT_H
#define RHO_PORT_PORT_H

#include <stddef.h>
#include <stdint.h>

/* The exit status after a fault, a trap or an unexpected exception (128 + SIGABRT, what a shell
 * shows for a crashed host process). */
#define RHO_PORT_FAULT_STATUS 134

/* ---- provided by the port's console (common/semihost.c, or the port's own) ------------------ */

/* Write len bytes to the console. Returns 0 when every byte went out, -1 otherwise. */
int rho_port_console_write(const char *bytes, size_t len);

/* Stop the program with status `code` (the host, QEMU or the probe, exits with it). */
void rho_port_exit(int code) __attribute__((noreturn));

/* ---- common/runtime.c ------------------------------------------------------------------------ */

/* Copy .data from its load image and zero .bss (the linker script's __data_start__, __data_end__,
 * __data_load__, __bss_start__, __bss_end__). */
void rho_port_init_memory(void);

/* Run the constructors (.preinit_array, .init_array), then main, and exit with its status. */
void rho_port_run_main(void) __attribute__((noreturn));

/* The fault report, one line built without stdio: append `text`, or `label` and `value` as eight
 * hex digits; each returns the new end. */
char *rho_port_append_text(char *out, const char *text);
char *rho_port_append_hex(char *out, const char *label, uint32_t value);

/* End the line that starts at `line` and ends at `end` with a newline, write it to the console and
 * exit with RHO_PORT_FAULT_STATUS. The line must not start with '@' or ':', so a wire-stream reader
 * treats it as noise and then reports the stream as truncated; the exit status says it crashed. */
void rho_port_crash(char *line, char *end) __attribute__((noreturn));

#endif
