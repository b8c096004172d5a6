#!/usr/bin/env python3
"""QEMU as labgrid's QEMUDriver starts it, for a board whose console is semihosting.

labgrid talks QMP over QEMU's standard input and output (`-qmp stdio`); a semihosting program's console
(`:tt`) is QEMU's standard output too, and the two would mix. This runs QEMU with QMP on a socket of its own,
relays labgrid's standard input and output to it, and sends QEMU's standard output (the program's console) to
the file LG_SEMIHOSTING_LOG names. Exits with QEMU's status. Named as the QEMU binary in the environment file
(`tools: qemu_arm:`); QEMU_BIN is the real one (default qemu-system-arm).
"""

import os
import socket
import subprocess
import sys
import tempfile
import threading
import time


def relay_in(sock):
    """labgrid's commands to QEMU's monitor, until labgrid closes its end."""
    while True:
        data = os.read(0, 4096)
        if not data:
            return
        try:
            sock.sendall(data)
        except OSError:  # QEMU has ended and closed the monitor
            return


def main():
    args = sys.argv[1:]
    scratch = tempfile.mkdtemp(prefix="rho-qmp-")
    qmp_path = os.path.join(scratch, "qmp")
    if "-qmp" in args:
        at = args.index("-qmp")
        args[at + 1] = f"unix:{qmp_path},server=on,wait=off"
    qemu_bin = os.environ.get("QEMU_BIN", "qemu-system-arm")
    # `-version`, which labgrid asks first, goes through as it is.
    if "-version" in args:
        os.execvp(qemu_bin, [qemu_bin] + args)
    with open(os.environ["LG_SEMIHOSTING_LOG"], "wb") as console:
        qemu = subprocess.Popen([qemu_bin] + args, stdout=console, stdin=subprocess.DEVNULL)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        deadline = time.monotonic() + 30
        while True:
            try:
                sock.connect(qmp_path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if qemu.poll() is not None:
                    return qemu.returncode
                if time.monotonic() > deadline:
                    qemu.kill()
                    sys.stderr.write(f"qemu_semihosting.py: QEMU opened no monitor at {qmp_path} in 30 s\n")
                    return 2
                time.sleep(0.01)
        threading.Thread(target=relay_in, args=(sock,), daemon=True).start()
        out = sys.stdout.buffer
        while True:
            try:
                data = sock.recv(4096)
            except ConnectionResetError:
                # QEMU ending with a reply unread resets the monitor's socket rather than closing it (seen
                # with two boards run at once): the end, as a close is.
                data = b""
            if not data:
                break
            out.write(data)
            out.flush()
        status = qemu.wait()
    if os.path.exists(qmp_path):
        os.remove(qmp_path)
    os.rmdir(scratch)
    return status


if __name__ == "__main__":
    sys.exit(main())
