# The rules every port's Makefile shares (c/ports/Makefile for the built-in boards,
# stm32h743zi/Makefile, aarch64-linux/Makefile): the suite's C and C++ files, the build command
# recorded so that a changed flag rebuilds, the ELF, and the run, size and clean targets. A port's
# Makefile sets, before including this file:
#   SUITE, OUT, ELF                        the suite's files, the build directory, the program
#   CC, CXX, CFLAGS, CXXFLAGS, LDFLAGS, LDLIBS   the compilers and their flags (CFLAGS for C
#                                          files, CXXFLAGS for C++ ones)
#   PORT_SOURCES, PORT_HEADERS             the port's own files, compiled and depended on
#   PORT_WERROR                            added to CFLAGS for the port's own files only (may be
#                                          empty): a warning in rho's code fails, one in the
#                                          user's is shown and the build goes on
#   LIBC_SPECS                             the C library's --specs, which compiling needs as
#                                          well as linking (picolibc's headers); may be empty
#   CXX_LINK                               how a program with C++ files links: `gcc` (the C
#                                          driver, with -lstdc++ added: bare metal) or `g++`
#   RUN_COMMAND                            the command that runs $(ELF) (`run`, `print-run-command`)
#   SIZE                                   the toolchain's size (the `size` target; may be empty)

.DEFAULT_GOAL := all
.PHONY: all run print-run-command size clean check-suite FORCE
FORCE:

all: $(ELF)

check-suite:
	@test -n "$(SUITE)" || { echo "error: set SUITE=path/to/suite.c" >&2; exit 2; }

# The suite's C++ files, each compiled by the port's g++ to its own object. Its C and assembly
# files (.S is preprocessed, .s is not) go to the link command, which compiles them.
CXX_SUITE := $(filter %.cpp %.cc %.cxx,$(SUITE))
C_SUITE := $(filter-out $(CXX_SUITE),$(SUITE))
CXX_DIR := $(OUT)/cxx
cxx_object = $(CXX_DIR)/$(subst /,-,$(subst ../,up-,$(1))).o
CXX_OBJECTS := $(foreach s,$(CXX_SUITE),$(call cxx_object,$(s)))
# The port's own C files, each compiled to its own object with PORT_WERROR: one compile can only
# take one set of warning flags, and the user's files are built without -Werror. The objects go in
# the build directory itself, not below it: GCC writes each one's stack usage (.su, .ci) beside it,
# and the footprint reads the build directory's (a harness frame missing from the static bound).
PORT_DIR_OUT := $(OUT)
port_object = $(PORT_DIR_OUT)/$(subst /,-,$(subst ../,up-,$(1))).o
PORT_OBJECTS := $(foreach s,$(PORT_SOURCES),$(call port_object,$(s)))
PORT_COMPILES = $(foreach s,$(PORT_SOURCES),\
                  $(CC) $(CFLAGS) $(LIBC_SPECS) $(PORT_WERROR) -c $(s) -o $(call port_object,$(s)) &&)
CXX_COMPILES = $(foreach s,$(CXX_SUITE),$(CXX) $(CXXFLAGS) -c $(s) -o $(call cxx_object,$(s)) &&)
ifeq ($(strip $(CXX_SUITE)),)
BUILD_COMMAND = $(PORT_COMPILES) \
                $(CC) $(CFLAGS) $(LDFLAGS) -o $(ELF) $(SUITE) $(PORT_OBJECTS) $(LDLIBS)
else ifeq ($(CXX_LINK),g++)
BUILD_COMMAND = $(PORT_COMPILES) $(CXX_COMPILES) \
                $(CXX) $(CXXFLAGS) $(LDFLAGS) -o $(ELF) $(C_SUITE) $(PORT_OBJECTS) $(CXX_OBJECTS) \
                $(LDLIBS)
else
# With the C driver the link adds the C++ runtime (-lstdc++, which nano.specs makes
# libstdc++_nano).
BUILD_COMMAND = $(PORT_COMPILES) $(CXX_COMPILES) \
                $(CC) $(CFLAGS) $(LDFLAGS) -o $(ELF) $(C_SUITE) $(PORT_OBJECTS) $(CXX_OBJECTS) \
                $(LDLIBS) -lstdc++
endif
BUILD_RECORD := $(OUT)/build-command

# The build command is recorded (rho reads the compiler and flags from it), and the ELF rebuilt
# when it changes: a new RHO_BENCH_ITERATIONS (a -D define) must not leave a stale ELF that looks
# up to date.
$(BUILD_RECORD): FORCE | check-suite
	@mkdir -p $(OUT)
	@printf '%s\n' '$(subst ','\'',$(BUILD_COMMAND))' > $@.new
	@if cmp -s $@.new $@; then rm -f $@.new; else mv -f $@.new $@; fi

$(ELF): $(SUITE) $(PORT_SOURCES) $(PORT_HEADERS) $(wildcard $(RHO_BENCH_INCLUDE)/rho/bench.h) \
        $(BUILD_RECORD) | check-suite
	$(if $(CXX_SUITE),@mkdir -p $(CXX_DIR))
	$(if $(strip $(PORT_SOURCES)),@mkdir -p $(PORT_DIR_OUT))
	$(BUILD_COMMAND)

run: $(ELF)
	$(RUN_COMMAND)

# The run command alone, one line, for a tool that runs it itself.
print-run-command:
	@echo $(RUN_COMMAND)

size: $(ELF)
	$(SIZE) -A $(ELF)

clean:
	rm -rf $(OUT)
