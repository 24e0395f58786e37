// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest-style TAP output; see tap.h.  Output is line buffered and
 * flushed after every line, so a crash loses no reported result.
 */
#include "tap.h"

struct tap_counts tap_counts;

static void tap_line(const char *status, const char *directive,
		     const char *reason, const char *fmt, va_list ap)
{
	tap_counts.run++;
	printf("%s %d ", status, tap_counts.run);
	vprintf(fmt, ap);
	if (directive)
		printf(" # %s %s", directive, reason);
	putchar('\n');
	fflush(stdout);
}

void tap_plan(int count)
{
	tap_counts.planned = count;
	printf("TAP version 13\n1..%d\n", count);
	fflush(stdout);
}

int tap_result(int passed, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line(passed ? "ok" : "not ok", NULL, NULL, fmt, ap);
	va_end(ap);
	if (passed)
		tap_counts.passed++;
	else
		tap_counts.failed++;
	return passed;
}

void tap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line("ok", "SKIP", reason, fmt, ap);
	va_end(ap);
	tap_counts.skipped++;
}

void tap_xfail(const char *reason, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_line("not ok", "TODO", reason, fmt, ap);
	va_end(ap);
	tap_counts.xfailed++;
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void tap_bail(const char *fmt, ...)
{
	va_list ap;

	fputs("Bail out! ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	tap_counts.failed += tap_counts.planned - tap_counts.run;
	exit(tap_finish());
}

int tap_finish(void)
{
	int bad = tap_counts.failed ||
		  tap_counts.run != tap_counts.planned;

	if (tap_counts.run != tap_counts.planned)
		printf("# planned %d tests but ran %d\n", tap_counts.planned,
		       tap_counts.run);
	printf("# Totals: pass:%d fail:%d xfail:%d xpass:0 skip:%d error:0\n",
	       tap_counts.passed, tap_counts.failed, tap_counts.xfailed,
	       tap_counts.skipped);
	fflush(stdout);
	return bad ? 1 : 0;
}
