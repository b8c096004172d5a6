/*
 * The start-up and fault-report pieces every port shares (common/port.h): the C run-time's memory
 * set-up, the call of main, and the one-line crash report. Each function is in its own section
 * (-ffunction-sections), so --gc-sections drops what a port does not call.
 */
#include "port.h"

#include <stdlib.h>

/* Symbols from the port's linker script. */
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

void rho_port_init_memory(void)
{
    /* Initialised data: copy its image from CODE (flash) to RAM. */
    const uint32_t *from = __data_load__;
    for (uint32_t *to = __data_start__; to < __data_end__;) {
        *to++ = *from++;
    }
    /* Zero-initialised data. */
    for (uint32_t *to = __bss_start__; to < __bss_end__;) {
        *to++ = 0;
    }
}

void rho_port_run_main(void)
{
    /* Constructors (none in a C suite; kept so C++ or __attribute__((constructor)) work). */
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

char *rho_port_append_text(char *out, const char *text)
{
    while (*text != '\0') {
        *out++ = *text++;
    }
    return out;
}

char *rho_port_append_hex(char *out, const char *label, uint32_t value)
{
    static const char digits[] = "0123456789abcdef";
    out = rho_port_append_text(out, label);
    for (int shift = 28; shift >= 0; shift -= 4) {
        *out++ = digits[(value >> shift) & 0xFu];
    }
    return out;
}

void rho_port_crash(char *line, char *end)
{
    *end++ = '\n';
    (void)rho_port_console_write(line, (size_t)(end - line));
    rho_port_exit(RHO_PORT_FAULT_STATUS);
}
