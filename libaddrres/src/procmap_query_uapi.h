/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The PROCMAP_QUERY ioctl of /proc/PID/maps (Linux 6.11, and this
 * project's 6.1 series): from <linux/fs.h> when it has them, spelled out
 * here otherwise (Debian 12's headers are 6.1's).  The layout and numbers
 * are upstream's, checked against the patched kernel's headers by
 * tests/uapi/procmap_query_abi.c and against this copy by the
 * _Static_asserts below.
 */
#ifndef LIBADDRRES_PROCMAP_QUERY_UAPI_H
#define LIBADDRRES_PROCMAP_QUERY_UAPI_H

#include <stddef.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <linux/types.h>

#ifndef PROCMAP_QUERY
enum procmap_query_flags {
	PROCMAP_QUERY_VMA_READABLE		= 0x01,
	PROCMAP_QUERY_VMA_WRITABLE		= 0x02,
	PROCMAP_QUERY_VMA_EXECUTABLE		= 0x04,
	PROCMAP_QUERY_VMA_SHARED		= 0x08,
	PROCMAP_QUERY_COVERING_OR_NEXT_VMA	= 0x10,
	PROCMAP_QUERY_FILE_BACKED_VMA		= 0x20,
};

struct procmap_query {
	__u64 size;		/* in: sizeof(struct procmap_query) */
	__u64 query_flags;	/* in: enum procmap_query_flags */
	__u64 query_addr;	/* in: address to look up */
	__u64 vma_start;	/* out: the VMA found ... */
	__u64 vma_end;
	__u64 vma_flags;	/* out: PROCMAP_QUERY_VMA_* */
	__u64 vma_page_size;
	__u64 vma_offset;	/* out: file offset, 0 if anonymous */
	__u64 inode;
	__u32 dev_major;
	__u32 dev_minor;
	__u32 vma_name_size;	/* in: buffer size; out: length incl. NUL */
	__u32 build_id_size;	/* in: buffer size; out: build ID length */
	__u64 vma_name_addr;	/* in: buffer, 0 (with size 0) = not wanted */
	__u64 build_id_addr;	/* in: buffer, 0 (with size 0) = not wanted */
};

#define PROCMAP_QUERY	_IOWR('f', 17, struct procmap_query)
#endif

_Static_assert(sizeof(struct procmap_query) == 104, "procmap_query size");
_Static_assert(offsetof(struct procmap_query, vma_name_size) == 80,
	       "procmap_query layout");
_Static_assert(offsetof(struct procmap_query, build_id_addr) == 96,
	       "procmap_query layout");
_Static_assert(PROCMAP_QUERY == 0xC0686611u, "PROCMAP_QUERY number");

#endif /* LIBADDRRES_PROCMAP_QUERY_UAPI_H */
