"""Start a tool from a small process, so that its peak memory is its own.

Linux keeps a process's high-water mark of resident memory across fork and exec: a tool that the
runner starts directly reports at least the runner's own peak (836 MiB after it generated a
100 MB input), whatever the tool used. This launcher is started by the runner instead, forks the
tool from its own small address space, waits for it with ``wait4`` (whose ``ru_maxrss`` is the
largest of the tool and every process the tool waited for), writes that in KiB to the file
named first, and exits as the tool did (the same code, or the same signal).

The runner stops a run by signalling the process group, which holds the launcher and the tool:
the launcher ignores SIGTERM and SIGINT, so it outlives the tool's own shutdown and still writes
the figure; after a SIGKILL nothing is written and the runner has only its sampled figures.

Usage: ``python launch.py PEAK_FILE ARGV...`` (the standard library only: it runs in any Python).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    peak_file, command = Path(argv[0]), argv[1:]
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_IGN)
    pid = os.fork()
    if pid == 0:  # the tool: default signal handling, then exec
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        try:
            os.execvp(command[0], command)
        except OSError as err:
            print(f"launch: cannot run {command[0]}: {err}", file=sys.stderr)
            os._exit(127)
    while True:
        try:
            _, status, usage = os.wait4(pid, 0)
            break
        except InterruptedError:
            continue
    peak_file.write_text(f"{usage.ru_maxrss}\n")
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # killed by a signal: die of the same one, so the runner sees it
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
