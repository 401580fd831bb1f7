// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * What the ELF part gives that does not need elfutils, so that a LIBELF=0
 * build has it too: copies of answers a caller keeps, and the function of
 * release 0.1 that 0.2 replaced.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Room for @s and its NUL, counted into *@total unless @s is NULL. */
static void str_room(const char *s, size_t *total)
{
	if (s)
		*total += strlen(s) + 1;
}

/* @s copied to *@at (which moves past it); NULL stays NULL. */
static const char *str_put(const char *s, char **at)
{
	char *p = *at;
	size_t len;

	if (!s)
		return NULL;
	len = strlen(s) + 1;
	memcpy(p, s, len);
	*at += len;
	return p;
}

/*
 * One block: the pointers, then the structs and the inline frames (both
 * aligned as the structs), then the strings.
 */
int addrres_elf_syms__dup(const struct addrres_elf_sym *const *syms, size_t n,
			  const struct addrres_elf_sym ***copy)
{
	size_t structs = 0, frames = 0, strings = 0, head, total;
	const struct addrres_elf_sym **ptrs;
	struct addrres_elf_inline *fr;
	struct addrres_elf_sym *st;
	char *str;

	if (copy)
		*copy = NULL;
	if (!copy || (!syms && n))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const struct addrres_elf_sym *s = syms[i];

		if (!s)
			continue;
		structs++;
		frames += s->nr_inlined;
		str_room(s->name, &strings);
		str_room(s->src_file, &strings);
		str_room(s->section, &strings);
		for (size_t k = 0; k < s->nr_inlined; k++) {
			str_room(s->inlined[k].name, &strings);
			str_room(s->inlined[k].call_file, &strings);
		}
	}
	head = (n ? n : 1) * sizeof(*ptrs);
	head = (head + alignof(struct addrres_elf_sym) - 1) & ~(alignof(struct addrres_elf_sym) - 1);
	if (structs > (SIZE_MAX - head) / sizeof(*st) / 2 ||
	    frames > (SIZE_MAX - head) / sizeof(*fr) / 2)
		return -ENOMEM;
	total = head + structs * sizeof(*st) + frames * sizeof(*fr);
	if (strings > SIZE_MAX - total)
		return -ENOMEM;
	ptrs = malloc(total + strings);
	if (!ptrs)
		return -ENOMEM;
	st = (struct addrres_elf_sym *)((char *)ptrs + head);
	fr = (struct addrres_elf_inline *)(st + structs);
	str = (char *)(fr + frames);
	for (size_t i = 0; i < n; i++) {
		const struct addrres_elf_sym *s = syms[i];

		if (!s) {
			ptrs[i] = NULL;
			continue;
		}
		*st = *s;
		st->name = str_put(s->name, &str);
		st->src_file = str_put(s->src_file, &str);
		st->section = str_put(s->section, &str);
		st->inlined = s->nr_inlined ? fr : NULL;
		for (size_t k = 0; k < s->nr_inlined; k++, fr++) {
			*fr = s->inlined[k];
			fr->name = str_put(s->inlined[k].name, &str);
			fr->call_file = str_put(s->inlined[k].call_file, &str);
		}
		ptrs[i] = st++;
	}
	*copy = ptrs;
	return 0;
}

void addrres_elf_syms__free(const struct addrres_elf_sym **copy)
{
	free(copy);
}

/*
 * addrres_elf__resolve() as release 0.1 had it, with the build ID as
 * arguments: what a program built against 0.1 calls (the symbol
 * addrres_elf__resolve@ADDRRES_0.1 of libaddrres.so.0).
 */
LIBADDRRES_API int libaddrres_elf_resolve_0_1(struct addrres_elf *e, const char *path,
					      const unsigned char *build_id,
					      size_t build_id_size,
					      const uint64_t *file_offsets, size_t n,
					      const struct addrres_elf_sym **syms);
int libaddrres_elf_resolve_0_1(struct addrres_elf *e, const char *path,
			       const unsigned char *build_id, size_t build_id_size,
			       const uint64_t *file_offsets, size_t n,
			       const struct addrres_elf_sym **syms)
{
	ADDRRES_OPTS(addrres_elf_resolve_opts, opts, .build_id = build_id,
		     .build_id_size = build_id_size);

	/* 0.1 required a path. */
	if (!path) {
		for (size_t i = 0; syms && i < n; i++)
			syms[i] = NULL;
		return -EINVAL;
	}
	return libaddrres_elf_resolve_0_2(e, path, file_offsets, n, syms, &opts);
}
__asm__(".symver libaddrres_elf_resolve_0_1, addrres_elf__resolve@ADDRRES_0.1");
