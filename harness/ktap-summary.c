// SPDX-License-Identifier: GPL-2.0
/*
 * ktap-summary: read KTAP/TAP result files (kselftest runner output, the
 * harness's own verdicts), print one line per test and exactly one closing
 * line "N passed, N failed, N skipped".  Exits 1 if anything failed,
 * including a plan that was not met (a truncated file) or an unreadable
 * file, so a crash half-way through a run cannot look like success.
 *
 * Nesting: a top-level test whose output holds a KTAP plan one level down
 * (kselftest_harness.h cases, prefixed "# " by the kselftest runner or
 * indented by four spaces) is counted by its subtests; otherwise the
 * top-level result counts.  A top-level failure not explained by a failed
 * subtest (a crash or timeout after the last case) is counted as well.
 *
 * Labels: "-l LABEL" among the files prefixes every line printed for the
 * files after it with "LABEL: " (e.g. the architecture they ran on), until
 * the next -l; "-l ''" turns the prefix off again.  The closing line counts
 * all files together.
 *
 * Nothing may vanish unnoticed: a file whose only plan is "1..0" is one
 * skipped test, named by the file; a program whose subtests' plan is
 * "1..0" is skipped, not passed; a file with results but no plan is a
 * failure (it may have been cut short); XFAIL is a skip, not a pass.
 *
 * Expected results: "-e FILE" (after the -l of its label) names the list
 * of every test the files of that label must produce, one per line,
 * "pass NAME" or "skip NAME  # REASON", NAME as printed without the label
 * and without a trailing " (...)": what a test prints there (figures,
 * versions) may change from run to run.  "-m" prints the results as such
 * a list instead of the summary (make manifest), failures as usual.
 * Then a test the list does not know, a skip it does not list (or lists
 * with another reason), a listed skip that passed, and a listed test that
 * never reported are each a failure that says so.  "-w NAME" (repeatable,
 * after the -e) limits "never reported" to the listed tests named NAME or
 * "NAME: ..." (what make vm-test T=... or host-test SUITES=... ran);
 * "-w ''" asks for none of them (a commit in the middle of the series).
 * "-r" accepts a listed skip whatever reason it gives: the list is the
 * series' tip's, and a later patch may reword a skip (a commit in the
 * middle of the series again); that it skips is still held against it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum result { RES_PASS, RES_FAIL, RES_SKIP };

struct test_line {
	enum result res;
	char *name;
	char *reason;		/* directive or diagnostic; may be empty */
};

struct counts {
	unsigned int passed, failed, skipped;
};

/* Set by -l: the prefix of the lines printed for the current file. */
static const char *label = "";

/* -m: print an expected-results list, not the summary. */
static bool print_list;

/* -r: a listed skip may give another reason than the list's. */
static bool any_skip_reason;

/* One line of an expected-results list (-e). */
struct expected {
	char *name;
	enum result res;	/* RES_PASS or RES_SKIP */
	char *reason;		/* a skip's reason */
	bool seen;
};

/* The expected-results list of the current label, if any. */
static struct {
	const char *path;
	struct expected *v;
	size_t n;
	const char **within;	/* -w: what must have reported */
	size_t n_within;
} manifest;

/* Subtests of the top-level test currently running. */
struct subtests {
	struct test_line *v;
	size_t n, cap;
	long plan;		/* -1: no plan seen one level down */
};

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		perror("ktap-summary");
		exit(2);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	return strcpy(xrealloc(NULL, strlen(s) + 1), s);
}

static void rstrip(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

static const char *skip_spaces(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

static bool starts_with_nocase(const char *s, const char *prefix)
{
	return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * Parse "ok N name # DIRECTIVE reason" / "not ok N name # ...".
 * Returns false if @line is not a result line.
 */
static bool parse_result(const char *line, struct test_line *out)
{
	bool ok;
	const char *p, *number, *dir = NULL;
	char *name, *hash;
	int number_len;

	if (strncmp(line, "ok ", 3) == 0) {
		ok = true;
		p = line + 3;
	} else if (strncmp(line, "not ok ", 7) == 0) {
		ok = false;
		p = line + 7;
	} else {
		return false;
	}
	if (!isdigit((unsigned char)*p))
		return false;
	number = p;
	while (isdigit((unsigned char)*p))
		p++;
	number_len = p - number;
	p = skip_spaces(p);
	if (*p == '-')		/* TAP allows "ok 1 - name" */
		p = skip_spaces(p + 1);

	name = xstrdup(p);
	out->res = ok ? RES_PASS : RES_FAIL;
	hash = strstr(name, " # ");
	if (hash) {
		dir = hash + 2;
	} else if (name[0] == '#') {
		hash = name;	/* no name, only a directive */
		dir = name + 1;
	}
	if (dir) {
		dir = skip_spaces(dir);
		if (starts_with_nocase(dir, "SKIP")) {
			out->res = RES_SKIP;
			dir = skip_spaces(dir + 4);
		} else if (starts_with_nocase(dir, "TODO")) {
			out->res = RES_SKIP;
		} else if (starts_with_nocase(dir, "XFAIL")) {
			/* It failed as expected: nothing was shown to work. */
			out->res = RES_SKIP;
		}
	}
	out->reason = xstrdup(dir ? dir : "");
	if (hash)
		*hash = '\0';	/* the name ends where its directive starts */
	rstrip(name);
	if (!*name) {
		/* "ok 3 # SKIP why": name it by its number. */
		free(name);
		name = xrealloc(NULL, number_len + sizeof("test "));
		sprintf(name, "test %.*s", number_len, number);
	}
	out->name = name;
	return true;
}

/* "1..N": returns N, or -1 if @line is not a plan. */
static long parse_plan(const char *line)
{
	char *end;
	long n;

	if (strncmp(line, "1..", 3) != 0)
		return -1;
	errno = 0;
	n = strtol(line + 3, &end, 10);
	if (errno || end == line + 3 || (*end && !isspace((unsigned char)*end)))
		return -1;
	return n;
}

/* The text of @line one nesting level down, or NULL if it is top-level. */
static const char *nested_body(const char *line)
{
	if (strncmp(line, "# ", 2) == 0)
		return line + 2;
	if (strcmp(line, "#") == 0)
		return line + 1;
	if (strncmp(line, "    ", 4) == 0)
		return line + 4;
	return NULL;
}

/*
 * @name without a trailing " (...)", the part a test may fill with what
 * changes from run to run: how it is listed in an expected-results list.
 */
static void name_key(const char *name, char *key, size_t size)
{
	size_t len = strlen(name), i;
	int depth = 0;

	snprintf(key, size, "%s", name);
	if (!len || name[len - 1] != ')')
		return;
	for (i = len; i-- > 0;) {
		if (name[i] == ')')
			depth++;
		else if (name[i] == '(' && !--depth)
			break;
	}
	if (i > 0 && i < len && name[i] == '(' && name[i - 1] == ' ' && i - 1 < size)
		key[i - 1] = '\0';
}

static void report(struct counts *c, enum result res, const char *name,
		   const char *reason)
{
	static const char *const tag[] = {
		[RES_PASS] = "ok     ", [RES_FAIL] = "not ok ", [RES_SKIP] = "skip   ",
	};

	if (print_list && res != RES_FAIL) {
		char key[4096];

		name_key(name, key, sizeof(key));
		if (res == RES_PASS)
			printf("pass %s\n", key);
		else
			printf("skip %s  # %s\n", key, *reason ? reason : "(no reason given)");
	} else {
		printf("%s %s%s%s%s%s\n", tag[res], label, *label ? ": " : "", name,
		       *reason ? "  # " : "", reason);
	}
	if (res == RES_PASS)
		c->passed++;
	else if (res == RES_FAIL)
		c->failed++;
	else
		c->skipped++;
}

static int expected_cmp(const void *a, const void *b)
{
	return strcmp(((const struct expected *)a)->name,
		      ((const struct expected *)b)->name);
}

static struct expected *expected_find(const char *name)
{
	char buf[4096];
	struct expected key = { .name = buf };

	if (!manifest.n)
		return NULL;
	name_key(name, buf, sizeof(buf));
	return bsearch(&key, manifest.v, manifest.n, sizeof(key), expected_cmp);
}

/*
 * Count one result, held against the expected-results list if there is
 * one: a difference turns the result into a failure that says what differs.
 */
static void count_one(struct counts *c, enum result res, const char *name,
		      const char *reason)
{
	struct expected *e;
	char why[8192];

	if (!manifest.path || res == RES_FAIL) {
		e = manifest.path ? expected_find(name) : NULL;
		if (e)
			e->seen = true;
		report(c, res, name, reason);
		return;
	}
	e = expected_find(name);
	if (!e) {
		char key[2048];

		name_key(name, key, sizeof(key));
		snprintf(why, sizeof(why),
			 "%s, but %s does not list it: add the line \"%s %s%s%s\" "
			 "(make manifest writes the list from a green run)",
			 res == RES_PASS ? "passed" : "skipped", manifest.path,
			 res == RES_PASS ? "pass" : "skip", key,
			 res == RES_SKIP ? "  # " : "", res == RES_SKIP ? reason : "");
		report(c, RES_FAIL, name, why);
		return;
	}
	e->seen = true;
	if (e->res == RES_PASS && res == RES_SKIP) {
		snprintf(why, sizeof(why), "skipped (%s), but %s expects a pass",
			 reason, manifest.path);
		report(c, RES_FAIL, name, why);
	} else if (e->res == RES_SKIP && res == RES_PASS) {
		snprintf(why, sizeof(why),
			 "passed, but %s lists it as a skip (%s): make its line \"pass %s\"",
			 manifest.path, e->reason, e->name);
		report(c, RES_FAIL, name, why);
	} else if (e->res == RES_SKIP && !any_skip_reason &&
		   strcmp(e->reason, reason) != 0) {
		snprintf(why, sizeof(why), "skipped (%s), but %s expects the skip \"%s\"",
			 reason, manifest.path, e->reason);
		report(c, RES_FAIL, name, why);
	} else {
		report(c, res, name, reason);
	}
}

static void free_line(struct test_line *t)
{
	free(t->name);
	free(t->reason);
}

static void subtests_reset(struct subtests *s)
{
	for (size_t i = 0; i < s->n; i++)
		free_line(&s->v[i]);
	s->n = 0;
	s->plan = -1;
}

/* A top-level result closes the subtests gathered since the last one. */
static void finish_test(struct counts *c, struct subtests *s,
			struct test_line *top, const char *last_skip_note)
{
	unsigned int failed_before = c->failed;
	char buf[4096];

	if (s->plan < 0) {
		const char *reason = top->reason;

		if (top->res == RES_SKIP && !*reason && last_skip_note)
			reason = last_skip_note;
		count_one(c, top->res, top->name, reason);
		subtests_reset(s);
		return;
	}
	for (size_t i = 0; i < s->n; i++) {
		snprintf(buf, sizeof(buf), "%s: %s", top->name, s->v[i].name);
		count_one(c, s->v[i].res, buf, s->v[i].reason);
	}
	if (s->n < (size_t)s->plan) {
		snprintf(buf, sizeof(buf), "%s: %zu of %ld planned subtests never reported",
			 top->name, (size_t)s->plan - s->n, s->plan);
		count_one(c, RES_FAIL, buf, top->reason);
	} else if (s->plan == 0) {
		/*
		 * The whole program skipped itself (e.g. a missing feature):
		 * whatever its own result says, nothing of it passed.
		 */
		count_one(c, top->res == RES_FAIL ? RES_FAIL : RES_SKIP, top->name,
			  *top->reason ? top->reason : last_skip_note ? last_skip_note :
			  "no subtests (1..0)");
	} else if (top->res == RES_FAIL && c->failed == failed_before) {
		count_one(c, RES_FAIL, top->name, *top->reason ? top->reason :
			  "failed after its last subtest");
	}
	subtests_reset(s);
}

static void summarise_file(const char *path, struct counts *c)
{
	struct subtests sub = { .plan = -1 };
	char *line = NULL, *skip_note = NULL, *plan_note = NULL;
	size_t cap = 0;
	long plan = -1, seen = 0;
	bool bailed = false;
	FILE *f = fopen(path, "r");
	char buf[4096];

	if (!f) {
		snprintf(buf, sizeof(buf), "%s: cannot read: %s", path, strerror(errno));
		count_one(c, RES_FAIL, buf, "");
		return;
	}
	while (getline(&line, &cap, f) >= 0) {
		const char *body;
		struct test_line t;
		long n;

		rstrip(line);
		body = nested_body(line);
		if (body) {
			const char *note;

			if (parse_result(body, &t)) {
				if (sub.plan < 0) {	/* diagnostic text, not KTAP */
					free_line(&t);
					continue;
				}
				if (sub.n == sub.cap) {
					sub.cap = sub.cap ? 2 * sub.cap : 16;
					sub.v = xrealloc(sub.v, sub.cap * sizeof(*sub.v));
				}
				sub.v[sub.n++] = t;
				continue;
			}
			n = parse_plan(body);
			if (n >= 0 && sub.plan < 0)
				sub.plan = n;
			note = strstr(body, "SKIP");
			if (note && *skip_spaces(note + 4)) {
				/* The reason a runner's bare "# SKIP" leaves out. */
				free(skip_note);
				skip_note = xstrdup(skip_spaces(note + 4));
			}
			continue;
		}
		if (parse_result(line, &t)) {
			seen++;
			finish_test(c, &sub, &t, skip_note);
			free_line(&t);
			free(skip_note);
			skip_note = NULL;
		} else if ((n = parse_plan(line)) >= 0 && plan < 0) {
			const char *note = strstr(line, "SKIP");

			plan = n;
			if (note)
				plan_note = xstrdup(skip_spaces(note + 4));
		} else if (strncmp(line, "Bail out!", 9) == 0) {
			snprintf(buf, sizeof(buf), "%s: bailed out", path);
			count_one(c, RES_FAIL, buf, skip_spaces(line + 9));
			bailed = true;
		}
	}
	if (ferror(f)) {
		snprintf(buf, sizeof(buf), "%s: read error", path);
		count_one(c, RES_FAIL, buf, strerror(errno));
	}
	fclose(f);

	if (sub.n) {
		/* Subtests with no top-level result: the program never ended. */
		struct test_line top = {
			.res = RES_FAIL,
			.name = xstrdup("(unfinished test)"),
			.reason = xstrdup("no result line: crashed or killed"),
		};

		finish_test(c, &sub, &top, NULL);
		free_line(&top);
	}
	if (plan < 0 && seen == 0 && !bailed) {
		snprintf(buf, sizeof(buf), "%s: no test results", path);
		count_one(c, RES_FAIL, buf, "empty or not KTAP");
	} else if (plan < 0 && !bailed) {
		snprintf(buf, sizeof(buf), "%s: no plan", path);
		count_one(c, RES_FAIL, buf, "results without a plan: cut short or not");
	} else if (plan == 0 && seen == 0) {
		/* "1..0 # SKIP why": one skip, named by the file, never nothing. */
		const char *base = strrchr(path, '/');

		snprintf(buf, sizeof(buf), "%s", base ? base + 1 : path);
		if (strlen(buf) > 5 && !strcmp(buf + strlen(buf) - 5, ".ktap"))
			buf[strlen(buf) - 5] = '\0';
		count_one(c, RES_SKIP, buf, plan_note && *plan_note ? plan_note :
			  "no tests (1..0)");
	} else if (plan > seen && !bailed) {
		snprintf(buf, sizeof(buf), "%s: %ld of %ld planned tests never reported",
			 path, plan - seen, plan);
		count_one(c, RES_FAIL, buf, "truncated: crashed or killed");
	}
	free(sub.v);
	free(skip_note);
	free(plan_note);
	free(line);
}

static void manifest_error(const char *path, unsigned long line, const char *what)
{
	fprintf(stderr, "ktap-summary: %s:%lu: %s\n", path, line, what);
	exit(2);
}

/*
 * Read an expected-results list: "pass NAME" or "skip NAME  # REASON" per
 * line; blank lines and lines starting with '#' are comments.
 */
static void manifest_load(struct counts *c, const char *path)
{
	FILE *f = fopen(path, "r");
	char *line = NULL, buf[4096];
	size_t cap = 0, alloc = 0;
	unsigned long lineno = 0;

	if (!f) {
		/* A failure the closing line counts: the results are still shown. */
		snprintf(buf, sizeof(buf), "%s: cannot read the expected results: %s", path,
			 strerror(errno));
		report(c, RES_FAIL, buf, "make manifest writes them from a green make check");
		return;
	}
	manifest.path = path;
	while (getline(&line, &cap, f) >= 0) {
		struct expected e = { 0 };
		char *name, *hash;

		lineno++;
		rstrip(line);
		if (!*line || *line == '#')
			continue;
		if (!strncmp(line, "pass ", 5))
			e.res = RES_PASS;
		else if (!strncmp(line, "skip ", 5))
			e.res = RES_SKIP;
		else
			manifest_error(path, lineno, "not \"pass NAME\" or \"skip NAME  # REASON\"");
		name = line + 5;
		hash = strstr(name, "  # ");
		if (e.res == RES_SKIP && (!hash || !hash[4]))
			manifest_error(path, lineno, "a skip without its reason (\"  # REASON\")");
		if (e.res == RES_PASS && hash)
			manifest_error(path, lineno, "a pass with a reason");
		if (hash) {
			e.reason = xstrdup(hash + 4);
			*hash = '\0';
		} else {
			e.reason = xstrdup("");
		}
		if (!*name)
			manifest_error(path, lineno, "no test name");
		e.name = xstrdup(name);
		if (manifest.n == alloc) {
			alloc = alloc ? 2 * alloc : 256;
			manifest.v = xrealloc(manifest.v, alloc * sizeof(*manifest.v));
		}
		manifest.v[manifest.n++] = e;
	}
	free(line);
	fclose(f);
	qsort(manifest.v, manifest.n, sizeof(*manifest.v), expected_cmp);
	for (size_t i = 1; i < manifest.n; i++) {
		if (!strcmp(manifest.v[i - 1].name, manifest.v[i].name)) {
			fprintf(stderr, "ktap-summary: %s: \"%s\" is listed twice\n",
				path, manifest.v[i].name);
			exit(2);
		}
	}
}

/* Whether -w asked for @name: no -w asks for everything. */
static bool within(const char *name)
{
	if (!manifest.n_within)
		return true;
	for (size_t i = 0; i < manifest.n_within; i++) {
		size_t len = strlen(manifest.within[i]);

		if (!strncmp(name, manifest.within[i], len) &&
		    (!name[len] || name[len] == ':'))
			return true;
	}
	return false;
}

/* End the current label's list: every listed test that never reported fails. */
static void manifest_close(struct counts *c)
{
	char why[4096];

	for (size_t i = 0; i < manifest.n; i++) {
		struct expected *e = &manifest.v[i];

		if (!e->seen && within(e->name)) {
			snprintf(why, sizeof(why), "never reported, but %s expects %s%s%s",
				 manifest.path, e->res == RES_PASS ? "a pass" : "a skip",
				 e->res == RES_SKIP ? ": " : "", e->reason);
			report(c, RES_FAIL, e->name, why);
		}
		free(e->name);
		free(e->reason);
	}
	free(manifest.v);
	free(manifest.within);
	memset(&manifest, 0, sizeof(manifest));
}

/* The options that take a value. */
static bool is_option(const char *arg)
{
	return !strcmp(arg, "-l") || !strcmp(arg, "-e") || !strcmp(arg, "-w");
}

int main(int argc, char **argv)
{
	struct counts c = { 0 };
	bool bad = false;
	int files = 0;

	/* Check the arguments first: a usage error prints no results. */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-m"))
			print_list = true;
		else if (!strcmp(argv[i], "-r"))
			any_skip_reason = true;
		else if (!is_option(argv[i]))
			files++;
		else if (++i == argc)
			bad = true;	/* an option without its value */
	}
	if (bad || !files) {
		fprintf(stderr,
			"usage: %s [-m] [-r] [-l LABEL] [-e EXPECTED [-w NAME]...] FILE.ktap... [-l LABEL ...]...\n"
			"  -m           print the results as an expected-results list\n"
			"  -r           a skip the list names may give another reason\n"
			"  -l LABEL     prefix the lines of the files after it with \"LABEL: \";\n"
			"               -l '' for no prefix, as before the first -l\n"
			"  -e EXPECTED  hold the results of this label's files against the list\n"
			"               of expected results EXPECTED (\"pass NAME\", \"skip NAME  # WHY\")\n"
			"  -w NAME      only the listed tests NAME or \"NAME: ...\" must report\n",
			argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-m") || !strcmp(argv[i], "-r")) {
			continue;
		} else if (!strcmp(argv[i], "-l")) {
			manifest_close(&c);
			label = argv[++i];
		} else if (!strcmp(argv[i], "-e")) {
			manifest_close(&c);
			manifest_load(&c, argv[++i]);
		} else if (!strcmp(argv[i], "-w")) {
			manifest.within = xrealloc(manifest.within, (manifest.n_within + 1) *
						   sizeof(*manifest.within));
			manifest.within[manifest.n_within++] = argv[++i];
		} else {
			summarise_file(argv[i], &c);
		}
	}
	manifest_close(&c);
	if (!print_list)
		printf("%u passed, %u failed, %u skipped\n", c.passed, c.failed, c.skipped);
	return c.failed ? 1 : 0;
}
