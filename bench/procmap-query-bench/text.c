// SPDX-License-Identifier: GPL-2.0
/*
 * procmap-query-bench, text.c: the reference, the maps text through stdio and fscanf()
 */
#include "procmap-query-bench.h"

/* ---- the reference: the maps text through stdio and fscanf() ---------- */

static int stdio_result__reserve(struct stdio_result *r, size_t extra)
{
	size_t cap = r->names_cap ? r->names_cap : 4096;
	char *names;

	if (r->names_len + extra <= r->names_cap)
		return 0;
	while (cap < r->names_len + extra)
		cap *= 2;
	names = realloc(r->names, cap);
	if (!names)
		return -ENOMEM;
	r->names = names;
	r->names_cap = cap;
	return 0;
}

/* Every address adds at most one VMA, so naddrs bounds the table. */
int stdio_result__init(struct stdio_result *r, size_t naddrs)
{
	memset(r, 0, sizeof(*r));
	r->cap_vmas = naddrs;
	r->vma_of = calloc(naddrs, sizeof(*r->vma_of));
	r->vmas = calloc(naddrs, sizeof(*r->vmas));
	if (!r->vma_of || !r->vmas)
		return -ENOMEM;
	/* sized now so that runs do not reallocate */
	return stdio_result__reserve(r, naddrs * 64 + 2 * PATH_MAX);
}

void stdio_result__free(struct stdio_result *r)
{
	free(r->vma_of);
	free(r->vmas);
	free(r->names);
	memset(r, 0, sizeof(*r));
}

/* Append a VMA with a copy of its name; returns its index or -errno. */
static int stdio_result__add(struct stdio_result *r, const struct stdio_vma *rec,
			     const char *name)
{
	size_t len = strlen(name);
	struct stdio_vma *dst;
	int err;

	if (r->nr_vmas == r->cap_vmas)
		return -ENOSPC;
	err = stdio_result__reserve(r, len + 1);
	if (err)
		return err;
	dst = &r->vmas[r->nr_vmas];
	*dst = *rec;
	dst->name_off = r->names_len;
	memcpy(r->names + r->names_len, name, len + 1);
	r->names_len += len + 1;
	return (int)r->nr_vmas++;
}

/* "rwxs" / "r-xp" as ADDRRES_VMA_* flags. */
static uint32_t perms__flags(const char *p)
{
	uint32_t flags = 0;

	if (p[0] == 'r')
		flags |= ADDRRES_VMA_READABLE;
	if (p[1] == 'w')
		flags |= ADDRRES_VMA_WRITABLE;
	if (p[2] == 'x')
		flags |= ADDRRES_VMA_EXECUTABLE;
	if (p[3] == 's')
		flags |= ADDRRES_VMA_SHARED;
	return flags;
}

/*
 * Place sorted @addrs with one pass over the text, stopping once every
 * address is placed (as the library's text method does).
 */
int text_stdio__resolve(const uint64_t *addrs, size_t n,
			struct stdio_result *res)
{
	static char iobuf[4096], name[PATH_MAX];
	unsigned long long start, end, offset, inode;
	unsigned int major, minor;
	char perms[4];
	size_t next = 0;
	FILE *f;
	int got;

	res->nr_vmas = 0;
	res->names_len = 0;
	f = fopen(MAPS_PATH, "re");
	if (!f)
		return -errno;
	setvbuf(f, iobuf, _IOFBF, sizeof(iobuf));
	/* A nameless line stops after the inode (7 fields); its newline is
	 * skipped by the next %llx.
	 */
	while (next < n &&
	       (got = fscanf(f, "%llx-%llx %4c %llx %x:%x %llu%*[ ]%4095[^\n]",
			     &start, &end, perms, &offset, &major, &minor,
			     &inode, name)) >= 7) {
		struct stdio_vma rec = { .start = start, .end = end,
					 .offset = offset, .inode = inode,
					 .dev_major = major, .dev_minor = minor,
					 .flags = perms__flags(perms) };
		int idx;

		if (got == 7)
			name[0] = '\0';
		while (next < n && addrs[next] < start)
			res->vma_of[next++] = -1;
		if (next == n || addrs[next] >= end)
			continue;
		idx = stdio_result__add(res, &rec, name);
		if (idx < 0) {
			fclose(f);
			return idx;
		}
		while (next < n && addrs[next] < end)
			res->vma_of[next++] = idx;
	}
	fclose(f);
	while (next < n)
		res->vma_of[next++] = -1;
	return 0;
}
