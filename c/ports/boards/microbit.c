/*
 * The micro:bit's counter for the harness (RHO_BENCH_PORT_CLOCK=timer0): the nRF51's TIMER0 as a
 * 32-bit timer at 16 MHz (prescaler 0), the core's clock. The Cortex-M0 has no DWT cycle counter
 * and the nRF51 has no SysTick, so the part's own timer is the clock. A read captures the count
 * into CC[0] and reads it (nRF51 Series Reference Manual, TIMER).
 */
#include <stdint.h>

#define TIMER0_REG(offset) (*(volatile uint32_t *)(0x40008000u + (offset)))
#define TIMER0_TASKS_START TIMER0_REG(0x000u)
#define TIMER0_TASKS_STOP TIMER0_REG(0x004u)
#define TIMER0_TASKS_CLEAR TIMER0_REG(0x00Cu)
#define TIMER0_TASKS_CAPTURE0 TIMER0_REG(0x040u)
#define TIMER0_MODE TIMER0_REG(0x504u)      /* 0: timer */
#define TIMER0_BITMODE TIMER0_REG(0x508u)   /* 3: 32 bits */
#define TIMER0_PRESCALER TIMER0_REG(0x510u) /* f = 16 MHz / 2^PRESCALER */
#define TIMER0_CC0 TIMER0_REG(0x540u)

int rho_bench_port_clock_start(void);
uint32_t rho_bench_port_clock_read(void);

int rho_bench_port_clock_start(void)
{
    TIMER0_TASKS_STOP = 1u;
    TIMER0_MODE = 0u;
    TIMER0_BITMODE = 3u;
    TIMER0_PRESCALER = 0u;
    TIMER0_TASKS_CLEAR = 1u;
    TIMER0_TASKS_START = 1u;
    return 0;
}

uint32_t rho_bench_port_clock_read(void)
{
    TIMER0_TASKS_CAPTURE0 = 1u;
    return TIMER0_CC0;
}
