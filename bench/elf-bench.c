// SPDX-License-Identifier: GPL-2.0
/*
 * elf-bench: libaddrres against llvm-symbolizer and eu-addr2line on one
 * ELF file, each asked for source lines and inlined functions, the same
 * addresses for all three.  See README.md, "elf-bench".
 *
 *   elf-bench [-r RUNS] [-D DEBUG_DIRS] [-C CACHE_DIR] FILE ADDRS_FILE
 *
 * ADDRS_FILE holds ELF addresses (hex, one per line).  Timed, RUNS times
 * each, in turns (the tools in an order that changes from run to run),
 * medians printed:
 *  - first batch: libaddrres in this process, a new handle (the file
 *    read, its DWARF decompressed); llvm-symbolizer --obj=FILE and
 *    eu-addr2line -i -f -e FILE, one process each, from exec to exit,
 *    the addresses on their stdin;
 *  - next batch: libaddrres, the same handle again (each address's
 *    answer is kept with its file); each tool, a process given the batch
 *    twice, less one given it once;
 *  - other addresses, warm: libaddrres, the same handle, each address
 *    plus one (the files and their indexes read, no answer kept);
 *  - a second handle: libaddrres, a new handle on the same file after
 *    the first was freed, given the decompressed debug files' directory
 *    -C, which a handle before it filled (untimed): what a new profiler
 *    run costs.  The first batch is timed without it.
 * Before timing, the three's answers are compared address by address,
 * whole frames: their number, and each frame's function, file, line and
 * column.  An address that differs is counted under the first field that
 * differs (the outermost function apart from the inlined ones: the tools
 * name it from DWARF, libaddrres and eu-addr2line from the symbol table,
 * which differ for aliases), and the first few of each are shown.
 * Prints a table and "key: value" lines.
 *
 * Exit status: 0 success; 1 failure; 2 usage; 4 a tool is missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <addrres/addrres.h>

#include "bench.h"

extern char **environ;

#define EXIT_MISSING 4
#define FRAMES_MAX 32

/* One address's answer: its frames, innermost first. */
struct answer {
	size_t nr;
	char *name[FRAMES_MAX];
	char *file[FRAMES_MAX];
	unsigned int line[FRAMES_MAX];
	unsigned int col[FRAMES_MAX];
};

struct opts {
	int runs;
	const char *debug_dirs;
	const char *cache_dir;
	const char *file;
	const char *addrs_file;
};

static const char *const llvm_symbolizer = "/usr/bin/llvm-symbolizer";
static const char *const eu_addr2line = "/usr/bin/eu-addr2line";

/* ---- the addresses ---- */

static int read_addrs(const char *path, uint64_t **addrs, size_t *n)
{
	FILE *f = fopen(path, "re");
	size_t cap = 0;
	char line[64];

	*addrs = NULL;
	*n = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *end;
		uint64_t a = strtoull(line, &end, 16);

		if (end == line)
			continue;
		if (*n == cap) {
			uint64_t *more = reallocarray(*addrs, cap ? cap * 2 : 1024, sizeof(*more));

			if (!more) {
				fclose(f);
				return -ENOMEM;
			}
			*addrs = more;
			cap = cap ? cap * 2 : 1024;
		}
		(*addrs)[(*n)++] = a;
	}
	fclose(f);
	return *n ? 0 : -ENOENT;
}

/* ---- libaddrres ---- */

/*
 * A handle; with @cached, one that keeps decompressed debug files in -C's
 * directory; with @mangled, one that gives names as the tables have them.
 */
static int lib_open_as(const struct opts *o, bool cached, bool mangled, struct addrres_elf **e)
{
	ADDRRES_OPTS(addrres_elf_opts, eo, .debug_dirs = o->debug_dirs,
		     .debug_cache_dir = cached ? o->cache_dir : NULL, .no_demangle = mangled);

	return addrres_elf__open(&eo, e);
}

static int lib_open(const struct opts *o, bool cached, struct addrres_elf **e)
{
	return lib_open_as(o, cached, false, e);
}

static int lib_resolve(const struct opts *o, struct addrres_elf *e, const uint64_t *addrs,
		       size_t n, const struct addrres_elf_sym **syms)
{
	ADDRRES_OPTS(addrres_elf_resolve_opts, ro, .elf_addrs = true);
	int err = addrres_elf__resolve(e, o->file, addrs, n, syms, &ro);

	if (err)
		fprintf(stderr, "libaddrres: %s\n", addrres_elf__errmsg(e));
	return err;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Frame @k of @a: @name, and where it is (@file, @line, @col). */
static void frame_set(struct answer *a, size_t k, const char *name, const char *file,
		      unsigned int line, unsigned int col)
{
	a->name[k] = dup_or_null(name);
	a->file[k] = dup_or_null(file);
	a->line[k] = line;
	a->col[k] = col;
}

/*
 * The frames of @s: the inlined functions at the address, then its
 * function; each with where its code is (the address's line for the
 * innermost, the call site in it for each outer one).
 */
static void lib_answer(const struct addrres_elf_sym *s, struct answer *a)
{
	memset(a, 0, sizeof(*a));
	if (!s || !s->src_file)
		return;
	for (size_t i = 0; i <= s->nr_inlined && a->nr < FRAMES_MAX; i++) {
		const struct addrres_elf_inline *call = i ? &s->inlined[i - 1] : NULL;

		frame_set(a, a->nr++, i < s->nr_inlined ? s->inlined[i].name : s->name,
			  call ? call->call_file : s->src_file, call ? call->call_line : s->line,
			  call ? call->call_column : s->column);
	}
}

/*
 * "FILE:LINE:COLUMN" or "FILE:LINE" (a file name may hold colons) into
 * its parts; line 0 and no file for "??:0".
 */
static void loc_parse(const char *loc, char **file, unsigned int *line, unsigned int *col)
{
	const char *last = strrchr(loc, ':'), *prev, *end;

	*file = NULL;
	*line = *col = 0;
	if (!last)
		return;
	for (prev = last - 1; prev > loc && *prev != ':'; prev--)
		;
	/* two numbers at the end: line and column */
	if (*prev == ':' && prev[1] >= '0' && prev[1] <= '9' && last[1] >= '0' && last[1] <= '9') {
		*line = (unsigned int)strtoul(prev + 1, NULL, 10);
		*col = (unsigned int)strtoul(last + 1, NULL, 10);
		end = prev;
	} else {
		*line = (unsigned int)strtoul(last + 1, NULL, 10);
		end = last;
	}
	if (strncmp(loc, "??", (size_t)(end - loc)) || end - loc != 2)
		*file = strndup(loc, (size_t)(end - loc));
}

/* ---- the tools: one process, the batch on stdin @times times ---- */

/*
 * Run @argv with @n addresses written @times to its stdin; its output
 * into *@out (NULL: thrown away).  0 or a negative errno.
 */
static int tool_run(char *const argv[], const uint64_t *addrs, size_t n, int times, char **out)
{
	int in[2], res[2], status, err = 0;
	posix_spawn_file_actions_t fa;
	size_t cap = 0, len = 0;
	char *buf = NULL;
	pid_t pid;
	FILE *w;

	if (pipe2(in, O_CLOEXEC) || pipe2(res, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	posix_spawn_file_actions_adddup2(&fa, res[1], 1);
	err = -posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(in[0]);
	close(res[1]);
	if (err) {
		close(in[1]);
		close(res[0]);
		return err;
	}
	/* The answers are read as they come: a pipe must not fill up. */
	if (fork() == 0) {
		close(res[0]);
		w = fdopen(in[1], "w");
		for (int t = 0; w && t < times; t++) {
			for (size_t i = 0; i < n; i++)
				fprintf(w, "0x%" PRIx64 "\n", addrs[i]);
		}
		_exit(w && !fclose(w) ? 0 : 1);
	}
	close(in[1]);
	for (;;) {
		ssize_t got;

		if (len + 65536 > cap) {
			char *more = realloc(buf, cap ? cap * 2 : 1 << 20);

			if (!more) {
				err = -ENOMEM;
				break;
			}
			buf = more;
			cap = cap ? cap * 2 : 1 << 20;
		}
		got = read(res[0], buf + len, cap - len - 1);
		if (got <= 0)
			break;
		len += (size_t)got;
	}
	close(res[0]);
	while (wait(&status) > 0)
		;
	if (buf)
		buf[len] = '\0';
	if (!err && out)
		*out = buf;
	else
		free(buf);
	return err;
}

/* llvm-symbolizer's answers: frames "FUNCTION\nFILE:LINE:COLUMN", a blank line after each address. */
static int llvm_parse(char *text, size_t n, struct answer *ans)
{
	char *save = NULL;
	size_t i = 0;

	/* An address's block ends at a blank line; in it, frames by pairs of lines. */
	for (char *p = text; i < n && *p;) {
		struct answer *a = &ans[i++];
		char *block_end = strstr(p, "\n\n");

		memset(a, 0, sizeof(*a));
		if (block_end)
			*block_end = '\0';
		for (char *fn = strtok_r(p, "\n", &save); fn && a->nr < FRAMES_MAX;
		     fn = strtok_r(NULL, "\n", &save)) {
			char *loc = strtok_r(NULL, "\n", &save);

			if (!loc)
				break;
			/* "??" for a function DWARF does not name: a frame all the same */
			a->name[a->nr] = strcmp(fn, "??") ? strdup(fn) : NULL;
			loc_parse(loc, &a->file[a->nr], &a->line[a->nr], &a->col[a->nr]);
			a->nr++;
		}
		/* "??:0" only: no line */
		if (a->nr && !a->file[a->nr - 1]) {
			for (size_t k = 0; k < a->nr; k++) {
				free(a->name[k]);
				free(a->file[k]);
			}
			a->nr = 0;
		}
		if (!block_end)
			break;
		p = block_end + 2;
	}
	return i == n ? 0 : -EPROTO;
}

/*
 * eu-addr2line -a -i -f's: "0xADDR", then pairs "FUNCTION[ inlined at
 * ... in OUTER]" and "FILE:LINE:COLUMN" (or "??:0").
 */
static int eu_parse(char *text, size_t n, struct answer *ans)
{
	char *save = NULL, *line = strtok_r(text, "\n", &save);
	size_t i = 0;

	while (line && i <= n) {
		struct answer *a;

		if (strncmp(line, "0x", 2))
			return -EPROTO;
		if (i == n)
			return -EPROTO;
		a = &ans[i++];
		memset(a, 0, sizeof(*a));
		line = strtok_r(NULL, "\n", &save);
		while (line && strncmp(line, "0x", 2)) {
			char *loc = strtok_r(NULL, "\n", &save);
			char *sp = strchr(line, ' ');
			unsigned int l, c;
			char *file;

			if (!loc)
				return -EPROTO;
			loc_parse(loc, &file, &l, &c);
			if (file && a->nr < FRAMES_MAX) {
				if (sp)
					*sp = '\0';
				a->name[a->nr] = strcmp(line, "??") ? strdup(line) : NULL;
				a->file[a->nr] = file;
				a->line[a->nr] = l;
				a->col[a->nr++] = c;
			} else {
				free(file);
			}
			line = strtok_r(NULL, "\n", &save);
		}
	}
	return i == n ? 0 : -EPROTO;
}

static void answers_free(struct answer *ans, size_t n)
{
	for (size_t i = 0; ans && i < n; i++) {
		for (size_t k = 0; k < ans[i].nr; k++) {
			free(ans[i].name[k]);
			free(ans[i].file[k]);
		}
	}
	free(ans);
}

/* What two answers' first difference is in. */
enum differ {
	SAME, DIFF_FRAMES, DIFF_INLINED_FUNCTION, DIFF_FUNCTION, DIFF_FILE, DIFF_LINE, DIFF_COLUMN,
	NR_DIFFER,
};

static const char *const differ_names[NR_DIFFER] = {
	"same", "frames", "inlined function", "function", "file", "line", "column",
};

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The first field in which @a and @b differ, frame by frame, and in which frame (*@k). */
static enum differ answer_differ(const struct answer *a, const struct answer *b, size_t *k)
{
	*k = 0;
	if (a->nr != b->nr)
		return DIFF_FRAMES;
	for (*k = 0; *k < a->nr; (*k)++) {
		if (!same_str(a->name[*k], b->name[*k]))
			return *k + 1 < a->nr ? DIFF_INLINED_FUNCTION : DIFF_FUNCTION;
		if (!same_str(a->file[*k], b->file[*k]))
			return DIFF_FILE;
		if (a->line[*k] != b->line[*k])
			return DIFF_LINE;
		if (a->col[*k] != b->col[*k])
			return DIFF_COLUMN;
	}
	return SAME;
}

static void frame_show(const char *who, const struct answer *a, size_t k)
{
	if (k >= a->nr) {
		printf("      %s: %zu frame(s)\n", who, a->nr);
		return;
	}
	printf("      %s: %zu frame(s); frame %zu: %s at %s:%u:%u\n", who, a->nr, k,
	       a->name[k] ? a->name[k] : "??", a->file[k] ? a->file[k] : "??", a->line[k],
	       a->col[k]);
}

/* ---- the comparison ---- */

struct tool {
	const char *name;
	char *argv[8];
	int (*parse)(char *text, size_t n, struct answer *ans);
	bool present;
};

/*
 * Compare our answers with each present tool's.  With @mangled, names as
 * the tables have them (llvm-symbolizer --no-demangle, no_demangle): a
 * difference in the names that goes away so is the two demanglers'
 * (libiberty's and LLVM's), not another function.
 */
static int compare(const struct opts *o, struct tool *tools, size_t nr_tools,
		   const uint64_t *addrs, size_t n, bool mangled)
{
	const struct addrres_elf_sym **syms = calloc(n, sizeof(*syms));
	struct answer *ours = calloc(n, sizeof(*ours));
	struct addrres_elf *e = NULL;
	size_t inlined = 0, lined = 0;
	int err;

	err = !syms || !ours ? -ENOMEM : lib_open_as(o, false, mangled, &e);
	if (!err)
		err = lib_resolve(o, e, addrs, n, syms);
	for (size_t i = 0; !err && i < n; i++) {
		lib_answer(syms[i], &ours[i]);
		inlined += ours[i].nr > 1;
		lined += ours[i].nr > 0;
	}
	if (!mangled)
		printf("addresses: %zu, %zu with a line, %zu in inlined code\n", n, lined, inlined);
	for (size_t t = 0; !err && t < nr_tools; t++) {
		struct answer *theirs = calloc(n, sizeof(*theirs));
		size_t count[NR_DIFFER] = { 0 };
		char *out = NULL;

		if (!tools[t].present)
			continue;
		err = theirs ? tool_run(tools[t].argv, addrs, n, 1, &out) : -ENOMEM;
		if (!err)
			err = tools[t].parse(out, n, theirs);
		if (err) {
			fprintf(stderr, "%s: no answers to compare (%s)\n", tools[t].name,
				strerror(-err));
		}
		for (size_t i = 0; !err && i < n; i++) {
			size_t k;
			enum differ d = answer_differ(&ours[i], &theirs[i], &k);

			if (d != SAME && count[d] < 3) {
				printf("  0x%" PRIx64 ": another %s\n", addrs[i], differ_names[d]);
				frame_show("libaddrres", &ours[i], k);
				frame_show(tools[t].name, &theirs[i], k);
			}
			count[d]++;
		}
		if (!err) {
			printf("%s%s: whole frames the same for %zu of %zu (%.1f%%); another",
			       tools[t].name, mangled ? " (names not demangled)" : "", count[SAME], n,
			       100.0 * (double)count[SAME] / (double)n);
			for (int d = SAME + 1; d < NR_DIFFER; d++)
				printf("%s %s %zu", d == SAME + 1 ? "" : ",", differ_names[d], count[d]);
			printf("\n%s_differ%s: %zu\n",
			       tools[t].argv[0] == llvm_symbolizer ? "llvm" : "eu",
			       mangled ? "_mangled" : "", n - count[SAME]);
		}
		answers_free(theirs, n);
		free(out);
	}
	addrres_elf__free(e);
	answers_free(ours, n);
	free(syms);
	return err;
}

/* ---- the timing ---- */

enum timed {
	T_LIB_FIRST, T_LIB_NEXT, T_LIB_OTHER, T_LIB_SECOND,
	T_LLVM_1, T_LLVM_2, T_EU_1, T_EU_2,
	NR_TIMED,
};

static int time_lib(const struct opts *o, const uint64_t *addrs, size_t n, double *first,
		    double *next, double *other, double *second)
{
	const struct addrres_elf_sym **syms = calloc(n, sizeof(*syms));
	uint64_t *shifted = calloc(n, sizeof(*shifted));
	struct addrres_elf *e = NULL;
	double t0;
	int err;

	if (!syms || !shifted) {
		free(syms);
		free(shifted);
		return -ENOMEM;
	}
	/* Other addresses of the same functions: the file read, no answer kept. */
	for (size_t i = 0; i < n; i++)
		shifted[i] = addrs[i] + 1;
	t0 = (bench_now_us() / 1e6);
	err = lib_open(o, false, &e);
	if (!err)
		err = lib_resolve(o, e, addrs, n, syms);
	*first = (bench_now_us() / 1e6) - t0;
	t0 = (bench_now_us() / 1e6);
	if (!err)
		err = lib_resolve(o, e, addrs, n, syms);
	*next = (bench_now_us() / 1e6) - t0;
	t0 = (bench_now_us() / 1e6);
	if (!err)
		err = lib_resolve(o, e, shifted, n, syms);
	*other = (bench_now_us() / 1e6) - t0;
	addrres_elf__free(e);
	e = NULL;
	/* A second handle: the cache's copy, which an earlier one made. */
	t0 = (bench_now_us() / 1e6);
	if (!err)
		err = lib_open(o, true, &e);
	if (!err)
		err = lib_resolve(o, e, addrs, n, syms);
	*second = (bench_now_us() / 1e6) - t0;
	addrres_elf__free(e);
	free(syms);
	free(shifted);
	return err;
}

static int time_tool(const struct tool *t, const uint64_t *addrs, size_t n, int times,
		     double *secs)
{
	double t0 = (bench_now_us() / 1e6);
	int err = tool_run(t->argv, addrs, n, times, NULL);

	*secs = (bench_now_us() / 1e6) - t0;
	return err;
}

static int opts_parse(struct opts *o, int argc, char **argv)
{
	int c;

	o->runs = 5;
	while ((c = getopt(argc, argv, "r:D:C:")) != -1) {
		switch (c) {
		case 'r':
			o->runs = atoi(optarg);
			if (o->runs < 1 || o->runs > 1000)
				return -1;
			break;
		case 'D':
			o->debug_dirs = optarg;
			break;
		case 'C':
			o->cache_dir = optarg;
			break;
		default:
			return -1;
		}
	}
	if (argc - optind != 2)
		return -1;
	o->file = argv[optind];
	o->addrs_file = argv[optind + 1];
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const names[NR_TIMED] = {
		"lib_first", "lib_next", "lib_other", "lib_second", "llvm_1", "llvm_2", "eu_1", "eu_2",
	};
	struct tool tools[2] = {
		{ "llvm-symbolizer", { (char *)llvm_symbolizer, "--inlines", "--functions=linkage",
				       NULL, NULL }, llvm_parse, false },
		{ "eu-addr2line", { (char *)eu_addr2line, "-a", "-A", "-i", "-f", "-e", NULL, NULL },
		  eu_parse, false },
	};
	double *t[NR_TIMED] = { NULL }, med[NR_TIMED];
	struct opts o = { 0 };
	char obj[4096];
	uint64_t *addrs;
	size_t n;
	int err;

	if (opts_parse(&o, argc, argv)) {
		fprintf(stderr, "usage: %s [-r RUNS] [-D DEBUG_DIRS] [-C CACHE_DIR] FILE ADDRS_FILE\n",
			argv[0]);
		return 2;
	}
	err = read_addrs(o.addrs_file, &addrs, &n);
	if (err) {
		fprintf(stderr, "%s: %s\n", o.addrs_file, strerror(-err));
		return 1;
	}
	snprintf(obj, sizeof(obj), "--obj=%s", o.file);
	tools[0].argv[3] = obj;
	tools[1].argv[6] = (char *)o.file;
	tools[0].present = !access(llvm_symbolizer, X_OK);
	tools[1].present = !access(eu_addr2line, X_OK);
	if (!tools[0].present || !tools[1].present) {
		fprintf(stderr, "elf-bench: needs %s (Debian's llvm) and %s (elfutils)\n",
			llvm_symbolizer, eu_addr2line);
		free(addrs);
		return EXIT_MISSING;
	}
	/* The tools look for debug files where libaddrres does by default, and ask no server. */
	setenv("DEBUGINFOD_URLS", "", 1);
	printf("file: %s\n", o.file);
	err = compare(&o, tools, 2, addrs, n, false);
	/* llvm-symbolizer again, names not demangled: which differences were the demanglers' */
	tools[0].argv[4] = "--no-demangle";
	tools[1].present = false;
	if (!err)
		err = compare(&o, tools, 1, addrs, n, true);
	tools[0].argv[4] = NULL;
	tools[1].present = !access(eu_addr2line, X_OK);
	/* The cache's copy made once, untimed: what "a second handle" finds. */
	if (!err && o.cache_dir) {
		const struct addrres_elf_sym **syms = calloc(n, sizeof(*syms));
		struct addrres_elf *e = NULL;

		err = syms ? lib_open(&o, true, &e) : -ENOMEM;
		if (!err)
			err = lib_resolve(&o, e, addrs, n, syms);
		addrres_elf__free(e);
		free(syms);
	}
	for (int k = 0; !err && k < NR_TIMED; k++) {
		t[k] = calloc((size_t)o.runs, sizeof(double));
		err = t[k] ? 0 : -ENOMEM;
	}
	for (int r = 0; !err && r < o.runs; r++) {
		/* Each run, another order: no tool always follows another. */
		for (int step = 0; !err && step < 3; step++) {
			switch ((step + r) % 3) {
			case 0:
				err = time_lib(&o, addrs, n, &t[T_LIB_FIRST][r], &t[T_LIB_NEXT][r],
					       &t[T_LIB_OTHER][r], &t[T_LIB_SECOND][r]);
				break;
			case 1:
				err = time_tool(&tools[0], addrs, n, 1, &t[T_LLVM_1][r]);
				if (!err)
					err = time_tool(&tools[0], addrs, n, 2, &t[T_LLVM_2][r]);
				break;
			default:
				err = time_tool(&tools[1], addrs, n, 1, &t[T_EU_1][r]);
				if (!err)
					err = time_tool(&tools[1], addrs, n, 2, &t[T_EU_2][r]);
				break;
			}
		}
	}
	if (err) {
		fprintf(stderr, "elf-bench: %s\n", strerror(-err));
		goto out;
	}
	for (int k = 0; k < NR_TIMED; k++)
		med[k] = bench_median(t[k], (size_t)o.runs) * 1e3;
	{
		double llvm_next = med[T_LLVM_2] - med[T_LLVM_1];
		double eu_next = med[T_EU_2] - med[T_EU_1];

		printf("%-26s %12s %12s\n", "", "first batch", "next batch");
		printf("%-26s %9.1f ms %9.2f ms\n", "libaddrres (in process)", med[T_LIB_FIRST],
		       med[T_LIB_NEXT]);
		printf("%-26s %12s %9.2f ms\n", "  other addresses, warm", "", med[T_LIB_OTHER]);
		printf("%-26s %9.1f ms\n", o.cache_dir ? "  a second handle (-C)" : "  a second handle",
		       med[T_LIB_SECOND]);
		printf("%-26s %9.1f ms %9.2f ms\n", "llvm-symbolizer --inlines", med[T_LLVM_1],
		       llvm_next);
		printf("%-26s %9.1f ms %9.2f ms\n", "eu-addr2line -A -i -f", med[T_EU_1], eu_next);
		printf("--- elf-bench results ---\n");
		for (int k = 0; k < NR_TIMED; k++)
			printf("%s_ms: %.3f\n", names[k], med[k]);
		printf("llvm_next_ms: %.3f\neu_next_ms: %.3f\n", llvm_next, eu_next);
		printf("first_vs_llvm: %.2f\nfirst_vs_eu: %.2f\n", med[T_LLVM_1] / med[T_LIB_FIRST],
		       med[T_EU_1] / med[T_LIB_FIRST]);
		printf("next_vs_llvm: %.1f\nnext_vs_eu: %.1f\n", llvm_next / med[T_LIB_NEXT],
		       eu_next / med[T_LIB_NEXT]);
		printf("second_vs_llvm: %.2f\n", med[T_LLVM_1] / med[T_LIB_SECOND]);
		printf("other_vs_llvm: %.1f\nother_vs_eu: %.1f\n", llvm_next / med[T_LIB_OTHER],
		       eu_next / med[T_LIB_OTHER]);
	}
out:
	for (int k = 0; k < NR_TIMED; k++)
		free(t[k]);
	free(addrs);
	return err ? 1 : 0;
}
