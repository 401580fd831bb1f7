// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Units by address, for the addresses .debug_aranges does not cover.
 *
 * libdwfl finds the unit of an address (dwfl_module_getsrc(),
 * dwfl_module_addrdie()) through libdw's dwarf_getaranges(), which before
 * elfutils 0.191 reads .debug_aranges alone.  Clang emits no
 * .debug_aranges unless told to (-gdwarf-aranges), so on Debian 12's
 * libdw a clang binary had no lines at all, and one linked from clang
 * and gcc objects lines only for the latter.  Where libdwfl finds no
 * line, the library looks the address up in an index of every unit's
 * own ranges (DW_AT_low_pc/high_pc or DW_AT_ranges), as llvm-symbolizer
 * and elfutils 0.191 do, built on the file's first such miss, and takes
 * the line from that unit's line table.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "elf_internal.h"

static int cmp_unit_range(const void *a, const void *b)
{
	const struct unit_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

/* Every unit's ranges into f->units; on failure, none (and no more tries). */
static void units_build(struct elf_file *f, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0;

	f->units_built = true;
	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Addr base, lo, hi;
		ptrdiff_t roff = 0;
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu)) {
			while ((roff = dwarf_ranges(&cu, roff, &base, &lo, &hi)) > 0) {
				if (lo >= hi)
					continue;
				if (f->nr_units == cap) {
					size_t ncap = cap ? 2 * cap : 64;
					struct unit_range *more =
						reallocarray(f->units, ncap, sizeof(*more));

					if (!more)
						goto fail;
					f->units = more;
					cap = ncap;
				}
				f->units[f->nr_units++] = (struct unit_range){
					.lo = lo, .hi = hi, .cu = off + hsize,
				};
			}
		}
		off = next;
	}
	if (f->nr_units)
		qsort(f->units, f->nr_units, sizeof(*f->units), cmp_unit_range);
	f->index_bytes += cap * sizeof(*f->units);
	return;
fail:
	free(f->units);
	f->units = NULL;
	f->nr_units = 0;
}

/**
 * libaddrres_elf_unit_line() - the line of an address libdwfl found none for
 * @f: the file
 * @addr: a DWARF address of it (module address - f->dwbias)
 * @cu: where to store the unit it is in
 *
 * Return: the line of @addr in the line table of the unit whose ranges
 * hold it (of several, the first by start), or NULL.
 */
Dwarf_Line *libaddrres_elf_unit_line(struct elf_file *f, uint64_t addr, Dwarf_Die *cu)
{
	Dwarf_Addr bias;
	Dwarf *dw = libaddrres_elf_dwarf(f, &bias);
	size_t lo = 0, hi;

	if (!dw)
		return NULL;
	if (!f->units_built)
		units_build(f, dw);
	/* The last range starting at or below @addr, and those below it that still hold it. */
	hi = f->nr_units;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->units[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t j = lo, seen = 0; j > 0 && seen < 16; j--, seen++) {
		const struct unit_range *r = &f->units[j - 1];
		Dwarf_Line *line;

		if (addr >= r->hi || !dwarf_offdie(dw, r->cu, cu))
			continue;
		line = dwarf_getsrc_die(cu, addr);
		if (line)
			return line;
	}
	return NULL;
}
