// SPDX-License-Identifier: GPL-2.0
/*
 * vtrace-sum: bench/lib/vtrace.c's parser on a trace from standard input,
 * for host-tests.sh: prints the sums it made, one key=value per line.
 */
#include <stdio.h>

#include "../../bench/lib/vtrace.h"

int main(void)
{
	struct vtrace_sum s;

	vtrace_parse(stdin, &s);
	printf("calls=%llu ends=%llu asked=%llu purged=%llu kept=%llu\n",
	       s.shrink_calls, s.shrink_ends, s.shrink_asked,
	       s.shrink_purged, s.shrink_kept);
	printf("kswapd_calls=%llu kswapd_purged=%llu\n", s.kswapd_calls,
	       s.kswapd_purged);
	printf("shrink_us=%llu kswapd_us=%llu\n", s.shrink_us, s.kswapd_us);
	printf("kept_calls=%llu kept_purged=%llu\n", s.kept_calls,
	       s.kept_purged);
	printf("oom_calls=%llu oom_purged=%llu min_priority=%d lost=%llu\n",
	       s.oom_calls, s.oom_purged, s.min_priority, s.lost);
	return 0;
}
