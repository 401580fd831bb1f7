// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The functions inlined at an address, from an index of each function's
 * inlined subroutines.
 *
 * libdw's dwarf_getscopes() walks the unit's DIEs from its root to the
 * address every time it is asked, and dwarf_getscopes_die() walks them
 * again for each inlined function of the chain: what `eu-addr2line -i`
 * does, a few hundred microseconds an address in a large unit.  A
 * profile asks about the same functions again and again, so each is
 * walked once: a unit, on its first address, for the ranges of its
 * functions (its top-level DIEs only: DW_AT_sibling skips their
 * children; the functions nested in others, once, for an address in
 * none of those); a function, on its first address, for every
 * DW_TAG_inlined_subroutine in it with its name, call site and the one
 * it is nested in, their address ranges flattened into segments that
 * each say which one is innermost there.  An address then costs two
 * binary searches and the walk up its parents.
 *
 * The chain is the one dwarf_getscopes() and dwarf_getscopes_die() give
 * (tests/libaddrres/test_elf.c compares the two on libc): the inlined
 * subroutines that hold the address, innermost first, up to the
 * subprogram they are in (a subprogram nested in another ends the chain
 * too).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <dwarf.h>
#include <elfutils/libdw.h>

#include "elf_internal.h"

/* One DW_TAG_inlined_subroutine of a unit. */
struct inl_ent {
	int parent;			/* the one it is nested in; -1: none */
	struct addrres_elf_inline frame;	/* its name and call site */
};

/* From @lo up to the next segment's, @ent is innermost (-1: none). */
struct inl_seg {
	uint64_t lo;
	int ent;
};

/* What one function's walk found. */
struct fn_inlines {
	struct inl_ent *ents;
	struct inl_seg *segs;
	size_t nr_ents, nr_segs;
};

/* A function of a unit: its DIE, and its index once an address asked. */
struct cu_fn {
	Dwarf_Die die;
	struct fn_inlines *ix;
	bool walked;		/* ix built, or failed (NULL) */
};

/* A range of a function's code. */
struct cu_range {
	uint64_t lo, hi;
	size_t fn;		/* in cu_inlines.fns */
};

/*
 * What one unit's walk found so far: its functions' ranges (by address
 * once sorted), and where the walk goes on.
 */
struct cu_inlines {
	struct cu_fn *fns;
	struct cu_range *ranges;
	size_t nr_fns, nr_ranges, fns_cap, ranges_cap;
	Dwarf_Die cu;		/* the unit */
	Dwarf_Die next;		/* the top-level DIE to read next */
	unsigned int walks;	/* the partial walks so far */
	bool done;		/* every one read */
	bool nested_done;	/* the functions nested in others read too */
	bool sorted;		/* ranges sorted */
	bool failed;		/* out of memory: no more */
};

/* Partial walks of a unit before the next one reads it to its end. */
#define PARTIAL_WALKS 8

/* A range of an inlined subroutine, as the walk finds it. */
struct inl_range {
	uint64_t lo, hi;
	int depth, ent;
};

/* What a walk collects: growable arrays. */
struct inl_walk {
	struct addrres_elf *e;
	struct elf_file *f;
	Dwarf_Files *files;
	size_t nr_files;
	const char *comp_dir;		/* the unit's, joined to relative call files */
	const void *unit;		/* the unit's DIE, for libaddrres_elf_src_join() */
	struct inl_ent *ents;
	size_t nr_ents, ents_cap;
	struct inl_range *ranges;
	size_t nr_ranges, ranges_cap;
	bool failed;			/* out of memory: give up on the unit */
};

/* Append @n bytes of @item to the array *@arr of *@nr (capacity *@cap). */
static bool grow_push(void **arr, size_t *nr, size_t *cap, const void *item, size_t size)
{
	if (*nr == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		void *p = reallocarray(*arr, ncap, size);

		if (!p)
			return false;
		*arr = p;
		*cap = ncap;
	}
	memcpy((char *)*arr + *nr * size, item, size);
	(*nr)++;
	return true;
}

/* An attribute of @die, read through DW_AT_abstract_origin/specification. */
static bool die_udata(Dwarf_Die *die, unsigned int at, Dwarf_Word *v)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, at, &attr) && !dwarf_formudata(&attr, v);
}

/* An inlined function's name: its linkage name, shown; else its DW_AT_name. */
static const char *inline_name(struct addrres_elf *e, Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	if ((dwarf_attr_integrate(die, DW_AT_linkage_name, &attr) ||
	     dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr)) &&
	    (name = dwarf_formstring(&attr)))
		return libaddrres_elf_shown_name(e, name);
	name = dwarf_diename(die);
	if (!name && dwarf_attr_integrate(die, DW_AT_name, &attr))
		name = dwarf_formstring(&attr);
	return name;
}

/* Record @die, an inlined subroutine nested in @parent at @depth: its index or -1. */
static int walk_inlined(struct inl_walk *w, Dwarf_Die *die, int parent, int depth)
{
	struct inl_ent ent = { .parent = parent };
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	Dwarf_Word v;
	int idx;

	ent.frame.name = inline_name(w->e, die);
	if (w->files && die_udata(die, DW_AT_call_file, &v) && v < w->nr_files)
		ent.frame.call_file = dwarf_filesrc(w->files, v, NULL, NULL);
	/* Relative to the unit's directory, as the symbol's own line is. */
	if (ent.frame.call_file)
		ent.frame.call_file = libaddrres_elf_src_join(w->e, w->f, ent.frame.call_file,
							      w->comp_dir, w->unit);
	if (die_udata(die, DW_AT_call_line, &v) && v <= UINT_MAX)
		ent.frame.call_line = (unsigned int)v;
	if (die_udata(die, DW_AT_call_column, &v) && v <= UINT_MAX)
		ent.frame.call_column = (unsigned int)v;
	if (w->nr_ents >= INT_MAX || !grow_push((void **)&w->ents, &w->nr_ents, &w->ents_cap,
						&ent, sizeof(ent))) {
		w->failed = true;
		return -1;
	}
	idx = (int)(w->nr_ents - 1);
	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		struct inl_range r = { .lo = lo, .hi = hi, .depth = depth, .ent = idx };

		if (lo < hi && !grow_push((void **)&w->ranges, &w->nr_ranges, &w->ranges_cap, &r,
					  sizeof(r))) {
			w->failed = true;
			return -1;
		}
	}
	return idx;
}

/* Whether inlined code may be found below a DIE of tag @tag. */
static bool may_hold_code(int tag)
{
	switch (tag) {
	case DW_TAG_subprogram:
	case DW_TAG_inlined_subroutine:
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
	case DW_TAG_entry_point:
	case DW_TAG_namespace:
	case DW_TAG_module:
	case DW_TAG_class_type:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
		return true;
	default:
		return false;
	}
}

/*
 * Walk the children of @die, nested in inlined subroutine @parent (-1:
 * none) at @depth.  Recursion is bounded by the nesting of scopes, which
 * the walk cuts at a depth no compiler reaches.
 */
static void walk_children(struct inl_walk *w, Dwarf_Die *die, int parent, int depth)
{
	Dwarf_Die child;

	if (depth > 512 || dwarf_child(die, &child))
		return;
	do {
		int tag = dwarf_tag(&child);

		if (w->failed)
			return;
		if (tag == DW_TAG_inlined_subroutine) {
			int idx = walk_inlined(w, &child, parent, depth);

			if (idx >= 0)
				walk_children(w, &child, idx, depth + 1);
		} else if (tag == DW_TAG_subprogram) {
			/* A function of its own: its inlined code is its chain. */
			walk_children(w, &child, -1, depth + 1);
		} else if (may_hold_code(tag)) {
			walk_children(w, &child, parent, depth + 1);
		}
	} while (!dwarf_siblingof(&child, &child));
}

/* Ranges by start, the outer of two at one start first. */
static int cmp_range(const void *a, const void *b)
{
	const struct inl_range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return (x->hi < y->hi) - (x->hi > y->hi);
}

/* From @lo on, @ent is innermost: a later segment at the same start wins. */
static bool seg_emit(struct fn_inlines *c, size_t *cap, uint64_t lo, int ent)
{
	struct inl_seg s = { .lo = lo, .ent = ent };

	if (c->nr_segs && c->segs[c->nr_segs - 1].lo == lo) {
		c->segs[c->nr_segs - 1].ent = ent;
		return true;
	}
	/* Ranges that overlap without nesting (broken DWARF): keep the order. */
	if (c->nr_segs && c->segs[c->nr_segs - 1].lo > lo)
		return true;
	return grow_push((void **)&c->segs, &c->nr_segs, cap, &s, sizeof(s));
}

/*
 * The segments of @w's ranges, which nest: a sweep by start with a stack
 * of the ranges open, the top innermost.
 */
static bool flatten(struct inl_walk *w, struct fn_inlines *c)
{
	struct inl_range **stack;
	size_t top = 0, cap = 0;
	bool ok = true;

	if (w->nr_ranges)
		qsort(w->ranges, w->nr_ranges, sizeof(*w->ranges), cmp_range);
	stack = calloc(w->nr_ranges ? w->nr_ranges : 1, sizeof(*stack));
	if (!stack)
		return false;
	for (size_t i = 0; ok && i <= w->nr_ranges; i++) {
		struct inl_range *r = i < w->nr_ranges ? &w->ranges[i] : NULL;

		/* Close what ends before @r (all of them after the last). */
		while (ok && top && (!r || stack[top - 1]->hi <= r->lo)) {
			uint64_t end = stack[--top]->hi;

			ok = seg_emit(c, &cap, end, top ? stack[top - 1]->ent : -1);
		}
		if (ok && r) {
			stack[top++] = r;
			ok = seg_emit(c, &cap, r->lo, r->ent);
		}
	}
	free(stack);
	return ok;
}

static void fn_inlines_free(struct fn_inlines *c)
{
	if (!c)
		return;
	free(c->ents);
	free(c->segs);
	free(c);
}

static void cu_inlines_free(struct cu_inlines *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_fns; i++)
		fn_inlines_free(c->fns[i].ix);
	free(c->fns);
	free(c->ranges);
	free(c);
}

/* The index of function @fn of unit @cu, built now: NULL if memory is short. */
static struct fn_inlines *fn_index(struct addrres_elf *e, struct elf_file *f, Dwarf_Die *cu,
				   Dwarf_Die *fn)
{
	struct inl_walk w = { .e = e, .f = f, .unit = cu->addr };
	struct fn_inlines *c = calloc(1, sizeof(*c));
	Dwarf_Attribute attr;

	if (!c)
		return NULL;
	w.comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
	if (dwarf_getsrcfiles(cu, &w.files, &w.nr_files))
		w.files = NULL;
	walk_children(&w, fn, -1, 0);
	if (!w.failed && flatten(&w, c)) {
		c->ents = w.ents;
		c->nr_ents = w.nr_ents;
		w.ents = NULL;
	} else {
		fn_inlines_free(c);
		c = NULL;
	}
	free(w.ents);
	free(w.ranges);
	return c;
}

/*
 * Record function @die of @c (its ranges, if it has code): whether one
 * holds @addr.
 */
static bool add_function(struct cu_inlines *c, Dwarf_Die *die, uint64_t addr)
{
	struct cu_fn fn = { .die = *die };
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	bool any = false, holds = false;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0) {
		struct cu_range r = { .lo = lo, .hi = hi, .fn = c->nr_fns };

		if (lo >= hi)
			continue;
		any = true;
		holds |= addr >= lo && addr < hi;
		if (!grow_push((void **)&c->ranges, &c->nr_ranges, &c->ranges_cap, &r, sizeof(r)))
			c->failed = true;
	}
	c->sorted &= !any;
	if (any && !grow_push((void **)&c->fns, &c->nr_fns, &c->fns_cap, &fn, sizeof(fn)))
		c->failed = true;
	return holds;
}

/* The functions of a namespace or module, all of them. */
static void walk_scope(struct cu_inlines *c, Dwarf_Die *die, int depth)
{
	Dwarf_Die child;

	if (depth > 64 || dwarf_child(die, &child))
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram)
			add_function(c, &child, UINT64_MAX);
		else if (tag == DW_TAG_namespace || tag == DW_TAG_module)
			walk_scope(c, &child, depth + 1);
	} while (!c->failed && !dwarf_siblingof(&child, &child));
}

/*
 * Go on through the unit's top-level DIEs (where its functions are, and
 * in its namespaces and modules) up to the function that holds @addr:
 * libdw decodes every DIE to find the next one, so a unit is read only
 * as far as its addresses so far needed.
 */
static void walk_functions(struct cu_inlines *c, uint64_t addr)
{
	bool found = false;

	while (!c->done && !found && !c->failed) {
		int tag = dwarf_tag(&c->next);

		if (tag == DW_TAG_subprogram)
			found = add_function(c, &c->next, addr);
		else if (tag == DW_TAG_namespace || tag == DW_TAG_module)
			walk_scope(c, &c->next, 1);
		c->done = dwarf_siblingof(&c->next, &c->next) != 0;
	}
}

/*
 * The functions that the walk of top-level DIEs does not see: those
 * nested in another function (GNU C's nested functions, C++ lambdas'
 * operator()) or in a type, below @die (@inner: below something else
 * than the unit, a namespace or a module).  Read once per unit, where an
 * address was in none of the others.
 */
static void walk_nested(struct cu_inlines *c, Dwarf_Die *die, bool inner, int depth)
{
	Dwarf_Die child;

	if (depth > 512 || dwarf_child(die, &child))
		return;
	do {
		int tag = dwarf_tag(&child);

		if (tag == DW_TAG_subprogram && inner)
			add_function(c, &child, UINT64_MAX);
		if (tag == DW_TAG_namespace || tag == DW_TAG_module)
			walk_nested(c, &child, inner, depth + 1);
		else if (may_hold_code(tag))
			walk_nested(c, &child, true, depth + 1);
	} while (!c->failed && !dwarf_siblingof(&child, &child));
}

static int cmp_cu_range(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The index of unit @cu: nothing read of it yet. */
static struct cu_inlines *cu_index(Dwarf_Die *cu)
{
	struct cu_inlines *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->sorted = true;
	c->cu = *cu;
	c->done = dwarf_child(cu, &c->next) != 0;
	return c;
}

/* The function of @c whose code holds unit address @addr, among those read. */
static long fn_search(struct cu_inlines *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nr_ranges;

	if (!c->sorted && c->nr_ranges)
		qsort(c->ranges, c->nr_ranges, sizeof(*c->ranges), cmp_cu_range);
	c->sorted = true;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->ranges[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* The one that starts nearest below: functions do not overlap. */
	if (!lo || addr >= c->ranges[lo - 1].hi)
		return -1;
	return (long)c->ranges[lo - 1].fn;
}

/*
 * The function of @c that holds @addr: its index in c->fns, or -1.  Each
 * partial walk adds ranges to sort again: past PARTIAL_WALKS of them
 * (addresses asked in the order opposite to the unit's), the next one
 * reads the unit to its end, so that it is sorted a bounded number of
 * times.
 */
static long fn_of(struct cu_inlines *c, uint64_t addr)
{
	long k = fn_search(c, addr);

	if (k >= 0 || c->failed)
		return k;
	if (!c->done) {
		walk_functions(c, ++c->walks > PARTIAL_WALKS ? UINT64_MAX : addr);
		k = fn_search(c, addr);
	}
	if (k < 0 && c->done && !c->nested_done && !c->failed) {
		c->nested_done = true;
		walk_nested(c, &c->cu, false, 0);
		k = fn_search(c, addr);
	}
	return k;
}

void libaddrres_elf_inlines_free(struct elf_file *f)
{
	for (size_t i = 0; i < f->cus.cap; i++) {
		if (f->cus.ents[i].key)
			cu_inlines_free(f->cus.ents[i].val);
	}
	libaddrres_strmap_free(&f->cus);
}

/* The innermost inlined subroutine at unit address @addr of @c: -1 if none. */
static int innermost(const struct fn_inlines *c, uint64_t addr)
{
	size_t lo = 0, hi = c->nr_segs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->segs[mid].lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? c->segs[lo - 1].ent : -1;
}

/* Deeper chains are cut there: no compiler inlines so deep. */
#define INLINE_DEPTH_MAX 64

/*
 * The functions inlined at DWARF address @addr of unit @cu of @f (the
 * unit of the address's line) into s->inlined, innermost first.  Nothing
 * where memory is short: the line and symbol stand without it.
 */
void libaddrres_elf_inline_chain(struct addrres_elf *e, struct elf_file *f, Dwarf_Die *cu,
				 uint64_t addr, struct addrres_elf_sym *s)
{
	struct libaddrres_strmap_ent *ent;
	struct addrres_elf_inline *frames;
	struct cu_inlines *cus;
	struct fn_inlines *c;
	struct cu_fn *fn;
	Dwarf_Off key;
	size_t nr = 0;
	long k;
	int i;

	key = dwarf_dieoffset(cu);
	ent = libaddrres_strmap_find(&f->cus, (const char *)&key, sizeof(key));
	if (ent) {
		cus = ent->val;
	} else {
		char *kb = libaddrres_arena_alloc(&f->arena, sizeof(key), 1);

		/* A unit whose index failed is kept as NULL: not walked again. */
		cus = cu_index(cu);
		if (!kb)
			goto drop;
		memcpy(kb, &key, sizeof(key));
		if (libaddrres_strmap_add(&f->cus, kb, sizeof(key), cus))
			goto drop;
	}
	if (!cus)
		return;
	f->index_bytes -= cus->fns_cap * sizeof(*cus->fns) + cus->ranges_cap * sizeof(*cus->ranges);
	k = fn_of(cus, addr);
	f->index_bytes += cus->fns_cap * sizeof(*cus->fns) + cus->ranges_cap * sizeof(*cus->ranges);
	if (k < 0)
		return;
	fn = &cus->fns[k];
	if (!fn->walked) {
		fn->walked = true;
		fn->ix = fn_index(e, f, cu, &fn->die);
		if (fn->ix)
			f->index_bytes += fn->ix->nr_ents * sizeof(*fn->ix->ents) +
					  fn->ix->nr_segs * sizeof(*fn->ix->segs);
	}
	c = fn->ix;
	if (!c)
		return;
	for (i = innermost(c, addr); i >= 0 && nr < INLINE_DEPTH_MAX; i = c->ents[i].parent)
		nr++;
	if (!nr)
		return;
	/* The file's: the answer keeps them (answer_keep()). */
	frames = libaddrres_arena_alloc(&f->arena, nr * sizeof(*frames),
					_Alignof(struct addrres_elf_inline));
	f->index_bytes += nr * sizeof(*frames);
	if (!frames)
		return;
	nr = 0;
	for (i = innermost(c, addr); i >= 0 && nr < INLINE_DEPTH_MAX; i = c->ents[i].parent)
		frames[nr++] = c->ents[i].frame;
	s->inlined = frames;
	s->nr_inlined = nr;
	return;
drop:
	cu_inlines_free(cus);
}
