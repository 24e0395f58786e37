/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pressure stall information (CONFIG_PSI): /proc/pressure/memory or a
 * cgroup's memory.pressure.
 */
#ifndef LAB_PSI_H
#define LAB_PSI_H

#include <stdint.h>

#define PSI_MEMORY "/proc/pressure/memory"

/*
 * The "some" and "full" totals (microseconds stalled since boot, or
 * since the cgroup was made) of the pressure file @path; 0, or -1 with
 * errno set (EINVAL when the file does not read as a pressure file).
 */
int psi_totals(const char *path, uint64_t *some, uint64_t *full);
/*
 * A trigger on the pressure file @path: @trigger is "some|full T W"
 * (T us of stall in a window of W us); an fd that polls POLLPRI when it
 * fires, or -1 and errno (EINVAL for a trigger the kernel refuses).
 */
int psi_trigger(const char *path, const char *trigger);
/* The avg10 of the "some" or "full" (@kind) line of @path; -1 and errno. */
int psi_avg10(const char *path, const char *kind, double *avg10);

#endif /* LAB_PSI_H */
