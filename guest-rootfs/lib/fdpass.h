/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Passing an fd to another process over a unix socket (SCM_RIGHTS), as
 * binder hands ashmem regions over.
 */
#ifndef LAB_FDPASS_H
#define LAB_FDPASS_H

/* Send @fd with one byte; 0, or -1 and errno. */
int fd_send(int sock, int fd);
/* The fd sent by fd_send(), or -1 (errno; 0 at the end of the stream). */
int fd_recv(int sock);

#endif /* LAB_FDPASS_H */
