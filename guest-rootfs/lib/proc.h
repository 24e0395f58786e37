/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Process helpers shared by the in-guest tests, benchmarks and stress
 * programs: /proc/meminfo, the OOM killer's choice, and children.
 */
#ifndef LAB_PROC_H
#define LAB_PROC_H

/* The value of "@field:" in /proc/meminfo, in kB, or -1. */
long meminfo_kb(const char *field);
/* Write @adj to /proc/self/oom_score_adj; -1 and errno on failure. */
int set_oom_score_adj(int adj);
/* Run @fn(@arg) in a forked child; its wait status, or -1. */
int run_child(int (*fn)(void *), void *arg);

#endif /* LAB_PROC_H */
