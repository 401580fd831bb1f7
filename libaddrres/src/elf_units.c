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
 * and elfutils 0.191 do, built on the file's first line, and takes the
 * line from that unit's line table.
 *
 * The same index keeps libdw from answering past a unit's code: libdw
 * 0.188 gives an address just past a line sequence the sequence's last
 * row when that row is empty (a row at the end marker's address, which
 * sorts after the marker), so the gap after a function got the line of
 * its last row (_start after main, in a g++ -O2 binary).  A line is
 * taken only for an address in its unit's ranges, where the unit has
 * any.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "elf_internal.h"

/* How many ranges below an address libaddrres_elf_unit_holds() looks at. */
#define UNIT_SCAN_MAX 256

static int cmp_unit_range(const void *a, const void *b)
{
	const struct unit_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return (x->hi > y->hi) - (x->hi < y->hi);
}

static int cmp_off(const void *a, const void *b)
{
	const Dwarf_Off *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/*
 * Every unit's ranges into f->units, and the units that have ranges
 * into f->ranged_units; on failure, none (and no more tries).
 */
static void units_build(struct elf_file *f, Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize, cap = 0, ucap = 0;

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
				if (f->nr_ranged_units && f->ranged_units[f->nr_ranged_units - 1] == off + hsize)
					continue;
				if (f->nr_ranged_units == ucap) {
					size_t ncap = ucap ? 2 * ucap : 64;
					Dwarf_Off *more = reallocarray(f->ranged_units, ncap, sizeof(*more));

					if (!more)
						goto fail;
					f->ranged_units = more;
					ucap = ncap;
				}
				f->ranged_units[f->nr_ranged_units++] = off + hsize;
			}
		}
		off = next;
	}
	if (f->nr_units)
		qsort(f->units, f->nr_units, sizeof(*f->units), cmp_unit_range);
	if (f->nr_ranged_units)
		qsort(f->ranged_units, f->nr_ranged_units, sizeof(*f->ranged_units), cmp_off);
	f->index_bytes += cap * sizeof(*f->units) + ucap * sizeof(*f->ranged_units);
	return;
fail:
	free(f->units);
	free(f->ranged_units);
	f->units = NULL;
	f->ranged_units = NULL;
	f->nr_units = f->nr_ranged_units = 0;
}

/* The position past the last range of f->units that starts at or below @addr. */
static size_t units_upto(const struct elf_file *f, uint64_t addr)
{
	size_t lo = 0, hi = f->nr_units;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->units[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/**
 * libaddrres_elf_unit_holds() - whether a unit's code holds an address
 * @f: the file
 * @cu: the unit (its DIE's offset), where libdw found a line for @addr
 * @addr: the DWARF address
 *
 * Return: false only if the unit has ranges and none holds @addr.
 */
bool libaddrres_elf_unit_holds(struct elf_file *f, Dwarf_Off cu, uint64_t addr)
{
	Dwarf_Addr bias;
	Dwarf *dw;

	if (!f->units_built) {
		dw = libaddrres_elf_dwarf(f, &bias);
		if (!dw)
			return true;
		units_build(f, dw);
	}
	/* No unit with ranges: bsearch() must not be given a NULL array. */
	if (!f->nr_ranged_units ||
	    !bsearch(&cu, f->ranged_units, f->nr_ranged_units, sizeof(cu), cmp_off))
		return true;
	/*
	 * The ranges that start below @addr, nearest first: a few hold it.
	 * Past UNIT_SCAN_MAX of them, libdw is believed rather than scanned.
	 */
	for (size_t j = units_upto(f, addr), seen = 0; j > 0; j--, seen++) {
		const struct unit_range *r = &f->units[j - 1];

		if (seen == UNIT_SCAN_MAX)
			return true;
		if (r->cu == cu && addr < r->hi)
			return true;
	}
	return false;
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

	if (!dw)
		return NULL;
	if (!f->units_built)
		units_build(f, dw);
	/* The last range starting at or below @addr, and those below it that still hold it. */
	for (size_t j = units_upto(f, addr), seen = 0; j > 0 && seen < 16; j--, seen++) {
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
