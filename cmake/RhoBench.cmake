# RhoBench.cmake: rho benchmark suites as CMake targets.
#
#     include(RhoBench)                  # CMAKE_MODULE_PATH names this file's directory
#     rho_add_benchmark(mbed_bench
#         SOURCES bench/mbed_bench.c     # C and C++ files; one of them defines main
#         LINK    mbedcrypto             # libraries and targets, as target_link_libraries takes them
#         INCLUDE vendor/include         # include directories (optional)
#         DEFINES FAST=1)                # compile definitions (optional)
#
# makes an executable NAME built against the harness rho/bench.h, with the harness's implementation
# compiled once into it, the math library linked, and -O2 when the build has no CMAKE_BUILD_TYPE (as
# `rho bench FILE.c` builds). Run it and its stdout is the wire stream; `rho bench` runs it for a
# module.yml suite `{ cmake: { build_dir: build, target: NAME } }`, after `cmake --build`.
#
# Where this file comes from: the repository's cmake/ directory (the header is found in ../c/include),
# or `rho bench --cmake-module DIR`, which writes it into DIR with the header (DIR/include) and the
# board ports (DIR/ports), so an installed rho needs no checkout.
#
# Boards: with RHO_BENCH_PORT=BOARD, one of the built-in emulated boards (c/ports/boards/BOARD.mk:
# mps2-an385, mps2-an386, mps2-an500, mps2-an505, microbit, riscv32-virt), configured with the
# toolchain file rho-board.toolchain.cmake beside this one (mps2-an386.toolchain.cmake sets the board
# itself), each suite is linked with that board's port (start-up code, system calls over semihosting,
# linker script) into an ELF that the board's QEMU runs, as c/ports/Makefile builds it: the board's
# data (family, clock, stack, its own sources and defines) is read from its .mk file (RhoBoard.cmake).
# A board has no environment, so the settings are compiled in: RHO_BENCH_DEFINES is a list of
# NAME=VALUE (RHO_BENCH_ITERATIONS=300;RHO_BENCH_WARMUP=10), which rho passes when it configures.
#
# For every suite, BUILD_DIR/rho-benchmarks/NAME holds the path of its executable (single-config
# generators: Unix Makefiles, Ninja), and its objects' stack-usage files are in CMakeFiles/NAME.dir when
# the compiler takes -fstack-usage.

include_guard(GLOBAL)

set(_rho_bench_dir "${CMAKE_CURRENT_LIST_DIR}")

# This file's SUB directory when it holds PROBE (rho bench --cmake-module wrote them together), else the
# repository's c/SUB.
function(_rho_bench_find out sub probe)
  if(EXISTS "${_rho_bench_dir}/${sub}/${probe}")
    set(${out} "${_rho_bench_dir}/${sub}" PARENT_SCOPE)
  else()
    get_filename_component(found "${_rho_bench_dir}/../c/${sub}" ABSOLUTE)
    set(${out} "${found}" PARENT_SCOPE)
  endif()
endfunction()

if(NOT RHO_BENCH_INCLUDE_DIR)
  _rho_bench_find(_rho_include include rho/bench.h)
  set(RHO_BENCH_INCLUDE_DIR "${_rho_include}" CACHE PATH "The directory holding rho/bench.h")
endif()
if(NOT EXISTS "${RHO_BENCH_INCLUDE_DIR}/rho/bench.h")
  message(FATAL_ERROR
    "RhoBench: no rho/bench.h in '${RHO_BENCH_INCLUDE_DIR}': set RHO_BENCH_INCLUDE_DIR, or write "
    "this module with the header beside it: `rho bench --cmake-module DIR`")
endif()

if(NOT RHO_BENCH_PORTS_DIR)
  _rho_bench_find(_rho_ports ports cortex-m/startup.c)
  set(RHO_BENCH_PORTS_DIR "${_rho_ports}" CACHE PATH "The directory holding rho's board ports")
endif()

set(RHO_BENCH_PORT "" CACHE STRING
  "A board port to link every suite with (c/ports/boards/BOARD.mk); empty for a hosted build")
include("${_rho_bench_dir}/RhoBoard.cmake")
set(RHO_BENCH_DEFINES "" CACHE STRING
  "Settings compiled into every suite, NAME=VALUE;... (a board has no environment)")

# The stack-usage flags the C compiler takes (-fstack-usage, and -fcallgraph-info=su from GCC 10), checked once.
function(_rho_bench_stack_usage_flags out)
  include(CheckCCompilerFlag)
  check_c_compiler_flag(-fstack-usage RHO_BENCH_HAS_STACK_USAGE)
  check_c_compiler_flag(-fcallgraph-info=su RHO_BENCH_HAS_CALLGRAPH_INFO)
  set(flags "")
  if(RHO_BENCH_HAS_STACK_USAGE)
    list(APPEND flags -fstack-usage)
  endif()
  if(RHO_BENCH_HAS_CALLGRAPH_INFO)
    list(APPEND flags -fcallgraph-info=su)
  endif()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

function(rho_add_benchmark name)
  cmake_parse_arguments(PARSE_ARGV 1 RHO "" "" "SOURCES;LINK;INCLUDE;DEFINES")
  if(RHO_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "rho_add_benchmark(${name}): unknown arguments ${RHO_UNPARSED_ARGUMENTS} "
      "(expected SOURCES, LINK, INCLUDE, DEFINES)")
  endif()
  if(NOT RHO_SOURCES)
    message(FATAL_ERROR "rho_add_benchmark(${name}): no SOURCES (the suite's C or C++ files)")
  endif()

  if(RHO_BENCH_PORT)
    set(port "${RHO_BENCH_PORTS_DIR}")
    rho_board_read(board "${RHO_BENCH_PORT}")
    # The port compiles the harness (rho_bench_impl.c) with the family's start-up code, what every port
    # shares (run-time start, semihosting, system calls) and the board's own sources, as c/ports/Makefile.
    file(GLOB family_sources "${port}/${board_FAMILY}/*.c")
    list(SORT family_sources)
    set(harness ${family_sources} "${port}/common/runtime.c" "${port}/common/semihost.c"
      "${port}/common/syscalls.c" "${port}/common/rho_bench_impl.c")
    separate_arguments(board_sources UNIX_COMMAND "${board_BOARD_SOURCES}")
    foreach(source IN LISTS board_sources)
      list(APPEND harness "${port}/boards/${source}")
    endforeach()
  else()
    set(harness "${CMAKE_CURRENT_BINARY_DIR}/rho_bench_${name}_impl.c")
    file(CONFIGURE OUTPUT "${harness}" CONTENT
      "/* Generated by RhoBench.cmake: the harness's implementation, compiled once. */\n#define RHO_BENCH_IMPLEMENTATION\n#include <rho/bench.h>\n")
  endif()

  add_executable(${name} ${RHO_SOURCES} ${harness})
  target_include_directories(${name} PRIVATE "${RHO_BENCH_INCLUDE_DIR}" ${RHO_INCLUDE})
  target_compile_definitions(${name} PRIVATE ${RHO_DEFINES} ${RHO_BENCH_DEFINES})
  if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    if(RHO_BENCH_PORT)
      target_compile_options(${name} PRIVATE -Os)
    else()
      target_compile_options(${name} PRIVATE -O2)
    endif()
  endif()
  target_link_libraries(${name} PRIVATE ${RHO_LINK})
  # GCC's stack-usage files beside the objects (.su: each function's frame; .ci: the call graph), which rho
  # reads for the suite's static footprint (code bytes, static stack bound). They change no code; a compiler
  # that does not take them builds without (rho then reports code bytes without a bound).
  _rho_bench_stack_usage_flags(stack_usage)
  target_compile_options(${name} PRIVATE ${stack_usage})

  if(RHO_BENCH_PORT)
    # As c/ports/Makefile builds with BOARD=RHO_BENCH_PORT (c/ports/boards/BOARD.mk): the board's clock, its
    # defines (the vector table's interrupts, a port clock), the stream's target name, the painted stack
    # region checked against the stack at link time: by default as much as the board's stack holds (its
    # STACK_SIZE less the 4 kB above and 4 kB below the region that the linker script keeps, as
    # c/ports/common/settings.mk).
    math(EXPR paint "${board_STACK_SIZE} - 8192")
    set(paint_given FALSE)
    foreach(define IN LISTS RHO_BENCH_DEFINES)
      if(define MATCHES "^RHO_BENCH_STACK_BYTES=([0-9]+)$")
        set(paint "${CMAKE_MATCH_1}")
        set(paint_given TRUE)
      endif()
    endforeach()
    if(NOT paint_given)
      target_compile_definitions(${name} PRIVATE RHO_BENCH_STACK_BYTES=${paint})
    endif()
    target_compile_definitions(${name} PRIVATE RHO_BENCH_CPU_HZ=${board_CPU_HZ}
      RHO_BENCH_TARGET=${RHO_BENCH_PORT})
    separate_arguments(board_cflags UNIX_COMMAND "${board_BOARD_CFLAGS}")
    target_compile_options(${name} PRIVATE ${board_cflags})
    target_link_options(${name} PRIVATE
      -nostartfiles "-T${port}/boards/${RHO_BENCH_PORT}.ld" "-L${port}/${board_FAMILY}" -Wl,--gc-sections
      "-Wl,--defsym=__stack_size=${board_STACK_SIZE}" "-Wl,--defsym=__rho_bench_stack_bytes=${paint}")
    set_target_properties(${name} PROPERTIES SUFFIX ".elf")
  elseif(NOT APPLE AND NOT MSVC)
    # Immediate binding, as rho's own host builds: the dynamic linker's lazy first-call work never lands in a
    # benchmark's stack or time figures (docs/statistics.md).
    target_link_options(${name} PRIVATE "LINKER:-z,now")
  endif()
  if(NOT MSVC)
    # After every library: the math library, as on every rho build.
    target_link_libraries(${name} PRIVATE m)
  endif()

  file(GENERATE OUTPUT "${CMAKE_BINARY_DIR}/rho-benchmarks/${name}" CONTENT "$<TARGET_FILE:${name}>\n")
endfunction()
