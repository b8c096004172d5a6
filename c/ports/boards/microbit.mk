# BBC micro:bit (v1): a Nordic nRF51822, a Cortex-M0 (ARMv6-M) at 16 MHz with 256 kB of flash and
# 16 kB of RAM. The core has no DWT, the nRF51 no SysTick: the counter is the part's TIMER0
# (microbit.c, the harness's port clock), 32 bits at 16 MHz. No MPU the harness can use, no stack
# limit register: no stack guard (the painted band only).
FAMILY := cortex-m
CROSS ?= arm-none-eabi-
ARCH_FLAGS := -mcpu=cortex-m0 -mthumb -mfloat-abi=soft
LIBC_SPECS := --specs=nano.specs
BOARD_SOURCES := microbit.c
BOARD_CFLAGS := -DRHO_PORT_IRQ_COUNT=32 -DRHO_BENCH_PORT_CLOCK=timer0
CPU_HZ ?= 16000000
# 16 kB of RAM: a 4096-byte painted region (the default: STACK_SIZE less 8 kB) plus 4 kB above
# and 4 kB below it, and 4 kB left for .data, .bss and the heap.
STACK_SIZE ?= 12288
QEMU ?= qemu-system-arm
QEMU_MACHINE := microbit
# 64 ns an instruction: TIMER0 (62.5 ns a tick) counts 1.024 ticks per instruction.
ICOUNT_SHIFT ?= 6
