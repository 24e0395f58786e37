// SPDX-License-Identifier: GPL-2.0
/*
 * volatile-lab stand-in for Android's <android-base/macros.h>: only what
 * libcutils' ashmem_test.cpp uses, so that the unmodified AOSP test builds
 * against glibc (scripts/aosp-ashmem-test.sh).  Not Android's code.
 */
#ifndef VOLATILE_LAB_ANDROID_BASE_MACROS_H
#define VOLATILE_LAB_ANDROID_BASE_MACROS_H

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

// Retry an expression that fails with EINTR (glibc has it with _GNU_SOURCE).
#ifndef TEMP_FAILURE_RETRY
#define TEMP_FAILURE_RETRY(exp)                                    \
	({                                                         \
		decltype(exp) _rc;                                 \
		do {                                               \
			_rc = (exp);                               \
		} while (_rc == -1 && errno == EINTR);             \
		_rc;                                               \
	})
#endif

#define DISALLOW_COPY_AND_ASSIGN(TypeName)            \
	TypeName(const TypeName &) = delete;          \
	TypeName &operator=(const TypeName &) = delete

// The number of elements of an array, refused at compile time for a
// pointer: arraysize(a) has the type char[N].
template <typename T, size_t N>
char (&ArraySizeHelper(T (&array)[N]))[N];
#define arraysize(array) (sizeof(ArraySizeHelper(array)))

#endif // VOLATILE_LAB_ANDROID_BASE_MACROS_H
