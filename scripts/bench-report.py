#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check, plot and report the comparison's CSV (bench/, make bench).

  bench-report.py check DIR          sanity of DIR's CSV and graphs, as TAP
  bench-report.py plot DIR           DIR/*.svg and DIR/*.png with gnuplot
  bench-report.py report OUT DIR...  OUT (markdown) from one DIR per arch

Each DIR holds pin.csv, purge.csv and cache.csv as bench-matrix writes
them: "# key: value" metadata lines, then the header
backend,bench,param,value,metric,unit,rep and one row per measurement.
Every number in the report comes from those files; a malformed file is
an error naming the file and line, and nothing is written.

The code is the package bench_report/ beside this file: common.py (CSV,
tables, formatting), stats.py, gnuplot.py, check.py, report.py, and one
module per family of benchmarks, listed in families.py.
"""

import os
import sys

# No __pycache__ in the source tree.
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# read_csv and META_KEYS are also used by scripts/tests/lava-tests.sh.
from bench_report.common import META_KEYS, BadInput, read_csv  # noqa: E402,F401
from bench_report.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv))
