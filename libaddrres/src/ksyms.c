// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel symbols: /proc/kallmodsyms, or /proc/kallsyms where there is none.
 *
 * The file is read a line at a time with getline(), so that no line is
 * too long, and each line is checked against the grammar of kallmodsyms
 * (Documentation/filesystems/proc.rst of the patched kernel):
 *
 *   line        = address " " size " " type " " name [ "\t" annotation ] "\n"
 *   annotation  = modules [ " " object ] | object
 *   modules     = "[" module "]" *( " [" module "]" )
 *   object      = "{" path "}"
 *
 * The strings live in one arena: the names, and once each the module
 * names, the module lists (an annotation's "[a] [b]" is one array of
 * pointers, shared by all the symbols that have it) and the object paths.
 * Two indexes are built once the file is read: the symbols sorted by
 * address, for a binary search, and a hash table of the names, chained
 * in file order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "internal.h"

#define NO_SYM UINT32_MAX
#define MAX_SYMS (UINT32_MAX - 1)	/* so that indexes fit in a uint32_t */

/*
 * Regions: the stretches of address space whose last symbol ends what
 * addrres_ksyms__find_addr() resolves.  The kernel image; its absolute
 * symbols (the per-CPU variables of x86_64, at small addresses); then
 * one per loaded module or pseudo-module, numbered as first met.
 */
enum { REGION_IMAGE, REGION_ABSOLUTE, REGION_FIRST_MODULE };

struct addr_ent {
	uint64_t addr;
	uint32_t idx;		/* in addrres_ksyms.syms; breaks ties, in file order */
	uint32_t region;
};

struct addrres_ksyms {
	struct addrres_ksym *syms;	/* in file order */
	size_t nr;
	struct addr_ent *by_addr;	/* nr entries by address; NULL if restricted */
	uint64_t *region_last;		/* the greatest address of each region */
	uint32_t *buckets;		/* name hash & bucket_mask -> first symbol */
	uint32_t *next;			/* the next symbol of the same bucket */
	size_t bucket_mask;
	struct libaddrres_arena arena;	/* every string, and the module lists */
	enum addrres_ksyms_source source;
	bool restricted;
};

/* What reading one file needs besides the set being filled. */
struct parser {
	struct addrres_ksyms *ks;
	struct libaddrres_errbuf *eb;
	const char *path;
	size_t lineno;
	size_t cap;				/* room in ks->syms */
	struct libaddrres_strmap strings;	/* module names and objects */
	struct libaddrres_strmap lists;		/* "[a] [b]" -> const char *[] */
	struct libaddrres_arena keys;		/* the keys of lists */
};

/* An annotation as parsed: spans of the line. */
struct annotation {
	const char *mods;	/* from the first '[' to the last ']' */
	size_t mods_len;
	size_t nr_mods;
	const char *obj;	/* between the braces, or NULL */
	size_t obj_len;
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool is_letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_control(char c)
{
	return (unsigned char)c < 0x20 || c == 0x7f;
}

/* A character as a message shows it: 'c', or \xNN if it does not print. */
static const char *show_char(char c, char buf[8])
{
	if (is_control(c) || (unsigned char)c >= 0x80)
		snprintf(buf, 8, "\\x%02x", (unsigned char)c);
	else
		snprintf(buf, 8, "'%c'", c);
	return buf;
}

static int parse_error(struct parser *p, const char *fmt, ...) LIBADDRRES_PRINTF(2, 3);
static int parse_error(struct parser *p, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return libaddrres_err(p->eb, -EINVAL, "%s:%zu: %s", p->path, p->lineno, msg);
}

static int out_of_memory(struct parser *p)
{
	return libaddrres_err(p->eb, -ENOMEM, "%s:%zu: out of memory", p->path, p->lineno);
}

/*
 * The closing @close of a module name or object path starting at @s, or
 * NULL if the line ends, or has a space, tab, bracket or brace, first.
 */
static const char *closing(const char *s, const char *end, char close)
{
	for (; s < end; s++) {
		if (*s == close)
			return s;
		if (*s == ' ' || *s == '\t' || *s == '[' || *s == ']' || *s == '{' || *s == '}')
			return NULL;
	}
	return NULL;
}

/* The annotation from @s (after the tab) to @end (the end of the line). */
static int parse_annotation(struct parser *p, const char *s, const char *end,
			    struct annotation *an)
{
	char cb[8];

	if (s == end)
		return parse_error(p, "empty annotation after the tab");
	for (;;) {
		const char *close;

		if (*s == '[') {
			close = closing(s + 1, end, ']');
			if (!close)
				return parse_error(p, "unterminated \"[\": a module name ends with \"]\" and has no space, bracket or brace");
			if (close == s + 1)
				return parse_error(p, "empty module name \"[]\"");
			if (!an->nr_mods)
				an->mods = s;
			an->nr_mods++;
			an->mods_len = close + 1 - an->mods;
		} else if (*s == '{') {
			close = closing(s + 1, end, '}');
			if (!close)
				return parse_error(p, "unterminated \"{\": an object path ends with \"}\" and has no space, bracket or brace");
			if (close == s + 1)
				return parse_error(p, "empty object path \"{}\"");
			an->obj = s + 1;
			an->obj_len = close - (s + 1);
			if (close + 1 != end)
				return parse_error(p, "%s after the object path, which ends the line",
						   show_char(close[1], cb));
			return 0;
		} else {
			return parse_error(p, "expected \"[module]\" or \"{object}\" in the annotation, found %s",
					   show_char(*s, cb));
		}
		s = close + 1;
		if (s == end)
			return 0;
		if (*s != ' ')
			return parse_error(p, "expected a space after \"]\", found %s", show_char(*s, cb));
		if (++s == end)
			return parse_error(p, "space at the end of the annotation");
	}
}

/* The shared array of module names of the list "[a] [b]" of @an. */
static const char *const *intern_modules(struct parser *p, const struct annotation *an)
{
	struct libaddrres_strmap_ent *e = libaddrres_strmap_find(&p->lists, an->mods, an->mods_len);
	const char *s = an->mods, *end = an->mods + an->mods_len;
	const char **mods;
	char *key;

	if (e)
		return e->val;
	if (an->nr_mods > SIZE_MAX / sizeof(*mods))
		return NULL;
	mods = libaddrres_arena_alloc(&p->ks->arena, an->nr_mods * sizeof(*mods),
				      _Alignof(const char *));
	key = libaddrres_arena_strndup(&p->keys, an->mods, an->mods_len);
	if (!mods || !key)
		return NULL;
	for (size_t i = 0; i < an->nr_mods; i++) {
		const char *name = s + 1;
		const char *close = memchr(name, ']', end - name);

		mods[i] = libaddrres_intern(&p->strings, &p->ks->arena, name, close - name);
		if (!mods[i])
			return NULL;
		s = close + 2;	/* past "] " */
	}
	if (libaddrres_strmap_add(&p->lists, key, an->mods_len, mods))
		return NULL;
	return mods;
}

static int add_symbol(struct parser *p, uint64_t addr, const uint64_t *size, char type,
		      const char *name, size_t name_len, const struct annotation *an)
{
	struct addrres_ksyms *ks = p->ks;
	struct addrres_ksym *sym;

	if (ks->nr == MAX_SYMS)
		return libaddrres_err(p->eb, -EOVERFLOW, "%s:%zu: more than %lu symbols",
				      p->path, p->lineno, (unsigned long)MAX_SYMS);
	if (ks->nr == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 4096;
		struct addrres_ksym *syms;

		if (cap > MAX_SYMS)
			cap = MAX_SYMS;
		if (cap > SIZE_MAX / sizeof(*syms))
			return out_of_memory(p);
		syms = realloc(ks->syms, cap * sizeof(*syms));
		if (!syms)
			return out_of_memory(p);
		ks->syms = syms;
		p->cap = cap;
	}
	sym = &ks->syms[ks->nr];
	memset(sym, 0, sizeof(*sym));
	sym->addr = addr;
	if (size)
		sym->size = *size;
	sym->type = type;
	sym->name = libaddrres_arena_strndup(&ks->arena, name, name_len);
	if (!sym->name)
		return out_of_memory(p);
	if (an->nr_mods) {
		sym->modules = intern_modules(p, an);
		if (!sym->modules)
			return out_of_memory(p);
		sym->nr_modules = an->nr_mods;
	}
	if (an->obj) {
		sym->object = libaddrres_intern(&p->strings, &ks->arena, an->obj, an->obj_len);
		if (!sym->object)
			return out_of_memory(p);
	}
	ks->nr++;
	return 0;
}

static int parse_line(struct parser *p, const char *line, size_t len)
{
	struct annotation an = { 0 };
	const char *s = line, *end, *name;
	uint64_t addr = 0, size = 0;
	size_t digits = 0;
	bool sized = p->ks->source == ADDRRES_KSYMS_SOURCE_KALLMODSYMS;
	char type, cb[8];
	int err;

	if (len && line[len - 1] == '\n')
		len--;
	end = line + len;
	if (memchr(line, '\0', len))
		return parse_error(p, "NUL byte in the line");
	if (!len)
		return parse_error(p, "empty line");

	for (; s < end && hexval(*s) >= 0; s++) {
		if (++digits > 16)
			return parse_error(p, "address of more than 16 hex digits");
		addr = addr << 4 | (uint64_t)hexval(*s);
	}
	if (!digits)
		return parse_error(p, "expected a hex address, found %s", show_char(*s, cb));
	if (s == end)
		return parse_error(p, "missing symbol type after the address");
	if (*s != ' ')
		return parse_error(p, "expected a space after the address, found %s",
				   show_char(*s, cb));
	if (++s == end)
		return parse_error(p, "missing %s after the address", sized ? "size" : "symbol type");
	/* kallmodsyms has the symbol's size (hex) between address and type. */
	if (sized) {
		for (digits = 0; s < end && hexval(*s) >= 0; s++) {
			if (++digits > 16)
				return parse_error(p, "size of more than 16 hex digits");
			size = size << 4 | (uint64_t)hexval(*s);
		}
		if (!digits)
			return parse_error(p, "expected a hex size after the address, found %s",
					   show_char(*s, cb));
		if (s == end || (*s == ' ' && s + 1 == end))
			return parse_error(p, "missing symbol type after the size");
		if (*s != ' ')
			return parse_error(p, "expected a space after the size, found %s",
					   show_char(*s, cb));
		s++;
	}
	/*
	 * A letter, or '?': the kernel's type of a loaded module's symbol in
	 * a section it cannot classify (as nm(1) shows such a symbol).
	 */
	if (!is_letter(*s) && *s != '?')
		return parse_error(p, "expected a symbol type (a letter, or '?'), found %s",
				   show_char(*s, cb));
	type = *s++;
	if (s == end || (*s == ' ' && s + 1 == end))
		return parse_error(p, "missing symbol name after the type");
	if (*s != ' ')
		return parse_error(p, "expected a space after the symbol type, found %s",
				   show_char(*s, cb));
	name = ++s;
	for (; s < end && *s != '\t'; s++) {
		if (*s == ' ')
			return parse_error(p, "space in the symbol name (an annotation follows a tab)");
		if (is_control(*s))
			return parse_error(p, "control character %s in the symbol name",
					   show_char(*s, cb));
	}
	if (s == name)
		return parse_error(p, "missing symbol name after the type");
	/*
	 * What addrres_ksym__format() writes must be a query that finds the
	 * symbol: a query's name cannot start with these (see parse_query()).
	 */
	if (*name == '[' || *name == '{' || *name == '=')
		return parse_error(p, "symbol name starting with %s", show_char(*name, cb));
	if (s < end) {
		err = parse_annotation(p, s + 1, end, &an);
		if (err)
			return err;
		if (p->ks->source == ADDRRES_KSYMS_SOURCE_KALLSYMS && (an.nr_mods != 1 || an.obj))
			return parse_error(p, "a kallsyms annotation is a single \"[module]\"");
	}
	return add_symbol(p, addr, sized ? &size : NULL, type, name, s - name, &an);
}

static int parse_file(struct parser *p, FILE *f)
{
	char *line = NULL, ebuf[128];
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	for (;;) {
		errno = 0;
		n = getline(&line, &cap, f);
		if (n < 0) {
			if (!feof(f)) {
				err = errno ? -errno : -EIO;
				libaddrres_err(p->eb, err, "%s:%zu: %s", p->path, p->lineno + 1,
					       libaddrres_strerror(err, ebuf, sizeof(ebuf)));
			}
			break;
		}
		p->lineno++;
		err = parse_line(p, line, n);
		if (err)
			break;
	}
	free(line);
	return err;
}

static void parser_free(struct parser *p)
{
	libaddrres_strmap_free(&p->strings);
	libaddrres_strmap_free(&p->lists);
	libaddrres_arena_free(&p->keys);
}

/*
 * Add the names of the loaded modules of @path (/proc/modules: the first
 * field of each line) to @loaded, their strings in @names.  A file that
 * does not exist lists none.
 */
static int read_modules(const char *path, struct libaddrres_strmap *loaded,
			struct libaddrres_arena *names, struct libaddrres_errbuf *eb)
{
	char *line = NULL, ebuf[128];
	size_t cap = 0, lineno = 0;
	ssize_t n;
	int err = 0;
	FILE *f;

	f = libaddrres_fopen_regular(path);
	if (!f) {
		if (errno == ENOENT)
			return 0;
		err = -errno;
		return libaddrres_err(eb, err, "%s: %s", path,
				      libaddrres_open_strerror(err, ebuf, sizeof(ebuf)));
	}
	for (;;) {
		size_t len;

		errno = 0;
		n = getline(&line, &cap, f);
		if (n < 0) {
			if (!feof(f)) {
				err = errno ? -errno : -EIO;
				libaddrres_err(eb, err, "%s:%zu: %s", path, lineno + 1,
					       libaddrres_strerror(err, ebuf, sizeof(ebuf)));
			}
			break;
		}
		lineno++;
		len = strcspn(line, " \t\n");
		if (!len) {
			err = libaddrres_err(eb, -EINVAL, "%s:%zu: expected a module name at the start of the line",
					     path, lineno);
			break;
		}
		if (!libaddrres_intern(loaded, names, line, len)) {
			err = libaddrres_err(eb, -ENOMEM, "%s:%zu: out of memory", path, lineno);
			break;
		}
	}
	free(line);
	fclose(f);
	return err;
}

static bool is_pseudo_module(const char *module)
{
	return !strcmp(module, "bpf") || !strncmp(module, "__builtin__", strlen("__builtin__"));
}

static int cmp_addr_ent(const void *a, const void *b)
{
	const struct addr_ent *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Tell loaded modules from built-in ones, and build the two indexes. */
static int index_symbols(struct addrres_ksyms *ks, const struct libaddrres_strmap *loaded)
{
	struct libaddrres_strmap regions = { 0 };
	size_t nr_regions = REGION_FIRST_MODULE, nb = 16;
	bool all_zero = true;
	int err = -ENOMEM;

	for (size_t i = 0; i < ks->nr; i++) {
		struct addrres_ksym *sym = &ks->syms[i];

		if (sym->nr_modules == 1 && !sym->object) {
			const char *m = sym->modules[0];

			sym->loaded_module = ks->source == ADDRRES_KSYMS_SOURCE_KALLSYMS ||
					     is_pseudo_module(m) ||
					     libaddrres_strmap_find(loaded, m, strlen(m));
		}
		if (sym->addr)
			all_zero = false;
	}
	ks->restricted = ks->nr && all_zero;
	if (!ks->nr)
		return 0;
	/* Give back what the doubling left unused; failing to is harmless. */
	if (ks->nr < SIZE_MAX / sizeof(*ks->syms)) {
		struct addrres_ksym *syms = realloc(ks->syms, ks->nr * sizeof(*ks->syms));

		if (syms)
			ks->syms = syms;
	}

	/* Names: chains in file order, so lookups list matches in that order. */
	while (nb < ks->nr && nb <= SIZE_MAX / 2 / sizeof(*ks->buckets))
		nb *= 2;
	ks->bucket_mask = nb - 1;
	ks->buckets = malloc(nb * sizeof(*ks->buckets));
	ks->next = malloc(ks->nr * sizeof(*ks->next));
	if (!ks->buckets || !ks->next)
		return -ENOMEM;
	memset(ks->buckets, 0xff, nb * sizeof(*ks->buckets));
	for (size_t i = ks->nr; i-- > 0;) {
		const char *name = ks->syms[i].name;
		size_t b = libaddrres_hash(name, strlen(name)) & ks->bucket_mask;

		ks->next[i] = ks->buckets[b];
		ks->buckets[b] = (uint32_t)i;
	}

	if (ks->restricted)
		return 0;

	/* Addresses. */
	ks->by_addr = malloc(ks->nr * sizeof(*ks->by_addr));
	if (!ks->by_addr)
		goto out;
	for (size_t i = 0; i < ks->nr; i++) {
		const struct addrres_ksym *sym = &ks->syms[i];
		struct addr_ent *e = &ks->by_addr[i];

		e->addr = sym->addr;
		e->idx = (uint32_t)i;
		if (sym->loaded_module) {
			const char *m = sym->modules[0];
			struct libaddrres_strmap_ent *r = libaddrres_strmap_find(&regions, m, strlen(m));

			if (r) {
				e->region = (uint32_t)(uintptr_t)r->val;
			} else {
				e->region = (uint32_t)nr_regions++;
				if (libaddrres_strmap_add(&regions, m, strlen(m),
							  (void *)(uintptr_t)e->region))
					goto out;
			}
		} else if (sym->type == 'A' || sym->type == 'a') {
			e->region = REGION_ABSOLUTE;
		} else {
			e->region = REGION_IMAGE;
		}
	}
	ks->region_last = calloc(nr_regions, sizeof(*ks->region_last));
	if (!ks->region_last)
		goto out;
	for (size_t i = 0; i < ks->nr; i++) {
		const struct addr_ent *e = &ks->by_addr[i];

		if (e->addr > ks->region_last[e->region])
			ks->region_last[e->region] = e->addr;
	}
	qsort(ks->by_addr, ks->nr, sizeof(*ks->by_addr), cmp_addr_ent);
	err = 0;
out:
	libaddrres_strmap_free(&regions);
	return err;
}

int addrres_ksyms__open(const struct addrres_ksyms_opts *opts, struct addrres_ksyms **ksp)
{
	struct libaddrres_errbuf eb = { 0 };
	const char *kallmodsyms, *kallsyms, *modules, *path;
	struct libaddrres_strmap loaded = { 0 };
	struct libaddrres_arena loaded_names = { 0 };
	enum addrres_ksyms_source source, wanted;
	struct addrres_ksyms *ks;
	struct parser p = { 0 };
	char ebuf[128];
	FILE *f;
	int err;

	if (ksp)
		*ksp = NULL;
	err = LIBADDRRES_OPTS_START(opts, &eb, "addrres_ksyms_opts");
	if (err)
		return err;
	if (!ksp)
		return libaddrres_err(&eb, -EINVAL, "addrres_ksyms__open: ksp is NULL");
	kallmodsyms = LIBADDRRES_OPTS_GET(opts, kallmodsyms_path, NULL);
	kallsyms = LIBADDRRES_OPTS_GET(opts, kallsyms_path, NULL);
	modules = LIBADDRRES_OPTS_GET(opts, modules_path, NULL);
	wanted = LIBADDRRES_OPTS_GET(opts, source, 0);
	if (wanted && wanted != ADDRRES_KSYMS_SOURCE_KALLMODSYMS &&
	    wanted != ADDRRES_KSYMS_SOURCE_KALLSYMS)
		return libaddrres_err(&eb, -EINVAL, "addrres_ksyms_opts: unknown source %d",
				      (int)wanted);
	if (!kallmodsyms)
		kallmodsyms = "/proc/kallmodsyms";
	if (!kallsyms)
		kallsyms = "/proc/kallsyms";
	if (!modules)
		modules = "/proc/modules";

	source = wanted ? wanted : ADDRRES_KSYMS_SOURCE_KALLMODSYMS;
	path = source == ADDRRES_KSYMS_SOURCE_KALLMODSYMS ? kallmodsyms : kallsyms;
	f = libaddrres_fopen_regular(path);
	if (!f && errno == ENOENT && !wanted) {
		path = kallsyms;
		source = ADDRRES_KSYMS_SOURCE_KALLSYMS;
		f = libaddrres_fopen_regular(path);
	}
	if (!f) {
		err = -errno;
		if (err == -ENOENT && !wanted)
			return libaddrres_err(&eb, err, "%s: %s (and so is %s)", kallmodsyms,
					      libaddrres_strerror(err, ebuf, sizeof(ebuf)), kallsyms);
		return libaddrres_err(&eb, err, "%s: %s", path,
				      libaddrres_open_strerror(err, ebuf, sizeof(ebuf)));
	}
	ks = calloc(1, sizeof(*ks));
	if (!ks) {
		fclose(f);
		return libaddrres_err(&eb, -ENOMEM, "%s: out of memory", path);
	}
	ks->source = source;

	/*
	 * The loaded modules before and after the symbols: a module loaded
	 * or unloaded meanwhile is in one of the two lists.
	 */
	err = 0;
	if (source == ADDRRES_KSYMS_SOURCE_KALLMODSYMS)
		err = read_modules(modules, &loaded, &loaded_names, &eb);
	if (!err) {
		p.ks = ks;
		p.eb = &eb;
		p.path = path;
		err = parse_file(&p, f);
	}
	if (!err && source == ADDRRES_KSYMS_SOURCE_KALLMODSYMS)
		err = read_modules(modules, &loaded, &loaded_names, &eb);
	if (!err) {
		err = index_symbols(ks, &loaded);
		if (err)
			libaddrres_err(&eb, err, "%s: out of memory", path);
	}
	fclose(f);
	parser_free(&p);
	libaddrres_strmap_free(&loaded);
	libaddrres_arena_free(&loaded_names);
	if (err) {
		addrres_ksyms__free(ks);
		return err;
	}
	*ksp = ks;
	return 0;
}

void addrres_ksyms__free(struct addrres_ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->by_addr);
	free(ks->region_last);
	free(ks->buckets);
	free(ks->next);
	libaddrres_arena_free(&ks->arena);
	free(ks);
}

enum addrres_ksyms_source addrres_ksyms__source(const struct addrres_ksyms *ks)
{
	return ks ? ks->source : 0;
}

bool addrres_ksyms__restricted(const struct addrres_ksyms *ks)
{
	return ks && ks->restricted;
}

size_t addrres_ksyms__count(const struct addrres_ksyms *ks)
{
	return ks ? ks->nr : 0;
}

const struct addrres_ksym *addrres_ksyms__sym(const struct addrres_ksyms *ks, size_t idx)
{
	return ks && idx < ks->nr ? &ks->syms[idx] : NULL;
}

int addrres_ksyms__find_addr(const struct addrres_ksyms *ks, uint64_t addr,
			     const struct addrres_ksym **symp, uint64_t *offset)
{
	const struct addr_ent *ents, *e;
	size_t lo = 0, hi;
	uint64_t start;

	if (symp)
		*symp = NULL;
	if (!ks || !symp)
		return -EINVAL;
	if (ks->restricted)
		return -EACCES;
	ents = ks->by_addr;
	/* lo: the first entry above addr */
	hi = ks->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ents[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -ENOENT;
	/* lo: the first entry at the address of the one before */
	start = ents[lo - 1].addr;
	hi = lo - 1;
	lo = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ents[mid].addr < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	e = &ents[lo];
	/* Past the last symbol of its region: nothing says what is there. */
	if (addr != e->addr && e->addr >= ks->region_last[e->region])
		return -ENOENT;
	*symp = &ks->syms[e->idx];
	if (offset)
		*offset = addr - e->addr;
	return 0;
}

/* ---- name lookup ---- */

struct query {
	const char *name;
	size_t name_len;
	const char *quals;	/* the qualifiers: the rest of the query */
	bool exact;
};

static bool is_query_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/*
 * The qualifier at *@sp: 1, with its kind ('[' or '{') and text, and *@sp
 * moved past it; 0 at the end of the query; -EINVAL if malformed.
 */
static int next_qualifier(const char **sp, char *kind, const char **text, size_t *len)
{
	const char *s = *sp, *t;
	char close;

	while (is_query_space(*s))
		s++;
	if (!*s) {
		*sp = s;
		return 0;
	}
	if (*s != '[' && *s != '{')
		return -EINVAL;
	close = *s == '[' ? ']' : '}';
	for (t = s + 1; *t && *t != close; t++) {
		if (is_query_space(*t) || *t == '[' || *t == ']' || *t == '{' || *t == '}')
			return -EINVAL;
	}
	if (*t != close || t == s + 1 || (t[1] && !is_query_space(t[1])))
		return -EINVAL;
	*kind = *s;
	*text = s + 1;
	*len = t - (s + 1);
	*sp = t + 1;
	return 1;
}

static int parse_query(const char *query, struct query *q)
{
	const char *s = query, *text;
	int objects = 0, r;
	size_t len;
	char kind;

	while (is_query_space(*s))
		s++;
	q->exact = *s == '=';
	if (q->exact)
		s++;
	q->name = s;
	while (*s && !is_query_space(*s))
		s++;
	q->name_len = s - q->name;
	if (!q->name_len || *q->name == '[' || *q->name == '{')
		return -EINVAL;
	q->quals = s;
	while ((r = next_qualifier(&s, &kind, &text, &len)) > 0) {
		if (kind == '{' && ++objects > 1)
			return -EINVAL;
	}
	return r;
}

/* Module names compare with '-' and '_' as the same character. */
static bool module_eq(const char *a, size_t alen, const char *b)
{
	size_t i;

	for (i = 0; i < alen; i++) {
		char x = a[i] == '-' ? '_' : a[i];
		char y = b[i] == '-' ? '_' : b[i];

		if (!b[i] || x != y)
			return false;
	}
	return !b[i];
}

static bool sym_has_module(const struct addrres_ksym *sym, const char *m, size_t len)
{
	for (size_t i = 0; i < sym->nr_modules; i++) {
		if (module_eq(m, len, sym->modules[i]))
			return true;
	}
	return false;
}

static bool query_has_module(const struct query *q, const char *module)
{
	const char *s = q->quals, *text;
	size_t len;
	char kind;

	while (next_qualifier(&s, &kind, &text, &len) > 0) {
		if (kind == '[' && module_eq(text, len, module))
			return true;
	}
	return false;
}

/* @obj is @path, or (unless @exact) ends in "/" @path. */
static bool object_matches(const char *obj, const char *path, size_t len, bool exact)
{
	size_t n = strlen(obj);

	if (n == len && !memcmp(obj, path, len))
		return true;
	return !exact && n > len && obj[n - len - 1] == '/' && !memcmp(obj + n - len, path, len);
}

static bool sym_matches(const struct addrres_ksym *sym, const struct query *q)
{
	const char *s = q->quals, *text;
	bool has_object = false;
	size_t len;
	char kind;

	while (next_qualifier(&s, &kind, &text, &len) > 0) {
		if (kind == '[') {
			if (!sym_has_module(sym, text, len))
				return false;
		} else {
			has_object = true;
			if (!sym->object || !object_matches(sym->object, text, len, q->exact))
				return false;
		}
	}
	if (!q->exact)
		return true;
	if (!has_object && sym->object)
		return false;
	for (size_t i = 0; i < sym->nr_modules; i++) {
		if (!query_has_module(q, sym->modules[i]))
			return false;
	}
	return true;
}

int addrres_ksyms__find_name(const struct addrres_ksyms *ks, const char *query,
			     const struct addrres_ksym **syms, size_t max, size_t *count)
{
	struct query q;
	size_t found = 0;
	uint32_t i;

	if (count)
		*count = 0;
	if (!ks || !query || (!syms && max) || parse_query(query, &q))
		return -EINVAL;
	if (ks->restricted)
		return -EACCES;
	if (!ks->nr)
		return -ENOENT;
	i = ks->buckets[libaddrres_hash(q.name, q.name_len) & ks->bucket_mask];
	for (; i != NO_SYM; i = ks->next[i]) {
		const struct addrres_ksym *sym = &ks->syms[i];

		if (strncmp(sym->name, q.name, q.name_len) || sym->name[q.name_len] ||
		    !sym_matches(sym, &q))
			continue;
		if (found < max)
			syms[found] = sym;
		found++;
	}
	if (count)
		*count = found;
	if (!found)
		return -ENOENT;
	return found == 1 ? 0 : -ENOTUNIQ;
}

/* ---- formatting ---- */

struct out {
	char *buf;
	size_t size;
	size_t len;	/* of the whole text, written or not */
};

static void out_str(struct out *o, const char *s)
{
	size_t n = strlen(s);

	if (o->len < SIZE_MAX - n && o->size && o->len < o->size - 1) {
		size_t room = o->size - 1 - o->len;

		memcpy(o->buf + o->len, s, n < room ? n : room);
	}
	o->len = o->len < SIZE_MAX - n ? o->len + n : SIZE_MAX;
}

int addrres_ksym__format(const struct addrres_ksym *sym, char *buf, size_t size)
{
	struct out o = { .buf = buf, .size = size };

	if (!sym || !sym->name || (!buf && size))
		return -EINVAL;
	out_str(&o, sym->name);
	for (size_t i = 0; i < sym->nr_modules; i++) {
		out_str(&o, " [");
		out_str(&o, sym->modules[i]);
		out_str(&o, "]");
	}
	if (sym->object) {
		out_str(&o, " {");
		out_str(&o, sym->object);
		out_str(&o, "}");
	}
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return o.len > INT_MAX ? -EOVERFLOW : (int)o.len;
}
