# A stand-in for an RTT probe, run inside gdb-multiarch against QEMU's gdbstub:
#   gdb-multiarch -batch -ex 'python OUT="file"' -x tests/cortex-m/rtt-host.py ELF
# with QEMU started with `-S` and its gdbstub on the Unix socket named by RTT_GDB_SOCKET.
# It finds the control block `_SEGGER_RTT` as a probe does (by its symbol), checks its ID,
# and at every stop on rho_port_rtt_wait (the target waits: buffer full, or draining before
# its exit) reads up-buffer 0 from RdOff to WrOff, wrapping at the end of the buffer, and
# moves RdOff up, as probe-rs does while the core runs. What it read goes to OUT; the
# program's semihosting exit ends QEMU and the session.
import os

import gdb

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("target remote " + os.environ["RTT_GDB_SOCKET"])
gdb.execute("break rho_port_rtt_wait")

received = bytearray()
stops = 0


def drain():
    global stops
    stops += 1
    block = gdb.parse_and_eval("_SEGGER_RTT")
    ident = bytes(gdb.selected_inferior().read_memory(block.address, 10))
    if ident != b"SEGGER RTT":
        raise gdb.GdbError("control block ID is %r, expected SEGGER RTT" % ident)
    up = block["up"][0]
    size = int(up["size"])
    buffer = int(up["buffer"])
    read = int(up["read_offset"])
    write = int(up["write_offset"])
    memory = gdb.selected_inferior()
    if write < read:
        received.extend(bytes(memory.read_memory(buffer + read, size - read)))
        read = 0
    received.extend(bytes(memory.read_memory(buffer + read, write - read)))
    gdb.execute("set var _SEGGER_RTT.up[0].read_offset = %d" % write)


while True:
    try:
        gdb.execute("continue")
    except gdb.error:
        break  # the remote went away: QEMU exited
    if not gdb.selected_inferior().pid:
        break
    drain()

with open(OUT, "wb") as out:  # noqa: F821 (set by the caller with -ex)
    out.write(bytes(received))
print("rtt-host: %d bytes in %d stops" % (len(received), stops))
