// SPDX-License-Identifier: GPL-2.0
/*
 * procmap-query-bench: how much faster is resolving addresses to VMAs
 * with the PROCMAP_QUERY ioctl than by parsing /proc/PID/maps text?
 *
 * Three measurements, see README.md:
 *  1. resolve a sorted address set with each method, in this process
 *     (about 700 VMAs), after checking that both give identical answers;
 *  2. extra cost of asking for build IDs;
 *  3. cost of one query at 100, 10,000 and 60,000 VMAs (forked children).
 *
 * Exit status: 0 success, 1 failure, 2 usage, 4 ioctl not supported (skip).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/fs.h>

#ifndef PROCMAP_QUERY
/* Headers from before Linux 6.11: spell out the ABI here. */
enum procmap_query_flags {
	PROCMAP_QUERY_VMA_READABLE		= 0x01,
	PROCMAP_QUERY_VMA_WRITABLE		= 0x02,
	PROCMAP_QUERY_VMA_EXECUTABLE		= 0x04,
	PROCMAP_QUERY_VMA_SHARED		= 0x08,
	PROCMAP_QUERY_COVERING_OR_NEXT_VMA	= 0x10,
	PROCMAP_QUERY_FILE_BACKED_VMA		= 0x20,
};

struct procmap_query {
	__u64 size;		/* in: sizeof(struct procmap_query) */
	__u64 query_flags;	/* in: enum procmap_query_flags */
	__u64 query_addr;	/* in: address to look up */
	__u64 vma_start;	/* out: the VMA found ... */
	__u64 vma_end;
	__u64 vma_flags;	/* out: PROCMAP_QUERY_VMA_* */
	__u64 vma_page_size;
	__u64 vma_offset;	/* out: file offset, 0 if anonymous */
	__u64 inode;
	__u32 dev_major;
	__u32 dev_minor;
	__u32 vma_name_size;	/* in: buffer size; out: length incl. NUL */
	__u32 build_id_size;	/* in: buffer size; out: build ID length */
	__u64 vma_name_addr;	/* in: buffer, 0 (with size 0) = not wanted */
	__u64 build_id_addr;	/* in: buffer, 0 (with size 0) = not wanted */
};

#define PROCMAP_QUERY	_IOWR('f', 17, struct procmap_query)
#endif

_Static_assert(sizeof(struct procmap_query) == 104, "procmap_query size");
_Static_assert(offsetof(struct procmap_query, vma_name_size) == 80,
	       "procmap_query layout");
_Static_assert(offsetof(struct procmap_query, build_id_addr) == 96,
	       "procmap_query layout");
_Static_assert(PROCMAP_QUERY == 0xC0686611u, "PROCMAP_QUERY number");

#ifndef PR_SET_VMA
#define PR_SET_VMA		0x53564d41
#define PR_SET_VMA_ANON_NAME	0
#endif

#define MAPS_PATH		"/proc/self/maps"
#define BUILD_ID_BUF_SIZE	56
#define NR_EXE_COPIES		3
#define NR_FILES		(NR_EXE_COPIES + 1)	/* + one non-ELF file */
#define FILE_MIN_SIZE		(1u << 20)
#define MAX_VMA_PAGES		8
#define MIN_CREATED_VMAS	16
#define ANON_NAME		"procmap-bench"
#define RNG_SEED		0x70726f636d6170ull	/* fixed: same set each run */
#define EXIT_SKIP		4

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

static const long scale_targets[] = { 100, 10000, 60000 };
#define NR_SCALES	ARRAY_LEN(scale_targets)

static long page_size;

/* ---- small helpers ---------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * A clock that advances in jiffies (a guest whose clocksource fell back
 * from the TSC) would time nothing: measure its smallest step.
 */
static int clock__check(void)
{
	uint64_t step = UINT64_MAX;

	for (int i = 0; i < 5; i++) {
		uint64_t t0 = now_ns(), t1;

		while ((t1 = now_ns()) == t0)
			;
		if (t1 - t0 < step)
			step = t1 - t0;
	}
	if (step > 10000) {
		fprintf(stderr, "CLOCK_MONOTONIC advances in steps of %llu ns: too"
			" coarse to measure; give the kernel a fine clocksource"
			" (under QEMU: tsc=reliable)\n", (unsigned long long)step);
		return -EINVAL;
	}
	return 0;
}

/* splitmix64: tiny, good enough, and identical everywhere */
struct rng {
	uint64_t state;
};

static uint64_t rng__next(struct rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t rng__below(struct rng *r, uint64_t n)
{
	return rng__next(r) % n;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median, not mean: one preempted run should not move the figure. */
static double median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static void flags__format(uint32_t flags, char out[5])
{
	out[0] = flags & PROCMAP_QUERY_VMA_READABLE ? 'r' : '-';
	out[1] = flags & PROCMAP_QUERY_VMA_WRITABLE ? 'w' : '-';
	out[2] = flags & PROCMAP_QUERY_VMA_EXECUTABLE ? 'x' : '-';
	out[3] = flags & PROCMAP_QUERY_VMA_SHARED ? 's' : 'p';
	out[4] = '\0';
}

/* VMAs of this process: one maps line each (plus [vsyscall] on x86). */
static long maps__count_vmas(void)
{
	char buf[16384];
	long lines = 0;
	ssize_t n;
	int fd;

	fd = open(MAPS_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return (long)n;
		}
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	}
	close(fd);
	return lines;
}

/* ---- options ---------------------------------------------------------- */

struct opts {
	unsigned int runs;
	long vmas;
	size_t naddrs;
	size_t chunk;
	size_t spread;		/* draw addresses from this many VMAs, 0 = all */
	size_t distinct;	/* distinct addresses among naddrs, 0 = all */
	bool code_only;		/* draw only from private file mappings */
	bool quick;
	unsigned int scale_rounds;
	size_t scale_queries;
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [-q] [-r RUNS] [-v VMAS] [-a ADDRS] [-d DIST] [-u VMAS] [-c]\n"
		"          [-b BYTES]\n"
		"  -r RUNS   timed runs per method (default 200, 10 with -q)\n"
		"  -v VMAS   VMAs in the process for the main comparison (default 700)\n"
		"  -a ADDRS  addresses resolved per run (default 4000)\n"
		"  -d DIST   repeat DIST distinct addresses to make up ADDRS (default:\n"
		"            every address drawn on its own)\n"
		"  -u VMAS   draw the addresses from only this many VMAs (default: all)\n"
		"  -c        draw only from private file mappings, where code lives\n"
		"  -b BYTES  read() size of the text parser (default 65536)\n"
		"  -q        quick smoke test: few runs and queries\n",
		prog);
}

static int parse_ulong(const char *s, unsigned long min, unsigned long max,
		       unsigned long *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static int opts__parse(struct opts *o, int argc, char **argv)
{
	unsigned long v;
	bool runs_set = false;
	int c;

	*o = (struct opts){ .runs = 200, .vmas = 700, .naddrs = 4000,
			    .chunk = 65536 };
	while ((c = getopt(argc, argv, "r:v:a:d:u:cb:qh")) != -1) {
		switch (c) {
		case 'r':
			if (parse_ulong(optarg, 1, 1000000, &v))
				goto bad;
			o->runs = (unsigned int)v;
			runs_set = true;
			break;
		case 'v':
			if (parse_ulong(optarg, 1, 60000, &v))
				goto bad;
			o->vmas = (long)v;
			break;
		case 'a':
			if (parse_ulong(optarg, 1, 10000000, &v))
				goto bad;
			o->naddrs = v;
			break;
		case 'd':
			if (parse_ulong(optarg, 1, 10000000, &v))
				goto bad;
			o->distinct = v;
			break;
		case 'u':
			if (parse_ulong(optarg, 1, 60000, &v))
				goto bad;
			o->spread = v;
			break;
		case 'c':
			o->code_only = true;
			break;
		case 'b':
			if (parse_ulong(optarg, 1, 64ul << 20, &v))
				goto bad;
			o->chunk = v;
			break;
		case 'q':
			o->quick = true;
			break;
		case 'h':
			usage(stdout, argv[0]);
			exit(0);
		default:
			usage(stderr, argv[0]);
			return -EINVAL;
		}
	}
	if (optind != argc) {
		usage(stderr, argv[0]);
		return -EINVAL;
	}
	if (o->distinct > o->naddrs) {
		fprintf(stderr, "-d %zu: more distinct addresses than -a %zu\n",
			o->distinct, o->naddrs);
		return -EINVAL;
	}
	if (o->quick && !runs_set)
		o->runs = 10;
	o->scale_rounds = o->quick ? 3 : 11;
	o->scale_queries = o->quick ? 2000 : 20000;
	return 0;
bad:
	fprintf(stderr, "invalid value for -%c: '%s'\n", c, optarg);
	usage(stderr, argv[0]);
	return -EINVAL;
}

/* ---- resolution results ---------------------------------------------- */

/* Growable byte buffer; names are stored as offsets so it may move. */
struct arena {
	char *buf;
	size_t len;
	size_t cap;
};

static int arena__reserve(struct arena *a, size_t extra)
{
	size_t cap = a->cap ? a->cap : 4096;
	char *buf;

	if (a->len + extra <= a->cap)
		return 0;
	while (cap < a->len + extra)
		cap *= 2;
	buf = realloc(a->buf, cap);
	if (!buf)
		return -ENOMEM;
	a->buf = buf;
	a->cap = cap;
	return 0;
}

struct vma_rec {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint32_t flags;		/* PROCMAP_QUERY_VMA_* */
	uint32_t name_off;	/* into resolution.names, "" if unnamed */
};

/* What one run found: for every address, the VMA holding it. */
struct resolution {
	int32_t *vma_of;	/* per address; -1 = not mapped */
	struct vma_rec *vmas;
	size_t nr_vmas;
	size_t cap_vmas;
	size_t lines_read;	/* text parse: maps lines it looked at */
	struct arena names;
	unsigned char *build_ids;	/* BUILD_ID_BUF_SIZE per VMA */
	uint32_t *build_id_sizes;
};

/* Every address adds at most one VMA, so naddrs bounds the table. */
static int resolution__init(struct resolution *r, size_t naddrs,
			    bool with_build_ids)
{
	memset(r, 0, sizeof(*r));
	r->cap_vmas = naddrs;
	r->vma_of = calloc(naddrs, sizeof(*r->vma_of));
	r->vmas = calloc(naddrs, sizeof(*r->vmas));
	if (!r->vma_of || !r->vmas)
		return -ENOMEM;
	if (with_build_ids) {
		r->build_ids = calloc(naddrs, BUILD_ID_BUF_SIZE);
		r->build_id_sizes = calloc(naddrs, sizeof(*r->build_id_sizes));
		if (!r->build_ids || !r->build_id_sizes)
			return -ENOMEM;
	}
	/* size the name arena now so that runs do not reallocate */
	return arena__reserve(&r->names, naddrs * 64 + 2 * PATH_MAX);
}

static void resolution__free(struct resolution *r)
{
	free(r->vma_of);
	free(r->vmas);
	free(r->names.buf);
	free(r->build_ids);
	free(r->build_id_sizes);
	memset(r, 0, sizeof(*r));
}

static void resolution__reset(struct resolution *r)
{
	r->nr_vmas = 0;
	r->lines_read = 0;
	r->names.len = 0;
}

static const char *resolution__name(const struct resolution *r, int32_t idx)
{
	return r->names.buf + r->vmas[idx].name_off;
}

/* Append a VMA with a copy of its name; returns its index or -errno. */
static int resolution__add(struct resolution *r, const struct vma_rec *rec,
			   const char *name, size_t name_len)
{
	struct vma_rec *dst;
	int err;

	if (r->nr_vmas == r->cap_vmas)
		return -ENOSPC;
	err = arena__reserve(&r->names, name_len + 1);
	if (err)
		return err;
	dst = &r->vmas[r->nr_vmas];
	*dst = *rec;
	dst->name_off = (uint32_t)r->names.len;
	memcpy(r->names.buf + r->names.len, name, name_len);
	r->names.buf[r->names.len + name_len] = '\0';
	r->names.len += name_len + 1;
	return (int)r->nr_vmas++;
}

/* ---- method 1: parse the maps text ------------------------------------ */

struct maps_reader {
	char *buf;
	size_t cap;
	size_t chunk;		/* bytes asked per read() */
};

static int maps_reader__init(struct maps_reader *rd, size_t chunk)
{
	rd->chunk = chunk;
	/* room for a chunk plus a partial line carried over */
	rd->cap = chunk + PATH_MAX + 256;
	rd->buf = malloc(rd->cap);
	return rd->buf ? 0 : -ENOMEM;
}

/* A line longer than the buffer (long path, tiny -b): make room. */
static int maps_reader__grow(struct maps_reader *rd)
{
	char *buf = realloc(rd->buf, rd->cap * 2);

	if (!buf)
		return -ENOMEM;
	rd->buf = buf;
	rd->cap *= 2;
	return 0;
}

static void maps_reader__free(struct maps_reader *rd)
{
	free(rd->buf);
	rd->buf = NULL;
}

struct maps_line {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint32_t flags;
	const char *name;
	size_t name_len;
};

/* Hex number ending at @stop; returns the character after @stop. */
static const char *parse_hex(const char *p, const char *end, char stop,
			     uint64_t *out)
{
	const char *first = p;
	uint64_t v = 0;

	for (; p < end && *p != stop; p++) {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = (unsigned int)(*p - '0');
		else if (*p >= 'a' && *p <= 'f')
			d = (unsigned int)(*p - 'a' + 10);
		else
			return NULL;
		v = v << 4 | d;
	}
	if (p == first || p == end)
		return NULL;
	*out = v;
	return p + 1;
}

static const char *skip_field(const char *p, const char *end)
{
	p = memchr(p, ' ', (size_t)(end - p));
	return p ? p + 1 : NULL;
}

/* "start-end " only: most lines need nothing more. */
static const char *maps_line__parse_range(const char *p, const char *eol,
					  struct maps_line *l)
{
	p = parse_hex(p, eol, '-', &l->start);
	if (!p)
		return NULL;
	return parse_hex(p, eol, ' ', &l->end);
}

/* "rwxs" / "r-xp" as PROCMAP_QUERY_VMA_* flags. */
static uint32_t perms__flags(const char *p)
{
	uint32_t flags = 0;

	if (p[0] == 'r')
		flags |= PROCMAP_QUERY_VMA_READABLE;
	if (p[1] == 'w')
		flags |= PROCMAP_QUERY_VMA_WRITABLE;
	if (p[2] == 'x')
		flags |= PROCMAP_QUERY_VMA_EXECUTABLE;
	if (p[3] == 's')
		flags |= PROCMAP_QUERY_VMA_SHARED;
	return flags;
}

/* "perms offset dev inode   name" after the range. */
static int maps_line__parse_rest(const char *p, const char *eol,
				 struct maps_line *l)
{
	if (eol - p < 5 || p[4] != ' ')
		return -EINVAL;
	l->flags = perms__flags(p);
	p = parse_hex(p + 5, eol, ' ', &l->offset);
	if (p)
		p = skip_field(p, eol);		/* dev */
	if (p)
		p = skip_field(p, eol);		/* inode */
	if (!p)
		return -EINVAL;
	while (p < eol && *p == ' ')
		p++;
	l->name = p;
	l->name_len = (size_t)(eol - p);
	return 0;
}

/* Walk state: the sorted addresses and how far they are resolved. */
struct text_walk {
	const uint64_t *addrs;
	size_t n;
	size_t next;
	size_t lines;
	struct resolution *res;
};

/* One maps line; returns 1 once every address is resolved. */
static int text_walk__line(struct text_walk *w, const char *line,
			   const char *eol)
{
	struct maps_line l;
	struct vma_rec rec;
	const char *rest;
	int idx, err;

	w->lines++;
	rest = maps_line__parse_range(line, eol, &l);
	if (!rest)
		return -EINVAL;
	/* addresses below this VMA are in a gap */
	while (w->next < w->n && w->addrs[w->next] < l.start)
		w->res->vma_of[w->next++] = -1;
	if (w->next == w->n)
		return 1;
	if (w->addrs[w->next] >= l.end)
		return 0;

	err = maps_line__parse_rest(rest, eol, &l);
	if (err)
		return err;
	rec = (struct vma_rec){ .start = l.start, .end = l.end,
				.offset = l.offset, .flags = l.flags };
	idx = resolution__add(w->res, &rec, l.name, l.name_len);
	if (idx < 0)
		return idx;
	while (w->next < w->n && w->addrs[w->next] < l.end)
		w->res->vma_of[w->next++] = idx;
	return w->next == w->n;
}

/* Consume the complete lines in buf and keep the partial tail. */
static int text_walk__lines(struct text_walk *w, char *buf, size_t *len)
{
	const char *p = buf, *end = buf + *len, *eol;
	int ret = 0;

	while ((eol = memchr(p, '\n', (size_t)(end - p)))) {
		ret = text_walk__line(w, p, eol);
		p = eol + 1;
		if (ret)
			break;
	}
	*len = (size_t)(end - p);
	memmove(buf, p, *len);
	return ret;
}

/*
 * Resolve sorted @addrs with one sequential pass over the maps text.
 * Stops reading once every address is placed, which favours this method.
 */
static int text__resolve(struct maps_reader *rd, const uint64_t *addrs,
			 size_t n, struct resolution *res)
{
	struct text_walk w = { .addrs = addrs, .n = n, .res = res };
	size_t len = 0;
	int fd, ret = 0;

	resolution__reset(res);
	fd = open(MAPS_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (!ret) {
		size_t room;
		ssize_t got;

		if (len == rd->cap) {
			ret = maps_reader__grow(rd);
			if (ret)
				break;
		}
		room = rd->cap - len;
		got = read(fd, rd->buf + len, room < rd->chunk ? room : rd->chunk);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			break;
		}
		if (!got) {
			/* the kernel ends every line, but do not rely on it */
			if (len)
				ret = text_walk__line(&w, rd->buf, rd->buf + len);
			break;
		}
		len += (size_t)got;
		ret = text_walk__lines(&w, rd->buf, &len);
	}
	close(fd);
	if (ret < 0)
		return ret;
	res->lines_read = w.lines;
	while (w.next < n)
		res->vma_of[w.next++] = -1;
	return 0;
}

/*
 * The same walk, reading the text the way the tool published with the
 * upstream series did: stdio with a 4 KiB buffer and one fscanf() per
 * line.  Upstream's 35x was measured against this parse, so it is timed
 * as well; text__resolve() is the faster parser a tool would write today.
 */
static int text_stdio__resolve(const uint64_t *addrs, size_t n,
			       struct resolution *res)
{
	static char iobuf[4096], name[PATH_MAX];
	unsigned long long start, end, offset, inode;
	unsigned int major, minor;
	char perms[4];
	size_t next = 0;
	FILE *f;
	int got;

	resolution__reset(res);
	f = fopen(MAPS_PATH, "re");
	if (!f)
		return -errno;
	setvbuf(f, iobuf, _IOFBF, sizeof(iobuf));
	/* A nameless line stops after the inode (7 fields); its newline is
	 * skipped by the next %llx.
	 */
	while (next < n &&
	       (got = fscanf(f, "%llx-%llx %4c %llx %x:%x %llu%*[ ]%4095[^\n]",
			     &start, &end, perms, &offset, &major, &minor,
			     &inode, name)) >= 7) {
		struct vma_rec rec = { .start = start, .end = end,
				       .offset = offset,
				       .flags = perms__flags(perms) };
		int idx;

		if (got == 7)
			name[0] = '\0';
		while (next < n && addrs[next] < start)
			res->vma_of[next++] = -1;
		if (next == n || addrs[next] >= end)
			continue;
		idx = resolution__add(res, &rec, name, strlen(name));
		if (idx < 0) {
			fclose(f);
			return idx;
		}
		while (next < n && addrs[next] < end)
			res->vma_of[next++] = idx;
	}
	fclose(f);
	while (next < n)
		res->vma_of[next++] = -1;
	return 0;
}

/* ---- method 2: PROCMAP_QUERY ------------------------------------------ */

/*
 * Ask for the VMA covering @addr or the next one above it, writing its
 * name straight into the arena (and build ID into the table if wanted).
 * Returns the new VMA index or -errno (-ENOENT: nothing at or above).
 */
static int procmap__query_into(int fd, uint64_t addr, struct resolution *res,
			       bool want_build_id)
{
	struct procmap_query q;
	struct vma_rec *rec;
	size_t idx = res->nr_vmas;
	char *name;
	int err;

	if (idx == res->cap_vmas)
		return -ENOSPC;
	err = arena__reserve(&res->names, PATH_MAX);
	if (err)
		return err;
	name = res->names.buf + res->names.len;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
	q.query_addr = addr;
	q.vma_name_addr = (uintptr_t)name;
	q.vma_name_size = PATH_MAX;
	if (want_build_id) {
		q.build_id_addr = (uintptr_t)(res->build_ids +
					      idx * BUILD_ID_BUF_SIZE);
		q.build_id_size = BUILD_ID_BUF_SIZE;
	}
	if (ioctl(fd, PROCMAP_QUERY, &q))
		return -errno;

	/* the size counts the NUL; distrust anything else */
	if (q.vma_name_size > PATH_MAX ||
	    (q.vma_name_size && name[q.vma_name_size - 1] != '\0') ||
	    q.build_id_size > BUILD_ID_BUF_SIZE)
		return -EPROTO;
	rec = &res->vmas[idx];
	rec->start = q.vma_start;
	rec->end = q.vma_end;
	rec->offset = q.vma_offset;
	rec->flags = (uint32_t)q.vma_flags;
	rec->name_off = (uint32_t)res->names.len;
	if (q.vma_name_size)
		res->names.len += q.vma_name_size;
	else
		res->names.buf[res->names.len++] = '\0';
	if (want_build_id)
		res->build_id_sizes[idx] = q.build_id_size;
	res->nr_vmas++;
	return (int)idx;
}

/*
 * Resolve sorted @addrs: one query per address not already answered by
 * the previous reply. A reply for address A with VMA [s, e) tells that
 * [A, s) is unmapped and [s, e) is that VMA.
 */
static int ioctl__resolve_fd(int fd, const uint64_t *addrs, size_t n,
			     struct resolution *res, bool want_build_id,
			     size_t *nr_queries)
{
	uint64_t start = 0, end = 0;
	size_t i, queries = 0;
	int32_t cur = -1;
	int ret = 0;

	resolution__reset(res);
	for (i = 0; i < n; i++) {
		uint64_t a = addrs[i];

		if (a >= end) {
			int idx = procmap__query_into(fd, a, res, want_build_id);

			queries++;
			if (idx == -ENOENT)
				break;
			if (idx < 0) {
				ret = idx;
				break;
			}
			cur = idx;
			start = res->vmas[idx].start;
			end = res->vmas[idx].end;
		}
		res->vma_of[i] = a >= start ? cur : -1;
	}
	for (; i < n; i++)
		res->vma_of[i] = -1;
	if (nr_queries)
		*nr_queries = queries;
	return ret;
}

/* As a profiler run does: open the maps file, resolve, close it. */
static int ioctl__resolve(const uint64_t *addrs, size_t n,
			  struct resolution *res, bool want_build_id,
			  size_t *nr_queries)
{
	int fd, ret;

	fd = open(MAPS_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ioctl__resolve_fd(fd, addrs, n, res, want_build_id, nr_queries);
	close(fd);
	return ret;
}

/* ---- files to map ----------------------------------------------------- */

struct file_set {
	char dir[PATH_MAX];
	char path[NR_FILES][PATH_MAX];
	int fd[NR_FILES];
	uint64_t pages[NR_FILES];
	bool is_exe[NR_FILES];
};

static void file_set__init(struct file_set *fs)
{
	memset(fs, 0, sizeof(*fs));
	for (int i = 0; i < NR_FILES; i++)
		fs->fd[i] = -1;
}

static int file__copy_self(int dst)
{
	char buf[65536];
	ssize_t n;
	int src, err = 0;

	src = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	if (src < 0)
		return -errno;
	while ((n = read(src, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			break;
		}
		err = write_all(dst, buf, (size_t)n);
		if (err)
			break;
	}
	close(src);
	return err;
}

/* Copies of our own ELF (with its build ID) and one plain data file. */
static int file_set__create_one(struct file_set *fs, int i)
{
	char path[PATH_MAX];
	struct stat st;
	off_t size;
	int n, err;


	fs->is_exe[i] = i < NR_EXE_COPIES;
	n = fs->is_exe[i] ?
		snprintf(path, sizeof(path), "%s/exe-copy-%d", fs->dir, i) :
		snprintf(path, sizeof(path), "%s/data", fs->dir);
	if (n < 0 || n >= PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(fs->path[i], path, (size_t)n + 1);
	fs->fd[i] = open(fs->path[i], O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
			 0600);
	if (fs->fd[i] < 0) {
		fs->path[i][0] = '\0';
		return -errno;
	}
	if (fs->is_exe[i]) {
		err = file__copy_self(fs->fd[i]);
		if (err)
			return err;
	}
	if (fstat(fs->fd[i], &st))
		return -errno;
	/* extend (sparse) so that mappings at many offsets fit inside */
	size = st.st_size > FILE_MIN_SIZE ? st.st_size : FILE_MIN_SIZE;
	size = (size + page_size - 1) / page_size * page_size;
	if (ftruncate(fs->fd[i], size))
		return -errno;
	fs->pages[i] = (uint64_t)size / (uint64_t)page_size;
	return 0;
}

static int file_set__create(struct file_set *fs)
{
	const char *tmp = getenv("TMPDIR");
	char tmpl[PATH_MAX];
	int n, err;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(tmpl, sizeof(tmpl), "%s/procmap-bench.XXXXXX", tmp);
	if (n < 0 || n >= (int)sizeof(tmpl))
		return -ENAMETOOLONG;
	if (!mkdtemp(tmpl))
		return -errno;
	/* the kernel prints the resolved path; so must our expectation */
	if (!realpath(tmpl, fs->dir)) {
		err = -errno;
		rmdir(tmpl);
		return err;
	}
	/* maps escapes '\n', which would break the name comparison */
	if (strchr(fs->dir, '\n'))
		return -EINVAL;
	for (int i = 0; i < NR_FILES; i++) {
		err = file_set__create_one(fs, i);
		if (err)
			return err;
	}
	return 0;
}

static void file_set__destroy(struct file_set *fs)
{
	for (int i = 0; i < NR_FILES; i++) {
		if (fs->fd[i] >= 0)
			close(fs->fd[i]);
		if (fs->path[i][0])
			unlink(fs->path[i]);
		fs->fd[i] = -1;
		fs->path[i][0] = '\0';
	}
	if (fs->dir[0])
		rmdir(fs->dir);
	fs->dir[0] = '\0';
}

/* ---- the VMA layout of the main comparison ---------------------------- */

enum vma_kind { KIND_ANON, KIND_FILE_PRIVATE, KIND_FILE_SHARED, KIND_HOLE };

/* One planned VMA, and what both methods must report for it. */
struct layout_vma {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint32_t flags;
	enum vma_kind kind;
	int file;		/* index in file_set, -1 if anonymous */
	bool named;		/* anonymous VMA named with PR_SET_VMA */
	const char *name;	/* expected name, "" if none */
};

struct layout {
	char *base;		/* reservation, PROT_NONE guard page each end */
	size_t len;
	struct layout_vma *vmas;
	size_t nr;
	size_t nr_anon, nr_named, nr_file, nr_holes;
};

static void layout_vma__plan_file(struct layout_vma *v, const struct file_set *fs,
				  uint64_t pages, struct rng *rng)
{
	v->file = (int)rng__below(rng, NR_FILES);
	v->offset = rng__below(rng, fs->pages[v->file] - pages + 1) *
		    (uint64_t)page_size;
	v->name = fs->path[v->file];
}

/*
 * Plan @want VMAs back to back, addresses relative to the reservation.
 * Neighbours alternate r-- and rw- so the kernel cannot merge them; now
 * and then an unmapped hole tests gap handling.
 */
static int layout__plan(struct layout *lo, size_t want,
			const struct file_set *fs, struct rng *rng)
{
	uint64_t rel = (uint64_t)page_size;	/* after the guard page */
	size_t made = 0;

	/* holes never follow holes: at most one per VMA */
	lo->vmas = calloc(2 * want + 1, sizeof(*lo->vmas));
	if (!lo->vmas)
		return -ENOMEM;
	while (made < want) {
		struct layout_vma *v = &lo->vmas[lo->nr++];
		uint64_t pages = 1 + rng__below(rng, MAX_VMA_PAGES);
		bool after_hole = lo->nr > 1 && v[-1].kind == KIND_HOLE;
		uint64_t r;

		v->start = rel;
		v->end = rel + pages * (uint64_t)page_size;
		rel = v->end;
		v->file = -1;
		if (lo->nr > 1 && !after_hole && !rng__below(rng, 32)) {
			v->kind = KIND_HOLE;
			lo->nr_holes++;
			continue;
		}
		r = rng__below(rng, 4);
		v->kind = r < 2 ? KIND_ANON :
			  r == 2 ? KIND_FILE_PRIVATE : KIND_FILE_SHARED;
		v->flags = PROCMAP_QUERY_VMA_READABLE;
		if (made++ % 2)
			v->flags |= PROCMAP_QUERY_VMA_WRITABLE;
		if (v->kind == KIND_ANON) {
			v->name = "";
			v->named = rng__below(rng, 2);
			lo->nr_anon++;
			continue;
		}
		if (v->kind == KIND_FILE_SHARED)
			v->flags |= PROCMAP_QUERY_VMA_SHARED;
		layout_vma__plan_file(v, fs, pages, rng);
		lo->nr_file++;
	}
	lo->len = rel + (uint64_t)page_size;
	return 0;
}

static int layout_vma__map(const struct layout_vma *v, const struct file_set *fs)
{
	size_t len = v->end - v->start;
	void *addr = (void *)(uintptr_t)v->start;
	int prot = PROT_READ, flags = MAP_FIXED, fd = -1;

	if (v->kind == KIND_HOLE)
		return munmap(addr, len) ? -errno : 0;
	if (v->flags & PROCMAP_QUERY_VMA_WRITABLE)
		prot |= PROT_WRITE;
	flags |= v->kind == KIND_FILE_SHARED ? MAP_SHARED : MAP_PRIVATE;
	if (v->kind == KIND_ANON)
		flags |= MAP_ANONYMOUS | MAP_NORESERVE;
	else
		fd = fs->fd[v->file];
	if (mmap(addr, len, prot, flags, fd, (off_t)v->offset) == MAP_FAILED)
		return -errno;
	return 0;
}

/* Best effort: kernels without CONFIG_ANON_VMA_NAME refuse, that is fine. */
static void layout__name_anon(struct layout *lo)
{
	for (size_t i = 0; i < lo->nr; i++) {
		struct layout_vma *v = &lo->vmas[i];

		if (v->kind != KIND_ANON || !v->named)
			continue;
		if (prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, v->start,
			  v->end - v->start, ANON_NAME)) {
			for (; i < lo->nr; i++)
				lo->vmas[i].named = false;
			return;
		}
		v->name = "[anon:" ANON_NAME "]";
		lo->nr_named++;
	}
}

static int layout__create(struct layout *lo, size_t want,
			  const struct file_set *fs, struct rng *rng)
{
	void *base;
	int err;

	err = layout__plan(lo, want, fs, rng);
	if (err)
		return err;
	base = mmap(NULL, lo->len, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return -errno;
	lo->base = base;
	for (size_t i = 0; i < lo->nr; i++) {
		lo->vmas[i].start += (uintptr_t)base;
		lo->vmas[i].end += (uintptr_t)base;
		err = layout_vma__map(&lo->vmas[i], fs);
		if (err)
			return err;
	}
	layout__name_anon(lo);
	return 0;
}

static void layout__destroy(struct layout *lo)
{
	if (lo->base)
		munmap(lo->base, lo->len);
	free(lo->vmas);
	memset(lo, 0, sizeof(*lo));
}

static const struct layout_vma *layout__lookup(const struct layout *lo,
					       uint64_t addr)
{
	size_t lo_i = 0, hi = lo->nr;

	while (lo_i < hi) {
		size_t mid = lo_i + (hi - lo_i) / 2;
		const struct layout_vma *v = &lo->vmas[mid];

		if (addr < v->start)
			hi = mid;
		else if (addr >= v->end)
			lo_i = mid + 1;
		else
			return v;
	}
	return NULL;
}

static size_t addrs__count_distinct(const uint64_t *sorted, size_t n)
{
	size_t d = n ? 1 : 0;

	for (size_t i = 1; i < n; i++)
		d += sorted[i] != sorted[i - 1];
	return d;
}

/* Move the distinct values of sorted @a to its front; returns how many. */
static size_t addrs__unique(uint64_t *a, size_t n)
{
	size_t d = n ? 1 : 0;

	for (size_t i = 1; i < n; i++) {
		if (a[i] != a[d - 1])
			a[d++] = a[i];
	}
	return d;
}

/* @n random bytes, each in a VMA drawn from the first @spread of @pick. */
static void addrs__draw(const struct layout *lo, const size_t *pick,
			size_t spread, uint64_t *out, size_t n, struct rng *rng)
{
	for (size_t i = 0; i < n; i++) {
		const struct layout_vma *v = &lo->vmas[pick[rng__below(rng, spread)]];

		out[i] = v->start + rng__below(rng, v->end - v->start);
	}
}

/*
 * Random bytes in randomly chosen planned VMAs, sorted.  @o->spread limits
 * the choice to that many distinct VMAs, as when stack traces hit only a
 * few binaries; @o->code_only to private file mappings (no holes), where
 * instruction addresses fall; @o->distinct repeats that many addresses to
 * make up the set, as hot code shows up in many samples.
 */
static int addrs__generate(const struct layout *lo, uint64_t *addrs,
			   const struct opts *o, struct rng *rng)
{
	size_t n = o->naddrs, spread = o->spread, base = o->distinct;
	size_t nr_cand = 0;
	size_t *pick;

	pick = malloc(lo->nr * sizeof(*pick));
	if (!pick)
		return -ENOMEM;
	for (size_t i = 0; i < lo->nr; i++) {
		if (!o->code_only || lo->vmas[i].kind == KIND_FILE_PRIVATE)
			pick[nr_cand++] = i;
	}
	if (!nr_cand) {
		free(pick);
		return -ENOENT;
	}
	if (!spread || spread > nr_cand)
		spread = nr_cand;
	/* partial Fisher-Yates: the first @spread entries are the choice */
	for (size_t i = 0; i < spread; i++) {
		size_t j = i + (size_t)rng__below(rng, nr_cand - i);
		size_t t = pick[i];

		pick[i] = pick[j];
		pick[j] = t;
	}
	if (!base) {
		addrs__draw(lo, pick, spread, addrs, n, rng);
	} else {
		/* redraw collisions so that exactly @base addresses differ */
		size_t have = 0;

		for (int round = 0; have < base && round < 64; round++) {
			addrs__draw(lo, pick, spread, addrs + have, base - have,
				    rng);
			qsort(addrs, base, sizeof(*addrs), cmp_u64);
			have = addrs__unique(addrs, base);
		}
		for (size_t i = have; i < n; i++)
			addrs[i] = addrs[rng__below(rng, have)];
	}
	free(pick);
	qsort(addrs, n, sizeof(*addrs), cmp_u64);
	return 0;
}

/* ---- verification ----------------------------------------------------- */

static void vma__print(const char *who, uint64_t start, uint64_t end,
		       uint64_t offset, uint32_t flags, const char *name)
{
	char perms[5];

	flags__format(flags, perms);
	fprintf(stderr, "  %-8s %llx-%llx %s %llx '%s'\n", who,
		(unsigned long long)start, (unsigned long long)end, perms,
		(unsigned long long)offset, name);
}

static void resolution__print(const struct resolution *r, const char *who,
			      size_t i)
{
	int32_t idx = r->vma_of[i];
	const struct vma_rec *v;

	if (idx < 0) {
		fprintf(stderr, "  %-8s (not mapped)\n", who);
		return;
	}
	v = &r->vmas[idx];
	vma__print(who, v->start, v->end, v->offset, v->flags,
		   resolution__name(r, idx));
}

static bool resolution__matches_layout(const struct resolution *r, size_t i,
				       const struct layout_vma *v)
{
	const struct vma_rec *got;
	int32_t idx = r->vma_of[i];

	if (!v || v->kind == KIND_HOLE)
		return idx < 0;
	if (idx < 0)
		return false;
	got = &r->vmas[idx];
	return got->start == v->start && got->end == v->end &&
	       got->offset == v->offset && got->flags == v->flags &&
	       !strcmp(resolution__name(r, idx), v->name);
}

/* Ground truth: the layout we created ourselves. */
static int verify__layout(const struct layout *lo, const uint64_t *addrs,
			  size_t n, const struct resolution *r, const char *who)
{
	for (size_t i = 0; i < n; i++) {
		const struct layout_vma *v = layout__lookup(lo, addrs[i]);

		if (resolution__matches_layout(r, i, v))
			continue;
		fprintf(stderr, "%s: wrong VMA for address %llx:\n", who,
			(unsigned long long)addrs[i]);
		if (v && v->kind != KIND_HOLE)
			vma__print("expected", v->start, v->end, v->offset,
				   v->flags, v->name);
		else
			fprintf(stderr, "  expected (not mapped)\n");
		resolution__print(r, "got", i);
		return -EIO;
	}
	return 0;
}

static bool resolution__same(const struct resolution *a,
			     const struct resolution *b, size_t i)
{
	int32_t ia = a->vma_of[i], ib = b->vma_of[i];
	const struct vma_rec *va, *vb;

	if (ia < 0 || ib < 0)
		return ia < 0 && ib < 0;
	va = &a->vmas[ia];
	vb = &b->vmas[ib];
	return va->start == vb->start && va->end == vb->end &&
	       va->offset == vb->offset && va->flags == vb->flags &&
	       !strcmp(resolution__name(a, ia), resolution__name(b, ib));
}

static int verify__same(const uint64_t *addrs, size_t n,
			const struct resolution *a, const char *a_who,
			const struct resolution *b, const char *b_who)
{
	for (size_t i = 0; i < n; i++) {
		if (resolution__same(a, b, i))
			continue;
		fprintf(stderr, "%s and %s disagree on address %llx:\n",
			a_who, b_who, (unsigned long long)addrs[i]);
		resolution__print(a, a_who, i);
		resolution__print(b, b_who, i);
		return -EIO;
	}
	return 0;
}

struct build_id {
	unsigned char data[BUILD_ID_BUF_SIZE];
	uint32_t size;
};

typedef ElfW(Nhdr) elf_nhdr;
typedef ElfW(Phdr) elf_phdr;

static bool note__find_build_id(const char *p, const char *end, size_t align,
				struct build_id *out)
{
	while ((size_t)(end - p) >= sizeof(elf_nhdr)) {
		const elf_nhdr *nh = (const void *)p;
		const char *name = p + sizeof(*nh);
		size_t name_sz = (nh->n_namesz + align - 1) & ~(align - 1);
		size_t desc_sz = (nh->n_descsz + align - 1) & ~(align - 1);
		const char *desc = name + name_sz;

		if (name_sz > (size_t)(end - name) ||
		    desc_sz > (size_t)(end - desc))
			return false;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
		    !memcmp(name, "GNU", 4) && nh->n_descsz <= BUILD_ID_BUF_SIZE) {
			memcpy(out->data, desc, nh->n_descsz);
			out->size = nh->n_descsz;
			return true;
		}
		p = desc + desc_sz;
	}
	return false;
}

/* The main program comes first; its notes hold our build ID. */
static int self_build_id__phdr(struct dl_phdr_info *info, size_t sz, void *data)
{
	(void)sz;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const elf_phdr *ph = &info->dlpi_phdr[i];
		const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr);

		if (ph->p_type != PT_NOTE)
			continue;
		if (note__find_build_id(p, p + ph->p_memsz,
					ph->p_align == 8 ? 8 : 4, data))
			break;
	}
	return 1;
}

/*
 * ELF copies must report our build ID, the data file none. A missing ID
 * is counted, not fatal (6.1-style parsers need the page cached); a
 * wrong one is a bug.
 */
static int verify__build_ids(const struct resolution *r, const struct layout *lo,
			     const struct file_set *fs,
			     const struct build_id *self, size_t *found,
			     size_t *expected)
{
	*found = *expected = 0;
	for (size_t i = 0; i < r->nr_vmas; i++) {
		const struct layout_vma *v = layout__lookup(lo, r->vmas[i].start);
		const unsigned char *id = r->build_ids + i * BUILD_ID_BUF_SIZE;
		uint32_t size = r->build_id_sizes[i];
		bool want = v && v->file >= 0 && fs->is_exe[v->file] &&
			    self->size;

		*expected += want;
		if (!size)
			continue;
		if (!want || size != self->size || memcmp(id, self->data, size)) {
			fprintf(stderr, "unexpected %u-byte build ID for VMA %llx-%llx\n",
				size, (unsigned long long)r->vmas[i].start,
				(unsigned long long)r->vmas[i].end);
			return -EIO;
		}
		(*found)++;
	}
	return 0;
}

/* ---- figures ---------------------------------------------------------- */

struct scale_result {
	int err;
	long target;
	long vmas;		/* VMAs the child really had */
	double query_ns;
	double read_us;		/* reading the whole maps text once */
};

struct results {
	bool ioctl_ok;
	long vmas;
	size_t naddrs;
	size_t distinct;
	size_t vmas_hit;
	size_t text_lines;	/* maps lines the text parse needed */
	double text_us;
	double text_stdio_us;
	double ioctl_us;
	double ioctl_queries;
	double ioctl_queries_us;	/* the queries alone, on an open file */
	struct scale_result scale[NR_SCALES];
	bool bid_ok;
	size_t bid_addrs;
	size_t bid_queries;
	double bid_plain_ns;
	double bid_ns;
	size_t bid_found;
	size_t bid_expected;
};

/* Everything the measurements share. */
struct bench {
	struct opts opts;
	struct file_set files;
	struct layout layout;
	struct maps_reader reader;
	struct resolution by_text;
	struct resolution by_text_stdio;
	struct resolution by_ioctl;
	struct resolution by_ioctl_bid;
	uint64_t *addrs;
	uint64_t *file_addrs;
	size_t nr_file_addrs;
	double *times_a;
	double *times_b;
	double *times_c;
	double *times_d;
	struct build_id self_id;
	struct results res;
	struct utsname uts;
};

static int bench__setup(struct bench *b)
{
	const struct opts *o = &b->opts;
	struct rng rng = { RNG_SEED };
	long existing, want;
	const char *tmp = getenv("TMPDIR");
	int err;

	/* allocate before mapping so that nothing lands in our holes */
	err = maps_reader__init(&b->reader, o->chunk);
	if (!err)
		err = resolution__init(&b->by_text, o->naddrs, false);
	if (!err)
		err = resolution__init(&b->by_text_stdio, o->naddrs, false);
	if (!err)
		err = resolution__init(&b->by_ioctl, o->naddrs, false);
	if (!err)
		err = resolution__init(&b->by_ioctl_bid, o->naddrs, true);
	b->addrs = calloc(o->naddrs, sizeof(*b->addrs));
	b->file_addrs = calloc(o->naddrs, sizeof(*b->file_addrs));
	b->times_a = calloc(o->runs, sizeof(*b->times_a));
	b->times_b = calloc(o->runs, sizeof(*b->times_b));
	b->times_c = calloc(o->runs, sizeof(*b->times_c));
	b->times_d = calloc(o->runs, sizeof(*b->times_d));
	if (err || !b->addrs || !b->file_addrs || !b->times_a || !b->times_b ||
	    !b->times_c || !b->times_d) {
		fprintf(stderr, "out of memory\n");
		return -ENOMEM;
	}
	err = file_set__create(&b->files);
	if (err) {
		fprintf(stderr, "creating files in %s: %s\n",
			tmp && *tmp ? tmp : "/tmp", strerror(-err));
		return err;
	}

	existing = maps__count_vmas();
	if (existing < 0) {
		fprintf(stderr, "reading %s: %s\n", MAPS_PATH,
			strerror((int)-existing));
		return (int)existing;
	}
	want = o->vmas - existing - 2;		/* 2: the guard pages */
	if (want < MIN_CREATED_VMAS)
		want = MIN_CREATED_VMAS;
	err = layout__create(&b->layout, (size_t)want, &b->files, &rng);
	if (err) {
		fprintf(stderr, "creating %ld VMAs: %s\n", want, strerror(-err));
		return err;
	}
	err = addrs__generate(&b->layout, b->addrs, o, &rng);
	if (err == -ENOENT) {
		fprintf(stderr, "-c: the layout has no private file mapping;"
			" use more VMAs (-v)\n");
		return err;
	}
	if (err) {
		fprintf(stderr, "out of memory\n");
		return err;
	}
	b->res.distinct = addrs__count_distinct(b->addrs, o->naddrs);
	for (size_t i = 0; i < o->naddrs; i++) {
		const struct layout_vma *v = layout__lookup(&b->layout,
							    b->addrs[i]);

		if (v && v->file >= 0)
			b->file_addrs[b->nr_file_addrs++] = b->addrs[i];
	}
	b->res.vmas = maps__count_vmas();
	b->res.naddrs = o->naddrs;
	dl_iterate_phdr(self_build_id__phdr, &b->self_id);

	printf("setup: %ld VMAs in the process; created %zu anonymous (%zu named)"
	       " and %zu file-backed from %d files in %s, %zu holes\n",
	       b->res.vmas, b->layout.nr_anon, b->layout.nr_named,
	       b->layout.nr_file, NR_FILES, b->files.dir, b->layout.nr_holes);
	return 0;
}

/* Check the methods against the layout and each other, untimed. */
static int bench__verify(struct bench *b)
{
	size_t n = b->opts.naddrs, unmapped = 0;
	int err;

	err = text__resolve(&b->reader, b->addrs, n, &b->by_text);
	if (err) {
		fprintf(stderr, "parsing %s: %s\n", MAPS_PATH, strerror(-err));
		return err;
	}
	err = verify__layout(&b->layout, b->addrs, n, &b->by_text, "text");
	if (err)
		return err;
	for (size_t i = 0; i < n; i++)
		unmapped += b->by_text.vma_of[i] < 0;
	b->res.vmas_hit = b->by_text.nr_vmas;
	b->res.text_lines = b->by_text.lines_read;
	printf("verify: text parse matches the created layout for all %zu"
	       " addresses (%zu distinct; %zu VMAs hit, %zu addresses unmapped;"
	       " the parse stops after line %zu of %ld)\n",
	       n, b->res.distinct, b->by_text.nr_vmas, unmapped,
	       b->res.text_lines, b->res.vmas);
	err = text_stdio__resolve(b->addrs, n, &b->by_text_stdio);
	if (err) {
		fprintf(stderr, "parsing %s with stdio: %s\n", MAPS_PATH,
			strerror(-err));
		return err;
	}
	err = verify__same(b->addrs, n, &b->by_text, "text", &b->by_text_stdio,
			   "text (stdio)");
	if (err)
		return err;

	err = ioctl__resolve(b->addrs, n, &b->by_ioctl, false, NULL);
	if (err == -ENOTTY)
		return err;
	if (err) {
		fprintf(stderr, "PROCMAP_QUERY: %s\n", strerror(-err));
		return err;
	}
	b->res.ioctl_ok = true;
	err = verify__same(b->addrs, n, &b->by_text, "text", &b->by_ioctl,
			   "ioctl");
	if (!err)
		err = verify__layout(&b->layout, b->addrs, n, &b->by_ioctl,
				     "ioctl");
	if (err)
		return err;
	printf("verify: PROCMAP_QUERY matches the text parse for all %zu"
	       " addresses\n", n);
	return 0;
}

static double bench__query_ns(const struct results *r)
{
	return r->ioctl_queries_us * 1e3 / r->ioctl_queries;
}

/*
 * Methods time their runs in blocks of this many back to back, as a tool
 * resolving batch after batch would; the blocks alternate so that drift
 * hits every method alike.  Under TCG the first run after another method
 * is much slower (emulated TLBs and caches are cold), and interleaving
 * single runs would charge that to every run: a short ioctl run twice.
 */
#define RUNS_PER_BLOCK	10

enum method {
	M_TEXT,			/* measurement 1: every address */
	M_TEXT_STDIO,
	M_IOCTL,
	M_IOCTL_OPEN_FD,	/* the same queries on a maps file kept open */
	M_FILE_IOCTL,		/* measurement 2: addresses in file VMAs */
	M_FILE_IOCTL_BUILD_ID,
};

/*
 * One timed run of @m into *@ns, its ioctls into *@queries; @fd is the
 * maps file M_IOCTL_OPEN_FD uses.
 */
static int bench__time_run(struct bench *b, enum method m, int fd,
			   size_t *queries, double *ns)
{
	const struct opts *o = &b->opts;
	uint64_t t0 = now_ns();
	int err;

	switch (m) {
	case M_TEXT:
		err = text__resolve(&b->reader, b->addrs, o->naddrs,
				    &b->by_text);
		break;
	case M_TEXT_STDIO:
		err = text_stdio__resolve(b->addrs, o->naddrs,
					  &b->by_text_stdio);
		break;
	case M_IOCTL:
		err = ioctl__resolve(b->addrs, o->naddrs, &b->by_ioctl, false,
				     queries);
		break;
	case M_IOCTL_OPEN_FD:
		err = ioctl__resolve_fd(fd, b->addrs, o->naddrs, &b->by_ioctl,
					false, queries);
		break;
	case M_FILE_IOCTL:
		err = ioctl__resolve(b->file_addrs, b->nr_file_addrs,
				     &b->by_ioctl, false, queries);
		break;
	default:
		err = ioctl__resolve(b->file_addrs, b->nr_file_addrs,
				     &b->by_ioctl_bid, true, queries);
		break;
	}
	*ns = (double)(now_ns() - t0);
	return err;
}

/*
 * @o->runs timed runs of each of the @nr methods @ms, taking turns in
 * blocks; run r of @ms[i] goes to @times[i][r], its ioctls to @queries[i].
 */
static int bench__time_methods(struct bench *b, const enum method *ms, int nr,
			       double *const *times, size_t *queries, int fd)
{
	unsigned int runs = b->opts.runs;
	int err = 0;

	for (unsigned int done = 0; !err && done < runs; done += RUNS_PER_BLOCK) {
		unsigned int end = runs - done < RUNS_PER_BLOCK ?
				   runs : done + RUNS_PER_BLOCK;

		for (int i = 0; !err && i < nr; i++) {
			for (unsigned int r = done; !err && r < end; r++)
				err = bench__time_run(b, ms[i], fd, &queries[i],
						      &times[i][r]);
		}
	}
	return err;
}

/* Measurement 1. */
static int bench__compare(struct bench *b)
{
	static const enum method ms[] = { M_TEXT, M_TEXT_STDIO, M_IOCTL,
					  M_IOCTL_OPEN_FD };
	const struct opts *o = &b->opts;
	double *const times[] = { b->times_a, b->times_c, b->times_b,
				  b->times_d };
	size_t qs[ARRAY_LEN(ms)] = { 0 }, queries;
	/* without the ioctl, only the methods before M_IOCTL */
	int nr = b->res.ioctl_ok ? (int)ARRAY_LEN(ms) : M_IOCTL;
	int fd, err;

	/* kept open for timing the queries without open() and close() */
	fd = open(MAPS_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = bench__time_methods(b, ms, nr, times, qs, fd);
	close(fd);
	if (err)
		return err;
	queries = qs[M_IOCTL];
	b->res.text_us = median(b->times_a, o->runs) / 1e3;
	b->res.text_stdio_us = median(b->times_c, o->runs) / 1e3;
	b->res.ioctl_queries_us = median(b->times_d, o->runs) / 1e3;
	b->res.ioctl_us = median(b->times_b, o->runs) / 1e3;
	b->res.ioctl_queries = (double)queries;

	printf("\n[1] resolve %zu sorted addresses, %ld VMAs, median of %u runs"
	       " (open + resolve + close), in blocks of %d\n", o->naddrs,
	       b->res.vmas, o->runs, RUNS_PER_BLOCK);
	printf("  text parse     : %10.1f us/run %8.1f ns/address\n",
	       b->res.text_us, b->res.text_us * 1e3 / (double)o->naddrs);
	printf("  text, stdio    : %10.1f us/run %8.1f ns/address"
	       "  (fscanf, as upstream's tool)\n", b->res.text_stdio_us,
	       b->res.text_stdio_us * 1e3 / (double)o->naddrs);
	if (!b->res.ioctl_ok)
		return 0;
	printf("  PROCMAP_QUERY  : %10.1f us/run %8.1f ns/address"
	       "  (%zu queries/run, %.1f ns/query)\n",
	       b->res.ioctl_us, b->res.ioctl_us * 1e3 / (double)o->naddrs,
	       queries, queries ? bench__query_ns(&b->res) : 0);
	printf("  the queries alone, on a maps file kept open: %.1f us/run\n",
	       b->res.ioctl_queries_us);
	printf("  text / ioctl   : %10.1fx\n", b->res.text_us / b->res.ioctl_us);
	printf("  stdio / ioctl  : %10.1fx\n",
	       b->res.text_stdio_us / b->res.ioctl_us);
	return 0;
}

/* Measurement 2: same resolution over file-backed VMAs, +/- build IDs. */
static int bench__build_id(struct bench *b)
{
	static const enum method ms[] = { M_FILE_IOCTL, M_FILE_IOCTL_BUILD_ID };
	const struct opts *o = &b->opts;
	double *const times[] = { b->times_a, b->times_b };
	size_t n = b->nr_file_addrs, qs[ARRAY_LEN(ms)] = { 0 }, q_plain, q_bid;
	int err;

	b->res.bid_addrs = n;
	if (!n) {
		printf("\n[2] build IDs: no address in a file-backed VMA, skipped\n");
		return 0;
	}
	err = ioctl__resolve(b->file_addrs, n, &b->by_ioctl_bid, true, NULL);
	if (!err)
		err = verify__layout(&b->layout, b->file_addrs, n,
				     &b->by_ioctl_bid, "ioctl+build-id");
	if (!err)
		err = verify__build_ids(&b->by_ioctl_bid, &b->layout, &b->files,
					&b->self_id, &b->res.bid_found,
					&b->res.bid_expected);
	if (!err)
		err = bench__time_methods(b, ms, (int)ARRAY_LEN(ms), times, qs,
					  -1);
	if (err) {
		fprintf(stderr, "PROCMAP_QUERY with build ID: %s\n",
			strerror(-err));
		return err;
	}
	q_plain = qs[0];
	q_bid = qs[1];
	b->res.bid_ok = q_plain && q_bid;
	b->res.bid_queries = q_bid;
	if (!b->res.bid_ok)
		return 0;
	b->res.bid_plain_ns = median(b->times_a, o->runs) / (double)q_plain;
	b->res.bid_ns = median(b->times_b, o->runs) / (double)q_bid;

	printf("\n[2] build IDs: %zu addresses in file-backed VMAs, %zu queries/run,"
	       " median of %u runs in blocks of %d\n", n, q_bid, o->runs,
	       RUNS_PER_BLOCK);
	printf("  name only      : %10.1f ns/query\n", b->res.bid_plain_ns);
	printf("  name + build ID: %10.1f ns/query  (%zu of %zu ELF VMAs"
	       " returned our build ID)\n", b->res.bid_ns, b->res.bid_found,
	       b->res.bid_expected);
	printf("  slowdown       : %10.2fx\n", b->res.bid_ns / b->res.bid_plain_ns);
	return 0;
}

/* ---- measurement 3: per-query cost against VMA count ----------------- */

static double maps__time_full_read(void)
{
	char buf[65536];
	uint64_t t0 = now_ns();
	int fd = open(MAPS_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		;
	close(fd);
	return n < 0 ? -1 : (double)(now_ns() - t0);
}

/* Time rounds of covering queries (no name) for random addresses. */
static int scale__time_queries(const uint64_t *addrs, size_t n,
			       unsigned int rounds, double *per_round)
{
	struct procmap_query q;
	int fd;

	fd = open(MAPS_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	for (unsigned int r = 0; r < rounds; r++) {
		uint64_t t0 = now_ns();

		for (size_t i = 0; i < n; i++) {
			q.query_addr = addrs[i];
			if (ioctl(fd, PROCMAP_QUERY, &q)) {
				int err = -errno;

				close(fd);
				return err;
			}
			if (q.vma_start > addrs[i] || q.vma_end <= addrs[i] ||
			    q.vma_end - q.vma_start != (uint64_t)page_size) {
				close(fd);
				return -EPROTO;
			}
		}
		per_round[r] = (double)(now_ns() - t0) / (double)n;
	}
	close(fd);
	return 0;
}

/*
 * In the child: one-page VMAs (alternating r--/rw- by mprotect) until
 * the process has @target VMAs, then time queries and a full maps read.
 */
static int scale__measure(const struct opts *o, struct scale_result *out)
{
	struct rng rng = { RNG_SEED };
	size_t n = o->scale_queries;
	uint64_t *addrs = calloc(n, sizeof(*addrs));
	double *times = calloc(o->scale_rounds, sizeof(*times));
	size_t want, pages = 0;
	char *base = MAP_FAILED, *region;
	long existing;
	int err = -ENOMEM;

	if (!addrs || !times)
		goto out;
	existing = maps__count_vmas();
	err = existing < 0 ? (int)existing : 0;
	if (err)
		goto out;
	want = out->target - existing - 2 < MIN_CREATED_VMAS ?
		MIN_CREATED_VMAS : (size_t)(out->target - existing - 2);
	pages = want + 2;
	base = mmap(NULL, pages * (size_t)page_size, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	region = base + page_size;
	if (mmap(region, want * (size_t)page_size, PROT_READ,
		 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0) == MAP_FAILED) {
		err = -errno;
		goto out;
	}
	for (size_t i = 1; i < want; i += 2) {
		if (mprotect(region + i * (size_t)page_size, (size_t)page_size,
			     PROT_READ | PROT_WRITE)) {
			err = -errno;
			goto out;
		}
	}
	out->vmas = maps__count_vmas();
	for (size_t i = 0; i < n; i++)
		addrs[i] = (uintptr_t)region +
			   rng__below(&rng, want) * (uint64_t)page_size +
			   rng__below(&rng, (uint64_t)page_size);

	err = scale__time_queries(addrs, n, o->scale_rounds, times);
	if (err)
		goto out;
	out->query_ns = median(times, o->scale_rounds);
	for (unsigned int r = 0; r < o->scale_rounds; r++)
		times[r] = maps__time_full_read();
	out->read_us = median(times, o->scale_rounds) / 1e3;
out:
	if (base != MAP_FAILED)
		munmap(base, pages * (size_t)page_size);
	free(addrs);
	free(times);
	return err;
}

/* A child per size: the layouts must not see each other. */
static int scale__run(const struct opts *o, struct scale_result *out)
{
	struct scale_result r = *out;
	ssize_t got;
	int fds[2], status;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (!pid) {
		close(fds[0]);
		r.err = scale__measure(o, &r);
		_exit(write_all(fds[1], &r, sizeof(r)) ? 1 : 0);
	}
	close(fds[1]);
	do {
		got = read(fds[0], out, sizeof(*out));
	} while (got < 0 && errno == EINTR);
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	if (got != (ssize_t)sizeof(*out) || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -ECHILD;
	return 0;
}

static void scale__report_failure(const struct scale_result *s)
{
	long max = -1;
	FILE *f = fopen("/proc/sys/vm/max_map_count", "re");

	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = -1;
		fclose(f);
	}
	printf("  %6ld VMAs: could not create them: %s (vm.max_map_count = %ld)\n",
	       s->target, strerror(-s->err), max);
}

static int bench__scale(struct bench *b)
{
	const struct opts *o = &b->opts;

	printf("\n[3] one covering query (no name) at random addresses,"
	       " median of %u rounds x %zu queries\n",
	       o->scale_rounds, o->scale_queries);
	for (size_t i = 0; i < NR_SCALES; i++) {
		struct scale_result *s = &b->res.scale[i];
		int err;

		*s = (struct scale_result){ .target = scale_targets[i] };
		err = scale__run(o, s);
		if (err) {
			fprintf(stderr, "measuring %ld VMAs: child failed\n",
				s->target);
			return err;
		}
		/* too many VMAs for this system: say so, go on */
		if (s->err == -ENOMEM) {
			scale__report_failure(s);
			continue;
		}
		if (s->err) {
			fprintf(stderr, "%ld VMAs: %s\n", s->target,
				s->err == -EPROTO ?
				"PROCMAP_QUERY answered a VMA not covering the address" :
				strerror(-s->err));
			return s->err;
		}
		printf("  %6ld VMAs: %8.1f ns/query   (reading all of maps:"
		       " %.1f us)\n", s->vmas, s->query_ns, s->read_us);
	}
	return 0;
}

/* ---- output ----------------------------------------------------------- */

static void kv__double(const char *key, double v, bool valid, int prec)
{
	if (valid)
		printf("%s: %.*f\n", key, prec, v);
	else
		printf("%s: n/a\n", key);
}

static void results__print(const struct bench *b)
{
	const struct results *r = &b->res;
	double n = (double)r->naddrs;
	char key[64];

	printf("\n--- procmap-query-bench results ---\n");
	printf("kernel: %s\n", b->uts.release);
	printf("procmap_query: %s\n", r->ioctl_ok ? "supported" : "unsupported");
	printf("vmas: %ld\n", r->vmas);
	printf("addresses: %zu\n", r->naddrs);
	printf("distinct_addresses: %zu\n", r->distinct);
	printf("vmas_hit: %zu\n", r->vmas_hit);
	printf("text_lines_read: %zu\n", r->text_lines);
	printf("runs: %u\n", b->opts.runs);
	kv__double("text_us_per_run", r->text_us, true, 1);
	kv__double("text_ns_per_addr", r->text_us * 1e3 / n, true, 1);
	kv__double("ioctl_us_per_run", r->ioctl_us, r->ioctl_ok, 1);
	kv__double("ioctl_ns_per_addr", r->ioctl_us * 1e3 / n, r->ioctl_ok, 1);
	kv__double("ioctl_queries_per_run", r->ioctl_queries, r->ioctl_ok, 0);
	kv__double("ioctl_ns_per_query", bench__query_ns(r),
		   r->ioctl_ok && r->ioctl_queries > 0, 1);
	kv__double("ioctl_queries_us_per_run", r->ioctl_queries_us,
		   r->ioctl_ok, 1);
	kv__double("ratio", r->text_us / r->ioctl_us,
		   r->ioctl_ok && r->ioctl_us > 0, 1);
	kv__double("text_stdio_us_per_run", r->text_stdio_us, true, 1);
	kv__double("ratio_stdio", r->text_stdio_us / r->ioctl_us,
		   r->ioctl_ok && r->ioctl_us > 0, 1);
	for (size_t i = 0; i < NR_SCALES; i++) {
		const struct scale_result *s = &r->scale[i];
		bool ok = r->ioctl_ok && s->target && !s->err;

		snprintf(key, sizeof(key), "query_ns_%ld", scale_targets[i]);
		kv__double(key, s->query_ns, ok, 1);
		snprintf(key, sizeof(key), "query_vmas_%ld", scale_targets[i]);
		kv__double(key, (double)s->vmas, ok, 0);
		snprintf(key, sizeof(key), "maps_read_us_%ld", scale_targets[i]);
		kv__double(key, s->read_us, ok, 1);
	}
	kv__double("buildid_queries_per_run", (double)r->bid_queries, r->bid_ok, 0);
	kv__double("buildid_plain_ns_per_query", r->bid_plain_ns, r->bid_ok, 1);
	kv__double("buildid_ns_per_query", r->bid_ns, r->bid_ok, 1);
	kv__double("buildid_slowdown", r->bid_ns / r->bid_plain_ns,
		   r->bid_ok && r->bid_plain_ns > 0, 2);
	if (r->bid_ok)
		printf("buildid_found: %zu/%zu\n", r->bid_found, r->bid_expected);
	else
		printf("buildid_found: n/a\n");
}

static void bench__free(struct bench *b)
{
	layout__destroy(&b->layout);
	file_set__destroy(&b->files);
	maps_reader__free(&b->reader);
	resolution__free(&b->by_text);
	resolution__free(&b->by_text_stdio);
	resolution__free(&b->by_ioctl);
	resolution__free(&b->by_ioctl_bid);
	free(b->addrs);
	free(b->file_addrs);
	free(b->times_a);
	free(b->times_b);
	free(b->times_c);
	free(b->times_d);
	free(b);
}

static int bench__run(struct bench *b)
{
	int err;

	err = bench__setup(b);
	if (err)
		return 1;
	err = bench__verify(b);
	if (err && err != -ENOTTY)
		return 1;
	err = bench__compare(b);
	if (err) {
		fprintf(stderr, "timed run: %s\n", strerror(-err));
		return 1;
	}
	if (!b->res.ioctl_ok) {
		results__print(b);
		printf("PROCMAP_QUERY not supported by this kernel\n");
		return EXIT_SKIP;
	}
	if (bench__build_id(b))
		return 1;
	/* the children must not inherit the layout of [1] */
	layout__destroy(&b->layout);
	if (bench__scale(b))
		return 1;
	results__print(b);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench *b;
	int ret;

	page_size = sysconf(_SC_PAGESIZE);
	b = calloc(1, sizeof(*b));
	if (!b)
		return 1;
	file_set__init(&b->files);
	if (opts__parse(&b->opts, argc, argv)) {
		free(b);
		return 2;
	}
	if (clock__check()) {
		free(b);
		return 1;
	}
	uname(&b->uts);
	printf("procmap-query-bench: kernel %s, %ld-byte pages, %u runs%s\n",
	       b->uts.release, page_size, b->opts.runs,
	       b->opts.quick ? " (quick)" : "");
	ret = bench__run(b);
	bench__free(b);
	return ret;
}
