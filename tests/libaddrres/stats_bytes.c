// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Whether addrres_elf_stats.bytes tells what a handle really holds: this
 * process's libc, its DWARF in libc6-dbg's debug file, asked 30, 300 and
 * 3,000 addresses by a new handle each time; the allocator's growth
 * (glibc's mallinfo2(): this program has one thread) plus the two files'
 * sizes (mapped) against stats.bytes, within 20%.  Built without
 * sanitizers (theirs would be the allocator measured), by run.sh.
 *
 *   stats_bytes LIBC DEBUG_FILE
 *
 * Prints a line per size; exits 1 if one is off.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <addrres/addrres.h>

static size_t heap(void)
{
	struct mallinfo2 m = mallinfo2();

	return m.uordblks + m.hblkhd;
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 30, 300, 3000 };
	struct stat lib, debug;
	int ret = 0;

	if (argc != 3 || stat(argv[1], &lib) || stat(argv[2], &debug)) {
		fprintf(stderr, "usage: %s LIBC DEBUG_FILE (both must exist)\n", argv[0]);
		return 2;
	}
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		ADDRRES_OPTS(addrres_elf_resolve_opts, ro, .elf_addrs = true);
		struct addrres_elf_stats st = { .sz = sizeof(st) };
		size_t n = sizes[k], before, held;
		const struct addrres_elf_sym **syms = calloc(n, sizeof(*syms));
		uint64_t *addrs = calloc(n, sizeof(*addrs));
		struct addrres_elf *e = NULL;
		double ratio;

		if (!syms || !addrs)
			return 2;
		/* Spread over libc's code, the same every run. */
		srand(1);
		for (size_t i = 0; i < n; i++)
			addrs[i] = 0x28000 + (uint64_t)(rand() % 0x150000);
		before = heap();
		if (addrres_elf__open(NULL, &e) || addrres_elf__resolve(e, argv[1], addrs, n, syms, &ro) ||
		    addrres_elf__resolve(e, argv[1], addrs, 1, syms, &ro) || addrres_elf__stats(e, &st)) {
			fprintf(stderr, "%s: %s\n", argv[1], e ? addrres_elf__errmsg(e) : "open failed");
			return 2;
		}
		/* (weighed at the second call's start: the first one's work) */
		held = heap() - before + (size_t)lib.st_size + (size_t)debug.st_size;
		ratio = (double)st.bytes / (double)held;
		printf("%zu addresses: stats.bytes %.1f MB, heap growth and mapped files %.1f MB (%.2f)\n",
		       n, st.bytes / 1e6, held / 1e6, ratio);
		if (ratio < 0.8 || ratio > 1.2)
			ret = 1;
		addrres_elf__free(e);
		free(syms);
		free(addrs);
	}
	return ret;
}
