// SPDX-License-Identifier: GPL-2.0
/* Passing an fd over a unix socket; see fdpass.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "fdpass.h"

int fd_send(int sock, int fd)
{
	char byte = 'f', buf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

int fd_recv(int sock)
{
	char byte, buf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = buf, .msg_controllen = sizeof(buf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
		errno = EPROTO;
		return -1;
	}
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}
