// SPDX-License-Identifier: GPL-2.0
/*
 * symbolize-bench: how fast does libaddrres turn a profile's addresses
 * into symbols, against the tool a user would otherwise reach for
 * (elfutils' eu-addr2line --pid), and how many kernel address lookups
 * does it answer per second?  See README.md, "symbolize-bench".
 *
 *  1. A target process gets about -v VMAs (default 700) by dlopen()ing
 *     copies of a shared library (-l; `make bench` gives libaddrres.so,
 *     built with -g).  Two sets of -a addresses (default 4,000) are drawn
 *     from the copies' code: "profile", 700 distinct addresses in 6 of
 *     the code VMAs (the shape of upstream's published PROCMAP_QUERY
 *     figure), and "spread", one address set over every code VMA.  Each
 *     set is symbolized (VMA, then ELF symbol) by the library with the
 *     ioctl, the text and the automatic choice, each run from scratch
 *     (maps file opened, ELF files read), then with the ELF files open
 *     from a batch before; the same with source lines (automatic choice);
 *     and by one eu-addr2line --pid -S run, which always looks up lines.
 *     The answers must be the same symbol, offset and source line for
 *     every address, or the program fails before any timing.
 *  2. Kernel symbols: the time to read /proc/kallmodsyms (or kallsyms)
 *     and the lookups per second of addrres_ksyms__find_addr().
 *
 *   symbolize-bench [-q] [-r RUNS] [-v VMAS] [-a ADDRS] [-l LIB] [-k]
 *
 * Exit status: 0 success, 1 failure or different answers, 2 usage,
 * 4 the process part was skipped (no -l, no libdw, or no eu-addr2line;
 * the kernel part still ran).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <addrres/addrres.h>

#include "bench.h"

#define EXIT_SKIPPED 4

struct opts {
	int runs;
	size_t vmas;		/* the target's VMAs, about */
	size_t addrs;		/* addresses per set */
	size_t distinct;	/* distinct addresses of the profile set */
	size_t used;		/* code VMAs the profile set is drawn from */
	size_t lookups;		/* kernel lookups timed */
	const char *lib;	/* the library the target loads copies of */
	bool kernel_only;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: symbolize-bench [-q] [-r RUNS] [-v VMAS] [-a ADDRS] [-l LIB] [-k]\n"
		"  -q        quick: 2 runs, 100,000 kernel lookups\n"
		"  -r RUNS   timed runs per method (default 10)\n"
		"  -v VMAS   VMAs of the target process (default 700)\n"
		"  -a ADDRS  addresses per set (default 4000)\n"
		"  -l LIB    the shared library the target loads copies of (required\n"
		"            for the process part; it should have symbols)\n"
		"  -k        kernel lookups only\n");
}

static int parse_size(const char *s, size_t min, size_t max, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int opts__parse(struct opts *o, int argc, char **argv)
{
	size_t runs = 10;
	bool quick = false;
	int c;

	*o = (struct opts){ .vmas = 700, .addrs = 4000, .distinct = 700, .used = 6,
			    .lookups = 1000000 };
	while ((c = getopt(argc, argv, "qr:v:a:l:kh")) != -1) {
		switch (c) {
		case 'q':
			quick = true;
			break;
		case 'r':
			if (parse_size(optarg, 1, 100000, &runs))
				goto bad;
			break;
		case 'v':
			if (parse_size(optarg, 50, 60000, &o->vmas))
				goto bad;
			break;
		case 'a':
			if (parse_size(optarg, 1, 1000000, &o->addrs))
				goto bad;
			break;
		case 'l':
			o->lib = optarg;
			break;
		case 'k':
			o->kernel_only = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (quick) {
		runs = runs < 2 ? runs : 2;
		o->lookups = 100000;
	}
	o->runs = (int)runs;
	if (o->distinct > o->addrs)
		o->distinct = o->addrs;
	return 0;
bad:
	usage(stderr);
	return -1;
}

/* ---- the target process ------------------------------------------------ */

struct range {
	uint64_t start, end;
};

struct target {
	pid_t pid;
	int ctl_fd;		/* closing it ends the target */
	char dir[64];		/* the copies of the library */
	size_t nr_copies;
	struct range *code;	/* the copies' code segments, loaded */
	size_t nr_code;
	size_t vmas;
};

static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (out < 0) {
		ret = -errno;
		close(in);
		return ret;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, n) != n) {
			ret = -EIO;
			break;
		}
	}
	if (n < 0)
		ret = -errno;
	close(in);
	if (close(out) && !ret)
		ret = -errno;
	return ret;
}

/* The lines of /proc/PID/maps (0: this process). */
static size_t count_vmas(pid_t pid)
{
	char path[64], buf[65536];
	size_t lines = 0;
	ssize_t n;
	int fd;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n; i++)
			lines += buf[i] == '\n';
	close(fd);
	return lines;
}

struct child_report {
	const char *dir;
	int fd;
};

/* Each loaded copy's code segments, written to the parent. */
static int report_code(struct dl_phdr_info *info, size_t size, void *data)
{
	const struct child_report *c = data;

	(void)size;
	if (!info->dlpi_name || strncmp(info->dlpi_name, c->dir, strlen(c->dir)))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		struct range r;

		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		r.start = info->dlpi_addr + ph->p_vaddr;
		r.end = r.start + ph->p_memsz;
		if (write(c->fd, &r, sizeof(r)) != sizeof(r))
			_exit(1);
	}
	return 0;
}

static void target__child(const struct target *t, size_t want, int report_fd, int ctl_fd)
{
	struct child_report c = { .dir = t->dir, .fd = report_fd };
	char path[PATH_MAX], byte;

	for (size_t i = 0; i < t->nr_copies && count_vmas(0) < want; i++) {
		snprintf(path, sizeof(path), "%s/copy-%04zu.so", t->dir, i);
		if (!dlopen(path, RTLD_NOW | RTLD_LOCAL)) {
			fprintf(stderr, "target: %s\n", dlerror());
			_exit(1);
		}
	}
	dl_iterate_phdr(report_code, &c);
	close(report_fd);
	while (read(ctl_fd, &byte, 1) > 0)
		;
	_exit(0);
}

static void target__stop(struct target *t)
{
	char path[PATH_MAX];

	if (t->pid > 0) {
		close(t->ctl_fd);
		waitpid(t->pid, NULL, 0);
		t->pid = 0;
	}
	for (size_t i = 0; i < t->nr_copies; i++) {
		snprintf(path, sizeof(path), "%s/copy-%04zu.so", t->dir, i);
		unlink(path);
	}
	if (t->dir[0])
		rmdir(t->dir);
	free(t->code);
}

static int target__start(struct target *t, const struct opts *o)
{
	int report[2], ctl[2], err;
	char path[PATH_MAX];
	struct range r;
	ssize_t n;

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "%s/symbolize-bench.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (strlen(t->dir) >= sizeof(t->dir) - 1 || !mkdtemp(t->dir)) {
		fprintf(stderr, "cannot make a directory %s\n", t->dir);
		t->dir[0] = '\0';
		return -1;
	}
	/* At least 3 VMAs a copy (read-only, code, data): an upper bound. */
	for (; t->nr_copies < o->vmas / 3 + 1; t->nr_copies++) {
		snprintf(path, sizeof(path), "%s/copy-%04zu.so", t->dir, t->nr_copies);
		err = copy_file(o->lib, path);
		if (err) {
			fprintf(stderr, "copying %s to %s: %s\n", o->lib, path, strerror(-err));
			return -1;
		}
	}
	if (pipe2(report, O_CLOEXEC) || pipe2(ctl, O_CLOEXEC)) {
		perror("pipe");
		return -1;
	}
	fflush(NULL);
	t->pid = fork();
	if (t->pid < 0) {
		perror("fork");
		return -1;
	}
	if (!t->pid) {
		close(report[0]);
		close(ctl[1]);
		target__child(t, o->vmas, report[1], ctl[0]);
	}
	close(report[1]);
	close(ctl[0]);
	t->ctl_fd = ctl[1];
	while ((n = read(report[0], &r, sizeof(r))) == sizeof(r)) {
		struct range *more = reallocarray(t->code, t->nr_code + 1, sizeof(*more));

		if (!more) {
			close(report[0]);
			return -1;
		}
		t->code = more;
		t->code[t->nr_code++] = r;
	}
	close(report[0]);
	if (!t->nr_code) {
		fprintf(stderr, "the target loaded no copy of %s\n", o->lib);
		return -1;
	}
	t->vmas = count_vmas(t->pid);
	return 0;
}

/* ---- address sets -------------------------------------------------------- */

static uint64_t draw_in(struct bench_rng *rng, const struct range *r)
{
	return r->start + bench_rng__below(rng, r->end - r->start);
}

/* "profile": @o->distinct addresses in @o->used code VMAs, repeated. */
static void addrs__profile(const struct target *t, const struct opts *o, uint64_t *addrs)
{
	struct bench_rng rng = { 42 };
	size_t used = o->used < t->nr_code ? o->used : t->nr_code;
	uint64_t *distinct = calloc(o->distinct, sizeof(*distinct));

	if (!distinct)
		abort();
	for (size_t i = 0; i < o->distinct; i++)
		distinct[i] = draw_in(&rng, &t->code[bench_rng__below(&rng, used) * t->nr_code / used]);
	for (size_t i = 0; i < o->addrs; i++)
		addrs[i] = i < o->distinct ? distinct[i] : distinct[bench_rng__below(&rng, o->distinct)];
	free(distinct);
}

/* "spread": as many addresses in each code VMA, in random order. */
static void addrs__spread(const struct target *t, const struct opts *o, uint64_t *addrs)
{
	struct bench_rng rng = { 7 };

	for (size_t i = 0; i < o->addrs; i++)
		addrs[i] = draw_in(&rng, &t->code[i % t->nr_code]);
	for (size_t i = o->addrs - 1; i > 0; i--) {
		size_t j = bench_rng__below(&rng, i + 1);
		uint64_t tmp = addrs[i];

		addrs[i] = addrs[j];
		addrs[j] = tmp;
	}
}

/* ---- symbolizing ----------------------------------------------------------- */

/*
 * One address's answer: a symbol and offset, or none (name NULL); its
 * source line as eu-addr2line prints it, "FILE:LINE[:COLUMN]" (NULL:
 * none, or not asked for).
 */
struct answer {
	char *name;
	uint64_t offset;
	char *src;
};

static void answers__free(struct answer *a, size_t n)
{
	for (size_t i = 0; a && i < n; i++) {
		free(a[i].name);
		free(a[i].src);
	}
	free(a);
}

/* @s's source line as eu-addr2line prints it: 0 or -ENOMEM. */
static int answer__set_src(struct answer *a, const struct addrres_elf_sym *s)
{
	int ret;

	if (!s->src_file)
		return 0;
	if (s->column)
		ret = asprintf(&a->src, "%s:%u:%u", s->src_file, s->line, s->column);
	else
		ret = asprintf(&a->src, "%s:%u", s->src_file, s->line);
	if (ret < 0) {
		a->src = NULL;	/* undefined after a failure */
		return -ENOMEM;
	}
	return 0;
}

/* A handle of the library's ELF part, source lines looked up if @lines. */
static int lib__open_elf(bool lines, struct addrres_elf **elf, char *err, size_t err_sz)
{
	ADDRRES_OPTS(addrres_elf_opts, eo, .no_lines = !lines, .errbuf = err, .errbuf_sz = err_sz);

	return addrres_elf__open(&eo, elf);
}

/*
 * The library as a tool run once per batch would: open the maps file,
 * find the VMAs, open the ELF files, find the symbols (and source lines
 * if @lines); or, with @warm (opened with the same @lines), as a profiler
 * would for its next batch: the ELF files of @warm are open already.
 * With @ans, keep the answers; with @st, what the maps part did.
 */
static int lib__symbolize(pid_t pid, enum addrres_procmaps_method method, bool lines,
			  const uint64_t *addrs, size_t n, struct addrres_elf *warm,
			  struct answer *ans, struct addrres_procmaps_stats *st)
{
	const struct addrres_vma **vmas = calloc(n, sizeof(*vmas));
	const struct addrres_elf_sym **syms = calloc(n, sizeof(*syms));
	struct addrres_procmaps *pm = NULL;
	struct addrres_elf *elf = warm;
	char err[256] = "";
	int ret;

	ADDRRES_OPTS(addrres_procmaps_opts, po, .pid = pid, .method = method, .errbuf = err,
		     .errbuf_sz = sizeof(err));
	ret = !vmas || !syms ? -ENOMEM : 0;
	if (!ret)
		ret = addrres_procmaps__open(&po, &pm);
	if (!ret)
		ret = addrres_procmaps__resolve(pm, addrs, n, vmas);
	if (!ret && !elf)
		ret = lib__open_elf(lines, &elf, err, sizeof(err));
	if (!ret)
		ret = addrres_elf__resolve_vmas(elf, pid, addrs, vmas, n, syms, NULL);
	for (size_t i = 0; !ret && ans && i < n; i++) {
		if (syms[i] && syms[i]->name) {
			ans[i].name = strdup(syms[i]->name);
			ans[i].offset = syms[i]->offset;
			if (!ans[i].name)
				ret = -ENOMEM;
		}
		if (!ret && syms[i])
			ret = answer__set_src(&ans[i], syms[i]);
	}
	if (!ret && st)
		ret = addrres_procmaps__stats(pm, st);
	if (ret) {
		/* The open's message, else that of the handle that failed. */
		const char *m = err[0] ? err : addrres_procmaps__errmsg(pm);

		if (!m[0] && elf)
			m = addrres_elf__errmsg(elf);
		fprintf(stderr, "libaddrres: %s\n", m[0] ? m : strerror(-ret));
	}
	if (elf != warm)
		addrres_elf__free(elf);
	addrres_procmaps__free(pm);
	free(vmas);
	free(syms);
	return ret;
}

/*
 * eu-addr2line --pid=PID -S ADDR...: its output, two lines an address
 * ("symbol+0xoffset" or "??", then "file:line").  Without debuginfod: the
 * library does not download either.
 */
static int addr2line__run(pid_t pid, const uint64_t *addrs, size_t n, char **out, size_t *len)
{
	char **argv = calloc(n + 4, sizeof(*argv));
	char pidarg[32];
	size_t cap = 1 << 20;
	int fds[2], status, ret = 0;
	pid_t child;
	ssize_t r;

	*out = malloc(cap);
	*len = 0;
	if (!argv || !*out) {
		free(argv);
		return -ENOMEM;
	}
	snprintf(pidarg, sizeof(pidarg), "--pid=%d", (int)pid);
	argv[0] = "eu-addr2line";
	argv[1] = pidarg;
	argv[2] = "-S";
	for (size_t i = 0; i < n; i++) {
		if (asprintf(&argv[i + 3], "0x%" PRIx64, addrs[i]) < 0) {
			argv[i + 3] = NULL;	/* undefined after a failure */
			ret = -ENOMEM;
			goto out;
		}
	}
	if (pipe2(fds, O_CLOEXEC)) {
		ret = -errno;
		goto out;
	}
	fflush(NULL);
	child = fork();
	if (!child) {
		dup2(fds[1], STDOUT_FILENO);
		unsetenv("DEBUGINFOD_URLS");
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while ((r = read(fds[0], *out + *len, cap - *len - 1)) > 0) {
		*len += r;
		if (*len + 1 == cap) {
			char *more = realloc(*out, cap * 2);

			if (!more) {
				ret = -ENOMEM;
				break;
			}
			*out = more;
			cap *= 2;
		}
	}
	close(fds[0]);
	(*out)[*len] = '\0';
	if (child < 0 || waitpid(child, &status, 0) < 0)
		ret = -ECHILD;
	else if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status)))
		ret = WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -ENOENT : -EIO;
out:
	for (size_t i = 0; i < n; i++)
		free(argv[i + 3]);
	free(argv);
	return ret;
}

/*
 * eu-addr2line's answers: "name+0xoff", "name" (offset 0), or "??" or
 * "(module)+0xoff" where no symbol holds the address; then the source
 * line, "??:0" where there is none.
 */
static int addr2line__parse(char *text, size_t n, struct answer *ans)
{
	char *save = NULL, *line = strtok_r(text, "\n", &save);

	for (size_t i = 0; i < n; i++) {
		char *plus, *at;

		if (!line)
			return -EPROTO;
		if (strcmp(line, "??") && !(line[0] == '(' && strstr(line, ")+"))) {
			plus = strstr(line, "+0x");
			if (plus) {
				*plus = '\0';
				ans[i].offset = strtoull(plus + 3, NULL, 16);
			}
			/* A symbol version, which libaddrres drops: "f@@V" is "f". */
			at = strchr(line + 1, '@');
			if (at)
				*at = '\0';
			ans[i].name = strdup(line);
			if (!ans[i].name)
				return -ENOMEM;
		}
		line = strtok_r(NULL, "\n", &save);
		if (!line)
			return -EPROTO;
		if (strcmp(line, "??:0")) {
			ans[i].src = strdup(line);
			if (!ans[i].src)
				return -ENOMEM;
		}
		line = strtok_r(NULL, "\n", &save);
	}
	return 0;
}

/* ---- the process part ------------------------------------------------------- */

static const struct {
	const char *name;
	enum addrres_procmaps_method method;
} lib_methods[] = {
	{ "ioctl", ADDRRES_PROCMAPS_METHOD_IOCTL },
	{ "text", ADDRRES_PROCMAPS_METHOD_TEXT },
	{ "auto", ADDRRES_PROCMAPS_METHOD_AUTO },
};
#define NR_LIB_METHODS (sizeof(lib_methods) / sizeof(lib_methods[0]))

/* What is timed, in turns, run after run. */
enum timed {
	T_IOCTL, T_TEXT, T_AUTO,	/* symbols, first batch: lib_methods[] */
	T_AUTO_NEXT,			/* symbols, next batch */
	T_LINES, T_LINES_NEXT,		/* symbols and source lines (auto) */
	T_EU,				/* eu-addr2line --pid */
	NR_TIMED
};

struct shape_result {
	double ms[NR_TIMED];	/* medians */
	size_t vmas_hit, symbolized, with_src, distinct;
};

/* Whether two answers name the same symbol and offset (or none). */
static bool answer__same_sym(const struct answer *a, const struct answer *b)
{
	if (!a->name || !b->name)
		return !a->name && !b->name;
	return !strcmp(a->name, b->name) && a->offset == b->offset;
}

static bool answer__same_src(const struct answer *a, const struct answer *b)
{
	if (!a->src || !b->src)
		return !a->src && !b->src;
	return !strcmp(a->src, b->src);
}

/*
 * The same symbol, offset and source line from the library (with lines,
 * and the same symbols without) as from eu-addr2line for every address,
 * or say where not.
 */
static int verify(const char *shape, pid_t pid, const uint64_t *addrs, size_t n,
		  struct shape_result *res)
{
	struct answer *lines = calloc(n, sizeof(*lines)), *syms = calloc(n, sizeof(*syms));
	struct answer *theirs = calloc(n, sizeof(*theirs));
	struct addrres_procmaps_stats st = { .sz = sizeof(st) };
	size_t differ = 0, len;
	char *text = NULL;
	int ret;

	ret = !lines || !syms || !theirs ? -ENOMEM : 0;
	if (!ret)
		ret = lib__symbolize(pid, ADDRRES_PROCMAPS_METHOD_AUTO, true, addrs, n, NULL, lines,
				     &st);
	if (!ret)
		ret = lib__symbolize(pid, ADDRRES_PROCMAPS_METHOD_AUTO, false, addrs, n, NULL, syms,
				     NULL);
	if (!ret) {
		ret = addr2line__run(pid, addrs, n, &text, &len);
		if (ret)
			fprintf(stderr, "eu-addr2line --pid=%d failed: %s\n", (int)pid, strerror(-ret));
	}
	if (!ret)
		ret = addr2line__parse(text, n, theirs);
	for (size_t i = 0; !ret && i < n; i++) {
		bool same = answer__same_sym(&lines[i], &theirs[i]) &&
			    answer__same_src(&lines[i], &theirs[i]) &&
			    answer__same_sym(&syms[i], &theirs[i]) && !syms[i].src;

		res->symbolized += lines[i].name != NULL;
		res->with_src += lines[i].src != NULL;
		if (!same && differ++ < 5)
			fprintf(stderr, "%s: 0x%" PRIx64 ": libaddrres %s+0x%" PRIx64 " %s"
				" (without lines %s+0x%" PRIx64 "), eu-addr2line %s+0x%" PRIx64
				" %s\n", shape, addrs[i], lines[i].name ?: "??", lines[i].offset,
				lines[i].src ?: "??:0", syms[i].name ?: "??", syms[i].offset,
				theirs[i].name ?: "??", theirs[i].offset, theirs[i].src ?: "??:0");
	}
	if (!ret && differ) {
		fprintf(stderr, "%s: %zu of %zu answers differ from eu-addr2line's\n", shape, differ, n);
		ret = -EBADMSG;
	}
	res->vmas_hit = st.vmas;
	free(text);
	answers__free(lines, n);
	answers__free(syms, n);
	answers__free(theirs, n);
	return ret;
}

/* One timed run of @m; @warm[lines] are the handles of a batch before. */
static int run_timed(enum timed m, pid_t pid, const uint64_t *addrs, size_t n,
		     struct addrres_elf *warm[2])
{
	enum addrres_procmaps_method auto_ = ADDRRES_PROCMAPS_METHOD_AUTO;
	size_t len;
	char *text;
	int ret;

	switch (m) {
	case T_IOCTL:
	case T_TEXT:
	case T_AUTO:
		return lib__symbolize(pid, lib_methods[m].method, false, addrs, n, NULL, NULL, NULL);
	case T_AUTO_NEXT:
		return lib__symbolize(pid, auto_, false, addrs, n, warm[0], NULL, NULL);
	case T_LINES:
		return lib__symbolize(pid, auto_, true, addrs, n, NULL, NULL, NULL);
	case T_LINES_NEXT:
		return lib__symbolize(pid, auto_, true, addrs, n, warm[1], NULL, NULL);
	default:
		ret = addr2line__run(pid, addrs, n, &text, &len);
		free(text);
		return ret;
	}
}

static int measure_shape(const char *shape, pid_t pid, const uint64_t *addrs, size_t n,
			 const struct opts *o, struct shape_result *res)
{
	struct addrres_elf *warm[2] = { NULL, NULL };
	double *t[NR_TIMED] = { NULL };
	struct bench_rng rng = { 3 };
	char err[256] = "";
	int ret = 0;

	for (size_t m = 0; !ret && m < NR_TIMED; m++) {
		t[m] = calloc(o->runs, sizeof(double));
		ret = t[m] ? 0 : -ENOMEM;
	}
	if (!ret)
		ret = verify(shape, pid, addrs, n, res);
	/* The handles of the next batches have read the files once, untimed. */
	for (int lines = 0; !ret && lines < 2; lines++) {
		ret = lib__open_elf(lines, &warm[lines], err, sizeof(err));
		if (ret)
			fprintf(stderr, "libaddrres: %s\n", err[0] ? err : strerror(-ret));
		else
			ret = lib__symbolize(pid, ADDRRES_PROCMAPS_METHOD_AUTO, lines, addrs, n,
					     warm[lines], NULL, NULL);
	}
	/*
	 * Methods take turns, run after run, in an order shuffled anew for
	 * each run: the one after eu-addr2line finds the caches full of
	 * another process's work, which must not always be the same one.
	 */
	for (int r = 0; !ret && r < o->runs; r++) {
		enum timed order[NR_TIMED];

		for (size_t k = 0; k < NR_TIMED; k++)
			order[k] = k;
		for (size_t k = NR_TIMED - 1; k > 0; k--) {
			size_t j = bench_rng__below(&rng, k + 1);
			enum timed tmp = order[k];

			order[k] = order[j];
			order[j] = tmp;
		}
		for (size_t k = 0; !ret && k < NR_TIMED; k++) {
			enum timed m = order[k];
			uint64_t t0 = bench_now_ns();

			ret = run_timed(m, pid, addrs, n, warm);
			t[m][r] = (bench_now_ns() - t0) / 1e6;
		}
	}
	for (size_t m = 0; m < NR_TIMED; m++) {
		if (!ret)
			res->ms[m] = bench_median(t[m], o->runs);
		free(t[m]);
	}
	addrres_elf__free(warm[0]);
	addrres_elf__free(warm[1]);
	return ret;
}

static size_t count_distinct(const uint64_t *addrs, size_t n)
{
	size_t d = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (j < i && addrs[j] != addrs[i])
			j++;
		d += j == i;
	}
	return d;
}

static double best_method(const struct shape_result *r)
{
	return r->ms[T_IOCTL] < r->ms[T_TEXT] ? r->ms[T_IOCTL] : r->ms[T_TEXT];
}

static void shape__print(const char *shape, const struct shape_result *r, size_t n)
{
	const double eu = r->ms[T_EU];

	printf("%s: %zu addresses (%zu distinct) in %zu VMAs, %zu with a symbol, %zu with a source line;\n"
	       "  same symbols, offsets and lines as eu-addr2line\n",
	       shape, n, r->distinct, r->vmas_hit, r->symbolized, r->with_src);
	printf("  %-22s %12s %12s\n", "", "first batch", "next batch");
	for (size_t m = 0; m < T_AUTO; m++)
		printf("  libaddrres %-11s %9.3f ms\n", lib_methods[m].name, r->ms[m]);
	printf("  %-22s %9.3f ms %9.3f ms  (%.1fx, %.1fx faster than eu-addr2line)\n",
	       "libaddrres auto", r->ms[T_AUTO], r->ms[T_AUTO_NEXT], eu / r->ms[T_AUTO],
	       eu / r->ms[T_AUTO_NEXT]);
	printf("  %-22s %9.3f ms %9.3f ms  (%.1fx, %.1fx)\n", "  and source lines",
	       r->ms[T_LINES], r->ms[T_LINES_NEXT], eu / r->ms[T_LINES], eu / r->ms[T_LINES_NEXT]);
	printf("  %-22s %9.3f ms  (always symbols and lines)\n", "eu-addr2line --pid", eu);
	printf("  auto / best of ioctl and text: %.2f\n", r->ms[T_AUTO] / best_method(r));
}

static void shape__print_keys(const char *shape, const struct shape_result *r)
{
	const double eu = r->ms[T_EU];

	for (size_t m = 0; m < NR_LIB_METHODS; m++)
		printf("%s_%s_ms: %.3f\n", shape, lib_methods[m].name, r->ms[m]);
	printf("%s_auto_warm_ms: %.3f\n", shape, r->ms[T_AUTO_NEXT]);
	printf("%s_lines_ms: %.3f\n", shape, r->ms[T_LINES]);
	printf("%s_lines_warm_ms: %.3f\n", shape, r->ms[T_LINES_NEXT]);
	printf("%s_eu_addr2line_ms: %.3f\n", shape, eu);
	printf("%s_speedup_first: %.1f\n", shape, eu / r->ms[T_AUTO]);
	printf("%s_speedup_next: %.1f\n", shape, eu / r->ms[T_AUTO_NEXT]);
	printf("%s_lines_speedup_first: %.1f\n", shape, eu / r->ms[T_LINES]);
	printf("%s_lines_speedup_next: %.1f\n", shape, eu / r->ms[T_LINES_NEXT]);
	printf("%s_auto_vs_best: %.2f\n", shape, r->ms[T_AUTO] / best_method(r));
	printf("%s_vmas_hit: %zu\n", shape, r->vmas_hit);
	printf("%s_symbolized: %zu\n", shape, r->symbolized);
	printf("%s_with_lines: %zu\n", shape, r->with_src);
}

/* 0, EXIT_SKIPPED with the reason printed, or -1 after a message. */
static int process_part(const struct opts *o, struct shape_result res[2], size_t *vmas)
{
	struct addrres_elf *elf = NULL;
	struct target t = { 0 };
	uint64_t *addrs;
	int ret, err;

	if (!o->lib) {
		printf("process part skipped: no -l LIB\n");
		return EXIT_SKIPPED;
	}
	err = addrres_elf__open(NULL, &elf);
	addrres_elf__free(elf);
	if (err == -EOPNOTSUPP) {
		printf("process part skipped: libaddrres was built without libdw\n");
		return EXIT_SKIPPED;
	}
	if (access("/usr/bin/eu-addr2line", X_OK)) {
		printf("process part skipped: no /usr/bin/eu-addr2line (Debian's elfutils)\n");
		return EXIT_SKIPPED;
	}
	addrs = calloc(o->addrs, sizeof(*addrs));
	if (!addrs || target__start(&t, o)) {
		free(addrs);
		target__stop(&t);
		return -1;
	}
	*vmas = t.vmas;
	printf("target: %zu VMAs, %zu code segments of copies of %s\n", t.vmas, t.nr_code, o->lib);
	addrs__profile(&t, o, addrs);
	res[0].distinct = count_distinct(addrs, o->addrs);
	ret = measure_shape("profile", t.pid, addrs, o->addrs, o, &res[0]);
	if (!ret) {
		shape__print("profile", &res[0], o->addrs);
		addrs__spread(&t, o, addrs);
		res[1].distinct = count_distinct(addrs, o->addrs);
		ret = measure_shape("spread", t.pid, addrs, o->addrs, o, &res[1]);
	}
	if (!ret)
		shape__print("spread", &res[1], o->addrs);
	target__stop(&t);
	free(addrs);
	return ret ? -1 : 0;
}

/* ---- the kernel part ----------------------------------------------------- */

struct kernel_result {
	const char *source;
	size_t symbols;
	double open_ms, lookup_ns;
	size_t resolved;
};

static int kernel_part(const struct opts *o, struct kernel_result *k)
{
	const struct addrres_ksym *sym;
	struct addrres_ksyms *ks = NULL;
	struct bench_rng rng = { 1 };
	uint64_t *text = NULL, *addrs = NULL, off, t0;
	double *open_ms = calloc(o->runs, sizeof(double));
	size_t nr_text = 0, count, nr_addrs = 100000;
	char err[256];
	int ret = 0;

	ADDRRES_OPTS(addrres_ksyms_opts, ko, .errbuf = err, .errbuf_sz = sizeof(err));
	if (!open_ms)
		return -1;
	for (int r = 0; r < o->runs; r++) {
		addrres_ksyms__free(ks);
		t0 = bench_now_ns();
		ret = addrres_ksyms__open(&ko, &ks);
		open_ms[r] = (bench_now_ns() - t0) / 1e6;
		if (ret) {
			fprintf(stderr, "kernel symbols: %s\n", err);
			free(open_ms);
			return -1;
		}
	}
	k->open_ms = bench_median(open_ms, o->runs);
	free(open_ms);
	k->source = addrres_ksyms__source(ks) == ADDRRES_KSYMS_SOURCE_KALLMODSYMS ?
		    "/proc/kallmodsyms" : "/proc/kallsyms";
	k->symbols = count = addrres_ksyms__count(ks);
	if (addrres_ksyms__restricted(ks)) {
		printf("kernel lookups skipped: the kernel hides its addresses from this user\n");
		addrres_ksyms__free(ks);
		return 0;
	}
	/* Addresses within text symbols, as a kernel profile's are. */
	text = calloc(count, sizeof(*text));
	addrs = calloc(nr_addrs, sizeof(*addrs));
	if (!text || !addrs) {
		ret = -1;
		goto out;
	}
	for (size_t i = 0; i < count; i++) {
		sym = addrres_ksyms__sym(ks, i);
		if (sym->type == 't' || sym->type == 'T')
			text[nr_text++] = sym->addr;
	}
	for (size_t i = 0; nr_text && i < nr_addrs; i++)
		addrs[i] = text[bench_rng__below(&rng, nr_text)] + bench_rng__below(&rng, 64);
	t0 = bench_now_ns();
	for (size_t i = 0; nr_text && i < o->lookups; i++)
		k->resolved += !addrres_ksyms__find_addr(ks, addrs[i % nr_addrs], &sym, &off);
	k->lookup_ns = nr_text ? (double)(bench_now_ns() - t0) / o->lookups : 0;
out:
	free(text);
	free(addrs);
	addrres_ksyms__free(ks);
	return ret;
}

int main(int argc, char **argv)
{
	struct shape_result res[2] = { 0 };
	struct kernel_result k = { 0 };
	struct opts o;
	size_t vmas = 0;
	int process = EXIT_SKIPPED;

	if (opts__parse(&o, argc, argv))
		return 2;
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!o.kernel_only) {
		printf("[1] symbolizing a process's addresses: libaddrres and eu-addr2line --pid\n");
		process = process_part(&o, res, &vmas);
		if (process < 0)
			return 1;
	}
	printf("[2] kernel address lookups\n");
	if (kernel_part(&o, &k))
		return 1;
	if (k.lookup_ns)
		printf("%s: %zu symbols read in %.1f ms; %.0f ns a lookup, %.0f lookups/s (%zu of %zu resolved)\n",
		       k.source, k.symbols, k.open_ms, k.lookup_ns, 1e9 / k.lookup_ns, k.resolved,
		       o.lookups);

	printf("--- symbolize-bench results ---\n");
	if (!process) {
		printf("vmas: %zu\naddresses: %zu\nruns: %d\n", vmas, o.addrs, o.runs);
		shape__print_keys("profile", &res[0]);
		shape__print_keys("spread", &res[1]);
	}
	printf("kernel_source: %s\nkernel_symbols: %zu\nkernel_open_ms: %.1f\n", k.source,
	       k.symbols, k.open_ms);
	if (k.lookup_ns)
		printf("kernel_lookup_ns: %.1f\nkernel_lookups_per_s: %.0f\n", k.lookup_ns,
		       1e9 / k.lookup_ns);
	return o.kernel_only ? 0 : process;
}
