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
			out->res = RES_PASS;
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

static void count_one(struct counts *c, enum result res, const char *name,
		      const char *reason)
{
	static const char *const tag[] = {
		[RES_PASS] = "ok     ", [RES_FAIL] = "not ok ", [RES_SKIP] = "skip   ",
	};

	printf("%s %s%s%s%s%s\n", tag[res], label, *label ? ": " : "", name,
	       *reason ? "  # " : "", reason);
	if (res == RES_PASS)
		c->passed++;
	else if (res == RES_FAIL)
		c->failed++;
	else
		c->skipped++;
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
		/* The whole program skipped itself (e.g. a missing feature). */
		count_one(c, top->res, top->name,
			  *top->reason ? top->reason : last_skip_note ? last_skip_note : "");
	} else if (top->res == RES_FAIL && c->failed == failed_before) {
		count_one(c, RES_FAIL, top->name, *top->reason ? top->reason :
			  "failed after its last subtest");
	}
	subtests_reset(s);
}

static void summarise_file(const char *path, struct counts *c)
{
	struct subtests sub = { .plan = -1 };
	char *line = NULL, *skip_note = NULL;
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
			plan = n;
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
	} else if (plan > seen && !bailed) {
		snprintf(buf, sizeof(buf), "%s: %ld of %ld planned tests never reported",
			 path, plan - seen, plan);
		count_one(c, RES_FAIL, buf, "truncated: crashed or killed");
	}
	free(sub.v);
	free(skip_note);
	free(line);
}

int main(int argc, char **argv)
{
	struct counts c = { 0 };
	bool bad = false;
	int files = 0;

	/* Check the arguments first: a usage error prints no results. */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-l") != 0)
			files++;
		else if (++i == argc)
			bad = true;	/* -l without its LABEL */
	}
	if (bad || !files) {
		fprintf(stderr,
			"usage: %s [-l LABEL] FILE.ktap... [-l LABEL FILE.ktap...]...\n"
			"  -l LABEL  prefix the lines of the files after it with \"LABEL: \";\n"
			"            -l '' for no prefix, as before the first -l\n",
			argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-l") == 0)
			label = argv[++i];
		else
			summarise_file(argv[i], &c);
	}
	printf("%u passed, %u failed, %u skipped\n", c.passed, c.failed, c.skipped);
	return c.failed ? 1 : 0;
}
