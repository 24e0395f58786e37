# SPDX-License-Identifier: GPL-2.0
"""The report's families, in the order of their sections.  A new
benchmark is a new module here: its section(run, w) writes its part of
each arch's report, its GRAPHS are drawn by plot, and its checks(d, data)
yields (ok, what) for check; each of the three is optional."""

from . import (app, arena, cache, conc, cpu, droppable, pin, purge, rust,
               share, sweep)

# Sections 1 to 11 of each arch.
SECTIONS = (pin, purge, cache, share, app, conc, cpu, rust, sweep, arena,
            droppable)
