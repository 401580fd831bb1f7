// SPDX-License-Identifier: GPL-2.0
/*
 * libaddrres carries its own copy of the PROCMAP_QUERY UAPI for systems
 * whose <linux/fs.h> lacks it (libaddrres/include/addrres/procmap_query.h, which
 * also pins it to upstream's numbers).  This file compiles only if that
 * copy and the patched kernel's installed <linux/fs.h> agree: every field
 * at the same offset with the same size, the same struct size, flags and
 * ioctl number.  run.sh makes carried_uapi.h from the copy with every
 * name prefixed by carried_ / CARRIED_, so that both can be included.
 */
#include <stddef.h>
#include <linux/fs.h>

#include "carried_uapi.h"

#define SAME_FIELD(f)								\
	_Static_assert(offsetof(struct procmap_query, f) ==			\
		       offsetof(struct carried_procmap_query, f) &&		\
		       sizeof(((struct procmap_query *)0)->f) ==		\
		       sizeof(((struct carried_procmap_query *)0)->f),		\
		       "procmap_query." #f ": the kernel's differs from libaddrres's copy")
#define SAME_VALUE(c)								\
	_Static_assert((long long)PROCMAP_QUERY##c ==				\
		       (long long)CARRIED_PROCMAP_QUERY##c,			\
		       "PROCMAP_QUERY" #c ": the kernel's differs from libaddrres's copy")

_Static_assert(sizeof(struct procmap_query) == sizeof(struct carried_procmap_query),
	       "struct procmap_query: the kernel's size differs from libaddrres's copy");
SAME_FIELD(size);
SAME_FIELD(query_flags);
SAME_FIELD(query_addr);
SAME_FIELD(vma_start);
SAME_FIELD(vma_end);
SAME_FIELD(vma_flags);
SAME_FIELD(vma_page_size);
SAME_FIELD(vma_offset);
SAME_FIELD(inode);
SAME_FIELD(dev_major);
SAME_FIELD(dev_minor);
SAME_FIELD(vma_name_size);
SAME_FIELD(build_id_size);
SAME_FIELD(vma_name_addr);
SAME_FIELD(build_id_addr);
SAME_VALUE(_VMA_READABLE);
SAME_VALUE(_VMA_WRITABLE);
SAME_VALUE(_VMA_EXECUTABLE);
SAME_VALUE(_VMA_SHARED);
SAME_VALUE(_COVERING_OR_NEXT_VMA);
SAME_VALUE(_FILE_BACKED_VMA);
SAME_VALUE();

/* The flags are an enum upstream: code may declare variables of it. */
enum procmap_query_flags kernel_flags_type_exists;
