# RhoBoard.cmake: a built-in board's data, read from c/ports/boards/BOARD.mk (the file c/ports/Makefile
# includes), for rho-board.toolchain.cmake and RhoBench.cmake.
#
#     rho_board_read(PREFIX BOARD)
#
# sets PREFIX_FAMILY, PREFIX_CROSS, PREFIX_ARCH_FLAGS, PREFIX_LIBC_SPECS, PREFIX_BOARD_SOURCES,
# PREFIX_BOARD_CFLAGS, PREFIX_CPU_HZ and PREFIX_STACK_SIZE from the board's `NAME := value` and
# `NAME ?= value` lines (RHO_BENCH_PORTS_DIR names the ports' directory).

include_guard(GLOBAL)

function(rho_board_read prefix board)
  set(file "${RHO_BENCH_PORTS_DIR}/boards/${board}.mk")
  if(NOT EXISTS "${file}")
    file(GLOB known RELATIVE "${RHO_BENCH_PORTS_DIR}/boards" "${RHO_BENCH_PORTS_DIR}/boards/*.mk")
    string(REPLACE ".mk" "" known "${known}")
    string(REPLACE ";" ", " known "${known}")
    message(FATAL_ERROR "RhoBench: no board '${board}': no ${file} (boards: ${known})")
  endif()
  file(STRINGS "${file}" lines)
  foreach(key FAMILY CROSS ARCH_FLAGS LIBC_SPECS BOARD_SOURCES BOARD_CFLAGS CPU_HZ STACK_SIZE)
    set(value "")
    foreach(line IN LISTS lines)
      if(line MATCHES "^${key}[ \t]*[?:]=(.*)$")
        string(STRIP "${CMAKE_MATCH_1}" value)
        break()
      endif()
    endforeach()
    set(${prefix}_${key} "${value}" PARENT_SCOPE)
  endforeach()
endfunction()
