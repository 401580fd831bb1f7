// SPDX-License-Identifier: GPL-2.0
/*
 * procmap-query-bench: how much faster is resolving addresses to VMAs
 * with the PROCMAP_QUERY ioctl than by parsing /proc/PID/maps text?
 *
 * Every method but one is libaddrres's addrres_procmaps, so that the
 * figures are those of the code a tool links: its text method, its ioctl
 * method and AUTO, which chooses between them.  The one that is not, the
 * stdio + fscanf() reading of the tool published with the upstream series,
 * is the reference upstream's figures were measured against.
 *
 * Three measurements, see README.md:
 *  1. resolve a sorted address set with each method, in this process
 *     (about 700 VMAs), after checking that all give identical answers;
 *     the ioctl method's queries also as bare system calls, and probes of
 *     the base kernel under them;
 *  2. extra cost of asking for build IDs;
 *  3. cost of one query at 100, 10,000 and 60,000 VMAs, anonymous and
 *     named by a file (forked children), and of msync(), which takes the
 *     same lock and finds the VMA the same way.
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
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <addrres.h>
/* The project's pinned copy of the UAPI: the host's headers may lack it. */
#include <addrres/procmap_query.h>

#ifndef PR_SET_VMA
#define PR_SET_VMA		0x53564d41
#define PR_SET_VMA_ANON_NAME	0
#endif

#define MAPS_PATH		"/proc/self/maps"
#define NR_EXE_COPIES		3
#define NR_FILES		(NR_EXE_COPIES + 1)	/* + one non-ELF file */
#define FILE_MIN_SIZE		(1u << 20)
#define MAX_VMA_PAGES		8
#define MIN_CREATED_VMAS	16
#define ANON_NAME		"procmap-bench"
#define RNG_SEED		0x70726f636d6170ull	/* fixed: same set each run */
#define EXIT_SKIP		4
/* System calls per timed run of a probe: one alone is below the clock's reach. */
#define PROBE_CALLS		16
/* A command no /proc/PID/maps knows: the ioctl path up to the file's handler. */
#define UNKNOWN_MAPS_IOCTL	_IO('f', 0x7f)

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
	out[0] = flags & ADDRRES_VMA_READABLE ? 'r' : '-';
	out[1] = flags & ADDRRES_VMA_WRITABLE ? 'w' : '-';
	out[2] = flags & ADDRRES_VMA_EXECUTABLE ? 'x' : '-';
	out[3] = flags & ADDRRES_VMA_SHARED ? 's' : 'p';
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
	size_t read_size;	/* of the library's text method */
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
		"  -b BYTES  read() size of libaddrres's text method (default 65536)\n"
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
			    .read_size = 65536 };
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
			o->read_size = v;
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


/* ---- the reference: the maps text through stdio and fscanf() ---------- */

/*
 * The tool published with the upstream series read the text this way,
 * and upstream's 35x was measured against it, so the bench keeps it as
 * the reference.  It is not library code: every other method is.
 */
struct stdio_vma {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t flags;		/* ADDRRES_VMA_* */
	size_t name_off;	/* into stdio_result.names */
};

/* What one stdio run found: for every address, the VMA holding it. */
struct stdio_result {
	int32_t *vma_of;	/* per address; -1 = not mapped */
	struct stdio_vma *vmas;
	size_t nr_vmas;
	size_t cap_vmas;
	char *names;
	size_t names_len;
	size_t names_cap;
};

static int stdio_result__reserve(struct stdio_result *r, size_t extra)
{
	size_t cap = r->names_cap ? r->names_cap : 4096;
	char *names;

	if (r->names_len + extra <= r->names_cap)
		return 0;
	while (cap < r->names_len + extra)
		cap *= 2;
	names = realloc(r->names, cap);
	if (!names)
		return -ENOMEM;
	r->names = names;
	r->names_cap = cap;
	return 0;
}

/* Every address adds at most one VMA, so naddrs bounds the table. */
static int stdio_result__init(struct stdio_result *r, size_t naddrs)
{
	memset(r, 0, sizeof(*r));
	r->cap_vmas = naddrs;
	r->vma_of = calloc(naddrs, sizeof(*r->vma_of));
	r->vmas = calloc(naddrs, sizeof(*r->vmas));
	if (!r->vma_of || !r->vmas)
		return -ENOMEM;
	/* sized now so that runs do not reallocate */
	return stdio_result__reserve(r, naddrs * 64 + 2 * PATH_MAX);
}

static void stdio_result__free(struct stdio_result *r)
{
	free(r->vma_of);
	free(r->vmas);
	free(r->names);
	memset(r, 0, sizeof(*r));
}

/* Append a VMA with a copy of its name; returns its index or -errno. */
static int stdio_result__add(struct stdio_result *r, const struct stdio_vma *rec,
			     const char *name)
{
	size_t len = strlen(name);
	struct stdio_vma *dst;
	int err;

	if (r->nr_vmas == r->cap_vmas)
		return -ENOSPC;
	err = stdio_result__reserve(r, len + 1);
	if (err)
		return err;
	dst = &r->vmas[r->nr_vmas];
	*dst = *rec;
	dst->name_off = r->names_len;
	memcpy(r->names + r->names_len, name, len + 1);
	r->names_len += len + 1;
	return (int)r->nr_vmas++;
}

/* "rwxs" / "r-xp" as ADDRRES_VMA_* flags. */
static uint32_t perms__flags(const char *p)
{
	uint32_t flags = 0;

	if (p[0] == 'r')
		flags |= ADDRRES_VMA_READABLE;
	if (p[1] == 'w')
		flags |= ADDRRES_VMA_WRITABLE;
	if (p[2] == 'x')
		flags |= ADDRRES_VMA_EXECUTABLE;
	if (p[3] == 's')
		flags |= ADDRRES_VMA_SHARED;
	return flags;
}

/*
 * Place sorted @addrs with one pass over the text, stopping once every
 * address is placed (as the library's text method does).
 */
static int text_stdio__resolve(const uint64_t *addrs, size_t n,
			       struct stdio_result *res)
{
	static char iobuf[4096], name[PATH_MAX];
	unsigned long long start, end, offset, inode;
	unsigned int major, minor;
	char perms[4];
	size_t next = 0;
	FILE *f;
	int got;

	res->nr_vmas = 0;
	res->names_len = 0;
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
		struct stdio_vma rec = { .start = start, .end = end,
					 .offset = offset, .inode = inode,
					 .dev_major = major, .dev_minor = minor,
					 .flags = perms__flags(perms) };
		int idx;

		if (got == 7)
			name[0] = '\0';
		while (next < n && addrs[next] < start)
			res->vma_of[next++] = -1;
		if (next == n || addrs[next] >= end)
			continue;
		idx = stdio_result__add(res, &rec, name);
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

/* One planned VMA, and what every method must report for it. */
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
		v->flags = ADDRRES_VMA_READABLE;
		if (made++ % 2)
			v->flags |= ADDRRES_VMA_WRITABLE;
		if (v->kind == KIND_ANON) {
			v->name = "";
			v->named = rng__below(rng, 2);
			lo->nr_anon++;
			continue;
		}
		if (v->kind == KIND_FILE_SHARED)
			v->flags |= ADDRRES_VMA_SHARED;
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
	if (v->flags & ADDRRES_VMA_WRITABLE)
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

/* A VMA as the checks compare it, from the library or the reference. */
struct vma_view {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t flags;
	const char *name;
	const unsigned char *build_id;
	size_t build_id_size;
};

/* One method's answers to a batch: the library's or the reference's. */
struct answers {
	const char *who;
	const struct addrres_vma *const *vmas;	/* the library's, or NULL */
	const struct stdio_result *stdio;	/* else the reference's */
};

/* The VMA of address @i into *@v; false if the method found none. */
static bool answers__view(const struct answers *a, size_t i, struct vma_view *v)
{
	const struct stdio_vma *s;

	if (a->vmas) {
		const struct addrres_vma *l = a->vmas[i];

		if (!l)
			return false;
		*v = (struct vma_view){ .start = l->start, .end = l->end,
					.offset = l->offset, .inode = l->inode,
					.dev_major = l->dev_major,
					.dev_minor = l->dev_minor, .flags = l->flags,
					.name = l->name, .build_id = l->build_id,
					.build_id_size = l->build_id_size };
		return true;
	}
	if (a->stdio->vma_of[i] < 0)
		return false;
	s = &a->stdio->vmas[a->stdio->vma_of[i]];
	*v = (struct vma_view){ .start = s->start, .end = s->end,
				.offset = s->offset, .inode = s->inode,
				.dev_major = s->dev_major, .dev_minor = s->dev_minor,
				.flags = s->flags, .name = a->stdio->names + s->name_off };
	return true;
}

static void vma_view__print(const char *who, const struct vma_view *v)
{
	char perms[5];

	if (!v) {
		fprintf(stderr, "  %-8s (not mapped)\n", who);
		return;
	}
	flags__format(v->flags, perms);
	fprintf(stderr, "  %-8s %llx-%llx %s %llx %02x:%02x %llu '%s', %zu-byte build ID\n",
		who, (unsigned long long)v->start, (unsigned long long)v->end,
		perms, (unsigned long long)v->offset, v->dev_major, v->dev_minor,
		(unsigned long long)v->inode, v->name, v->build_id_size);
}

static bool vma_view__same(const struct vma_view *a, const struct vma_view *b)
{
	return a->start == b->start && a->end == b->end &&
	       a->offset == b->offset && a->inode == b->inode &&
	       a->dev_major == b->dev_major && a->dev_minor == b->dev_minor &&
	       a->flags == b->flags && !strcmp(a->name, b->name) &&
	       a->build_id_size == b->build_id_size &&
	       (!a->build_id_size || !memcmp(a->build_id, b->build_id, a->build_id_size));
}

/*
 * The device and inode a method reports for a file of the set.  They are
 * checked for consistency, not against fstat(): on overlayfs stat() and
 * the maps file may name different layers.
 */
struct file_identity {
	bool seen;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
};

/* Why @v is not the planned VMA @lv, or NULL if it is. */
static const char *layout_vma__mismatch(const struct layout_vma *lv,
					const struct vma_view *v,
					struct file_identity *ids)
{
	struct file_identity *id;

	if (v->start != lv->start || v->end != lv->end)
		return "range";
	if (v->offset != lv->offset)
		return "file offset";
	if (v->flags != lv->flags)
		return "permissions";
	if (strcmp(v->name, lv->name))
		return "name";
	if (lv->file < 0)
		return v->inode || v->dev_major || v->dev_minor ?
		       "a device or inode for an anonymous VMA" : NULL;
	if (!v->inode)
		return "no inode for a file's VMA";
	id = &ids[lv->file];
	if (!id->seen) {
		*id = (struct file_identity){ .seen = true, .inode = v->inode,
					      .dev_major = v->dev_major,
					      .dev_minor = v->dev_minor };
		return NULL;
	}
	return id->inode != v->inode || id->dev_major != v->dev_major ||
	       id->dev_minor != v->dev_minor ?
	       "not the device and inode of the file's other VMAs" : NULL;
}

/* Ground truth: the layout we created ourselves. */
static int verify__layout(const struct layout *lo, const struct file_set *fs,
			  const uint64_t *addrs, size_t n, const struct answers *a)
{
	struct file_identity ids[NR_FILES] = { { 0 } };

	for (size_t i = 0; i < n; i++) {
		const struct layout_vma *lv = layout__lookup(lo, addrs[i]);
		bool want = lv && lv->kind != KIND_HOLE;
		struct vma_view got;
		bool found = answers__view(a, i, &got);
		const char *why;

		if (!want)
			why = found ? "a VMA in a hole" : NULL;
		else
			why = found ? layout_vma__mismatch(lv, &got, ids) : "no VMA";
		if (!why)
			continue;
		fprintf(stderr, "%s: wrong VMA for address %llx (%s):\n", a->who,
			(unsigned long long)addrs[i], why);
		if (want) {
			char perms[5];

			flags__format(lv->flags, perms);
			fprintf(stderr, "  expected %llx-%llx %s %llx '%s'\n",
				(unsigned long long)lv->start,
				(unsigned long long)lv->end, perms,
				(unsigned long long)lv->offset, lv->name);
		} else {
			fprintf(stderr, "  expected (not mapped)\n");
		}
		vma_view__print("got", found ? &got : NULL);
		return -EIO;
	}
	for (int f = 0; f < NR_FILES; f++) {
		for (int g = f + 1; g < NR_FILES; g++) {
			if (ids[f].seen && ids[g].seen && ids[f].inode == ids[g].inode &&
			    ids[f].dev_major == ids[g].dev_major &&
			    ids[f].dev_minor == ids[g].dev_minor) {
				fprintf(stderr, "%s: %s and %s have the same device and inode\n",
					a->who, fs->path[f], fs->path[g]);
				return -EIO;
			}
		}
	}
	return 0;
}

/* Every field of every address's VMA, build IDs included. */
static int verify__same(const uint64_t *addrs, size_t n, const struct answers *a,
			const struct answers *b)
{
	for (size_t i = 0; i < n; i++) {
		struct vma_view va, vb;
		bool in_a = answers__view(a, i, &va), in_b = answers__view(b, i, &vb);

		if (in_a == in_b && (!in_a || vma_view__same(&va, &vb)))
			continue;
		fprintf(stderr, "%s and %s disagree on address %llx:\n",
			a->who, b->who, (unsigned long long)addrs[i]);
		vma_view__print(a->who, in_a ? &va : NULL);
		vma_view__print(b->who, in_b ? &vb : NULL);
		return -EIO;
	}
	return 0;
}

/* The distinct planned VMAs that hold sorted @addrs (holes do not count). */
static size_t layout__count_hit(const struct layout *lo, const uint64_t *addrs,
				size_t n)
{
	const struct layout_vma *prev = NULL;
	size_t hit = 0;

	for (size_t i = 0; i < n; i++) {
		const struct layout_vma *lv = layout__lookup(lo, addrs[i]);

		if (!lv || lv->kind == KIND_HOLE)
			lv = NULL;
		else if (lv != prev)
			hit++;
		prev = lv;
	}
	return hit;
}

/* ---- build IDs -------------------------------------------------------- */

/* Larger than any the kernel reports (20): our own is compared in full. */
#define SELF_BUILD_ID_MAX	64

struct build_id {
	unsigned char data[SELF_BUILD_ID_MAX];
	size_t size;
};

static size_t align_up(size_t v, size_t align)
{
	return (v + align - 1) / align * align;
}

/*
 * The GNU build ID among the @len bytes of notes at @notes, a PT_NOTE
 * segment of alignment @align (4, or 8 for GNU property notes).  A note is
 * a 12-byte header and its name, then its descriptor at the next multiple
 * of @align from the segment's start (itself so aligned), then the next
 * note at the next multiple after the descriptor: with 8, the descriptor
 * of "GNU" starts 16 bytes into its note, not 20.  Every size is checked
 * against what is left before use.
 */
static bool notes__find_build_id(const unsigned char *notes, size_t len,
				 size_t align, struct build_id *out)
{
	size_t off = 0;

	while (off < len && len - off >= sizeof(ElfW(Nhdr))) {
		size_t name_off = off + sizeof(ElfW(Nhdr)), desc_off;
		ElfW(Nhdr) nh;

		memcpy(&nh, notes + off, sizeof(nh));	/* no alignment assumed */
		if (nh.n_namesz > len - name_off)
			return false;
		desc_off = align_up(name_off + nh.n_namesz, align);
		if (desc_off > len || nh.n_descsz > len - desc_off)
			return false;
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == sizeof("GNU") &&
		    !memcmp(notes + name_off, "GNU", sizeof("GNU")) &&
		    nh.n_descsz > 0 && nh.n_descsz <= sizeof(out->data)) {
			memcpy(out->data, notes + desc_off, nh.n_descsz);
			out->size = nh.n_descsz;
			return true;
		}
		off = align_up(desc_off + nh.n_descsz, align);
	}
	return false;
}

/* The main program comes first; its notes hold our build ID. */
static int self_build_id__phdr(struct dl_phdr_info *info, size_t sz, void *data)
{
	(void)sz;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const unsigned char *notes;

		if (ph->p_type != PT_NOTE)
			continue;
		notes = (const unsigned char *)(info->dlpi_addr + ph->p_vaddr);
		if (notes__find_build_id(notes, ph->p_memsz, ph->p_align == 8 ? 8 : 4,
					 data))
			break;
	}
	return 1;
}

/*
 * ELF copies must report our build ID, the data file none.  A missing ID
 * is counted, not fatal (the kernel reads it from the page cache only,
 * a library built without libelf finds none on its text path); a wrong
 * one is a bug.
 */
static int verify__build_ids(const struct answers *a, size_t n,
			     const struct layout *lo,
			     const struct file_set *fs, const struct build_id *self,
			     size_t *found, size_t *expected)
{
	*found = *expected = 0;
	for (size_t i = 0; i < n; i++) {
		const struct addrres_vma *v = a->vmas[i];
		const struct layout_vma *lv;
		bool want;

		/* addresses of one VMA share its pointer: count it once */
		if (!v || (i && a->vmas[i - 1] == v))
			continue;
		lv = layout__lookup(lo, v->start);
		want = lv && lv->file >= 0 && fs->is_exe[lv->file] && self->size;
		*expected += want;
		if (!v->build_id_size && !v->build_id)
			continue;
		if (!want || !v->build_id || v->build_id_size != self->size ||
		    memcmp(v->build_id, self->data, self->size)) {
			fprintf(stderr, "%s: unexpected %zu-byte build ID for VMA %llx-%llx '%s'\n",
				a->who, v->build_id_size, (unsigned long long)v->start,
				(unsigned long long)v->end, v->name);
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
	bool ioctl;		/* PROCMAP_QUERY works: time the queries too */
	bool named;		/* the VMAs map a file, so queries return a path */
	long vmas;		/* VMAs the child really had */
	double query_ns;
	double msync_ns;	/* the base's lock and VMA lookup, no query */
	double read_us;		/* reading the whole maps text once (anonymous) */
	double text_us;		/* the library's text method over all of it */
};

struct results {
	bool ioctl_ok;
	long vmas;
	size_t naddrs;
	size_t distinct;
	size_t vmas_hit;
	size_t text_lines;	/* maps lines the text method read */
	double text_us;
	double text_stdio_us;
	double ioctl_us;
	size_t ioctl_queries;
	double ioctl_queries_us;	/* the queries alone, on a set kept open */
	double auto_us;
	/* open() and close() alone, of the maps file and of two others */
	double open_maps_us, open_status_us, open_null_us;
	/* M_IOCTL's queries as bare ioctl()s: with open() + close(), without */
	double raw_batch_us, raw_queries_us;
	double null_syscall_ns, unknown_ioctl_ns;	/* per call */
	size_t auto_queries;
	size_t auto_text_lines;
	enum addrres_procmaps_method auto_method;	/* what answered */
	struct scale_result scale[NR_SCALES];
	struct scale_result named_scale[NR_SCALES];
	bool bid_ok;
	size_t bid_addrs;
	size_t bid_queries;
	double bid_plain_ns;
	double bid_ns;
	size_t bid_found;
	size_t bid_expected;
	size_t bid_text_found;	/* the same from the text method (libelf) */
};

/*
 * What is timed.  A run of a library method is what a profiler does with
 * a batch: addrres_procmaps__open() of this process, __resolve(), __free().
 */
enum method {
	M_TEXT,			/* measurement 1: every address */
	M_TEXT_STDIO,		/* the reference, not the library */
	M_IOCTL,
	M_AUTO,
	M_IOCTL_KEPT_OPEN,	/* M_IOCTL's resolve on a set opened once */
	M_OPEN_MAPS,		/* what a run pays around its queries: */
	M_OPEN_STATUS,		/* open() and close() of the maps file, */
	M_OPEN_NULL,		/* of another proc file, of /dev/null */
	M_RAW_BATCH,		/* M_IOCTL's queries as bare ioctl()s, with */
	M_RAW_QUERIES,		/* open() + close() and on a file kept open */
	M_NULL_SYSCALL,		/* probes of the base: PROBE_CALLS getppid()s, */
	M_UNKNOWN_IOCTL,	/* ioctl()s the maps file refuses */
	M_FILE_IOCTL,		/* measurement 2: addresses in file VMAs */
	M_FILE_IOCTL_BUILD_ID,
	NR_METHODS,
};

/* Everything the measurements share. */
struct bench {
	struct opts opts;
	struct file_set files;
	struct layout layout;
	struct stdio_result by_stdio;
	uint64_t *addrs;
	uint64_t *file_addrs;
	size_t nr_file_addrs;
	const struct addrres_vma **run_vmas;	/* timed runs' answers, unread */
	struct addrres_procmaps *kept_open;	/* M_IOCTL_KEPT_OPEN's set */
	uint64_t *raw_addrs;	/* one address in each VMA M_IOCTL queries */
	size_t nr_raw;
	int raw_fd;		/* M_RAW_QUERIES's and M_UNKNOWN_IOCTL's maps file */
	char raw_name[PATH_MAX];
	double *times[NR_METHODS];
	struct build_id self_id;
	struct results res;
	struct utsname uts;
	char errbuf[512];	/* the library's last message */
};

static const char *method__name(enum addrres_procmaps_method m)
{
	return m == ADDRRES_PROCMAPS_METHOD_IOCTL ? "ioctl" :
	       m == ADDRRES_PROCMAPS_METHOD_TEXT ? "text" : "auto";
}

/* Say why @what failed: the library's message if it left one. */
static void bench__report(const struct bench *b, const char *what, int err)
{
	fprintf(stderr, "%s: %s\n", what, b->errbuf[0] ? b->errbuf : strerror(-err));
}

static struct addrres_procmaps_opts bench__lib_opts(struct bench *b,
						    enum addrres_procmaps_method method,
						    bool build_ids)
{
	ADDRRES_OPTS(addrres_procmaps_opts, opts, .method = method,
		     .build_ids = build_ids, .text_read_size = b->opts.read_size,
		     .errbuf = b->errbuf, .errbuf_sz = sizeof(b->errbuf));
	return opts;
}

/* One timed run of a library method: open, resolve, free. */
static int bench__lib_run(struct bench *b, enum addrres_procmaps_method method,
			  bool build_ids, const uint64_t *addrs, size_t n)
{
	struct addrres_procmaps_opts opts = bench__lib_opts(b, method, build_ids);
	struct addrres_procmaps *pm;
	int err;

	err = addrres_procmaps__open(&opts, &pm);
	if (err)
		return err;
	err = addrres_procmaps__resolve(pm, addrs, n, b->run_vmas);
	addrres_procmaps__free(pm);
	return err;
}

/* A library method's answers to a batch, its set kept open for the checks. */
struct lib_batch {
	enum addrres_procmaps_method method;	/* asked for */
	struct addrres_procmaps *pm;
	const struct addrres_vma **vmas;
	struct addrres_procmaps_stats stats;
	struct answers answers;
};

static int lib_batch__resolve(struct lib_batch *lb, struct bench *b, const char *who,
			      enum addrres_procmaps_method method, bool build_ids,
			      const uint64_t *addrs, size_t n)
{
	struct addrres_procmaps_opts opts = bench__lib_opts(b, method, build_ids);
	int err;

	lb->method = method;
	lb->stats = (struct addrres_procmaps_stats){ .sz = sizeof(lb->stats) };
	lb->vmas = calloc(n ? n : 1, sizeof(*lb->vmas));
	lb->answers = (struct answers){ .who = who, .vmas = lb->vmas };
	if (!lb->vmas)
		return -ENOMEM;
	err = addrres_procmaps__open(&opts, &lb->pm);
	if (!err)
		err = addrres_procmaps__resolve(lb->pm, addrs, n, lb->vmas);
	if (!err)
		err = addrres_procmaps__stats(lb->pm, &lb->stats);
	return err;
}

static void lib_batch__free(struct lib_batch *lb)
{
	addrres_procmaps__free(lb->pm);
	free(lb->vmas);
	memset(lb, 0, sizeof(*lb));
}

static int bench__setup(struct bench *b)
{
	const struct opts *o = &b->opts;
	struct rng rng = { RNG_SEED };
	long existing, want;
	const char *tmp = getenv("TMPDIR");
	bool nomem;
	int err;

	/* allocate before mapping so that nothing lands in our holes */
	err = stdio_result__init(&b->by_stdio, o->naddrs);
	b->addrs = calloc(o->naddrs, sizeof(*b->addrs));
	b->file_addrs = calloc(o->naddrs, sizeof(*b->file_addrs));
	b->run_vmas = calloc(o->naddrs, sizeof(*b->run_vmas));
	b->raw_addrs = calloc(o->naddrs, sizeof(*b->raw_addrs));
	nomem = err || !b->addrs || !b->file_addrs || !b->run_vmas || !b->raw_addrs;
	for (int m = 0; m < NR_METHODS; m++) {
		b->times[m] = calloc(o->runs, sizeof(*b->times[m]));
		nomem = nomem || !b->times[m];
	}
	if (nomem) {
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

/* What the library says it did must fit the batch: checked, not trusted. */
static int verify__stats(const struct lib_batch *lb, size_t hit)
{
	const struct addrres_procmaps_stats *s = &lb->stats;
	bool by_text = s->method == ADDRRES_PROCMAPS_METHOD_TEXT;
	const char *why = NULL;

	if (s->vmas != hit)
		why = "its count of VMAs hit is not the layout's";
	else if (by_text ? !s->text_lines :
		 s->method != ADDRRES_PROCMAPS_METHOD_IOCTL || s->text_lines || !s->ioctl_queries)
		why = "the method it reports does not fit its counts";
	else if (lb->method != ADDRRES_PROCMAPS_METHOD_AUTO && lb->method != s->method)
		why = "not the method asked for";
	else if (lb->method == ADDRRES_PROCMAPS_METHOD_TEXT && s->ioctl_queries)
		why = "queries from the text method";
	if (!why)
		return 0;
	fprintf(stderr, "%s: the library's stats: %s (method %s, %zu VMAs, %zu"
		" queries, %zu lines; %zu VMAs hit in the layout)\n",
		lb->answers.who, why, method__name(s->method), s->vmas,
		s->ioctl_queries, s->text_lines, hit);
	return -EIO;
}

/* ---- the ioctl method's queries without the library ------------------ */

/*
 * One address per VMA the ioctl method queried, in the batch's order: the
 * first of the (sorted) addresses that VMA answered.  Bare ioctl()s of
 * these are the kernel's part of a run of the method.
 */
static void raw__plan(struct bench *b, const struct lib_batch *ioctl)
{
	uint64_t last_start = 0;

	b->nr_raw = 0;
	for (size_t i = 0; i < b->opts.naddrs; i++) {
		const struct addrres_vma *v = ioctl->vmas[i];

		if (!v || (b->nr_raw && v->start == last_start))
			continue;
		b->raw_addrs[b->nr_raw++] = b->addrs[i];
		last_start = v->start;
	}
}

/* The library's query, bare: covering or next VMA, a PATH_MAX name buffer. */
static int raw__query(int fd, uint64_t addr, char *name)
{
	struct procmap_query q = {
		.size = sizeof(q),
		.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA,
		.query_addr = addr,
		.vma_name_addr = (uintptr_t)name,
		.vma_name_size = PATH_MAX,
	};

	if (ioctl(fd, PROCMAP_QUERY, &q))
		return -errno;
	return q.vma_start <= addr && addr < q.vma_end ? 0 : -EPROTO;
}

static int raw__queries(struct bench *b, int fd)
{
	int err = 0;

	for (size_t i = 0; !err && i < b->nr_raw; i++)
		err = raw__query(fd, b->raw_addrs[i], b->raw_name);
	return err;
}

/* A run of the ioctl method as a program without the library would make it. */
static int raw__batch(struct bench *b)
{
	int fd = open(MAPS_PATH, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = raw__queries(b, fd);
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* The system call path alone: getppid() does nothing else (glibc does not cache it). */
static int probe__null_syscalls(void)
{
	for (int i = 0; i < PROBE_CALLS; i++)
		syscall(SYS_getppid);
	return 0;
}

/* The ioctl path up to the maps file's handler, which refuses the command. */
static int probe__unknown_ioctls(int fd)
{
	for (int i = 0; i < PROBE_CALLS; i++) {
		if (ioctl(fd, UNKNOWN_MAPS_IOCTL, NULL) != -1 || errno != ENOTTY)
			return -EPROTO;
	}
	return 0;
}

/*
 * Check the methods against the layout and each other, untimed, and take
 * the library's counts.  Without PROCMAP_QUERY only ioctl_ok stays false.
 */
static int bench__verify(struct bench *b)
{
	const uint64_t *addrs = b->addrs;
	size_t n = b->opts.naddrs, unmapped = 0, hit;
	struct lib_batch text = { 0 }, ioctl = { 0 }, autom = { 0 };
	const struct answers stdio = { .who = "text (stdio)", .stdio = &b->by_stdio };
	int err;

	hit = layout__count_hit(&b->layout, addrs, n);
	err = lib_batch__resolve(&text, b, "text", ADDRRES_PROCMAPS_METHOD_TEXT, false,
				 addrs, n);
	if (err) {
		bench__report(b, "libaddrres, text method", err);
		goto out;
	}
	err = verify__layout(&b->layout, &b->files, addrs, n, &text.answers);
	if (!err)
		err = verify__stats(&text, hit);
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++)
		unmapped += !text.vmas[i];
	b->res.vmas_hit = text.stats.vmas;
	b->res.text_lines = text.stats.text_lines;
	printf("verify: the text method matches the created layout for all %zu"
	       " addresses (%zu distinct; %zu VMAs hit, %zu addresses unmapped;"
	       " it stops after line %zu of %ld)\n",
	       n, b->res.distinct, b->res.vmas_hit, unmapped,
	       b->res.text_lines, b->res.vmas);

	err = text_stdio__resolve(addrs, n, &b->by_stdio);
	if (err) {
		fprintf(stderr, "parsing %s with stdio: %s\n", MAPS_PATH,
			strerror(-err));
		goto out;
	}
	err = verify__same(addrs, n, &text.answers, &stdio);
	if (err)
		goto out;

	err = lib_batch__resolve(&ioctl, b, "ioctl", ADDRRES_PROCMAPS_METHOD_IOCTL, false,
				 addrs, n);
	if (err && err != -ENOTTY) {
		bench__report(b, "libaddrres, ioctl method", err);
		goto out;
	}
	b->res.ioctl_ok = !err;
	if (b->res.ioctl_ok) {
		err = verify__same(addrs, n, &text.answers, &ioctl.answers);
		if (!err)
			err = verify__stats(&ioctl, hit);
		if (err)
			goto out;
		b->res.ioctl_queries = ioctl.stats.ioctl_queries;
		raw__plan(b, &ioctl);
	}

	err = lib_batch__resolve(&autom, b, "auto", ADDRRES_PROCMAPS_METHOD_AUTO, false,
				 addrs, n);
	if (err) {
		bench__report(b, "libaddrres, AUTO", err);
		goto out;
	}
	err = verify__same(addrs, n, &text.answers, &autom.answers);
	if (!err)
		err = verify__stats(&autom, hit);
	if (err)
		goto out;
	b->res.auto_queries = autom.stats.ioctl_queries;
	b->res.auto_text_lines = autom.stats.text_lines;
	b->res.auto_method = autom.stats.method;
	printf("verify: %sthe stdio reference and AUTO give the text method's VMA,"
	       " every field, for all %zu addresses\n",
	       b->res.ioctl_ok ? "PROCMAP_QUERY, " : "", n);
out:
	lib_batch__free(&text);
	lib_batch__free(&ioctl);
	lib_batch__free(&autom);
	return err;
}

static double bench__query_ns(const struct results *r)
{
	return r->ioctl_queries_us * 1e3 / (double)r->ioctl_queries;
}

/*
 * Methods time their runs in blocks of this many back to back, as a tool
 * resolving batch after batch would; the blocks alternate so that drift
 * hits every method alike.  Under TCG the first run after another method
 * is much slower (emulated TLBs and caches are cold), and interleaving
 * single runs would charge that to every run: a short ioctl run twice.
 */
#define RUNS_PER_BLOCK	10

/* open() and close() of @path: 0 or a negative errno. */
static int open_close(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	return close(fd) ? -errno : 0;
}

/* One timed run of @m into *@ns. */
static int bench__time_run(struct bench *b, enum method m, double *ns)
{
	const uint64_t *addrs = b->addrs, *file_addrs = b->file_addrs;
	size_t n = b->opts.naddrs, nf = b->nr_file_addrs;
	uint64_t t0 = now_ns();
	int err;

	switch (m) {
	case M_TEXT:
		err = bench__lib_run(b, ADDRRES_PROCMAPS_METHOD_TEXT, false, addrs, n);
		break;
	case M_TEXT_STDIO:
		err = text_stdio__resolve(addrs, n, &b->by_stdio);
		break;
	case M_IOCTL:
		err = bench__lib_run(b, ADDRRES_PROCMAPS_METHOD_IOCTL, false, addrs, n);
		break;
	case M_AUTO:
		err = bench__lib_run(b, ADDRRES_PROCMAPS_METHOD_AUTO, false, addrs, n);
		break;
	case M_IOCTL_KEPT_OPEN:
		err = addrres_procmaps__resolve(b->kept_open, addrs, n, b->run_vmas);
		break;
	case M_OPEN_MAPS:
		err = open_close(MAPS_PATH);
		break;
	case M_OPEN_STATUS:
		err = open_close("/proc/self/status");
		break;
	case M_OPEN_NULL:
		err = open_close("/dev/null");
		break;
	case M_RAW_BATCH:
		err = raw__batch(b);
		break;
	case M_RAW_QUERIES:
		err = raw__queries(b, b->raw_fd);
		break;
	case M_NULL_SYSCALL:
		err = probe__null_syscalls();
		break;
	case M_UNKNOWN_IOCTL:
		err = probe__unknown_ioctls(b->raw_fd);
		break;
	case M_FILE_IOCTL:
		err = bench__lib_run(b, ADDRRES_PROCMAPS_METHOD_IOCTL, false,
				     file_addrs, nf);
		break;
	case M_FILE_IOCTL_BUILD_ID:
		err = bench__lib_run(b, ADDRRES_PROCMAPS_METHOD_IOCTL, true,
				     file_addrs, nf);
		break;
	default:
		err = -EINVAL;
		break;
	}
	*ns = (double)(now_ns() - t0);
	return err;
}

/* @o->runs timed runs of each of the @nr methods @ms, taking turns in blocks. */
static int bench__time_methods(struct bench *b, const enum method *ms, size_t nr)
{
	unsigned int runs = b->opts.runs;
	int err = 0;

	for (unsigned int done = 0; !err && done < runs; done += RUNS_PER_BLOCK) {
		unsigned int end = runs - done < RUNS_PER_BLOCK ?
				   runs : done + RUNS_PER_BLOCK;

		for (size_t i = 0; !err && i < nr; i++) {
			for (unsigned int r = done; !err && r < end; r++)
				err = bench__time_run(b, ms[i], &b->times[ms[i]][r]);
		}
	}
	return err;
}

static double bench__median_us(struct bench *b, enum method m)
{
	return median(b->times[m], b->opts.runs) / 1e3;
}

/* Measurement 1. */
static int bench__compare(struct bench *b)
{
	static const enum method with_ioctl[] = { M_TEXT, M_TEXT_STDIO, M_IOCTL,
						  M_AUTO, M_IOCTL_KEPT_OPEN, M_OPEN_MAPS,
						  M_OPEN_STATUS, M_OPEN_NULL, M_RAW_BATCH,
						  M_RAW_QUERIES, M_NULL_SYSCALL,
						  M_UNKNOWN_IOCTL };
	static const enum method without_ioctl[] = { M_TEXT, M_TEXT_STDIO, M_AUTO,
						     M_OPEN_MAPS, M_OPEN_STATUS,
						     M_OPEN_NULL };
	const struct opts *o = &b->opts;
	struct results *r = &b->res;
	double n = (double)o->naddrs, best;
	int err;

	if (r->ioctl_ok) {
		/* opened once: the queries without open() and close() */
		struct addrres_procmaps_opts opts =
			bench__lib_opts(b, ADDRRES_PROCMAPS_METHOD_IOCTL, false);

		err = addrres_procmaps__open(&opts, &b->kept_open);
		b->raw_fd = open(MAPS_PATH, O_RDONLY | O_CLOEXEC);
		if (!err && b->raw_fd < 0)
			err = -errno;
		if (!err)
			err = bench__time_methods(b, with_ioctl, ARRAY_LEN(with_ioctl));
		addrres_procmaps__free(b->kept_open);
		b->kept_open = NULL;
		if (b->raw_fd >= 0)
			close(b->raw_fd);
		b->raw_fd = -1;
	} else {
		err = bench__time_methods(b, without_ioctl, ARRAY_LEN(without_ioctl));
	}
	if (err) {
		bench__report(b, "timed run", err);
		return err;
	}
	r->text_us = bench__median_us(b, M_TEXT);
	r->text_stdio_us = bench__median_us(b, M_TEXT_STDIO);
	r->auto_us = bench__median_us(b, M_AUTO);
	r->open_maps_us = bench__median_us(b, M_OPEN_MAPS);
	r->open_status_us = bench__median_us(b, M_OPEN_STATUS);
	r->open_null_us = bench__median_us(b, M_OPEN_NULL);
	if (r->ioctl_ok) {
		r->ioctl_us = bench__median_us(b, M_IOCTL);
		r->ioctl_queries_us = bench__median_us(b, M_IOCTL_KEPT_OPEN);
		r->raw_batch_us = bench__median_us(b, M_RAW_BATCH);
		r->raw_queries_us = bench__median_us(b, M_RAW_QUERIES);
		r->null_syscall_ns = bench__median_us(b, M_NULL_SYSCALL) * 1e3 / PROBE_CALLS;
		r->unknown_ioctl_ns = bench__median_us(b, M_UNKNOWN_IOCTL) * 1e3 / PROBE_CALLS;
	}
	best = r->ioctl_ok && r->ioctl_us < r->text_us ? r->ioctl_us : r->text_us;

	printf("\n[1] resolve %zu sorted addresses, %ld VMAs, median of %u runs"
	       " (open + resolve + free), in blocks of %d\n", o->naddrs,
	       r->vmas, o->runs, RUNS_PER_BLOCK);
	printf("  text (libaddrres)   : %10.1f us/run %8.1f ns/address  (%zu lines)\n",
	       r->text_us, r->text_us * 1e3 / n, r->text_lines);
	printf("  text, stdio         : %10.1f us/run %8.1f ns/address"
	       "  (fscanf, as upstream's tool: the reference)\n",
	       r->text_stdio_us, r->text_stdio_us * 1e3 / n);
	if (r->ioctl_ok)
		printf("  ioctl (libaddrres)  : %10.1f us/run %8.1f ns/address"
		       "  (%zu queries/run, %.1f ns/query)\n",
		       r->ioctl_us, r->ioctl_us * 1e3 / n, r->ioctl_queries,
		       r->ioctl_queries ? bench__query_ns(r) : 0);
	printf("  auto (libaddrres)   : %10.1f us/run %8.1f ns/address"
	       "  (queries: %zu, lines: %zu; answered by %s)\n",
	       r->auto_us, r->auto_us * 1e3 / n, r->auto_queries,
	       r->auto_text_lines,
	       r->auto_method == ADDRRES_PROCMAPS_METHOD_IOCTL ? "the ioctl" :
	       !r->ioctl_ok ? "the text, the ioctl refused" :
	       r->auto_queries ? "the ioctl, then the text" : "the text");
	printf("  open() + close()    : %10.1f us the maps file, %.1f us /proc/self/status,"
	       " %.1f us /dev/null\n", r->open_maps_us, r->open_status_us, r->open_null_us);
	if (!r->ioctl_ok) {
		printf("  auto / text         : %10.2fx\n", r->auto_us / best);
		return 0;
	}
	printf("  the ioctl's resolve alone, on a set kept open: %.1f us/run\n",
	       r->ioctl_queries_us);
	printf("  its %zu queries as bare ioctl()s: %.1f us/run with open() + close(),"
	       " %.1f us on a file kept open\n", b->nr_raw, r->raw_batch_us,
	       r->raw_queries_us);
	printf("  the base under them: a system call %.1f ns (getppid), an ioctl the"
	       " maps file refuses %.1f ns\n", r->null_syscall_ns, r->unknown_ioctl_ns);
	printf("  text / ioctl        : %10.1fx\n", r->text_us / r->ioctl_us);
	printf("  stdio / ioctl       : %10.1fx\n", r->text_stdio_us / r->ioctl_us);
	printf("  auto / best of both : %10.2fx\n", r->auto_us / best);
	return 0;
}

/* Measurement 2: the ioctl over file-backed VMAs, with and without build IDs. */
static int bench__build_id(struct bench *b)
{
	static const enum method ms[] = { M_FILE_IOCTL, M_FILE_IOCTL_BUILD_ID };
	struct results *r = &b->res;
	const uint64_t *addrs = b->file_addrs;
	size_t n = b->nr_file_addrs, text_expected;
	struct lib_batch ioctl = { 0 }, text = { 0 };
	double runs_per_query;
	int err;

	r->bid_addrs = n;
	if (!n) {
		printf("\n[2] build IDs: no address in a file-backed VMA, skipped\n");
		return 0;
	}
	err = lib_batch__resolve(&ioctl, b, "ioctl+build-id", ADDRRES_PROCMAPS_METHOD_IOCTL,
				 true, addrs, n);
	if (!err)
		err = verify__layout(&b->layout, &b->files, addrs, n, &ioctl.answers);
	if (!err)
		err = verify__stats(&ioctl, layout__count_hit(&b->layout, addrs, n));
	if (!err)
		err = verify__build_ids(&ioctl.answers, n, &b->layout, &b->files,
					&b->self_id, &r->bid_found, &r->bid_expected);
	/* The text method's IDs (libelf) are checked too, but not timed. */
	if (!err)
		err = lib_batch__resolve(&text, b, "text+build-id",
					 ADDRRES_PROCMAPS_METHOD_TEXT, true, addrs, n);
	if (!err)
		err = verify__layout(&b->layout, &b->files, addrs, n, &text.answers);
	if (!err)
		err = verify__build_ids(&text.answers, n, &b->layout, &b->files,
					&b->self_id, &r->bid_text_found, &text_expected);
	r->bid_queries = ioctl.stats.ioctl_queries;
	lib_batch__free(&ioctl);
	lib_batch__free(&text);
	if (!err)
		err = bench__time_methods(b, ms, ARRAY_LEN(ms));
	if (err) {
		bench__report(b, "build IDs", err);
		return err;
	}
	r->bid_ok = r->bid_queries > 0;
	if (!r->bid_ok)
		return 0;
	/* Both runs make the same queries: only the build ID buffer differs. */
	runs_per_query = 1.0 / (double)r->bid_queries;
	r->bid_plain_ns = median(b->times[M_FILE_IOCTL], b->opts.runs) * runs_per_query;
	r->bid_ns = median(b->times[M_FILE_IOCTL_BUILD_ID], b->opts.runs) * runs_per_query;

	printf("\n[2] build IDs: %zu addresses in file-backed VMAs, %zu queries/run,"
	       " median of %u runs (open + resolve + free) in blocks of %d\n", n,
	       r->bid_queries, b->opts.runs, RUNS_PER_BLOCK);
	printf("  name only      : %10.1f ns/query\n", r->bid_plain_ns);
	printf("  name + build ID: %10.1f ns/query  (%zu of %zu ELF VMAs"
	       " returned our build ID; the text method's, untimed: %zu)\n",
	       r->bid_ns, r->bid_found, r->bid_expected, r->bid_text_found);
	printf("  slowdown       : %10.2fx\n", r->bid_ns / r->bid_plain_ns);
	return 0;
}
/* ---- measurement 3: per-query cost against VMA count ----------------- */

/* Reading the whole maps text once, unparsed: what any text method pays. */
static int maps__time_full_read(double *ns)
{
	char buf[65536];
	uint64_t t0 = now_ns();
	int fd = open(MAPS_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		;
	if (n < 0)
		n = -errno;
	close(fd);
	*ns = (double)(now_ns() - t0);
	return (int)n;
}

/*
 * The library's text method over the whole text, as a run opens it: one
 * address above every VMA makes it read every line.
 */
static int scale__time_text(const struct opts *o, double *ns)
{
	static const uint64_t above_every_vma = UINT64_MAX;
	ADDRRES_OPTS(addrres_procmaps_opts, opts, .method = ADDRRES_PROCMAPS_METHOD_TEXT,
		     .text_read_size = o->read_size);
	const struct addrres_vma *vma;
	struct addrres_procmaps *pm;
	uint64_t t0 = now_ns();
	int err;

	err = addrres_procmaps__open(&opts, &pm);
	if (err)
		return err;
	err = addrres_procmaps__resolve(pm, &above_every_vma, 1, &vma);
	addrres_procmaps__free(pm);
	*ns = (double)(now_ns() - t0);
	return err ? err : vma ? -EPROTO : 0;
}

/*
 * A one-address resolve with the ioctl method must be one query, or
 * scale__time_queries() would time something else.  It also makes the
 * set allocate what later resolves reuse.
 */
static int scale__check_one_query(struct addrres_procmaps *pm, uint64_t addr,
				  const char *name)
{
	struct addrres_procmaps_stats stats = { .sz = sizeof(stats) };
	const struct addrres_vma *vma;
	int err;

	err = addrres_procmaps__resolve(pm, &addr, 1, &vma);
	if (!err)
		err = addrres_procmaps__stats(pm, &stats);
	if (err)
		return err;
	if (stats.ioctl_queries != 1 || !vma)
		return -EPROTO;
	/* a name when the VMAs map a file, and the file's */
	return !strcmp(vma->name ? vma->name : "", name) ? 0 : -EPROTO;
}

/*
 * Rounds of one-address resolves of random addresses on @pm, a set of the
 * ioctl method kept open: one PROCMAP_QUERY each (COVERING_OR_NEXT_VMA, a
 * name buffer the kernel leaves empty) and the library's work around it.
 */
static int scale__time_queries(struct addrres_procmaps *pm, const uint64_t *addrs,
			       size_t n, unsigned int rounds, double *per_round)
{
	for (unsigned int r = 0; r < rounds; r++) {
		uint64_t t0 = now_ns();

		for (size_t i = 0; i < n; i++) {
			const struct addrres_vma *v;
			int err = addrres_procmaps__resolve(pm, &addrs[i], 1, &v);

			if (err)
				return err;
			if (!v || v->start > addrs[i] || v->end <= addrs[i] ||
			    v->end - v->start != (uint64_t)page_size)
				return -EPROTO;
		}
		per_round[r] = (double)(now_ns() - t0) / (double)n;
	}
	return 0;
}

/*
 * Rounds of msync(page, 0) at the pages of @addrs: nothing to write back,
 * so the system call, mmap_lock and the VMA lookup a query also pays,
 * none of the query's own work: the base's share of a query.
 */
static int scale__time_msync(const uint64_t *addrs, size_t n, unsigned int rounds,
			     double *per_round)
{
	uint64_t page_mask = ~((uint64_t)page_size - 1);

	for (unsigned int r = 0; r < rounds; r++) {
		uint64_t t0 = now_ns();

		for (size_t i = 0; i < n; i++) {
			if (msync((void *)(uintptr_t)(addrs[i] & page_mask),
				  (size_t)page_size, 0))
				return -errno;
		}
		per_round[r] = (double)(now_ns() - t0) / (double)n;
	}
	return 0;
}

/*
 * The scaling's VMAs over @want pages at @region: one mapping, anonymous
 * or, if @named, of a sparse file created in @dir (its path into @name,
 * the file unlinked by the caller), split into one-page VMAs by making
 * every other page writable.
 */
static int scale__map(char *region, size_t want, bool named, const char *dir,
		      char *name)
{
	int fd = -1, flags = MAP_FIXED | MAP_PRIVATE | MAP_NORESERVE;
	size_t len = want * (size_t)page_size;
	int n, err = 0;

	name[0] = '\0';
	if (named) {
		n = snprintf(name, PATH_MAX, "%s/scale-data", dir);
		if (n < 0 || n >= PATH_MAX)
			return -ENAMETOOLONG;
		fd = open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0) {
			name[0] = '\0';
			return -errno;
		}
		if (ftruncate(fd, (off_t)len))
			err = -errno;
	}
	if (!err && mmap(region, len, PROT_READ, flags | (named ? 0 : MAP_ANONYMOUS),
			 fd, 0) == MAP_FAILED)
		err = -errno;
	if (fd >= 0)
		close(fd);
	for (size_t i = 1; !err && i < want; i += 2) {
		if (mprotect(region + i * (size_t)page_size, (size_t)page_size,
			     PROT_READ | PROT_WRITE))
			err = -errno;
	}
	return err;
}

/*
 * In the child: one-page VMAs (alternating r--/rw- by mprotect) until
 * the process has @target VMAs, then time queries, msync() on the same
 * pages and, for anonymous VMAs, a full maps read and the library's text
 * method over the whole file.
 */
static int scale__measure(const struct opts *o, const char *dir, struct scale_result *out)
{
	struct rng rng = { RNG_SEED };
	size_t n = o->scale_queries;
	uint64_t *addrs = calloc(n, sizeof(*addrs));
	double *times = calloc(o->scale_rounds, sizeof(*times));
	ADDRRES_OPTS(addrres_procmaps_opts, opts, .method = ADDRRES_PROCMAPS_METHOD_IOCTL);
	struct addrres_procmaps *pm = NULL;
	size_t want, pages = 0;
	char *base = MAP_FAILED, *region, name[PATH_MAX] = "";
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
	err = scale__map(region, want, out->named, dir, name);
	if (err)
		goto out;
	for (size_t i = 0; i < n; i++)
		addrs[i] = (uintptr_t)region +
			   rng__below(&rng, want) * (uint64_t)page_size +
			   rng__below(&rng, (uint64_t)page_size);
	if (out->ioctl) {
		err = addrres_procmaps__open(&opts, &pm);
		if (!err)
			err = scale__check_one_query(pm, addrs[0], name);
		if (err)
			goto out;
	}
	/* after the library's allocations, which may add a VMA */
	out->vmas = maps__count_vmas();

	if (out->ioctl) {
		err = scale__time_queries(pm, addrs, n, o->scale_rounds, times);
		if (err)
			goto out;
		out->query_ns = median(times, o->scale_rounds);
	}
	err = scale__time_msync(addrs, n, o->scale_rounds, times);
	if (err)
		goto out;
	out->msync_ns = median(times, o->scale_rounds);
	if (out->named)
		goto out;
	for (unsigned int r = 0; !err && r < o->scale_rounds; r++)
		err = maps__time_full_read(&times[r]);
	out->read_us = median(times, o->scale_rounds) / 1e3;
	for (unsigned int r = 0; !err && r < o->scale_rounds; r++)
		err = scale__time_text(o, &times[r]);
	out->text_us = median(times, o->scale_rounds) / 1e3;
out:
	addrres_procmaps__free(pm);
	if (base != MAP_FAILED)
		munmap(base, pages * (size_t)page_size);
	if (name[0])
		unlink(name);
	free(addrs);
	free(times);
	return err;
}

/* A child per size: the layouts must not see each other. */
static int scale__run(const struct opts *o, const char *dir, struct scale_result *out)
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
		r.err = scale__measure(o, dir, &r);
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

/* One VMA count, anonymous or named: 0 or a negative errno (printed). */
static int bench__scale_one(struct bench *b, struct scale_result *s)
{
	int err = scale__run(&b->opts, b->files.dir, s);

	if (err) {
		fprintf(stderr, "measuring %ld VMAs: child failed\n", s->target);
		return err;
	}
	/* too many VMAs for this system: say so, go on */
	if (s->err == -ENOMEM) {
		scale__report_failure(s);
		return 0;
	}
	if (s->err) {
		fprintf(stderr, "%ld %s VMAs: %s\n", s->target,
			s->named ? "named" : "anonymous",
			s->err == -EPROTO ?
			"a one-address resolve was not one query, or its VMA"
			" does not cover the address or lacks the file's name" :
			strerror(-s->err));
		return s->err;
	}
	if (s->named)
		printf("  %6ld VMAs: %8.1f ns/query, named   (msync(): %.1f ns)\n",
		       s->vmas, s->query_ns, s->msync_ns);
	else if (s->ioctl)
		printf("  %6ld VMAs: %8.1f ns/query           (msync(): %.1f ns;"
		       " reading all of maps: %.1f us; the text method over all of it:"
		       " %.1f us)\n", s->vmas, s->query_ns, s->msync_ns, s->read_us,
		       s->text_us);
	else
		printf("  %6ld VMAs: no query (no PROCMAP_QUERY)  (msync(): %.1f ns;"
		       " reading all of maps: %.1f us; the text method over all of it:"
		       " %.1f us)\n", s->vmas, s->msync_ns, s->read_us, s->text_us);
	return 0;
}

static int bench__scale(struct bench *b)
{
	const struct opts *o = &b->opts;
	int err = 0;

	printf("\n[3] one query (a one-address resolve, libaddrres's ioctl method) at"
	       " random addresses, median of %u rounds x %zu queries; one-page VMAs,"
	       " anonymous (no name) and mapping a file (its path returned)\n",
	       o->scale_rounds, o->scale_queries);
	for (size_t i = 0; !err && i < NR_SCALES; i++) {
		bool ioctl = b->res.ioctl_ok;

		b->res.scale[i] = (struct scale_result){ .target = scale_targets[i],
							 .ioctl = ioctl };
		b->res.named_scale[i] = (struct scale_result){ .target = scale_targets[i],
							       .ioctl = ioctl, .named = true };
		err = bench__scale_one(b, &b->res.scale[i]);
		/* named VMAs change only what a query returns */
		if (!err && ioctl)
			err = bench__scale_one(b, &b->res.named_scale[i]);
	}
	return err;
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
	double best = r->ioctl_ok && r->ioctl_us < r->text_us ? r->ioctl_us : r->text_us;
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
	kv__double("ioctl_queries_per_run", (double)r->ioctl_queries, r->ioctl_ok, 0);
	kv__double("ioctl_ns_per_query", bench__query_ns(r),
		   r->ioctl_ok && r->ioctl_queries > 0, 1);
	kv__double("ioctl_queries_us_per_run", r->ioctl_queries_us,
		   r->ioctl_ok, 1);
	kv__double("ratio", r->text_us / r->ioctl_us,
		   r->ioctl_ok && r->ioctl_us > 0, 1);
	kv__double("text_stdio_us_per_run", r->text_stdio_us, true, 1);
	kv__double("ratio_stdio", r->text_stdio_us / r->ioctl_us,
		   r->ioctl_ok && r->ioctl_us > 0, 1);
	kv__double("auto_us_per_run", r->auto_us, true, 1);
	kv__double("auto_ns_per_addr", r->auto_us * 1e3 / n, true, 1);
	kv__double("auto_queries_per_run", (double)r->auto_queries, true, 0);
	kv__double("auto_text_lines_read", (double)r->auto_text_lines, true, 0);
	printf("auto_method: %s\n", method__name(r->auto_method));
	/* against the faster of the two methods AUTO chooses between */
	kv__double("auto_vs_best", r->auto_us / best, best > 0, 2);
	kv__double("open_close_maps_us", r->open_maps_us, true, 2);
	kv__double("open_close_status_us", r->open_status_us, true, 2);
	kv__double("open_close_null_us", r->open_null_us, true, 2);
	/* A run's cost besides its queries: open, the first query's set-up, close. */
	kv__double("ioctl_overhead_us_per_run", r->ioctl_us - r->ioctl_queries_us,
		   r->ioctl_ok, 1);
	/* The kernel's part of the same: bare ioctl()s, and the base under them. */
	kv__double("raw_queries_per_run", (double)b->nr_raw, r->ioctl_ok, 0);
	kv__double("raw_batch_us_per_run", r->raw_batch_us, r->ioctl_ok, 1);
	kv__double("raw_queries_us_per_run", r->raw_queries_us, r->ioctl_ok, 1);
	kv__double("raw_overhead_us_per_run", r->raw_batch_us - r->raw_queries_us,
		   r->ioctl_ok, 1);
	kv__double("null_syscall_ns", r->null_syscall_ns, r->ioctl_ok, 1);
	kv__double("unknown_ioctl_ns", r->unknown_ioctl_ns, r->ioctl_ok, 1);
	for (size_t i = 0; i < NR_SCALES; i++) {
		const struct scale_result *s = &r->scale[i];
		bool ran = s->target && !s->err, ok = r->ioctl_ok && ran;

		snprintf(key, sizeof(key), "query_ns_%ld", scale_targets[i]);
		kv__double(key, s->query_ns, ok, 1);
		snprintf(key, sizeof(key), "query_vmas_%ld", scale_targets[i]);
		kv__double(key, (double)s->vmas, ok, 0);
		snprintf(key, sizeof(key), "maps_read_us_%ld", scale_targets[i]);
		kv__double(key, s->read_us, ran, 1);
		snprintf(key, sizeof(key), "maps_text_us_%ld", scale_targets[i]);
		kv__double(key, s->text_us, ran, 1);
		snprintf(key, sizeof(key), "msync_ns_%ld", scale_targets[i]);
		kv__double(key, s->msync_ns, ran, 1);
		s = &r->named_scale[i];
		ok = r->ioctl_ok && s->target && !s->err;
		snprintf(key, sizeof(key), "named_query_ns_%ld", scale_targets[i]);
		kv__double(key, s->query_ns, ok, 1);
		snprintf(key, sizeof(key), "named_msync_ns_%ld", scale_targets[i]);
		kv__double(key, s->msync_ns, ok, 1);
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
	stdio_result__free(&b->by_stdio);
	free(b->addrs);
	free(b->file_addrs);
	free(b->run_vmas);
	free(b->raw_addrs);
	for (int m = 0; m < NR_METHODS; m++)
		free(b->times[m]);
	free(b);
}

static int bench__run(struct bench *b)
{
	int err;

	err = bench__setup(b);
	if (err)
		return 1;
	if (bench__verify(b) || bench__compare(b))
		return 1;
	if (b->res.ioctl_ok && bench__build_id(b))
		return 1;
	/* the children must not inherit the layout of [1] */
	layout__destroy(&b->layout);
	/* the text's scaling also without the ioctl: a kernel to compare with */
	if (bench__scale(b))
		return 1;
	results__print(b);
	if (!b->res.ioctl_ok) {
		printf("PROCMAP_QUERY not supported by this kernel\n");
		return EXIT_SKIP;
	}
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
	b->raw_fd = -1;
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
