/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal kselftest-style TAP output for the lab's C test suites.
 *
 * A suite calls tap_plan() once, then exactly one result per planned test,
 * then tap_finish(), whose value is the process exit status: non-zero when
 * any test failed or the plan was not met.
 */
#ifndef LAB_TAP_H
#define LAB_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct tap_counts {
	int planned;
	int run;
	int passed;
	int failed;
	int skipped;
	int xfailed;
};

extern struct tap_counts tap_counts;

void tap_plan(int count);
/* ok/not ok depending on @passed; returns @passed. */
int tap_result(int passed, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_skip(const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A known failure: reported, counted apart, never as a pass. */
void tap_xfail(const char *reason, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Abort the whole suite: the remaining planned tests count as failed. */
void tap_bail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
int tap_finish(void);

#endif /* LAB_TAP_H */
