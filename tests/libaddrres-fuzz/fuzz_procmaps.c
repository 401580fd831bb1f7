// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: addrres_procmaps__resolve() with METHOD_TEXT (or
 * AUTO, whose ioctl fails on a file that is not /proc/PID/maps) on the
 * text of a maps file, each batch checked against a reference walk
 * written from addrres.h (not from procmaps.c).
 *
 * The input:
 *
 *   8 header bytes   [0] text_read_size (0: the default, 64 KiB; else
 *                    1 to 255 bytes a read(), so lines are cut across
 *                    reads), [1] flags (F_*), [2..7] 24 two-bit
 *                    selectors, one a line (cycling), of the addresses
 *                    asked about around that line's range: none; its
 *                    start; its end - 1 and start - 1; its middle and end
 *                    (and with F_DENSE, 16 across it and 16 after it)
 *   maps text        the rest
 *
 * The checks, for every batch:
 *  - the walk reads the lines in order, each checked up to its range
 *    (start < end, not below the previous end), and in full only where
 *    it holds an address; it stops once the highest address is placed;
 *    a malformed line read fails with -EINVAL, "path:LINE: ...", every
 *    result NULL;
 *  - otherwise each address gets the VMA of its line (start <= addr <
 *    end, the line's offset, device, inode, permissions, and name with
 *    "\012" a newline), or NULL in a gap, past the last line or in
 *    [vsyscall]; addresses of one line share one VMA pointer;
 *  - the stats: TEXT, the lines read, the distinct VMAs, no ioctl (one
 *    under AUTO, the first time);
 *  - the set freed, no file is left open (a maps_fd is the caller's).
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>

#include <addrres/addrres.h>
#include "fuzz.h"

#define HEADER 8

enum {
	F_UNSORTED = 1,		/* the batch as made, reversed; else sorted */
	F_ENDS = 2,		/* also ask about 0 and UINT64_MAX */
	F_SECOND = 4,		/* a second batch, every other address, on the same set */
	F_TWICE = 8,		/* each address twice */
	F_MAPS_FD = 16,		/* give the file as maps_fd, not maps_path */
	F_EMPTY = 32,		/* an empty batch first */
	F_AUTO = 64,		/* METHOD_AUTO: the ioctl fails (ENOTTY), then the text */
	F_DENSE = 128,		/* DENSE addresses across each line picked and after it */
};

#define DENSE 16

/* What a set has seen, for the stats of its next batch. */
struct set_state {
	bool autom;		/* METHOD_AUTO */
	bool unsupported;	/* the ioctl answered ENOTTY */
};

static struct memfile maps_file;
static char errbuf[512];

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	memfile_init(&maps_file, "fuzz-maps");
	return 0;
}

/* ---- the reference parser ---- */

struct ref_line {
	const char *text;
	size_t len;
	bool range_ok;		/* "START-END " in hex, START < END */
	bool rest_ok;		/* and the rest of the line */
	uint64_t start, end, offset, inode, major, minor;
	uint32_t flags;
	const char *name;
	size_t name_len;
};

static int hexdigit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;	/* the kernel prints lower case */
}

/* 1 to @max hex digits, then @stop. */
static bool hex_then(const char **p, const char *end, int max, char stop, uint64_t *v)
{
	const char *s = *p;
	int digits = 0;

	*v = 0;
	for (; s < end && hexdigit(*s) >= 0; s++) {
		if (++digits > max)
			return false;
		*v = *v << 4 | (uint64_t)hexdigit(*s);
	}
	if (!digits || s == end || *s != stop)
		return false;
	*p = s + 1;
	return true;
}

/*
 * "start-end perms offset major:minor inode [spaces name]": hex but the
 * inode (1 to 20 decimal digits, at most UINT64_MAX), perms [r-][w-][x-][sp].
 */
static void ref_parse(struct ref_line *l)
{
	static const char perms[4][3] = { "r-", "w-", "x-", "sp" };
	const char *p = l->text, *end = l->text + l->len;
	int digits = 0;

	if (!hex_then(&p, end, 16, '-', &l->start) || !hex_then(&p, end, 16, ' ', &l->end) ||
	    l->end <= l->start)
		return;
	l->range_ok = true;
	if (end - p < 5 || p[4] != ' ')
		return;
	for (int i = 0; i < 4; i++) {
		if (p[i] == perms[i][0])
			l->flags |= 1u << i;
		else if (p[i] != perms[i][1])
			return;
	}
	p += 5;
	if (!hex_then(&p, end, 16, ' ', &l->offset) || !hex_then(&p, end, 8, ':', &l->major) ||
	    !hex_then(&p, end, 8, ' ', &l->minor))
		return;
	for (; p < end && *p >= '0' && *p <= '9'; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (++digits > 20 || __builtin_mul_overflow(l->inode, 10, &l->inode) ||
		    __builtin_add_overflow(l->inode, d, &l->inode))
			return;
	}
	if (!digits || (p < end && *p != ' '))
		return;
	while (p < end && *p == ' ')
		p++;
	l->name = p;
	l->name_len = (size_t)(end - p);
	if (memchr(l->name, '\0', l->name_len))
		return;
	l->rest_ok = true;
}

/* The name of @l as the library gives it: "\012" a newline. */
static bool name_is(const struct ref_line *l, const char *got)
{
	const char *s = l->name, *end = l->name + l->name_len;

	while (s < end) {
		if (end - s >= 4 && !memcmp(s, "\\012", 4)) {
			if (*got++ != '\n')
				return false;
			s += 4;
		} else if (*got++ != *s++) {
			return false;
		}
	}
	return *got == '\0';
}

static bool is_vsyscall(const struct ref_line *l)
{
	return l->name_len == strlen("[vsyscall]") && !memcmp(l->name, "[vsyscall]", l->name_len);
}

/* ---- the reference walk ---- */

struct addr {
	uint64_t addr;
	size_t pos;	/* in the batch */
};

static int cmp_addr(const void *a, const void *b)
{
	const struct addr *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

#define NONE SIZE_MAX

/*
 * The line of each address (in @want, NONE if unmapped); 0, or -EINVAL
 * with *@bad the line that fails.  *@read: the lines read.
 */
static int ref_walk(const struct ref_line *lines, size_t nr_lines, const uint64_t *addrs,
		    size_t n, size_t *want, size_t *bad, size_t *read)
{
	struct addr *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	size_t next = 0;
	uint64_t prev_end = 0;
	int ret = 0;

	CHECK(sorted, "out of memory");
	for (size_t i = 0; i < n; i++) {
		sorted[i] = (struct addr){ addrs[i], i };
		want[i] = NONE;
	}
	qsort(sorted, n, sizeof(*sorted), cmp_addr);
	*read = 0;
	for (size_t i = 0; i < nr_lines && next < n; i++) {
		const struct ref_line *l = &lines[i];

		(*read)++;
		if (!l->range_ok || l->start < prev_end) {
			*bad = i + 1;
			ret = -EINVAL;
			break;
		}
		prev_end = l->end;
		while (next < n && sorted[next].addr < l->start)
			next++;
		if (next == n || sorted[next].addr >= l->end)
			continue;
		if (!l->rest_ok) {
			*bad = i + 1;
			ret = -EINVAL;
			break;
		}
		for (; next < n && sorted[next].addr < l->end; next++)
			want[sorted[next].pos] = is_vsyscall(l) ? NONE : i;
	}
	free(sorted);
	return ret;
}

/* ---- a batch ---- */

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(const void *const *)a, y = (uintptr_t)*(const void *const *)b;

	return (x > y) - (x < y);
}

static void check_batch(struct addrres_procmaps *pm, struct set_state *ss, const char *path,
			const struct ref_line *lines, size_t nr_lines,
			const uint64_t *addrs, size_t n)
{
	enum addrres_procmaps_method want_method = ADDRRES_PROCMAPS_METHOD_TEXT;
	size_t want_queries = 0;
	const struct addrres_vma **vmas = malloc((n ? n : 1) * sizeof(*vmas));
	const struct addrres_vma **by_line = calloc(nr_lines ? nr_lines : 1, sizeof(*by_line));
	size_t *want = malloc((n ? n : 1) * sizeof(*want)), bad = 0, read = 0, distinct = 0;
	ADDRRES_OPTS(addrres_procmaps_stats, st);
	const char *msg;
	int ret, want_ret;

	CHECK(vmas && by_line && want, "out of memory");
	for (size_t i = 0; i < n; i++)
		vmas[i] = (void *)1;
	ret = addrres_procmaps__resolve(pm, addrs, n, vmas);
	msg = addrres_procmaps__errmsg(pm);
	want_ret = ref_walk(lines, nr_lines, addrs, n, want, &bad, &read);
	CHECK(ret == want_ret, "resolve of %zu addresses: %d, want %d (line %zu)", n, ret,
	      want_ret, bad);
	CHECK(!addrres_procmaps__stats(pm, &st), "stats failed");
	/*
	 * AUTO tries the ioctl once, which a file that is no maps file
	 * answers ENOTTY, then no more.  An empty batch is answered by
	 * neither: IOCTL ("answered every address") or TEXT will do.
	 */
	if (ss->autom && !ss->unsupported && n) {
		want_queries = 1;
		ss->unsupported = true;
	}
	if (ss->autom && !n && st.method == ADDRRES_PROCMAPS_METHOD_IOCTL)
		want_method = ADDRRES_PROCMAPS_METHOD_IOCTL;
	CHECK(st.method == want_method && addrres_procmaps__method(pm) == want_method &&
	      st.ioctl_queries == want_queries && st.ioctl_unsupported == ss->unsupported,
	      "stats: method %d, %zu queries, unsupported %d; want %d, %zu, %d", st.method,
	      st.ioctl_queries, st.ioctl_unsupported, want_method, want_queries, ss->unsupported);
	CHECK(st.text_lines == read, "stats: %zu lines read, want %zu", st.text_lines, read);
	if (ret) {
		CHECK(names_line(msg, path, bad), "message \"%s\", want \"%s:%zu: ...\"",
		      msg, path, bad);
		for (size_t i = 0; i < n; i++)
			CHECK(!vmas[i], "resolve failed but address %zu has a VMA", i);
		goto out;
	}
	CHECK(msg[0] == '\0', "resolve succeeded but left the message \"%.100s\"", msg);
	for (size_t i = 0; i < n; i++) {
		const struct addrres_vma *v = vmas[i];
		const struct ref_line *l;

		if (want[i] == NONE) {
			CHECK(!v, "0x%llx: VMA %llx-%llx, want none", (unsigned long long)addrs[i],
			      v ? (unsigned long long)v->start : 0ULL,
			      v ? (unsigned long long)v->end : 0ULL);
			continue;
		}
		l = &lines[want[i]];
		CHECK(v, "0x%llx: no VMA, want line %zu", (unsigned long long)addrs[i], want[i] + 1);
		CHECK(v->start <= addrs[i] && addrs[i] < v->end, "0x%llx is not in VMA %llx-%llx",
		      (unsigned long long)addrs[i], (unsigned long long)v->start,
		      (unsigned long long)v->end);
		CHECK(v->start == l->start && v->end == l->end && v->offset == l->offset &&
		      v->inode == l->inode && v->dev_major == l->major && v->dev_minor == l->minor &&
		      v->flags == l->flags, "0x%llx: VMA %llx-%llx differs from line %zu",
		      (unsigned long long)addrs[i], (unsigned long long)v->start,
		      (unsigned long long)v->end, want[i] + 1);
		CHECK(v->name && name_is(l, v->name), "0x%llx: name \"%s\" differs from line %zu",
		      (unsigned long long)addrs[i], v->name ? v->name : "(null)", want[i] + 1);
		CHECK(!v->build_id && !v->build_id_size, "0x%llx: a build ID, not asked for",
		      (unsigned long long)addrs[i]);
		if (!by_line[want[i]]) {
			by_line[want[i]] = v;
			distinct++;
		}
		CHECK(by_line[want[i]] == v, "two VMA pointers for line %zu", want[i] + 1);
	}
	/* Different lines, different VMAs. */
	for (size_t i = 0, k = 0; i < nr_lines; i++) {
		if (by_line[i])
			by_line[k++] = by_line[i];
	}
	qsort(by_line, distinct, sizeof(*by_line), cmp_ptr);
	for (size_t i = 1; i < distinct; i++)
		CHECK(by_line[i - 1] != by_line[i], "two lines share a VMA");
	CHECK(st.vmas == distinct, "stats: %zu VMAs, want %zu", st.vmas, distinct);
out:
	free(vmas);
	free(by_line);
	free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + HEADER, *end = (const char *)data + size;
	const char *p, *line;
	struct addrres_procmaps *pm = (void *)1;
	struct ref_line *lines;
	size_t nr_lines = 0, cap = 0, len, n = 0, half = 0;
	uint64_t *addrs, *addrs2;
	const char *path;
	uint8_t flags;
	int ret, fds;

	if (size < HEADER)
		return -1;	/* not worth keeping in the corpus */
	fds = open_fds();
	flags = data[1];
	memfile_set(&maps_file, text, size - HEADER);

	/* The lines, as the reference reads them. */
	for (p = text; p < end && (p = memchr(p, '\n', (size_t)(end - p))); p++)
		cap++;
	cap++;
	lines = calloc(cap, sizeof(*lines));
	CHECK(lines, "out of memory");
	for (p = text; next_line(&p, end, &line, &len); nr_lines++) {
		lines[nr_lines].text = line;
		lines[nr_lines].len = len;
		ref_parse(&lines[nr_lines]);
	}

	/* The batch: addresses around the lines the selectors pick. */
	addrs = malloc((2 * (2 + 2 * DENSE) * nr_lines + 4) * sizeof(*addrs));
	addrs2 = malloc((2 * (2 + 2 * DENSE) * nr_lines + 4) * sizeof(*addrs2));
	CHECK(addrs && addrs2, "out of memory");
	for (size_t i = 0; i < nr_lines; i++) {
		const struct ref_line *l = &lines[i];
		size_t bit = 2 * (i % 24);
		unsigned sel = (data[2 + bit / 8] >> (bit % 8)) & 3;

		if (!l->range_ok)
			continue;
		switch (sel) {
		case 1:
			addrs[n++] = l->start;
			break;
		case 2:
			addrs[n++] = l->end - 1;
			addrs[n++] = l->start - 1;
			break;
		case 3:
			addrs[n++] = l->start + (l->end - l->start) / 2;
			addrs[n++] = l->end;
			break;
		}
		/* Many in a VMA, and in the gap after it (or the next VMA). */
		if (sel && (flags & F_DENSE)) {
			uint64_t step = (l->end - l->start) / DENSE;

			for (uint64_t k = 0; k < DENSE; k++) {
				addrs[n++] = l->start + k * (step ? step : 1);
				addrs[n++] = l->end + k;
			}
		}
	}
	if (flags & F_ENDS) {
		addrs[n++] = 0;
		addrs[n++] = UINT64_MAX;
	}
	if (flags & F_TWICE) {
		memcpy(addrs + n, addrs, n * sizeof(*addrs));
		n *= 2;
	}
	/* Unsorted, the library sorts a copy; sorted, it takes the batch as it is. */
	if (flags & F_UNSORTED) {
		for (size_t i = 0; i < n / 2; i++) {
			uint64_t t = addrs[i];

			addrs[i] = addrs[n - 1 - i];
			addrs[n - 1 - i] = t;
		}
	} else {
		qsort(addrs, n, sizeof(*addrs), cmp_u64);
	}

	ADDRRES_OPTS(addrres_procmaps_opts, opts,
		     .method = flags & F_AUTO ? ADDRRES_PROCMAPS_METHOD_AUTO :
						ADDRRES_PROCMAPS_METHOD_TEXT,
		     .text_read_size = data[0], .errbuf = errbuf, .errbuf_sz = sizeof(errbuf));
	struct set_state ss = { .autom = flags & F_AUTO };
	if (flags & F_MAPS_FD) {
		static char fd_path[64];

		opts.maps_fd = maps_file.fd;
		snprintf(fd_path, sizeof(fd_path), "maps fd %d", maps_file.fd);
		path = fd_path;
	} else {
		opts.maps_path = maps_file.path;
		path = maps_file.path;
	}
	ret = addrres_procmaps__open(&opts, &pm);
	CHECK(ret == 0 && pm, "open of %s: %d", path, ret);
	if (flags & F_EMPTY)
		check_batch(pm, &ss, path, lines, nr_lines, addrs, 0);
	check_batch(pm, &ss, path, lines, nr_lines, addrs, n);
	if (flags & F_SECOND) {
		for (size_t i = 0; i < n; i += 2)
			addrs2[half++] = addrs[i];
		check_batch(pm, &ss, path, lines, nr_lines, addrs2, half);
	}
	addrres_procmaps__free(pm);
	CHECK(open_fds() == fds, "a file left open: %d open, %d before", open_fds(), fds);
	free(addrs);
	free(addrs2);
	free(lines);
	return 0;
}
