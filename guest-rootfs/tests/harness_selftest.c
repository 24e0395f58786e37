// SPDX-License-Identifier: GPL-2.0
/*
 * harness_selftest: a suite whose outcome is chosen on the command line, so
 * the host can prove that the harness reports a failing test as a failure
 * and a passing one as a pass.  Never part of a normal test run.
 *
 *   harness_selftest pass|fail|crash
 */
#include <signal.h>
#include <string.h>

#include "tap.h"

int main(int argc, char **argv)
{
	const char *mode = argc == 2 ? argv[1] : "";

	if (strcmp(mode, "pass") && strcmp(mode, "fail") &&
	    strcmp(mode, "crash")) {
		fprintf(stderr, "usage: harness_selftest pass|fail|crash\n");
		return 2;
	}
	tap_plan(3);
	tap_result(1, "a test that passes");
	tap_skip("to show a skip", "a test that is skipped");
	if (!strcmp(mode, "crash"))
		raise(SIGSEGV);
	tap_result(!strcmp(mode, "pass"), "a test that %s",
		   strcmp(mode, "pass") ? "fails on purpose" : "passes");
	return tap_finish();
}
