#!/usr/bin/env python3
"""A rho target's `run:` through labgrid: boot a board suite's ELF on the board an environment file
describes, copy what it prints (the harness's wire stream) to stdout, and exit with the program's status.

    run_board.py ENV.yaml BENCH.elf [TIMEOUT_SECONDS]

The environment file gets the image as `!template $LG_IMAGE`. A board's serial console (labgrid's
ConsoleProtocol) is copied as it comes; a semihosting console (QEMU standing in for the board,
examples/labgrid/mps2-an386.yaml, through qemu_semihosting.py) is written to `$LG_SEMIHOSTING_LOG` and copied
after the program ends. rho gives the run its timeout and kills its process group.

The environment's target `main` is the board, or the one LABGRID_TARGET names (a place of several boards:
examples/labgrid/shard_job.sh).

A target with `counter: qemu-plugin` (module.yml) counts instructions with rho's QEMU plugin: rho's counted
run sets RHO_QEMU_PLUGIN (the argument of QEMU's `-plugin`), which is added to the driver's extra arguments.
A real board has no plugin to load; its target leaves `counter:` out.
"""

import os
import shlex
import sys
import tempfile

from labgrid import Environment


def main():
    if len(sys.argv) not in (3, 4):
        sys.stderr.write(__doc__)
        return 2
    env_file, elf = sys.argv[1], os.path.abspath(sys.argv[2])
    timeout = float(sys.argv[3]) if len(sys.argv) == 4 else 600.0
    here = os.path.dirname(os.path.abspath(__file__))
    with tempfile.TemporaryDirectory(prefix="rho-labgrid-") as scratch:
        semihosting = os.path.join(scratch, "semihosting.log")
        # labgrid resolves `!template $LG_*` from the environment when it reads the file.
        os.environ["LG_IMAGE"] = elf
        os.environ["LG_SEMIHOSTING_LOG"] = semihosting
        os.environ.setdefault("LG_QEMU_WRAPPER", os.path.join(here, "qemu_semihosting.py"))
        env = Environment(config_file=env_file)
        # A place of several boards has a target per board; the job names the one it acquired.
        name = os.environ.get("LABGRID_TARGET") or "main"
        target = env.get_target(name)
        if target is None:
            sys.stderr.write(f"run_board.py: {env_file} has no target {name!r}\n")
            return 2
        # The driver builds QEMU's command line when it is activated: the plugin is added before.
        board = target.get_driver("QEMUDriver", activate=False)
        plugin = os.environ.get("RHO_QEMU_PLUGIN")
        if plugin:
            board.extra_args = f"{board.extra_args} -plugin {shlex.quote(plugin)}"
        target.activate(board)
        board.on()
        out = sys.stdout.buffer
        while True:
            data = board.read(size=4096, timeout=timeout)
            if not data:  # the console closed: the program exited, and the emulator with it
                break
            out.write(data)
            out.flush()
        # labgrid's QEMUDriver has no public call for the emulator's exit status, which is the program's;
        # the driver is marked off so that it does not ask the ended emulator to quit.
        status = board._child.wait()  # pylint: disable=protected-access
        board._child = None  # pylint: disable=protected-access
        board.status = 0
        if os.path.exists(semihosting):
            with open(semihosting, "rb") as log:
                out.write(log.read())
            out.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
