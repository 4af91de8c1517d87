"""Callgrind around a process: the valgrind prefix that counts nothing until switched on,
`callgrind_control` to switch it and dump, and the dumps read back (bench/instructions.py,
bench/instruction_parts.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Final

BENCH: Final = Path(__file__).resolve().parent
ROOT: Final = BENCH.parent
STARTUP_TIMEOUT: Final = 600.0  # start-up under valgrind, on a loaded machine
CONTROL_TIMEOUT: Final = 120.0
VALGRIND: Final = "valgrind"
CONTROL: Final = "callgrind_control"
_TOTALS: Final = re.compile(rb"^totals:\s+(\d+)", re.MULTILINE)
_DESC: Final = re.compile(rb"^desc: Trigger: .*?dump (\S+)", re.MULTILINE)


def python() -> str:
    """The interpreter to run under valgrind: the venv's by its own path (a shell shim would
    be traced instead, and --trace-children=no would then miss the process)."""
    return sys.executable


def callgrind_available() -> bool:
    """Whether valgrind and callgrind_control are on the PATH."""
    return shutil.which(VALGRIND) is not None and shutil.which(CONTROL) is not None


def callgrind_command(out_dir: Path, name: str) -> list[str]:
    """The valgrind prefix: instrumentation off until switched on, all threads together."""
    return [
        VALGRIND,
        "--tool=callgrind",
        "--instr-atstart=no",
        "--separate-threads=no",
        "--trace-children=no",
        "--dump-instr=no",
        "--compress-strings=no",
        f"--callgrind-out-file={out_dir}/{name}.%p",
        f"--log-file={out_dir}/{name}.valgrind.%p",
    ]


def control(pid: int, *args: str) -> None:
    """`callgrind_control ARGS PID` (it waits until the process has done it)."""
    subprocess.run(  # valgrind's own tool
        [CONTROL, *args, str(pid)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=CONTROL_TIMEOUT,
    )


def dumps(out_dir: Path, name: str, pid: int) -> dict[str, int]:
    """Label -> instructions of every `callgrind_control -d LABEL` dump of process `pid`."""
    found: dict[str, int] = {}
    for path in out_dir.glob(f"{name}.{pid}.*"):
        data = path.read_bytes()
        desc, totals = _DESC.search(data), _TOTALS.search(data)
        if desc is not None and totals is not None:
            found[desc.group(1).decode()] = int(totals.group(1))
    return found


def proc_pid(out_dir: Path, name: str) -> int:
    """The pid of the one callgrind run named `name` in `out_dir`."""
    pids = {
        int(p.name.split(".")[1])
        for p in out_dir.glob(f"{name}.*")
        if p.name.split(".")[1].isdigit()
    }
    if len(pids) != 1:
        raise RuntimeError(f"expected one {name} run in {out_dir}, found {sorted(pids)}")
    return pids.pop()
