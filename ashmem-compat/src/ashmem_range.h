/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Argument checks shared by both implementations of <cutils/ashmem.h>.
 */
#ifndef ASHMEM_RANGE_H
#define ASHMEM_RANGE_H

#include <errno.h>
#include <stdint.h>
#include <stddef.h>

/*
 * ashmem passes offsets and lengths as 32-bit values.  Refuse what does
 * not fit, rather than truncate it to another range as libcutils does.
 */
static inline int ashmem_range_fits(size_t offset, size_t len)
{
	if (offset > UINT32_MAX || len > UINT32_MAX) {
		errno = EINVAL;
		return 0;
	}
	return 1;
}

#endif /* ASHMEM_RANGE_H */
