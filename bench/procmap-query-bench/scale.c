// SPDX-License-Identifier: GPL-2.0
/*
 * procmap-query-bench, scale.c: measurement 3, the cost of one query against the number of VMAs
 */
#include "procmap-query-bench.h"

/* ---- measurement 3: per-query cost against VMA count ----------------- */

/* Reading the whole maps text once, unparsed: what any text method pays. */
static int maps__time_full_read(double *ns)
{
	char buf[65536];
	uint64_t t0 = bench_now_ns();
	int fd = open(MAPS_PATH, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		;
	if (n < 0)
		n = -errno;
	close(fd);
	*ns = (double)(bench_now_ns() - t0);
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
	uint64_t t0 = bench_now_ns();
	int err;

	err = addrres_procmaps__open(&opts, &pm);
	if (err)
		return err;
	err = addrres_procmaps__resolve(pm, &above_every_vma, 1, &vma);
	addrres_procmaps__free(pm);
	*ns = (double)(bench_now_ns() - t0);
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
		uint64_t t0 = bench_now_ns();

		for (size_t i = 0; i < n; i++) {
			const struct addrres_vma *v;
			int err = addrres_procmaps__resolve(pm, &addrs[i], 1, &v);

			if (err)
				return err;
			if (!v || v->start > addrs[i] || v->end <= addrs[i] ||
			    v->end - v->start != (uint64_t)page_size)
				return -EPROTO;
		}
		per_round[r] = (double)(bench_now_ns() - t0) / (double)n;
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
		uint64_t t0 = bench_now_ns();

		for (size_t i = 0; i < n; i++) {
			if (msync((void *)(uintptr_t)(addrs[i] & page_mask),
				  (size_t)page_size, 0))
				return -errno;
		}
		per_round[r] = (double)(bench_now_ns() - t0) / (double)n;
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
	struct bench_rng rng = { RNG_SEED };
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
			   bench_rng__below(&rng, want) * (uint64_t)page_size +
			   bench_rng__below(&rng, (uint64_t)page_size);
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
		out->query_ns = bench_median(times, o->scale_rounds);
	}
	err = scale__time_msync(addrs, n, o->scale_rounds, times);
	if (err)
		goto out;
	out->msync_ns = bench_median(times, o->scale_rounds);
	if (out->named)
		goto out;
	for (unsigned int r = 0; !err && r < o->scale_rounds; r++)
		err = maps__time_full_read(&times[r]);
	out->read_us = bench_median(times, o->scale_rounds) / 1e3;
	for (unsigned int r = 0; !err && r < o->scale_rounds; r++)
		err = scale__time_text(o, &times[r]);
	out->text_us = bench_median(times, o->scale_rounds) / 1e3;
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

int bench__scale(struct bench *b)
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
