// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: addrres_ksyms__open() on kallmodsyms/kallsyms text and
 * a modules list, then every lookup on what it parsed, each checked
 * against a reference written from addrres.h (not from ksyms.c).
 *
 * The input:
 *
 *   4 header bytes   [0] flags (F_*), [1] a small size (the cut errbuf and
 *                    format buffer), [2..3] an address delta (little
 *                    endian) for the find_addr probes
 *   symbols file     up to a line "@@" or the end
 *   modules file     then up to the next line "@@" or the end
 *   queries          then one addrres_ksyms__find_name() query a line
 *
 * The checks, for every input:
 *  - open succeeds exactly when every line follows the grammar (and the
 *    modules file has a name on each line); otherwise -EINVAL with
 *    "path:LINE: ..." naming the first bad line of the file read first;
 *  - each symbol is its line: address, type, name, modules, object,
 *    and addrres_ksym__format() gives the line from the name on, the
 *    tab a space; loaded_module as the modules file and pseudo-modules say;
 *  - find_addr of addresses around sampled symbols gives what a linear
 *    scan of the symbols does (greatest address <= addr, first in file
 *    order, not past the last symbol of its region), -EACCES if restricted;
 *  - find_name of the input's queries and of each sampled symbol's
 *    format (plain and with '=') gives what a scan with the documented
 *    matching rules does, and the symbol is among the matches;
 *  - no file is left open, the set freed or never made.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>

#include <addrres/addrres.h>
#include "fuzz.h"

#define HEADER 4
#define MAX_PROBED 64		/* symbols sampled for lookups */
#define MAX_QUERIES 16
#define MAX_RESULTS 8
#define MAX_QUALS 64

enum {
	F_KALLSYMS = 1,		/* no kallmodsyms file: the symbols are kallsyms */
	F_NO_MODULES = 2,	/* no modules file (ENOENT) */
	F_SHORT_ERRBUF = 4,	/* open again with a small errbuf */
	F_SHORT_FORMAT = 8,	/* format into a small buffer too */
	F_SOURCE = 16,		/* ask for the source: the other file exists */
};

static struct memfile syms_file, mods_file;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfile_init(&syms_file, "fuzz-ksyms");
	memfile_init(&mods_file, "fuzz-modules");
	return 0;
}

/* ---- the reference parser: addrres.h's grammar of a line ---- */

struct ref_sym {
	uint64_t addr;
	uint64_t size;		/* kallmodsyms only */
	char type;
	const char *name;
	size_t name_len;
	const char *rest;	/* from the name to the end of the line */
	size_t rest_len;
	size_t nr_mods;
	const char *mod0;	/* the first module */
	size_t mod0_len;
	const char *obj;	/* NULL if none */
	size_t obj_len;
};

static int hexdigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool letter(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* What ends a module name or object path. */
static bool ann_stop(char c)
{
	return c == ' ' || c == '\t' || c == '[' || c == ']' || c == '{' || c == '}';
}

/* "[x]" or "{x}" at @s, x not empty: the closing character, or NULL. */
static const char *bracketed(const char *s, const char *end, char open, char close)
{
	const char *c;

	if (s >= end || *s != open)
		return NULL;
	for (c = s + 1; c < end && !ann_stop(*c); c++)
		;
	return c < end && *c == close && c > s + 1 ? c : NULL;
}

/*
 * ADDRESS " " [ SIZE " " ] TYPE " " NAME [ "\t" annotation ], SIZE in
 * kallmodsyms only: ADDRESS and SIZE 1-16 hex digits, a
 * letter or '?', a name of no space or control character, not starting with
 * '[', '{' or '=' (it would not be a query); the annotation
 * "[m]" *(" [m]") [" {o}"] or "{o}", in kallsyms a single "[m]".  A NUL
 * anywhere is an error.
 */
static bool ref_line(const char *s, size_t len, bool kallsyms, struct ref_sym *r)
{
	const char *end = s + len, *p = s, *c;
	size_t digits = 0;

	memset(r, 0, sizeof(*r));
	if (memchr(s, '\0', len))
		return false;
	for (; p < end && hexdigit(*p) >= 0; p++) {
		if (++digits > 16)
			return false;
		r->addr = r->addr << 4 | (uint64_t)hexdigit(*p);
	}
	if (!digits)
		return false;
	if (!kallsyms) {
		if (p == end || *p++ != ' ')
			return false;
		for (digits = 0; p < end && hexdigit(*p) >= 0; p++) {
			if (++digits > 16)
				return false;
			r->size = r->size << 4 | (uint64_t)hexdigit(*p);
		}
	}
	if (!digits || end - p < 4 || p[0] != ' ' || !(letter(p[1]) || p[1] == '?') || p[2] != ' ')
		return false;
	r->type = p[1];
	r->name = p + 3;
	for (p += 3; p < end && *p != '\t'; p++) {
		if (*p == ' ' || (unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	}
	r->name_len = (size_t)(p - r->name);
	r->rest = r->name;
	r->rest_len = (size_t)(end - r->name);
	if (!r->name_len || r->name[0] == '[' || r->name[0] == '{' || r->name[0] == '=')
		return false;
	if (p == end)
		return true;
	p++;			/* the tab */
	while ((c = bracketed(p, end, '[', ']'))) {
		if (!r->nr_mods++) {
			r->mod0 = p + 1;
			r->mod0_len = (size_t)(c - (p + 1));
		}
		p = c + 1;
		if (p == end)
			goto done;
		if (*p != ' ' || p + 1 == end)
			return false;
		p++;
	}
	c = bracketed(p, end, '{', '}');
	if (!c || c + 1 != end)
		return false;
	r->obj = p + 1;
	r->obj_len = (size_t)(c - (p + 1));
done:
	return !kallsyms || (r->nr_mods == 1 && !r->obj);
}

/* The first bad line of the symbols file (0: none), and the line count. */
static size_t ref_first_bad(const char *s, size_t len, bool kallsyms, size_t *lines)
{
	const char *p = s, *end = s + len, *line;
	size_t n, lineno = 0;
	struct ref_sym r;

	while (next_line(&p, end, &line, &n)) {
		lineno++;
		if (!ref_line(line, n, kallsyms, &r))
			return lineno;
	}
	*lines = lineno;
	return 0;
}

/* A modules file: each line starts with a name (up to a space, tab or NUL). */
static size_t mod_name_len(const char *line, size_t n)
{
	size_t i = 0;

	while (i < n && line[i] != ' ' && line[i] != '\t' && line[i] != '\0')
		i++;
	return i;
}

static size_t ref_modules_first_bad(const char *s, size_t len)
{
	const char *p = s, *end = s + len, *line;
	size_t n, lineno = 0;

	while (next_line(&p, end, &line, &n)) {
		lineno++;
		if (!mod_name_len(line, n))
			return lineno;
	}
	return 0;
}

static bool ref_module_loaded(const char *mods, size_t mods_len, const char *m)
{
	const char *p = mods, *end = mods + mods_len, *line;
	size_t n;

	while (next_line(&p, end, &line, &n)) {
		size_t k = mod_name_len(line, n);

		if (k == strlen(m) && !memcmp(line, m, k))
			return true;
	}
	return false;
}

/* ---- the reference lookups ---- */

static bool same_region(const struct addrres_ksym *a, const struct addrres_ksym *b)
{
	if (a->loaded_module != b->loaded_module)
		return false;
	if (a->loaded_module)
		return !strcmp(a->modules[0], b->modules[0]);
	return (a->type == 'A' || a->type == 'a') == (b->type == 'A' || b->type == 'a');
}

/* addrres_ksyms__find_addr() as addrres.h describes it, by a linear scan. */
static int ref_find_addr(const struct addrres_ksyms *ks, uint64_t addr, size_t *idx)
{
	size_t n = addrres_ksyms__count(ks), best = SIZE_MAX;
	const struct addrres_ksym *b;
	uint64_t last = 0;

	for (size_t i = 0; i < n; i++) {
		const struct addrres_ksym *s = addrres_ksyms__sym(ks, i);

		if (s->addr <= addr && (best == SIZE_MAX || s->addr > addrres_ksyms__sym(ks, best)->addr))
			best = i;
	}
	if (best == SIZE_MAX)
		return -ENOENT;
	b = addrres_ksyms__sym(ks, best);
	for (size_t i = 0; i < n; i++) {
		const struct addrres_ksym *s = addrres_ksyms__sym(ks, i);

		if (same_region(s, b) && s->addr > last)
			last = s->addr;
	}
	if (addr != b->addr && b->addr >= last)
		return -ENOENT;
	*idx = best;
	return 0;
}

struct ref_query {
	bool exact;
	const char *name;
	size_t name_len;
	size_t nq;
	struct {
		char kind;
		const char *text;
		size_t len;
	} q[MAX_QUALS];
};

static bool qspace(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/*
 * [spaces] ["="] NAME { spaces ("[mod]" | "{obj}") } [spaces]: NAME not
 * empty nor starting with a bracket or brace, at most one {obj}, each
 * qualifier not empty and of no space, bracket or brace.  0, -EINVAL, or
 * 1 if it has more qualifiers than this reference keeps.
 */
static int ref_parse_query(const char *s, struct ref_query *q)
{
	int objects = 0;

	memset(q, 0, sizeof(*q));
	while (qspace(*s))
		s++;
	q->exact = *s == '=';
	if (q->exact)
		s++;
	q->name = s;
	while (*s && !qspace(*s))
		s++;
	q->name_len = (size_t)(s - q->name);
	if (!q->name_len || q->name[0] == '[' || q->name[0] == '{')
		return -EINVAL;
	for (;;) {
		const char *t;
		char close;

		while (qspace(*s))
			s++;
		if (!*s)
			return 0;
		if (*s != '[' && *s != '{')
			return -EINVAL;
		close = *s == '[' ? ']' : '}';
		for (t = s + 1; *t && !qspace(*t) && *t != '[' && *t != ']' && *t != '{' && *t != '}'; t++)
			;
		if (*t != close || t == s + 1 || (t[1] && !qspace(t[1])))
			return -EINVAL;
		if (close == '}' && ++objects > 1)
			return -EINVAL;
		if (q->nq == MAX_QUALS)
			return 1;
		q->q[q->nq].kind = *s;
		q->q[q->nq].text = s + 1;
		q->q[q->nq].len = (size_t)(t - (s + 1));
		q->nq++;
		s = t + 1;
	}
}

/* Module names: '-' and '_' are the same character. */
static bool ref_module_eq(const char *a, size_t alen, const char *b)
{
	if (strlen(b) != alen)
		return false;
	for (size_t i = 0; i < alen; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];

		if (x != y)
			return false;
	}
	return true;
}

static bool ref_matches(const struct addrres_ksym *sym, const struct ref_query *q)
{
	bool has_obj = false;

	if (strlen(sym->name) != q->name_len || memcmp(sym->name, q->name, q->name_len))
		return false;
	for (size_t i = 0; i < q->nq; i++) {
		const char *t = q->q[i].text;
		size_t len = q->q[i].len;

		if (q->q[i].kind == '[') {
			bool found = false;

			for (size_t m = 0; m < sym->nr_modules && !found; m++)
				found = ref_module_eq(t, len, sym->modules[m]);
			if (!found)
				return false;
		} else {
			size_t n;

			has_obj = true;
			if (!sym->object)
				return false;
			n = strlen(sym->object);
			if (!(n == len && !memcmp(sym->object, t, len)) &&
			    (q->exact || n <= len || sym->object[n - len - 1] != '/' ||
			     memcmp(sym->object + n - len, t, len)))
				return false;
		}
	}
	if (!q->exact)
		return true;
	if (sym->object && !has_obj)
		return false;
	for (size_t m = 0; m < sym->nr_modules; m++) {
		bool found = false;

		for (size_t i = 0; i < q->nq && !found; i++)
			found = q->q[i].kind == '[' &&
				ref_module_eq(q->q[i].text, q->q[i].len, sym->modules[m]);
		if (!found)
			return false;
	}
	return true;
}

/*
 * find_name(@query) against the reference; if @must is not NULL, it must
 * be among the matches (the query is made from it).
 */
static void check_find_name(const struct addrres_ksyms *ks, const char *query,
			    const struct addrres_ksym *must)
{
	const struct addrres_ksym *got[MAX_RESULTS] = { 0 };
	size_t n = addrres_ksyms__count(ks), count = 12345, count0 = 12345, want = 0;
	bool found_must = false;
	struct ref_query q;
	int ret, ret0, want_ret, pr;

	ret = addrres_ksyms__find_name(ks, query, got, MAX_RESULTS, &count);
	ret0 = addrres_ksyms__find_name(ks, query, NULL, 0, &count0);
	CHECK(ret == ret0 && count == count0, "query \"%s\": %d/%zu with results, %d/%zu without",
	      query, ret, count, ret0, count0);
	pr = ref_parse_query(query, &q);
	if (pr == 1)
		return;
	if (pr) {
		CHECK(ret == -EINVAL && count == 0, "query \"%s\" is malformed: %d, count %zu",
		      query, ret, count);
		CHECK(!must, "the format of a symbol, \"%s\", is a malformed query", query);
		return;
	}
	if (addrres_ksyms__restricted(ks)) {
		CHECK(ret == -EACCES && count == 0, "query \"%s\" on a restricted set: %d, count %zu",
		      query, ret, count);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct addrres_ksym *s = addrres_ksyms__sym(ks, i);

		if (!ref_matches(s, &q))
			continue;
		if (want < MAX_RESULTS)
			CHECK(got[want] == s, "query \"%s\": match %zu is symbol %zu, not %s",
			      query, want, i, got[want] ? got[want]->name : "(null)");
		want++;
		if (s == must)
			found_must = true;
	}
	want_ret = want == 0 ? -ENOENT : want == 1 ? 0 : -ENOTUNIQ;
	CHECK(ret == want_ret && count == want, "query \"%s\": %d, count %zu; want %d, count %zu",
	      query, ret, count, want_ret, want);
	CHECK(!must || found_must, "query \"%s\", the format of a symbol, does not match it", query);
}

/* ---- the checks of a parsed set ---- */

static void check_format(const struct addrres_ksym *sym, const struct ref_sym *r,
			 uint8_t flags, size_t small, char *buf, size_t bufsz)
{
	int len = addrres_ksym__format(sym, buf, bufsz);

	CHECK(len >= 0 && (size_t)len == r->rest_len && len < (int)bufsz,
	      "format of \"%s\": %d, want %zu", sym->name, len, r->rest_len);
	for (size_t i = 0; i < r->rest_len; i++) {
		char want = r->rest[i] == '\t' ? ' ' : r->rest[i];

		CHECK(buf[i] == want, "format of \"%s\" is \"%s\", not the line", sym->name, buf);
	}
	CHECK(buf[len] == '\0', "format of \"%s\" is not terminated", sym->name);
	CHECK(addrres_ksym__format(sym, NULL, 0) == len, "format(NULL, 0) of \"%s\"", sym->name);
	if (flags & F_SHORT_FORMAT) {
		char cut[32];
		size_t end;

		memset(cut, 'X', sizeof(cut));
		small %= sizeof(cut) - 1;
		CHECK(addrres_ksym__format(sym, cut, small) == len, "format of \"%s\" cut to %zu",
		      sym->name, small);
		if (small) {
			end = (size_t)len < small ? (size_t)len : small - 1;
			CHECK(!memcmp(cut, buf, end) && cut[end] == '\0',
			      "format of \"%s\" cut to %zu is not its start", sym->name, small);
		}
		CHECK(cut[small] == 'X', "format of \"%s\" wrote past %zu bytes", sym->name, small);
	}
}

static void check_find_addr(const struct addrres_ksyms *ks, uint64_t addr)
{
	const struct addrres_ksym *sym = (void *)1;
	uint64_t off = 12345;
	size_t idx = 0;
	int ret = addrres_ksyms__find_addr(ks, addr, &sym, &off), want;

	if (addrres_ksyms__restricted(ks)) {
		CHECK(ret == -EACCES && !sym, "find_addr(0x%llx) on a restricted set: %d",
		      (unsigned long long)addr, ret);
		return;
	}
	want = ref_find_addr(ks, addr, &idx);
	CHECK(ret == want, "find_addr(0x%llx): %d, want %d (symbol %zu)", (unsigned long long)addr,
	      ret, want, idx);
	if (ret) {
		CHECK(!sym, "find_addr(0x%llx) failed but gave a symbol", (unsigned long long)addr);
		return;
	}
	CHECK(sym == addrres_ksyms__sym(ks, idx) && sym->addr <= addr && off == addr - sym->addr,
	      "find_addr(0x%llx): %s at 0x%llx +0x%llx, want symbol %zu", (unsigned long long)addr,
	      sym ? sym->name : "(null)", sym ? (unsigned long long)sym->addr : 0ULL,
	      (unsigned long long)off, idx);
	CHECK(addrres_ksyms__find_addr(ks, addr, &sym, NULL) == 0, "find_addr without offset");
}

static void check_set(const struct addrres_ksyms *ks, const char *syms, size_t syms_len,
		      const char *mods, size_t mods_len, bool mods_read, uint8_t flags,
		      size_t small, uint64_t delta, const char *queries, size_t queries_len)
{
	bool kallsyms = flags & F_KALLSYMS, all_zero = true;
	const char *p = syms, *end = syms + syms_len, *line;
	size_t n = addrres_ksyms__count(ks), len, i = 0, stride, bufsz = syms_len + 2;
	/* A query: "=" and a format, or a line of the queries. */
	char *buf = malloc(bufsz), *query = malloc(bufsz + queries_len + 1);

	CHECK(buf && query, "out of memory");
	CHECK(addrres_ksyms__source(ks) == (kallsyms ? ADDRRES_KSYMS_SOURCE_KALLSYMS :
						       ADDRRES_KSYMS_SOURCE_KALLMODSYMS),
	      "source %d", addrres_ksyms__source(ks));
	CHECK(!addrres_ksyms__sym(ks, n), "a symbol past count()");

	/* Each symbol is its line. */
	while (next_line(&p, end, &line, &len)) {
		const struct addrres_ksym *sym = addrres_ksyms__sym(ks, i);
		struct ref_sym r;
		bool loaded;

		CHECK(i < n, "line %zu but only %zu symbols", i + 1, n);
		CHECK(ref_line(line, len, kallsyms, &r), "line %zu is malformed but was read", i + 1);
		CHECK(sym && sym->name, "symbol %zu is NULL or nameless", i);
		/* r.size is 0 for kallsyms, which gives none */
		CHECK(sym->size == r.size, "symbol %zu: size %llx, want %llx", i,
		      (unsigned long long)sym->size, (unsigned long long)r.size);
		CHECK(sym->addr == r.addr && sym->type == r.type &&
		      strlen(sym->name) == r.name_len && !memcmp(sym->name, r.name, r.name_len),
		      "symbol %zu: 0x%llx %c %s differs from its line", i,
		      (unsigned long long)sym->addr, sym->type, sym->name);
		CHECK(sym->nr_modules == r.nr_mods && !sym->modules == !r.nr_mods,
		      "symbol %zu: %zu modules, want %zu", i, sym->nr_modules, r.nr_mods);
		for (size_t m = 0; m < sym->nr_modules; m++)
			CHECK(sym->modules[m] && sym->modules[m][0], "symbol %zu: module %zu", i, m);
		CHECK(!sym->object == !r.obj &&
		      (!r.obj || (strlen(sym->object) == r.obj_len &&
				  !memcmp(sym->object, r.obj, r.obj_len))),
		      "symbol %zu: object %s", i, sym->object ? sym->object : "(null)");
		loaded = r.nr_mods == 1 && !r.obj &&
			 (kallsyms || !strcmp(sym->modules[0], "bpf") ||
			  !strncmp(sym->modules[0], "__builtin__", strlen("__builtin__")) ||
			  (mods_read && ref_module_loaded(mods, mods_len, sym->modules[0])));
		CHECK(sym->loaded_module == loaded, "symbol %zu (%s): loaded_module %d, want %d",
		      i, sym->name, sym->loaded_module, loaded);
		CHECK(!r.nr_mods || (strlen(sym->modules[0]) == r.mod0_len &&
				     !memcmp(sym->modules[0], r.mod0, r.mod0_len)),
		      "symbol %zu: module %s", i, sym->modules[0]);
		check_format(sym, &r, flags, small, buf, bufsz);
		if (sym->addr)
			all_zero = false;
		i++;
	}
	CHECK(i == n, "%zu lines but %zu symbols", i, n);
	CHECK(addrres_ksyms__restricted(ks) == (n && all_zero), "restricted() is %d",
	      addrres_ksyms__restricted(ks));

	/* Lookups around a sample of the symbols, and at the ends. */
	check_find_addr(ks, 0);
	check_find_addr(ks, UINT64_MAX);
	stride = n > MAX_PROBED ? n / MAX_PROBED : 1;
	for (i = 0; i < n; i += stride) {
		const struct addrres_ksym *sym = addrres_ksyms__sym(ks, i);
		int flen;

		check_find_addr(ks, sym->addr);
		check_find_addr(ks, sym->addr - 1);
		check_find_addr(ks, sym->addr + 1);
		check_find_addr(ks, sym->addr + delta);
		check_find_addr(ks, sym->addr - delta);

		/* The format is a query that matches it, "=" + it too. */
		query[0] = '=';
		flen = addrres_ksym__format(sym, query + 1, bufsz);
		CHECK(flen >= 0 && (size_t)flen < bufsz, "format of symbol %zu", i);
		check_find_name(ks, query + 1, sym);
		check_find_name(ks, query, sym);
		check_find_name(ks, sym->name, NULL);
	}

	/* The input's own queries. */
	p = queries;
	end = queries + queries_len;
	for (int q = 0; q < MAX_QUERIES && next_line(&p, end, &line, &len); q++) {
		memcpy(query, line, len);
		query[len] = '\0';
		check_find_name(ks, query, NULL);
	}
	free(buf);
	free(query);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data + HEADER, *end = (const char *)data + size;
	const char *syms, *mods, *queries;
	size_t syms_len, mods_len, queries_len, bad_mods = 0, bad_syms, lines = 0, small;
	struct addrres_ksyms *ks = (void *)1;
	char errbuf[512];
	uint8_t flags;
	uint64_t delta;
	bool kallsyms, mods_read;
	int ret, fds;

	if (size < HEADER)
		return -1;	/* not worth keeping in the corpus */
	fds = open_fds();
	flags = data[0];
	small = data[1];
	delta = (uint64_t)data[2] | (uint64_t)data[3] << 8;
	kallsyms = flags & F_KALLSYMS;
	next_section(&p, end, &syms, &syms_len);
	next_section(&p, end, &mods, &mods_len);
	queries = p;
	queries_len = (size_t)(end - p);
	memfile_set(&syms_file, syms, syms_len);
	memfile_set(&mods_file, mods, mods_len);

	/* Only kallmodsyms reads the modules file, if there is one. */
	mods_read = !kallsyms && !(flags & F_NO_MODULES);
	ADDRRES_OPTS(addrres_ksyms_opts, opts,
		     .kallmodsyms_path = kallsyms ? NO_SUCH_FILE : syms_file.path,
		     .kallsyms_path = kallsyms ? syms_file.path : NO_SUCH_FILE,
		     .modules_path = flags & F_NO_MODULES ? NO_SUCH_FILE : mods_file.path,
		     .errbuf = errbuf, .errbuf_sz = sizeof(errbuf));
	/*
	 * The source asked for: the file of the other, which exists (the
	 * modules file), must not be read, nor the fallback taken.
	 */
	if (flags & F_SOURCE) {
		opts.source = kallsyms ? ADDRRES_KSYMS_SOURCE_KALLSYMS :
					 ADDRRES_KSYMS_SOURCE_KALLMODSYMS;
		if (kallsyms)
			opts.kallmodsyms_path = mods_file.path;
		else
			opts.kallsyms_path = mods_file.path;
	}
	memset(errbuf, 'X', sizeof(errbuf));
	ret = addrres_ksyms__open(&opts, &ks);

	if (mods_read)
		bad_mods = ref_modules_first_bad(mods, mods_len);
	bad_syms = ref_first_bad(syms, syms_len, kallsyms, &lines);
	if (bad_mods || bad_syms) {
		const char *path = bad_mods ? mods_file.path : syms_file.path;
		size_t lineno = bad_mods ? bad_mods : bad_syms;

		CHECK(ret == -EINVAL && !ks, "%s line %zu is malformed, but open gave %d",
		      bad_mods ? "modules" : "symbols", lineno, ret);
		CHECK(memchr(errbuf, '\0', sizeof(errbuf)), "errbuf not terminated");
		CHECK(names_line(errbuf, path, lineno), "message \"%s\", want \"%s:%zu: ...\"",
		      errbuf, path, lineno);
	} else {
		CHECK(ret == 0 && ks, "open failed (%d: %s) on a well-formed input", ret,
		      memchr(errbuf, '\0', sizeof(errbuf)) ? errbuf : "(unterminated)");
		CHECK(errbuf[0] == '\0', "open succeeded but left the message \"%.100s\"", errbuf);
		CHECK(addrres_ksyms__count(ks) == lines, "%zu symbols of %zu lines",
		      addrres_ksyms__count(ks), lines);
		check_set(ks, syms, syms_len, mods, mods_len, mods_read, flags, small, delta,
			  queries, queries_len);
		addrres_ksyms__free(ks);
	}

	/* The message cut to a small buffer: its start, terminated. */
	if (flags & F_SHORT_ERRBUF) {
		char cut[40];
		size_t sz = small % sizeof(cut), full = strlen(ret ? errbuf : "");
		int ret2;

		memset(cut, 'X', sizeof(cut));
		opts.errbuf = cut;
		opts.errbuf_sz = sz;
		ret2 = addrres_ksyms__open(&opts, &ks);
		CHECK(ret2 == ret, "open again with a small errbuf: %d, then %d", ret, ret2);
		addrres_ksyms__free(ks);
		if (sz) {
			size_t n = full < sz - 1 ? full : sz - 1;

			CHECK(!memcmp(cut, errbuf, n) && cut[n] == '\0',
			      "the message cut to %zu bytes is not its start", sz);
		}
		for (size_t j = sz; j < sizeof(cut); j++)
			CHECK(cut[j] == 'X', "the message cut to %zu bytes wrote byte %zu", sz, j);
	}
	CHECK(open_fds() == fds, "a file left open: %d open, %d before", open_fds(), fds);
	return 0;
}
