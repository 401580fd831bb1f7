/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the unit tests of libaddrres share: a case's outcome, the CHECK
 * macros that end a case, and the KTAP loop that runs the cases.  Each
 * test program sets fixtures_dir and scratch_dir from its arguments.
 */
#ifndef ADDRRES_TEST_UNIT_H
#define ADDRRES_TEST_UNIT_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *fixtures_dir, *scratch_dir;

struct test {
	const char *name;
	void (*fn)(struct test *t, const void *arg);
	const void *arg;
	/* the outcome */
	bool failed, skipped;
	char why[1024];
};

static inline void note(struct test *t, bool skip, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline void note(struct test *t, bool skip, int line, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (skip) {
		t->skipped = true;
		snprintf(t->why, sizeof(t->why), "%s", msg);
	} else {
		t->failed = true;
		snprintf(t->why, sizeof(t->why), "line %d: %s", line, msg);
	}
}

/* End the case: failed, or skipped. */
#define FAIL(t, ...) do { note(t, false, __LINE__, __VA_ARGS__); goto out; } while (0)
#define SKIP(t, ...) do { note(t, true, __LINE__, __VA_ARGS__); goto out; } while (0)

#define CHECK(t, cond) do { if (!(cond)) FAIL(t, "%s", #cond); } while (0)

/* Error codes by name: "-ENOTUNIQ" reads better than -76. */
static inline const char *err_name(long long err)
{
	static char buf[4][32];
	static int n;
	const char *name;

	if (err >= 0 || err < -4095 || !(name = strerrorname_np((int)-err))) {
		n = (n + 1) % 4;
		snprintf(buf[n], sizeof(buf[n]), "%lld", err);
		return buf[n];
	}
	n = (n + 1) % 4;
	snprintf(buf[n], sizeof(buf[n]), "-%s", name);
	return buf[n];
}

#define CHECK_ERR(t, expr, want) do {						\
	long long got_ = (expr), want_ = (want);				\
	if (got_ != want_)							\
		FAIL(t, "%s returned %s, want %s", #expr, err_name(got_), err_name(want_)); \
} while (0)

#define CHECK_INT(t, expr, want) do {						\
	long long got_ = (long long)(expr), want_ = (long long)(want);		\
	if (got_ != want_)							\
		FAIL(t, "%s = %lld, want %lld", #expr, got_, want_);		\
} while (0)

#define CHECK_U64(t, expr, want) do {						\
	unsigned long long got_ = (expr), want_ = (want);			\
	if (got_ != want_)							\
		FAIL(t, "%s = 0x%llx, want 0x%llx", #expr, got_, want_);	\
} while (0)

#define CHECK_STR(t, expr, want) do {						\
	const char *got_ = (expr), *want_ = (want);				\
	if (!got_ || strcmp(got_, want_))					\
		FAIL(t, "%s = \"%.200s\", want \"%.200s\"", #expr,		\
		     got_ ? got_ : "(null)", want_);				\
} while (0)

/*
 * A path in a directory, in one of 8 buffers used in turn: valid until 8
 * more calls; copy it to keep it longer.
 */
static inline const char *path_in(const char *dir, const char *name)
{
	static char buf[8][PATH_MAX];
	static int n;

	n = (n + 1) % 8;
	snprintf(buf[n], sizeof(buf[n]), "%s/%s", dir, name);
	return buf[n];
}

static inline const char *fixture(const char *name)
{
	return path_in(fixtures_dir, name);
}

/* Whether case @name is among the comma-separated @only (NULL: every case). */
static inline bool test_selected(const char *only, const char *name)
{
	size_t len = strlen(name);

	for (const char *p = only; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
	}
	return !only;
}

/*
 * Run the @n cases of @tests, printing KTAP; 1 if one failed, else 0.
 * $TEST_CASES, if set, names the only cases to run (comma-separated): a
 * run of a few against another build of the library.
 */
static inline int run_tests(struct test *tests, size_t n)
{
	const char *only = getenv("TEST_CASES");
	size_t failed = 0, selected = 0;

	for (size_t i = 0; i < n; i++)
		selected += test_selected(only, tests[i].name);
	printf("TAP version 13\n1..%zu\n", selected);
	fflush(stdout);
	for (size_t i = 0, nr = 0; i < n; i++) {
		struct test *t = &tests[i];

		if (!test_selected(only, t->name))
			continue;
		nr++;

		t->fn(t, t->arg);
		if (t->failed) {
			failed++;
			printf("not ok %zu %s # %s\n", nr, t->name, t->why);
		} else if (t->skipped) {
			printf("ok %zu %s # SKIP %s\n", nr, t->name, t->why);
		} else {
			printf("ok %zu %s\n", nr, t->name);
		}
		fflush(stdout);
	}
	return failed ? 1 : 0;
}

#endif /* ADDRRES_TEST_UNIT_H */
