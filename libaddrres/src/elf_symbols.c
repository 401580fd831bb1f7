// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Symbols and source lines of a cached file: which PT_LOAD segment an
 * offset is in, the symbol index, and the answers of one batch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include <dwarf.h>
#include <libiberty/demangle.h>

#include "elf_internal.h"

/* ---- resolving ---- */

/* The segment holding file offset @off: in its file bytes, else its page's .bss. */
static const struct elf_load *load_of(const struct elf_facts *f, uint64_t off)
{
	for (size_t i = 0; i < f->nr_loads; i++) {
		if (off >= f->loads[i].offset && off - f->loads[i].offset < f->loads[i].filesz)
			return &f->loads[i];
	}
	for (size_t i = 0; i < f->nr_loads; i++) {
		if (off >= f->loads[i].offset && off - f->loads[i].offset < f->loads[i].memsz)
			return &f->loads[i];
	}
	return NULL;
}

/*
 * Which table libdwfl found the symbol in, from the ELF it says it came
 * from: the file's own (its .symtab if it has one, else its .dynsym), or
 * another: a debug file or the image of .gnu_debugdata.  libdwfl reads
 * .gnu_debugdata only when the debug file it found (if any) has no
 * .symtab, so without a debug file it is that one, and with a debug file
 * but no .gnu_debugdata the debug file.
 */
static enum addrres_elf_symtab symtab_of(struct elf_file *f, Elf *symelf)
{
	const char *debugfile = NULL;
	Dwarf_Addr bias;
	Dwarf *dw;

	if (!symelf || symelf == f->elf)
		return f->facts.has_symtab ? ADDRRES_ELF_SYMTAB_SYMTAB : ADDRRES_ELF_SYMTAB_DYNSYM;
	dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (!debugfile)
		return ADDRRES_ELF_SYMTAB_GNU_DEBUGDATA;
	if (!f->facts.has_debugdata)
		return ADDRRES_ELF_SYMTAB_DEBUG_FILE;
	dw = libaddrres_elf_dwarf(f, &bias);
	return dw && dwarf_getelf(dw) == symelf ? ADDRRES_ELF_SYMTAB_DEBUG_FILE :
						  ADDRRES_ELF_SYMTAB_GNU_DEBUGDATA;
}

/* ---- the symbol index ---- */

/*
 * dwfl_module_addrinfo() reads the module's whole symbol table for every
 * address it is asked (elfutils' libdwfl/dwfl_module_addrsym.c: a loop
 * over the globals, then one over the locals), thousands of symbols for
 * a libc.  The index holds the same symbols, read once through libdwfl
 * on the file's first lookup (dwfl_module_getsym_info(): the same tables,
 * .symtab, the debug file's, .dynsym with .gnu_debugdata, at the same
 * addresses), sorted by address, and gives libdwfl's answer from the few
 * symbols around the address.  What libdwfl does, and the index with it:
 *
 *  - it skips the symbols without a name, undefined (st_shndx SHN_UNDEF),
 *    of type STT_SECTION, STT_FILE or STT_TLS, or above the address;
 *  - it scans the globals (from dwfl_module_getsymtab_first_global() on),
 *    then the locals only if no sized global holds the address and no
 *    sizeless global is at the address itself;
 *  - of the sized symbols that hold the address in the part scanned, it
 *    keeps, in table order, each that starts higher than the one kept, or
 *    binds more strongly (global, weak, local, other), or starts at the
 *    same address with the same binding and is smaller.  With bindings
 *    that differ the order matters, so the index replays that on the
 *    symbols holding the address;
 *  - failing one, a sizeless symbol (an assembly label) only if it is at
 *    the highest end (value + size) of all the symbols scanned at or
 *    below the address (no other ends between it and the address), and
 *    in the address's section (dwfl_module_address_section()'s, whatever
 *    its st_shndx; one of a special section, absolute or not SHF_ALLOC,
 *    only at the address itself): the last such in table order.
 *
 * libdwfl is asked instead where a function's address is not its
 * st_value (function descriptors: libdwfl then tries both), where memory
 * for the index is short, where more than SYM_HOLDERS_MAX symbols hold
 * the address, and where it cannot say which section a label is in.
 */
#define SYM_HOLDERS_MAX 64

static void range_free(struct sym_range *r)
{
	free(r->ents);
	free(r->maxend);
	memset(r, 0, sizeof(*r));
}

void libaddrres_elf_index_free(struct sym_index *ix)
{
	range_free(&ix->globals);
	range_free(&ix->locals);
}

static uint64_t sym_end(const struct sym_ent *s)
{
	return s->value > UINT64_MAX - s->size ? UINT64_MAX : s->value + s->size;
}

/* libdwfl's preference among bindings: higher is better. */
static int bind_value(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

static int cmp_sym_ent(const void *a, const void *b)
{
	const struct sym_ent *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return (x->ndx > y->ndx) - (x->ndx < y->ndx);
}

/* Sort @r and build its tree of ends: 0 or -ENOMEM. */
static int range_finish(struct sym_range *r)
{
	if (r->n)
		qsort(r->ents, r->n, sizeof(*r->ents), cmp_sym_ent);
	r->maxend = calloc(r->n + 1, sizeof(*r->maxend));
	if (!r->maxend)
		return -ENOMEM;
	for (size_t j = 1; j <= r->n; j++) {
		uint64_t m = sym_end(&r->ents[j - 1]);

		/* Its block: its own symbol and the blocks of j - 1, j - 2, j - 4... */
		for (size_t k = 1; k < (j & -j); k <<= 1) {
			if (r->maxend[j - k] > m)
				m = r->maxend[j - k];
		}
		r->maxend[j] = m;
	}
	return 0;
}

/*
 * Read the module's symbols into f->index as dwfl_module_addrinfo() reads
 * them; where that cannot be done, every lookup of the file asks libdwfl.
 */
static void index_build(struct elf_file *f)
{
	struct sym_index *ix = &f->index;
	int nsyms = dwfl_module_getsymtab(f->mod), first_global, start, end;

	ix->state = SYM_INDEX_BUILT;
	/* Without a table libdwfl finds nothing, and so does an empty index. */
	first_global = nsyms < 0 ? -1 : dwfl_module_getsymtab_first_global(f->mod);
	if (first_global < 0)
		return;
	/* libdwfl's two scans: [start, nsyms), then [1, first_global). */
	start = first_global > 1 ? first_global : 1;
	end = first_global > nsyms ? first_global : nsyms;
	ix->globals.ents = calloc(nsyms > 0 ? (size_t)nsyms : 1, sizeof(struct sym_ent));
	ix->locals.ents = calloc((size_t)start, sizeof(struct sym_ent));
	if (!ix->globals.ents || !ix->locals.ents)
		goto libdwfl;
	for (int i = 1; i < end; i++) {
		struct sym_range *r = i < start ? &ix->locals : &ix->globals;
		const char *name;
		GElf_Addr value;
		GElf_Word shndx;
		Dwarf_Addr bias;
		GElf_Sym sym;
		Elf *elf;
		int type;

		if (i >= nsyms && r == &ix->globals)
			break;
		name = dwfl_module_getsym_info(f->mod, i, &sym, &value, &shndx, &elf, &bias);
		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_SECTION || type == STT_FILE || type == STT_TLS)
			continue;
		/* A function descriptor's: libdwfl also tries st_value. */
		if ((type == STT_FUNC || type == STT_GNU_IFUNC) && value != sym.st_value + bias)
			goto libdwfl;
		r->ents[r->n++] = (struct sym_ent){
			.value = value, .size = sym.st_size, .name = name, .elf = elf,
			.shndx = shndx, .ndx = i, .bind = bind_value(&sym),
		};
	}
	if (range_finish(&ix->globals) || range_finish(&ix->locals))
		goto libdwfl;
	f->index_bytes += (ix->globals.n + ix->locals.n) *
			  (sizeof(struct sym_ent) + sizeof(*ix->globals.maxend));
	return;
libdwfl:
	libaddrres_elf_index_free(ix);
	ix->state = SYM_INDEX_LIBDWFL;
}

/* How many symbols of @r are at or below @addr. */
static size_t range_upto(const struct sym_range *r, uint64_t addr)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ents[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The sized symbol, of the first @upto of @r, that libdwfl's scan keeps
 * for @addr into *@best, NULL if none holds @addr; false if too many do
 * to replay the scan here.
 */
static bool range_holder(const struct sym_range *r, size_t upto, uint64_t addr,
			 const struct sym_ent **best)
{
	const struct sym_ent *held[SYM_HOLDERS_MAX], *c = NULL;
	size_t n = 0, j = upto;

	while (j > 0) {
		const struct sym_ent *s = &r->ents[j - 1];

		/* None of ents[j - lowbit(j)] to ents[j - 1] reaches @addr. */
		if (r->maxend[j] <= addr && r->maxend[j] != UINT64_MAX) {
			j -= j & -j;
			continue;
		}
		if (s->size && addr - s->value < s->size) {
			if (n == SYM_HOLDERS_MAX)
				return false;
			held[n++] = s;
		}
		j--;
	}
	/* Found from the top down: into table order, that of the scan. */
	for (size_t i = 1; i < n; i++) {
		const struct sym_ent *s = held[i];
		size_t k = i;

		for (; k > 0 && held[k - 1]->ndx > s->ndx; k--)
			held[k] = held[k - 1];
		held[k] = s;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sym_ent *s = held[i];

		if (!c || c->value < s->value || c->bind < s->bind ||
		    (c->value == s->value && c->bind == s->bind && c->size > s->size))
			c = s;
	}
	*best = c;
	return true;
}

/* The largest end of the first @upto symbols of @r; 0 if none. */
static uint64_t range_maxend(const struct sym_range *r, size_t upto)
{
	uint64_t m = 0;

	for (size_t j = upto; j > 0; j -= j & -j) {
		if (r->maxend[j] > m)
			m = r->maxend[j];
	}
	return m;
}

/* Whether @r has a sizeless symbol at @addr, among its first @upto. */
static bool range_label_at(const struct sym_range *r, size_t upto, uint64_t addr)
{
	for (size_t j = upto; j > 0 && r->ents[j - 1].value == addr; j--) {
		if (!r->ents[j - 1].size)
			return true;
	}
	return false;
}

/*
 * Which of @f's sections dwfl_module_address_section() finds module
 * address @addr in: its position in f->facts.scns, -1 if none (elfutils'
 * libdwfl/derelocate.c, find_section(): a binary search in the sections
 * sorted by address, where a section holds its end too unless the next
 * one starts there).  With no two starting at one address and none
 * overlapping, as scns_check() made sure, at most two sections hold an
 * address, the second starting there, and every path of that search
 * ends on it: this one's answer.
 */
static long section_of(const struct elf_file *f, uint64_t addr)
{
	const struct elf_facts *fa = &f->facts;
	size_t lo = 0, hi = fa->nr_scns;

	addr -= f->bias;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < fa->scns[mid].start) {
			hi = mid;
		} else if (addr > fa->scns[mid].end) {
			lo = mid + 1;
		} else {
			if (addr == fa->scns[mid].end && mid + 1 < fa->nr_scns &&
			    addr == fa->scns[mid + 1].start)
				mid++;
			return (long)mid;
		}
	}
	return -1;
}

/*
 * Whether libdwfl finds module addresses @label and @addr in the same
 * section (dwfl_module_addrinfo() compares what
 * dwfl_module_address_section() gives for both): 1 or 0; -1 if it
 * cannot say.  That is NULL for an address in no section, and NULL is
 * NULL's section; a label is in a section but for the odd end-of-section
 * marker past a gap, so such a label means asking libdwfl.
 *
 * From the file's own section table where it has one answer: libdwfl's
 * call loads the module's DWARF first (derelocate.c, check_module()), the
 * better part of a file's first lookup when no line is asked for.  Where
 * that DWARF is broken, libdwfl finds no section for either address and
 * would take a label of any section; the table keeps to the address's.
 */
static int same_section(struct elf_file *f, uint64_t label, uint64_t addr)
{
	Dwarf_Addr a = label, b = addr, bias;
	Elf_Scn *sa, *sb;
	long la;

	if (f->facts.scns) {
		la = section_of(f, label);
		if (la >= 0)
			return la == section_of(f, addr);
		return -1;
	}
	/* libdwfl reads the DWARF for it: first as the library prepares it. */
	libaddrres_elf_dwarf(f, &bias);
	sa = dwfl_module_address_section(f->mod, &a, &bias);
	if (!sa)
		return -1;
	sb = dwfl_module_address_section(f->mod, &b, &bias);
	return sb && elf_ndxscn(sa) == elf_ndxscn(sb);
}

/*
 * The sizeless symbol at @m of @r that libdwfl would fall back to for
 * @addr: the last in table order in @addr's section, into *@best (NULL
 * if none).  *@same caches same_section() (-1: not asked yet).  false:
 * libdwfl must be asked.
 */
static bool range_label(struct elf_file *f, const struct sym_range *r, uint64_t m,
			uint64_t addr, int *same, const struct sym_ent **best)
{
	*best = NULL;
	/* By index within one value: from the top, the first that fits. */
	for (size_t j = range_upto(r, m); j > 0 && r->ents[j - 1].value == m; j--) {
		const struct sym_ent *s = &r->ents[j - 1];

		if (s->size)
			continue;
		if (m != addr && s->shndx >= SHN_LORESERVE)
			continue;
		if (m != addr && *same < 0) {
			*same = same_section(f, m, addr);
			if (*same < 0)
				return false;
		}
		if (m != addr && !*same)
			continue;
		*best = s;
		return true;
	}
	return true;
}

/*
 * dwfl_module_addrinfo()'s symbol for module address @addr, from the
 * index, into *@hit (NULL: none); false where libdwfl must be asked.
 */
static bool index_lookup(struct elf_file *f, uint64_t addr, const struct sym_ent **hit)
{
	struct sym_index *ix = &f->index;
	size_t gupto, lupto = 0;
	bool locals;
	int same = -1;
	uint64_t m;

	if (ix->state == SYM_INDEX_NONE)
		index_build(f);
	if (ix->state != SYM_INDEX_BUILT)
		return false;
	gupto = range_upto(&ix->globals, addr);
	if (!range_holder(&ix->globals, gupto, addr, hit))
		return false;
	if (*hit)
		return true;
	locals = ix->locals.n && !range_label_at(&ix->globals, gupto, addr);
	/* No symbol holds @addr: every end is at or below it. */
	m = range_maxend(&ix->globals, gupto);
	if (locals) {
		lupto = range_upto(&ix->locals, addr);
		if (!range_holder(&ix->locals, lupto, addr, hit))
			return false;
		if (*hit)
			return true;
		if (range_maxend(&ix->locals, lupto) > m)
			m = range_maxend(&ix->locals, lupto);
		/* Scanned last: a local label comes after a global one. */
		if (!range_label(f, &ix->locals, m, addr, &same, hit))
			return false;
		if (*hit)
			return true;
	}
	return range_label(f, &ix->globals, m, addr, &same, hit);
}

/*
 * dwfl_module_addrinfo() of module address @addr, from the index if it
 * can answer: the symbol's name (NULL if none), its offset, size,
 * section index and ELF.
 */
static const char *addrinfo(struct elf_file *f, uint64_t addr, uint64_t *off, uint64_t *size,
			    GElf_Word *shndx, Elf **symelf)
{
	const struct sym_ent *s;
	Dwarf_Addr bias;
	const char *name;
	GElf_Off o;
	GElf_Sym sym;

	if (index_lookup(f, addr, &s)) {
		if (!s)
			return NULL;
		*off = addr - s->value;
		*size = s->size;
		*shndx = s->shndx;
		*symelf = s->elf;
		return s->name;
	}
	/* It may read the DWARF (for a label's section): as the library prepares it. */
	libaddrres_elf_dwarf(f, &bias);
	name = dwfl_module_addrinfo(f->mod, addr, &o, &sym, shndx, symelf, NULL);
	if (name) {
		*off = o;
		*size = sym.st_size;
	}
	return name;
}

/**
 * libaddrres_elf_src_join() - a source path of a unit's DWARF, as eu-addr2line -A shows it
 * @e: the handle
 * @f: the file
 * @src: the path, as the unit's file table names it (a line's file, or an
 *	inlined call's DW_AT_call_file)
 * @comp_dir: the unit's compilation directory; NULL or "" for none
 * @unit: what tells the unit apart (a pointer stable while @f is cached)
 *
 * A file table names its files once, and a file and its unit (whose
 * compilation directory it is relative to) say what it became: a map by
 * the two pointers spares the join on all but the first use of each.
 *
 * Return: @src made absolute with @comp_dir if relative; out of memory
 * for that, or without a directory, @src.
 */
const char *libaddrres_elf_src_join(struct addrres_elf *e, struct elf_file *f, const char *src,
				    const char *comp_dir, const void *unit)
{
	const void *key[2] = { src, unit };
	struct libaddrres_strmap_ent *ent;
	const char *abs;
	char *path, *k;
	int len;

	if (src[0] == '/' || !comp_dir || !*comp_dir)
		return src;
	ent = libaddrres_strmap_find(&f->srcs, (const char *)key, sizeof(key));
	if (ent)
		return ent->val;
	len = asprintf(&path, "%s/%s", comp_dir, src);
	if (len < 0)
		return src;
	abs = libaddrres_intern(&e->srcs, &e->arena, path, (size_t)len);
	free(path);
	if (!abs)
		return src;
	k = libaddrres_arena_alloc(&f->arena, sizeof(key), _Alignof(void *));
	if (k) {
		memcpy(k, key, sizeof(key));
		libaddrres_strmap_add(&f->srcs, k, sizeof(key), (void *)abs);
	}
	return abs;
}

/* ---- names as shown ---- */

/*
 * A symbol table's @name as the caller sees it: without a symbol
 * version ("memcpy@@GLIBC_2.14": a debug file's .symtab names versioned
 * definitions so, .dynsym does not), and demangled unless told not to.
 * Both are done once per name: the map keeps what each name became (the
 * name itself where neither applies).  Out of memory, @name.
 */
const char *libaddrres_elf_shown_name(struct addrres_elf *e, const char *name)
{
	const char *at = name[0] ? strchr(name + 1, '@') : NULL;
	bool mangled = !e->no_demangle && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
	struct libaddrres_strmap_ent *ent;
	size_t len = strlen(name), base_len = at ? (size_t)(at - name) : len;
	char *key, *base, *dem = NULL;
	const char *val;

	if (!at && !mangled)
		return name;
	ent = libaddrres_strmap_find(&e->names, name, len);
	if (ent)
		return ent->val;
	key = libaddrres_arena_strndup(&e->arena, name, len);
	base = libaddrres_arena_strndup(&e->arena, name, base_len);
	if (!key || !base)
		return name;
	/* libiberty's, as binutils' and gdb's: C++ (Itanium ABI) and Rust. */
	if (mangled)
		dem = cplus_demangle(base, DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO);
	val = dem ? libaddrres_arena_strndup(&e->arena, dem, strlen(dem)) : base;
	free(dem);
	if (!val || libaddrres_strmap_add(&e->names, key, len, (void *)val))
		return name;
	return val;
}

/*
 * The most answers a file keeps: a profile's hot addresses are far fewer,
 * and a stream of addresses each asked once (a whole binary walked) must
 * not make the cache grow with it.  The first ones asked are kept.
 */
#define ANSWERS_KEPT_MAX 65536

/*
 * Keep @s, the answer at its address, for the next time the address is
 * asked (its inline frames are the file's already).  Short of memory, or
 * past ANSWERS_KEPT_MAX, it is not kept.
 */
static void answer_keep(struct elf_file *f, const struct addrres_elf_sym *s)
{
	struct addrres_elf_sym *copy;

	if (f->answers.nr >= ANSWERS_KEPT_MAX)
		return;
	copy = libaddrres_arena_alloc(&f->arena, sizeof(*copy), _Alignof(struct addrres_elf_sym));
	if (!copy)
		return;
	*copy = *s;
	if (libaddrres_strmap_add(&f->answers, (const char *)&copy->elf_addr,
				  sizeof(copy->elf_addr), copy))
		return;
	/* The copy, its key and the map's slot (at most half full). */
	f->index_bytes += sizeof(*copy) + 2 * sizeof(struct libaddrres_strmap_ent);
}

/*
 * Whether @elf has DWARF sections (.debug_info, or .zdebug_info), and
 * whether one of them is still compressed with zstd (libdw decompresses
 * those it can when it opens them).
 */
static void dwarf_sections(Elf *elf, bool *has, bool *zstd)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;
		GElf_Chdr ch;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)))
			continue;
		if (strncmp(name, ".debug_", 7) && strncmp(name, ".zdebug_", 8))
			continue;
		*has |= !strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info");
		/* ELFCOMPRESS_ZSTD, 2: <elf.h> of glibc 2.36 does not name it. */
		if ((sh.sh_flags & SHF_COMPRESSED) && gelf_getchdr(scn, &ch) && ch.ch_type == 2)
			*zstd = true;
	}
}

/*
 * Why @f's DWARF gives no lines, asked once per file where an address
 * has none: 0 where libdw reads it (the address has no line) or there is
 * none; -EOPNOTSUPP for sections compressed with zstd that
 * this libdw cannot decompress; -EBADMSG for a section that did not
 * decompress (said by elf_inflate.c) or any other DWARF libdw cannot
 * read.  Said once to the print function, naming the file.
 */
static int dwarf_state(struct elf_file *f)
{
	const char *file = NULL, *debugfile = NULL;
	bool has = false, zstd = false;
	Dwarf_Addr bias;
	const char *why;
	Dwarf *dw;
	int fd;

	dw = libaddrres_elf_dwarf(f, &bias);
	if (f->debug_starved)
		return -EMFILE;
	if (f->dwarf_capped)
		return -EFBIG;
	if (f->dwarf_corrupt)
		return -EBADMSG;
	if (dw) {
		/* libdw 0.188 opens DWARF with zstd sections, and finds nothing in them. */
		dwarf_sections(dwarf_getelf(dw), &has, &zstd);
		if (!zstd)
			return 0;
	}
	why = dwfl_errmsg(-1);
	dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, &file, &debugfile);
	dwarf_sections(f->elf, &has, &zstd);
	/* The debug file libdwfl found, as it is on disk. */
	fd = debugfile ? libaddrres_open_regular(AT_FDCWD, debugfile, 0, NULL) : -1;
	if (fd >= 0) {
		Elf *d = elf_begin(fd, ELF_C_READ_MMAP, NULL);

		dwarf_sections(d, &has, &zstd);
		if (d)
			elf_end(d);
		close(fd);
	}
	if (!has)
		return 0;
	libaddrres_print(ADDRRES_WARN, "%s: no source lines: %s%s", debugfile ? debugfile :
			 file ? file : "(file)",
			 zstd ? "its DWARF is compressed with zstd, which this libdw cannot decompress (elfutils 0.189 can)" :
				"libdw cannot read its DWARF: ",
			 zstd ? "" : why ? why : "?");
	return zstd ? -EOPNOTSUPP : -EBADMSG;
}

/* The first use of @f's DWARF: libdw reads it (its zlib sections decompressed first). */
static void dwarf_open(struct elf_file *f)
{
	Dwarf_Addr bias = 0;

	f->dwarf_used = true;
	libaddrres_elf_dwarf(f, &bias);
	f->dwbias = bias;
}

/* The line table of unit @cu was read for an answer: counted once, for file_bytes(). */
static void line_unit_note(struct elf_file *f, Dwarf_Die *cu)
{
	Dwarf_Off off = dwarf_dieoffset(cu);
	Dwarf_Lines *lines;
	size_t n;
	char *k;

	if (libaddrres_strmap_find(&f->line_units, (const char *)&off, sizeof(off)))
		return;
	k = libaddrres_arena_alloc(&f->arena, sizeof(off), _Alignof(Dwarf_Off));
	if (!k)
		return;
	memcpy(k, &off, sizeof(off));
	if (libaddrres_strmap_add(&f->line_units, k, sizeof(off), NULL))
		return;
	f->nr_line_units++;
	if (!dwarf_getsrclines(cu, &lines, &n))
		f->line_rows += n;
}

/* Whether ELF address @addr is in a segment of @f (its memory, .bss too). */
static bool in_load(const struct elf_facts *f, uint64_t addr)
{
	for (size_t i = 0; i < f->nr_loads; i++) {
		if (addr >= f->loads[i].vaddr && addr - f->loads[i].vaddr < f->loads[i].memsz)
			return true;
	}
	return false;
}

/*
 * What file offset @val of @f holds (or ELF address @val, if @elf_addr),
 * into @s; NULL if no segment holds it.
 */
static const struct addrres_elf_sym *sym_at(struct addrres_elf *e, struct elf_file *f,
					    uint64_t val, bool elf_addr, struct addrres_elf_sym *s)
{
	const struct elf_load *l = elf_addr ? NULL : load_of(&f->facts, val);
	uint64_t mod_addr, sym_off = 0, sym_size = 0;
	GElf_Word shndx = SHN_UNDEF;
	Elf *symelf = NULL;
	const char *name;

	struct libaddrres_strmap_ent *ent;
	uint64_t addr;

	if (elf_addr ? !in_load(&f->facts, val) : !l)
		return NULL;
	addr = elf_addr ? val : val - l->offset + l->vaddr;
	/* Asked before: a profile names its hot addresses batch after batch. */
	ent = libaddrres_strmap_find(&f->answers, (const char *)&addr, sizeof(addr));
	if (ent) {
		*s = *(const struct addrres_elf_sym *)ent->val;
		return s;
	}
	memset(s, 0, sizeof(*s));
	s->elf_addr = addr;
	mod_addr = s->elf_addr + f->bias;
	name = addrinfo(f, mod_addr, &sym_off, &sym_size, &shndx, &symelf);
	/*
	 * An absolute symbol of a file loaded anywhere (the vdso's version
	 * names, of value 0) does not move with it: it names no code there,
	 * as eu-addr2line --pid, which loads the file at its real address,
	 * finds.
	 */
	if (name && shndx == SHN_ABS && f->facts.relocatable)
		name = NULL;
	if (name) {
		s->name = libaddrres_elf_shown_name(e, name);
		s->offset = sym_off;
		s->size = sym_size;
		s->symtab = symtab_of(f, symelf);
	}
	if (!e->no_lines) {
		const char *src = NULL;
		int lineno = 0, col = 0;
		Dwarf_Die *cu = NULL, unit;
		Dwarf_Line *dline;
		Dwfl_Line *line;

		if (!f->dwarf_used)
			dwarf_open(f);
		line = dwfl_module_getsrc(f->mod, mod_addr);
		if (line) {
			src = dwfl_lineinfo(line, NULL, &lineno, &col, NULL, NULL);
			cu = dwfl_linecu(line);
			/* libdw 0.188 answers past a sequence's end: not past the unit's (elf_units.c). */
			if (cu && !libaddrres_elf_unit_holds(f, dwarf_dieoffset(cu),
							     mod_addr - f->dwbias))
				src = NULL, cu = NULL;
		}
		if (src) {
			s->src_file = libaddrres_elf_src_join(e, f, src,
							      src[0] == '/' ? NULL :
							      dwfl_line_comp_dir(line), cu);
			s->line = lineno > 0 ? (unsigned int)lineno : 0;
			s->column = col > 0 ? (unsigned int)col : 0;
		} else if (!line && (dline = libaddrres_elf_unit_line(f, mod_addr - f->dwbias,
									&unit)) &&
			   (src = dwarf_linesrc(dline, NULL, NULL))) {
			/* A unit .debug_aranges leaves out (clang's). */
			Dwarf_Attribute attr;

			cu = &unit;
			s->src_file = libaddrres_elf_src_join(e, f, src,
							      dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr)),
							      cu->addr);
			if (!dwarf_lineno(dline, &lineno) && lineno > 0)
				s->line = (unsigned int)lineno;
			if (!dwarf_linecol(dline, &col) && col > 0)
				s->column = (unsigned int)col;
		} else {
			if (!f->dwarf_checked) {
				f->dwarf_checked = true;
				f->line_err = dwarf_state(f);
			}
			s->line_err = f->line_err;
		}
		if (cu)
			line_unit_note(f, cu);
		/* Code with a line: its unit's DWARF may have inlined functions there. */
		if (!e->no_inlines && cu)
			libaddrres_elf_inline_chain(e, f, cu, mod_addr - f->dwbias, s);
	}
	answer_keep(f, s);
	return s;
}

/*
 * Room for @n results in e->syms.  Pointers into it from an earlier call
 * die: a batch reserves once for all its groups (resolve_vmas()).
 */
int libaddrres_elf_syms_reserve(struct addrres_elf *e, size_t n, const char *name)
{
	struct addrres_elf_sym *p;

	if (n <= e->syms_cap)
		return 0;
	if (n > SIZE_MAX / sizeof(*p))
		return libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", name);
	p = realloc(e->syms, n * sizeof(*p));
	if (!p)
		return libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", name);
	e->syms = p;
	e->syms_cap = n;
	return 0;
}

/*
 * syms[i] for the file offset (or, if @elf_addrs, the ELF address)
 * @vals[i] + @adj of @f (pinned for this call: libaddrres_elf_file_pin()) (wrapping), i < @n,
 * kept in @store[i].  A profile names the same addresses again and
 * again: a hash table of the offsets seen (open addressing, slots of
 * index + 1) looks each up once and copies it to its repeats.  Short of
 * memory for the table, each is looked up where it is.
 */
void libaddrres_elf_resolve_file(struct addrres_elf *e, struct elf_file *f,
				 const uint64_t *vals, uint64_t adj, bool elf_addrs, size_t n,
				 const struct addrres_elf_sym **syms, struct addrres_elf_sym *store)
{
	unsigned int bits = 4;
	size_t *slots = NULL, mask;

	while (bits < 8 * sizeof(size_t) - 2 && ((size_t)1 << bits) < 2 * n)
		bits++;
	mask = ((size_t)1 << bits) - 1;
	/* At most half full, so that a probe ends on a free slot soon. */
	if (n > 1 && n <= (mask >> 1) + 1)
		slots = calloc(mask + 1, sizeof(*slots));
	for (size_t i = 0; i < n; i++) {
		uint64_t off = vals[i] + adj;
		/* The product's top bits: offsets alike in their low bits spread. */
		size_t h = (size_t)((off * 0x9e3779b97f4a7c15ull) >> (64 - bits));

		if (!slots) {
			syms[i] = sym_at(e, f, off, elf_addrs, &store[i]);
			continue;
		}
		while (slots[h] && vals[slots[h] - 1] + adj != off)
			h = (h + 1) & mask;
		if (slots[h]) {
			size_t k = slots[h] - 1;

			if (syms[k])
				store[i] = store[k];
			syms[i] = syms[k] ? &store[i] : NULL;
			continue;
		}
		slots[h] = i + 1;
		syms[i] = sym_at(e, f, off, elf_addrs, &store[i]);
	}
	free(slots);
}
