/*
 * Start-up code for the RISC-V boards (RV32, machine mode), as QEMU models them. Written in C
 * (with the few instructions C cannot say in inline assembly) so that it reads as a checklist,
 * like the Cortex-M family's. What differs between boards is data: the memory map
 * (boards/<board>.ld) and the clock (boards/<board>.mk).
 *
 * What happens at reset:
 *   1. _start (placed first in the image) sets the global pointer and the stack pointer, points
 *      the trap vector (mtvec) at trap_entry, and jumps to reset;
 *   2. reset copies .data from its load image, zeroes .bss, runs constructors, and calls main;
 *   3. main's return value goes to exit(), whose _exit ends the program through semihosting
 *      so that QEMU exits with that status.
 * Any trap (an exception; no interrupt is enabled) lands in trap_report(), which prints one line
 * and exits with status RHO_PORT_FAULT_STATUS: a crash is an error, never a hang.
 *
 * Machine mode has no stack guard here: PMP entries do not apply to machine mode unless locked,
 * and a locked entry cannot be undone until reset, so the harness paints its band only.
 */
#include "../common/semihost.h"

#include <stdint.h>
#include <stdlib.h>

#if defined(__PICOLIBC__)
#include <stdio.h>
#endif

/* The exit status QEMU returns after a trap (128 + SIGABRT, what a shell shows for a crashed
 * host process). */
#define RHO_PORT_FAULT_STATUS 134

/* Symbols from sections.ld. */
extern uint32_t __data_start__[];
extern uint32_t __data_end__[];
extern const uint32_t __data_load__[];
extern uint32_t __bss_start__[];
extern uint32_t __bss_end__[];
extern void (*const __preinit_array_start[])(void);
extern void (*const __preinit_array_end[])(void);
extern void (*const __init_array_start[])(void);
extern void (*const __init_array_end[])(void);

int main(int argc, char **argv);

void _start(void) __attribute__((naked, noreturn, section(".text.start")));
void reset(void) __attribute__((noreturn, used));
void trap_entry(void) __attribute__((naked, aligned(4)));
void trap_report(uint32_t cause, uint32_t pc, uint32_t value) __attribute__((noreturn, used));

/* The CSR instructions are Zicsr's; GCC 12's -march=rv32imac does not name it, so each use
 * enables it for itself. */
#define ZICSR(text) ".option push\n\t.option arch, +zicsr\n\t" text "\n\t.option pop\n\t"

void _start(void)
{
    __asm__ volatile(".option push\n\t"
                     ".option norelax\n\t"
                     "la gp, __global_pointer$\n\t"
                     ".option pop\n\t"
                     "la sp, __stack_top__\n\t"
                     "la t0, trap_entry\n\t" ZICSR("csrw mtvec, t0") "j reset\n\t");
}

void reset(void)
{
    /* Initialised data: copy its image from CODE to RAM. */
    const uint32_t *from = __data_load__;
    for (uint32_t *to = __data_start__; to < __data_end__;) {
        *to++ = *from++;
    }
    /* Zero-initialised data. */
    for (uint32_t *to = __bss_start__; to < __bss_end__;) {
        *to++ = 0;
    }
    /* Constructors (none in a C suite; kept so __attribute__((constructor)) works). */
    for (void (*const *init)(void) = __preinit_array_start; init < __preinit_array_end; ++init) {
        (*init)();
    }
    for (void (*const *init)(void) = __init_array_start; init < __init_array_end; ++init) {
        (*init)();
    }

    /* Bare metal has no command line; argv[0] names the program for code that prints it. */
    static char program_name[] = "bench";
    static char *argv[] = {program_name, 0};
    exit(main(1, argv));
}

/* Entered on any trap: the cause, the faulting pc and the trap value (an address) to C. */
void trap_entry(void)
{
    __asm__ volatile(ZICSR("csrr a0, mcause") ZICSR("csrr a1, mepc") ZICSR("csrr a2, mtval")
                     "j trap_report\n\t");
}

static char *append_text(char *out, const char *text)
{
    while (*text != '\0') {
        *out++ = *text++;
    }
    return out;
}

static char *append_hex(char *out, const char *label, uint32_t value)
{
    static const char digits[] = "0123456789abcdef";
    out = append_text(out, label);
    for (int shift = 28; shift >= 0; shift -= 4) {
        *out++ = digits[(value >> shift) & 0xFu];
    }
    return out;
}

void trap_report(uint32_t cause, uint32_t pc, uint32_t value)
{
    /* One line, not starting with '@' or ':', so a wire-stream reader treats it as noise and
     * then reports the stream as truncated; the exit status says it crashed. */
    char line[96];
    char *out = append_text(line, "rho-port: trap");
    out = append_hex(out, " mcause=0x", cause);
    out = append_hex(out, " mepc=0x", pc);
    out = append_hex(out, " mtval=0x", value);
    *out++ = '\n';
    (void)rho_port_console_write(line, (size_t)(out - line));
    rho_port_exit(RHO_PORT_FAULT_STATUS);
}

#if defined(__PICOLIBC__)
/* picolibc's stdio writes through a FILE the program supplies: the semihosting console, for a
 * suite that prints (the harness itself never uses stdio). */
static int console_putc(char c, FILE *file)
{
    (void)file;
    return rho_port_console_write(&c, 1) == 0 ? (unsigned char)c : EOF;
}
static FILE console = FDEV_SETUP_STREAM(console_putc, NULL, NULL, _FDEV_SETUP_WRITE);
FILE *const stdout = &console;
FILE *const stderr = &console;
#endif
