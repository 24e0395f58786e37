# SPDX-License-Identifier: GPL-2.0
"""The command line: bench-report.py check|plot|report."""

import subprocess
import sys

from .common import BadInput
from .check import check
from .gnuplot import plot
from .report import report


def main(argv):
    usage = ("usage: bench-report.py check [--quick] [--require-order] DIR "
             "| plot DIR | report OUT.md DIR...")
    if len(argv) < 3:
        print(usage, file=sys.stderr)
        return 2
    cmd, args = argv[1], argv[2:]
    try:
        flags = [a for a in args if a.startswith("--")]
        if cmd == "check" and len(args) - len(flags) == 1 and \
                set(flags) <= {"--quick", "--require-order"}:
            return check([a for a in args if a not in flags][0],
                         quick="--quick" in flags,
                         require_order="--require-order" in flags)
        if cmd == "plot" and len(args) == 1:
            return plot(args[0])
        if cmd == "report" and len(args) >= 2:
            return report(args[0], args[1:])
    except BadInput as e:
        print(f"bench-report.py: {e}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"bench-report.py: gnuplot failed: {e}", file=sys.stderr)
        return 1
    print(usage, file=sys.stderr)
    return 2
