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
 *
 * This file: helpers, options, measurements 1 and 2, output; layout.c
 * plans and maps the VMAs and draws the addresses, text.c is the stdio
 * reference, verify.c checks the answers, scale.c is measurement 3.
 */
#include "procmap-query-bench.h"

const long scale_targets[NR_SCALES] = { 100, 10000, 60000 };
long page_size;

/* ---- small helpers ---------------------------------------------------- */

int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int write_all(int fd, const void *buf, size_t len)
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

void flags__format(uint32_t flags, char out[5])
{
	out[0] = flags & ADDRRES_VMA_READABLE ? 'r' : '-';
	out[1] = flags & ADDRRES_VMA_WRITABLE ? 'w' : '-';
	out[2] = flags & ADDRRES_VMA_EXECUTABLE ? 'x' : '-';
	out[3] = flags & ADDRRES_VMA_SHARED ? 's' : 'p';
	out[4] = '\0';
}

/* VMAs of this process: one maps line each (plus [vsyscall] on x86). */
long maps__count_vmas(void)
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


/* ---- figures ---------------------------------------------------------- */

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
	struct bench_rng rng = { RNG_SEED };
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
	uint64_t t0 = bench_now_ns();
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
	*ns = (double)(bench_now_ns() - t0);
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
	return bench_median(b->times[m], b->opts.runs) / 1e3;
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
	r->bid_plain_ns = bench_median(b->times[M_FILE_IOCTL], b->opts.runs) * runs_per_query;
	r->bid_ns = bench_median(b->times[M_FILE_IOCTL_BUILD_ID], b->opts.runs) * runs_per_query;

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
	if (bench_clock_check()) {
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
