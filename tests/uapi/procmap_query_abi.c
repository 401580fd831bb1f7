// SPDX-License-Identifier: GPL-2.0
/*
 * Compile-time check that the patched kernel's <linux/fs.h> declares
 * PROCMAP_QUERY with exactly the ABI of upstream Linux 6.11+, so that
 * binaries built against upstream headers work on our kernel.  Built for
 * every ABI the compiler has (-m64, -m32): the struct has no padding and
 * must be the same on both.  Compiling is the test.
 */
#include <stddef.h>
#include <linux/fs.h>

#define ABI_OFFSET(field, off) \
	_Static_assert(offsetof(struct procmap_query, field) == (off), \
		       "offset of " #field " differs from upstream")
#define ABI_SIZE(field, sz) \
	_Static_assert(sizeof(((struct procmap_query *)0)->field) == (sz), \
		       "size of " #field " differs from upstream")

_Static_assert(sizeof(struct procmap_query) == 104, "struct size differs from upstream");
_Static_assert(PROCFS_IOCTL_MAGIC == 'f', "ioctl magic differs from upstream");
_Static_assert(PROCMAP_QUERY == 0xC0686611, "ioctl number differs from upstream");

ABI_OFFSET(size, 0);		ABI_SIZE(size, 8);
ABI_OFFSET(query_flags, 8);	ABI_SIZE(query_flags, 8);
ABI_OFFSET(query_addr, 16);	ABI_SIZE(query_addr, 8);
ABI_OFFSET(vma_start, 24);	ABI_SIZE(vma_start, 8);
ABI_OFFSET(vma_end, 32);	ABI_SIZE(vma_end, 8);
ABI_OFFSET(vma_flags, 40);	ABI_SIZE(vma_flags, 8);
ABI_OFFSET(vma_page_size, 48);	ABI_SIZE(vma_page_size, 8);
ABI_OFFSET(vma_offset, 56);	ABI_SIZE(vma_offset, 8);
ABI_OFFSET(inode, 64);		ABI_SIZE(inode, 8);
ABI_OFFSET(dev_major, 72);	ABI_SIZE(dev_major, 4);
ABI_OFFSET(dev_minor, 76);	ABI_SIZE(dev_minor, 4);
ABI_OFFSET(vma_name_size, 80);	ABI_SIZE(vma_name_size, 4);
ABI_OFFSET(build_id_size, 84);	ABI_SIZE(build_id_size, 4);
ABI_OFFSET(vma_name_addr, 88);	ABI_SIZE(vma_name_addr, 8);
ABI_OFFSET(build_id_addr, 96);	ABI_SIZE(build_id_addr, 8);

_Static_assert(PROCMAP_QUERY_VMA_READABLE == 0x01, "flag value differs from upstream");
_Static_assert(PROCMAP_QUERY_VMA_WRITABLE == 0x02, "flag value differs from upstream");
_Static_assert(PROCMAP_QUERY_VMA_EXECUTABLE == 0x04, "flag value differs from upstream");
_Static_assert(PROCMAP_QUERY_VMA_SHARED == 0x08, "flag value differs from upstream");
_Static_assert(PROCMAP_QUERY_COVERING_OR_NEXT_VMA == 0x10, "flag value differs from upstream");
_Static_assert(PROCMAP_QUERY_FILE_BACKED_VMA == 0x20, "flag value differs from upstream");

/* The flags are an enum upstream: code may declare variables of it. */
enum procmap_query_flags abi_flags_type_exists;
