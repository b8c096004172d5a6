# What every bare-metal port's Makefile shares before its rules (c/ports/Makefile for the built-in
# boards, stm32h743zi/Makefile): the harness's settings and the compiler and linker flags.
# common/rules.mk has the rules.

# The bytes the harness paints below the stack pointer: a -DRHO_BENCH_STACK_BYTES=N in EXTRA_CFLAGS
# (how `rho bench --cflags` passes it; the command line wins), else RHO_BENCH_STACK_BYTES (module.yml's
# per-target `stack_bytes`), else as much as the board's stack region holds: STACK_SIZE less
# STACK_RESERVE_BYTES, the 4 kB above the region (main's and the harness's frames) and the 4 kB below it
# (the guard) that the linker script checks for. A benchmark deeper than a fixed 2 kB (LZ4 keeps 16 kB of
# state on the stack) then reads a mark, not "overrun", on a board with the RAM for it. The link checks
# that it fits; SETTING_DEFINES compiles it in (unless EXTRA_CFLAGS does already).
STACK_RESERVE_BYTES := 8192
STACK_BYTES_FLAG := $(lastword $(patsubst -DRHO_BENCH_STACK_BYTES=%,%,\
                      $(filter -DRHO_BENCH_STACK_BYTES=%,$(EXTRA_CFLAGS))))
PAINT_BYTES := $(strip $(if $(STACK_BYTES_FLAG),$(STACK_BYTES_FLAG),\
                 $(if $(RHO_BENCH_STACK_BYTES),$(RHO_BENCH_STACK_BYTES),\
                 $(shell expr $(STACK_SIZE) - $(STACK_RESERVE_BYTES)))))

# The harness's settings as -D defines, for a bare-metal port (a board has no environment);
# RHO_BENCH_MEASURE=instructions builds the counting loop, which rho runs under its QEMU plugin.
SETTING_DEFINES := \
          $(if $(RHO_BENCH_ITERATIONS),-DRHO_BENCH_ITERATIONS=$(RHO_BENCH_ITERATIONS)) \
          $(if $(RHO_BENCH_WARMUP),-DRHO_BENCH_WARMUP=$(RHO_BENCH_WARMUP)) \
          $(if $(RHO_BENCH_SCALE),-DRHO_BENCH_SCALE=$(RHO_BENCH_SCALE)) \
          $(if $(STACK_BYTES_FLAG),,-DRHO_BENCH_STACK_BYTES=$(PAINT_BYTES)) \
          $(if $(RHO_BENCH_TIME_CAP_MS),-DRHO_BENCH_TIME_CAP_MS=$(RHO_BENCH_TIME_CAP_MS)) \
          $(if $(RHO_BENCH_FILTER),-DRHO_BENCH_FILTER=$(RHO_BENCH_FILTER)) \
          $(if $(RHO_BENCH_BATCH),-DRHO_BENCH_BATCH=$(RHO_BENCH_BATCH)) \
          $(if $(filter instructions,$(RHO_BENCH_MEASURE)),-DRHO_BENCH_MEASURE_INSTRUCTIONS)

# The compiler and linker flags of a bare-metal port, from what its Makefile sets (before or after
# including this file: these are expanded when used): ARCH_FLAGS (the core), CPU_HZ, TARGET_NAME,
# PORT_CFLAGS (the port's or the board's own defines), MAP, STACK_SIZE; EXTRA_CFLAGS and
# EXTRA_LDFLAGS are the user's. What C and C++ share; each language adds its own in front and
# EXTRA_CFLAGS behind. The user's files get the warnings and build whatever they say (real code
# is built as it is: an unused variable or a library's own style must not stop a benchmark);
# rho's own files (PORT_SOURCES) are compiled with PORT_WERROR added, so a warning there fails.
WARN_FLAGS := -Wall -Wextra -pedantic
PORT_WERROR := -Werror
CXX_FLAGS ?= -fno-exceptions -fno-rtti -fno-threadsafe-statics
COMMON_FLAGS = -Os -g $(ARCH_FLAGS) $(WARN_FLAGS) -ffunction-sections -fdata-sections \
          -I$(RHO_BENCH_INCLUDE) -DRHO_BENCH_CPU_HZ=$(CPU_HZ) -DRHO_BENCH_TARGET=$(TARGET_NAME) \
          $(PORT_CFLAGS) $(SETTING_DEFINES)
CFLAGS = -std=c99 $(COMMON_FLAGS) $(EXTRA_CFLAGS)
CXXFLAGS = $(CXX_FLAGS) $(COMMON_FLAGS) $(EXTRA_CFLAGS)
# Dropping what nothing calls, the map, and the stack region with the painted bytes the linker
# script checks against it.
LINK_FLAGS = -Wl,--gc-sections -Wl,-Map=$(MAP) -Wl,--defsym=__stack_size=$(STACK_SIZE) \
           -Wl,--defsym=__rho_bench_stack_bytes=$(PAINT_BYTES)
# After every source and object, where the linker looks for what they still need.
LDLIBS = $(EXTRA_LDFLAGS) -lm
