/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The PROCMAP_QUERY ioctl of /proc/PID/maps (Linux 6.11, and this
 * project's 6.1 series): from <linux/fs.h> when it has them, spelled out
 * here otherwise (Debian 12's headers are 6.1's).  Installed as
 * <addrres/procmap_query.h>, for programs that make the ioctl themselves
 * (the benchmark, the tests) with headers older than 6.11.  The _Static_asserts
 * below pin either to upstream's layout and numbers; tests/uapi/ checks
 * that this copy and the patched kernel's installed headers agree, field
 * by field, for each arch and its 32-bit ABI.
 */
#ifndef ADDRRES_PROCMAP_QUERY_H
#define ADDRRES_PROCMAP_QUERY_H

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

/*
 * Upstream's numbers (Linux 6.11, include/uapi/linux/fs.h), for whichever
 * definition is in force: a header or a copy that differs fails here.
 */
#define LIBADDRRES_UAPI_FIELD(field, off, sz)					\
	_Static_assert(offsetof(struct procmap_query, field) == (off) &&	\
		       sizeof(((struct procmap_query *)0)->field) == (sz),	\
		       "procmap_query." #field " differs from upstream")
LIBADDRRES_UAPI_FIELD(size, 0, 8);
LIBADDRRES_UAPI_FIELD(query_flags, 8, 8);
LIBADDRRES_UAPI_FIELD(query_addr, 16, 8);
LIBADDRRES_UAPI_FIELD(vma_start, 24, 8);
LIBADDRRES_UAPI_FIELD(vma_end, 32, 8);
LIBADDRRES_UAPI_FIELD(vma_flags, 40, 8);
LIBADDRRES_UAPI_FIELD(vma_page_size, 48, 8);
LIBADDRRES_UAPI_FIELD(vma_offset, 56, 8);
LIBADDRRES_UAPI_FIELD(inode, 64, 8);
LIBADDRRES_UAPI_FIELD(dev_major, 72, 4);
LIBADDRRES_UAPI_FIELD(dev_minor, 76, 4);
LIBADDRRES_UAPI_FIELD(vma_name_size, 80, 4);
LIBADDRRES_UAPI_FIELD(build_id_size, 84, 4);
LIBADDRRES_UAPI_FIELD(vma_name_addr, 88, 8);
LIBADDRRES_UAPI_FIELD(build_id_addr, 96, 8);
#undef LIBADDRRES_UAPI_FIELD
_Static_assert(sizeof(struct procmap_query) == 104, "procmap_query size differs from upstream");
_Static_assert(PROCMAP_QUERY == 0xC0686611u, "PROCMAP_QUERY differs from upstream");
_Static_assert(PROCMAP_QUERY_VMA_READABLE == 0x01 && PROCMAP_QUERY_VMA_WRITABLE == 0x02 &&
	       PROCMAP_QUERY_VMA_EXECUTABLE == 0x04 && PROCMAP_QUERY_VMA_SHARED == 0x08 &&
	       PROCMAP_QUERY_COVERING_OR_NEXT_VMA == 0x10 &&
	       PROCMAP_QUERY_FILE_BACKED_VMA == 0x20,
	       "procmap_query_flags differ from upstream");

#endif /* ADDRRES_PROCMAP_QUERY_H */
