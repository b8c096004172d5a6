/* Port smoke test: the console reaches QEMU's stdout, main's status becomes QEMU's exit
 * status, malloc works, the FPU is enabled, and a requested fault exits non-zero. Build
 * with the port's Makefile; run `bench.elf` and compare its output and status. */
#include <stdlib.h>
#include <string.h>

void rho_bench_port_write(const char *bytes, unsigned long len);

static void say(const char *text)
{
    rho_bench_port_write(text, strlen(text));
}

static volatile float scale = 1.5f;

int main(int argc, char **argv)
{
    (void)argc;
    say("hello from ");
    say(argv[0]);
    say("\n");

    char *block = malloc(1000);
    say(block != NULL ? "malloc ok\n" : "malloc failed\n");
    free(block);

    /* A hard-float multiply: faults (NOCP) if Reset_Handler did not enable the FPU. */
    say(scale * 2.0f == 3.0f ? "fpu ok\n" : "fpu wrong\n");

#if defined(HELLO_FAULT)
    /* An undefined instruction: UsageFault, escalated to HardFault (no handler enabled). */
    say("faulting\n");
    __builtin_trap();
#else
    return HELLO_STATUS;
#endif
}
