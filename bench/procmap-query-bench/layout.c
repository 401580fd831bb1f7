// SPDX-License-Identifier: GPL-2.0
/*
 * procmap-query-bench, layout.c: the files to map, the VMA layout of the
 * main comparison, the addresses drawn from it.
 */
#include "procmap-query-bench.h"

/* ---- files to map ----------------------------------------------------- */

void file_set__init(struct file_set *fs)
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

int file_set__create(struct file_set *fs)
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

void file_set__destroy(struct file_set *fs)
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

static void layout_vma__plan_file(struct layout_vma *v, const struct file_set *fs,
				  uint64_t pages, struct bench_rng *rng)
{
	v->file = (int)bench_rng__below(rng, NR_FILES);
	v->offset = bench_rng__below(rng, fs->pages[v->file] - pages + 1) *
		    (uint64_t)page_size;
	v->name = fs->path[v->file];
}

/*
 * Plan @want VMAs back to back, addresses relative to the reservation.
 * Neighbours alternate r-- and rw- so the kernel cannot merge them; now
 * and then an unmapped hole tests gap handling.
 */
static int layout__plan(struct layout *lo, size_t want,
			const struct file_set *fs, struct bench_rng *rng)
{
	uint64_t rel = (uint64_t)page_size;	/* after the guard page */
	size_t made = 0;

	/* holes never follow holes: at most one per VMA */
	lo->vmas = calloc(2 * want + 1, sizeof(*lo->vmas));
	if (!lo->vmas)
		return -ENOMEM;
	while (made < want) {
		struct layout_vma *v = &lo->vmas[lo->nr++];
		uint64_t pages = 1 + bench_rng__below(rng, MAX_VMA_PAGES);
		bool after_hole = lo->nr > 1 && v[-1].kind == KIND_HOLE;
		uint64_t r;

		v->start = rel;
		v->end = rel + pages * (uint64_t)page_size;
		rel = v->end;
		v->file = -1;
		if (lo->nr > 1 && !after_hole && !bench_rng__below(rng, 32)) {
			v->kind = KIND_HOLE;
			lo->nr_holes++;
			continue;
		}
		r = bench_rng__below(rng, 4);
		v->kind = r < 2 ? KIND_ANON :
			  r == 2 ? KIND_FILE_PRIVATE : KIND_FILE_SHARED;
		v->flags = ADDRRES_VMA_READABLE;
		if (made++ % 2)
			v->flags |= ADDRRES_VMA_WRITABLE;
		if (v->kind == KIND_ANON) {
			v->name = "";
			v->named = bench_rng__below(rng, 2);
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

int layout__create(struct layout *lo, size_t want,
		   const struct file_set *fs, struct bench_rng *rng)
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

void layout__destroy(struct layout *lo)
{
	if (lo->base)
		munmap(lo->base, lo->len);
	free(lo->vmas);
	memset(lo, 0, sizeof(*lo));
}

const struct layout_vma *layout__lookup(const struct layout *lo,
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

size_t addrs__count_distinct(const uint64_t *sorted, size_t n)
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
			size_t spread, uint64_t *out, size_t n, struct bench_rng *rng)
{
	for (size_t i = 0; i < n; i++) {
		const struct layout_vma *v = &lo->vmas[pick[bench_rng__below(rng, spread)]];

		out[i] = v->start + bench_rng__below(rng, v->end - v->start);
	}
}

/*
 * Random bytes in randomly chosen planned VMAs, sorted.  @o->spread limits
 * the choice to that many distinct VMAs, as when stack traces hit only a
 * few binaries; @o->code_only to private file mappings (no holes), where
 * instruction addresses fall; @o->distinct repeats that many addresses to
 * make up the set, as hot code shows up in many samples.
 */
int addrs__generate(const struct layout *lo, uint64_t *addrs,
		    const struct opts *o, struct bench_rng *rng)
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
		size_t j = i + (size_t)bench_rng__below(rng, nr_cand - i);
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
			addrs[i] = addrs[bench_rng__below(rng, have)];
	}
	free(pick);
	qsort(addrs, n, sizeof(*addrs), cmp_u64);
	return 0;
}
