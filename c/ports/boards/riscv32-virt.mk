# QEMU's RISC-V `virt` board with a 32-bit core (rv32imac: the I, M, A and C extensions), run in
# machine mode without firmware (-bios none). The counter is the core's mcycle CSR. The board
# has no core clock of its own: under -icount QEMU's mcycle (and minstret, which reads the same)
# counts its virtual time in ns, so the counter's rate is 1 GHz, and with shift 0 one tick is one
# instruction.
FAMILY := riscv
CROSS ?= riscv64-unknown-elf-
ARCH_FLAGS := -march=rv32imac -mabi=ilp32 -mcmodel=medany
LIBC_SPECS := --specs=picolibc.specs
BOARD_CFLAGS :=
CPU_HZ ?= 1000000000
STACK_SIZE ?= 65536
QEMU ?= qemu-system-riscv32
QEMU_MACHINE := virt -bios none
# 1 ns an instruction: mcycle counts 1 per instruction.
ICOUNT_SHIFT ?= 0
