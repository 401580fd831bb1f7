// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ELF part built without elfutils (LIBELF=0): the same functions, that
 * say so.  The Makefile builds this file instead of elf*.c.
 */
#include <errno.h>
#include <stddef.h>

#include "internal.h"

int addrres_elf__open(const struct addrres_elf_opts *opts, struct addrres_elf **ep)
{
	struct libaddrres_errbuf eb = { 0 };
	int err;

	if (ep)
		*ep = NULL;
	err = LIBADDRRES_OPTS_START(opts, &eb, "addrres_elf_opts");
	if (err)
		return err;
	if (!ep)
		return libaddrres_err(&eb, -EINVAL, "addrres_elf__open: ep is NULL");
	return libaddrres_err(&eb, -EOPNOTSUPP,
			      "addrres_elf__open: libaddrres was built without elfutils (LIBELF=0)");
}

void addrres_elf__free(struct addrres_elf *e)
{
	(void)e;
}

/* What every lookup of this build answers: no symbols, -EOPNOTSUPP. */
static int unsupported(const struct addrres_elf_sym **syms, int *errs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (syms)
			syms[i] = NULL;
		if (errs)
			errs[i] = -EOPNOTSUPP;
	}
	return -EOPNOTSUPP;
}

int addrres_elf__stats(const struct addrres_elf *e, struct addrres_elf_stats *stats)
{
	(void)e, (void)stats;
	return -EINVAL;	/* no handle can exist */
}

void addrres_elf__drop(struct addrres_elf *e)
{
	(void)e;
}

const char *addrres_elf__errmsg(const struct addrres_elf *e)
{
	(void)e;
	return "";
}

/* The versions of the name, as in elf.c. */
LIBADDRRES_API int libaddrres_elf_resolve_0_3(struct addrres_elf *e, const char *path,
					      const uint64_t *file_offsets, size_t n,
					      const struct addrres_elf_sym **syms,
					      const struct addrres_elf_resolve_opts *opts);
__asm__(".symver libaddrres_elf_resolve_0_3, addrres_elf__resolve@@ADDRRES_0.3");
int libaddrres_elf_resolve_0_3(struct addrres_elf *e, const char *path,
			       const uint64_t *file_offsets, size_t n,
			       const struct addrres_elf_sym **syms,
			       const struct addrres_elf_resolve_opts *opts)
{
	(void)e, (void)path, (void)file_offsets, (void)opts;
	return unsupported(syms, NULL, n);
}

__asm__(".symver libaddrres_elf_resolve_0_2, addrres_elf__resolve@ADDRRES_0.2");
int libaddrres_elf_resolve_0_2(struct addrres_elf *e, const char *path,
			       const uint64_t *file_offsets, size_t n,
			       const struct addrres_elf_sym **syms,
			       const struct addrres_elf_resolve_opts *opts)
{
	(void)e, (void)path, (void)file_offsets, (void)opts;
	return unsupported(syms, NULL, n);
}

int addrres_elf__resolve_vma(struct addrres_elf *e, int pid, const struct addrres_vma *vma,
			     const uint64_t *addrs, size_t n,
			     const struct addrres_elf_sym **syms)
{
	(void)e, (void)pid, (void)vma, (void)addrs;
	return unsupported(syms, NULL, n);
}

int addrres_elf__resolve_vmas(struct addrres_elf *e, int pid, const uint64_t *addrs,
			      const struct addrres_vma *const *vmas, size_t n,
			      const struct addrres_elf_sym **syms, int *errs)
{
	(void)e, (void)pid, (void)addrs, (void)vmas;
	return unsupported(syms, errs, n);
}

int addrres_elf__resolve_kernel(struct addrres_elf *e, const struct addrres_ksyms *ks,
				const uint64_t *addrs, size_t n,
				const struct addrres_elf_sym **syms, int *errs,
				const struct addrres_elf_kernel_opts *opts)
{
	(void)e, (void)ks, (void)addrs, (void)opts;
	return unsupported(syms, errs, n);
}
