// SPDX-License-Identifier: GPL-2.0
/*
 * volatile-lab stand-in for Android's <android-base/unique_fd.h>: a file
 * descriptor owned by one object and closed when it goes away, with the
 * members libcutils' ashmem_test.cpp uses (scripts/aosp-ashmem-test.sh).
 * Like Android's, it converts to int implicitly, keeps errno across the
 * close() of reset(), and brings in <fcntl.h> and <unistd.h>.  Not
 * Android's code.
 */
#ifndef VOLATILE_LAB_ANDROID_BASE_UNIQUE_FD_H
#define VOLATILE_LAB_ANDROID_BASE_UNIQUE_FD_H

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <utility>

namespace android {
namespace base {

class unique_fd {
public:
	unique_fd() noexcept = default;
	explicit unique_fd(int fd) noexcept : fd_(fd) {}
	unique_fd(unique_fd &&other) noexcept : fd_(other.release()) {}
	unique_fd &operator=(unique_fd &&other) noexcept
	{
		if (this != &other)
			reset(other.release());
		return *this;
	}
	unique_fd(const unique_fd &) = delete;
	unique_fd &operator=(const unique_fd &) = delete;
	~unique_fd() { reset(); }

	void reset(int fd = -1) noexcept
	{
		if (fd_ >= 0) {
			int saved_errno = errno;
			close(fd_);
			errno = saved_errno;
		}
		fd_ = fd;
	}
	[[nodiscard]] int release() noexcept
	{
		return std::exchange(fd_, -1);
	}
	int get() const noexcept { return fd_; }
	bool ok() const noexcept { return fd_ >= 0; }
	operator int() const noexcept { return fd_; }

private:
	int fd_ = -1;
};

} // namespace base
} // namespace android

#endif // VOLATILE_LAB_ANDROID_BASE_UNIQUE_FD_H
