// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of libaddrres's kernel symbols (addrres_ksyms__*), on the
 * sample files of fixtures/ (see fixtures/README) and on files written
 * into a scratch directory.  One concern per case.
 *
 *   test_ksyms FIXTURES_DIR SCRATCH_DIR
 *
 * Prints KTAP; exits 1 if a case failed.  Built with ASan and UBSan by
 * run.sh, so that a leak or an out-of-bounds access fails the run too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <addrres/addrres.h>
#include "unit.h"

/* The number of lines of fixtures/kallmodsyms (and kallsyms, restricted). */
#define FIXTURE_SYMS 29

/*
 * Open fixture files by name (NULL: one that does not exist); the error
 * message goes to @msg.
 */
static int open_files(struct addrres_ksyms **ks, const char *kallmodsyms, const char *kallsyms,
		      const char *modules, char *msg, size_t msg_sz)
{
	ADDRRES_OPTS(addrres_ksyms_opts, opts,
		.kallmodsyms_path = fixture(kallmodsyms ? kallmodsyms : "does-not-exist"),
		.kallsyms_path = fixture(kallsyms ? kallsyms : "does-not-exist"),
		.modules_path = fixture(modules ? modules : "does-not-exist"),
		.errbuf = msg,
		.errbuf_sz = msg_sz,
	);

	return addrres_ksyms__open(&opts, ks);
}

/* fixtures/kallmodsyms and fixtures/modules, or fail the case. */
#define OPEN_KALLMODSYMS(t, ks) do {						\
	char msg_[512];								\
	int err_ = open_files(&(ks), "kallmodsyms", "kallsyms", "modules",	\
			      msg_, sizeof(msg_));				\
	if (err_)								\
		FAIL(t, "open: %s: %s", err_name(err_), msg_);			\
} while (0)

/* find_addr that must succeed: the symbol and the offset. */
#define CHECK_ADDR(t, ks, addr, want_name, want_off) do {			\
	const struct addrres_ksym *s_ = NULL;					\
	uint64_t off_ = ~0ULL;							\
	int e_ = addrres_ksyms__find_addr(ks, addr, &s_, &off_);		\
	if (e_ || !s_)								\
		FAIL(t, "find_addr(0x%llx) returned %s", (unsigned long long)(addr), err_name(e_)); \
	if (strcmp(s_->name, want_name) || off_ != (want_off))			\
		FAIL(t, "find_addr(0x%llx) = %s+0x%llx, want %s+0x%llx",	\
		     (unsigned long long)(addr), s_->name, (unsigned long long)off_, \
		     want_name, (unsigned long long)(want_off));		\
} while (0)

/* find_addr that must fail with @want_err and leave the symbol NULL. */
#define CHECK_NO_ADDR(t, ks, addr, want_err) do {				\
	const struct addrres_ksym *s_ = (void *)1;				\
	int e_ = addrres_ksyms__find_addr(ks, addr, &s_, NULL);			\
	if (e_ != (want_err) || s_)						\
		FAIL(t, "find_addr(0x%llx) returned %s (%s), want %s",		\
		     (unsigned long long)(addr), err_name(e_),			\
		     e_ ? "symbol not cleared" : s_->name, err_name(want_err)); \
} while (0)

/* find_name with room for 8: its return value, count and matches. */
struct found {
	int err;
	size_t count;
	const struct addrres_ksym *syms[8];
};

static struct found find(const struct addrres_ksyms *ks, const char *query)
{
	struct found f = { .count = 12345 };

	f.err = addrres_ksyms__find_name(ks, query, f.syms, 8, &f.count);
	return f;
}

/* find_name that must give @want_err and @want_count matches. */
#define CHECK_FIND(t, f, ks, query, want_err, want_count) do {			\
	f = find(ks, query);							\
	if (f.err != (want_err) || f.count != (size_t)(want_count))		\
		FAIL(t, "find_name(\"%.100s\") returned %s with %zu matches, want %s with %d", \
		     query, err_name(f.err), f.count, err_name(want_err), (int)(want_count)); \
} while (0)

/* ---- the cases ---- */

static void test_open_kallmodsyms(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	char msg[256] = "not cleared";

	(void)arg;
	CHECK_ERR(t, open_files(&ks, "kallmodsyms", "kallsyms", "modules", msg, sizeof(msg)), 0);
	CHECK(t, ks != NULL);
	CHECK_STR(t, msg, "");
	CHECK_INT(t, addrres_ksyms__source(ks), ADDRRES_KSYMS_SOURCE_KALLMODSYMS);
	CHECK_INT(t, addrres_ksyms__count(ks), FIXTURE_SYMS);
	CHECK(t, !addrres_ksyms__restricted(ks));
out:
	addrres_ksyms__free(ks);
}

/* kallmodsyms gives each symbol's size, zero included; kallsyms none. */
static void test_sizes(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *s;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_INT(t, addrres_ksyms__source(ks), ADDRRES_KSYMS_SOURCE_KALLMODSYMS);
	s = addrres_ksyms__sym(ks, 5);	/* line 6: ... c0 T __startup_64 */
	CHECK_STR(t, s->name, "__startup_64");
	CHECK_U64(t, s->size, 0xc0);
	s = addrres_ksyms__sym(ks, 3);	/* line 4: ... 0 T _text */
	CHECK_STR(t, s->name, "_text");
	CHECK_U64(t, s->size, 0);
	addrres_ksyms__free(ks);
	ks = NULL;
	CHECK_ERR(t, open_files(&ks, NULL, "kallsyms", "modules", NULL, 0), 0);
	CHECK_INT(t, addrres_ksyms__source(ks), ADDRRES_KSYMS_SOURCE_KALLSYMS);
	s = addrres_ksyms__sym(ks, 5);
	CHECK_STR(t, s->name, "__startup_64");
	CHECK_U64(t, s->size, 0);
out:
	addrres_ksyms__free(ks);
}

static void test_sym_order(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *s;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	s = addrres_ksyms__sym(ks, 0);
	CHECK(t, s != NULL);
	CHECK_STR(t, s->name, "cpu_debug_store");
	CHECK_U64(t, s->addr, 0x1000);
	CHECK_INT(t, s->type, 'A');
	CHECK_U64(t, s->size, 0x40);
	s = addrres_ksyms__sym(ks, FIXTURE_SYMS - 1);
	CHECK(t, s != NULL);
	CHECK_STR(t, s->name, "bpf_prog_6deef7357e7b4530_sd_fw_ingress");
	CHECK(t, addrres_ksyms__sym(ks, FIXTURE_SYMS) == NULL);
	CHECK(t, addrres_ksyms__sym(ks, SIZE_MAX) == NULL);
out:
	addrres_ksyms__free(ks);
}

static void test_sym_modules_object(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *s;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	s = addrres_ksyms__sym(ks, 12);
	CHECK(t, s != NULL);
	CHECK_STR(t, s->name, "uclogic_rdesc_template_apply");
	CHECK_U64(t, s->addr, 0xffffffff81000600ULL);
	CHECK_INT(t, s->type, 'T');
	CHECK_INT(t, s->nr_modules, 2);
	CHECK_STR(t, s->modules[0], "hid_uclogic");
	CHECK_STR(t, s->modules[1], "hid_uclogic_test");
	CHECK_STR(t, s->object, "hid-uclogic-rdesc.o");
	CHECK(t, !s->loaded_module);
	/* A symbol with no annotation. */
	s = addrres_ksyms__sym(ks, 19);
	CHECK_STR(t, s->name, "schedule");
	CHECK_INT(t, s->nr_modules, 0);
	CHECK(t, s->modules == NULL);
	CHECK(t, s->object == NULL);
out:
	addrres_ksyms__free(ks);
}

static void test_annotations_shared(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *a, *b;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	/* [hid_uclogic] [hid_uclogic_test]: one array for both symbols */
	a = addrres_ksyms__sym(ks, 12);
	b = addrres_ksyms__sym(ks, 13);
	CHECK_STR(t, b->name, "uclogic_params_init");
	CHECK(t, a->modules == b->modules);
	/* {head64.o}: one string */
	a = addrres_ksyms__sym(ks, 5);
	b = addrres_ksyms__sym(ks, 6);
	CHECK_STR(t, a->object, "head64.o");
	CHECK(t, a->object == b->object);
	/* [test_module]: one list for all the module's symbols */
	a = addrres_ksyms__sym(ks, 22);
	b = addrres_ksyms__sym(ks, 23);
	CHECK(t, a->modules == b->modules);
out:
	addrres_ksyms__free(ks);
}

static void test_addr_offset(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_ADDR(t, ks, 0xffffffff81000050ULL, "__startup_64", 0x10);
	CHECK_ADDR(t, ks, 0xffffffff810000ffULL, "__startup_64", 0xbf);
	CHECK_ADDR(t, ks, 0xffffffff81000100ULL, "startup_64_setup_env", 0);
	CHECK_ADDR(t, ks, 0xffffffff81000c01ULL, "schedule", 1);
out:
	addrres_ksyms__free(ks);
}

static void test_addr_alias_first_in_file(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	/* _text and _stext share the address: _text comes first */
	CHECK_ADDR(t, ks, 0xffffffff81000000ULL, "_text", 0);
	CHECK_ADDR(t, ks, 0xffffffff81000020ULL, "_text", 0x20);
out:
	addrres_ksyms__free(ks);
}

static void test_addr_before_first(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_NO_ADDR(t, ks, 0, -ENOENT);
	CHECK_NO_ADDR(t, ks, 0xfff, -ENOENT);
	CHECK_ADDR(t, ks, 0x1000, "cpu_debug_store", 0);
out:
	addrres_ksyms__free(ks);
}

static void test_addr_absolute_region(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_ADDR(t, ks, 0x3000, "irq_stack_backing_store", 0x1000);
	CHECK_ADDR(t, ks, 0x2d000, "__per_cpu_end", 0);
	/* past the per-CPU symbols: not __per_cpu_end+0x... */
	CHECK_NO_ADDR(t, ks, 0x2d001, -ENOENT);
	CHECK_NO_ADDR(t, ks, 0x400000, -ENOENT);
	CHECK_NO_ADDR(t, ks, 0xffffffff80ffffffULL, -ENOENT);
out:
	addrres_ksyms__free(ks);
}

static void test_addr_past_image(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_ADDR(t, ks, 0xffffffff82000000ULL, "_end", 0);
	CHECK_NO_ADDR(t, ks, 0xffffffff82000001ULL, -ENOENT);
	CHECK_NO_ADDR(t, ks, 0xffffffffbfffffffULL, -ENOENT);
out:
	addrres_ksyms__free(ks);
}

static void test_addr_loaded_module(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *s;
	uint64_t off;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_ERR(t, addrres_ksyms__find_addr(ks, 0xffffffffc0002010ULL, &s, &off), 0);
	CHECK_STR(t, s->name, "test_module_init");
	CHECK_U64(t, off, 0x10);
	CHECK(t, s->loaded_module);
	CHECK_INT(t, s->nr_modules, 1);
	CHECK_STR(t, s->modules[0], "test_module");
	CHECK(t, s->object == NULL);
	/* ext4 comes after test_module in the file, at lower addresses */
	CHECK_ADDR(t, ks, 0xffffffffc0000050ULL, "ext4_fill_super", 0x50);
	CHECK_ADDR(t, ks, 0xffffffffc0002040ULL, "helper", 0);
	CHECK_ERR(t, addrres_ksyms__find_addr(ks, 0xffffffffc0000100ULL, &s, NULL), 0);
	CHECK(t, s->loaded_module);
	CHECK_STR(t, s->modules[0], "ext4");
out:
	addrres_ksyms__free(ks);
}

static void test_addr_past_module(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	/* helper [ext4] is ext4's last symbol; ftrace_trampoline follows */
	CHECK_NO_ADDR(t, ks, 0xffffffffc0000180ULL, -ENOENT);
	CHECK_NO_ADDR(t, ks, 0xffffffffc0000fffULL, -ENOENT);
	/* test_data is test_module's last symbol */
	CHECK_ADDR(t, ks, 0xffffffffc0002100ULL, "test_data", 0);
	CHECK_NO_ADDR(t, ks, 0xffffffffc0002101ULL, -ENOENT);
	/* a pseudo-module of one symbol: only its own address */
	CHECK_ADDR(t, ks, 0xffffffffc0001000ULL, "ftrace_trampoline", 0);
	CHECK_NO_ADDR(t, ks, 0xffffffffc0001001ULL, -ENOENT);
	CHECK_NO_ADDR(t, ks, ~0ULL, -ENOENT);
out:
	addrres_ksyms__free(ks);
}

static void test_builtin_vs_loaded(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *s;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	/* [rapl] is not in the modules list: a built-in module */
	s = addrres_ksyms__sym(ks, 7);
	CHECK_STR(t, s->name, "cpu_to_rapl_pmu");
	CHECK_INT(t, s->nr_modules, 1);
	CHECK_STR(t, s->modules[0], "rapl");
	CHECK(t, !s->loaded_module);
	/* [intel_uncore_frequency] neither */
	CHECK(t, !addrres_ksyms__sym(ks, 11)->loaded_module);
	/* [test_module] is */
	CHECK(t, addrres_ksyms__sym(ks, 22)->loaded_module);
	/* pseudo-modules: not in the list, loaded all the same */
	s = addrres_ksyms__sym(ks, 27);
	CHECK_STR(t, s->modules[0], "__builtin__ftrace");
	CHECK(t, s->loaded_module);
	s = addrres_ksyms__sym(ks, 28);
	CHECK_STR(t, s->modules[0], "bpf");
	CHECK(t, s->loaded_module);
out:
	addrres_ksyms__free(ks);
}

static void test_name_bare_unique(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	struct found f;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_FIND(t, f, ks, "schedule", 0, 1);
	CHECK_U64(t, f.syms[0]->addr, 0xffffffff81000c00ULL);
	/* surrounding spaces do not count */
	CHECK_FIND(t, f, ks, " schedule\n", 0, 1);
out:
	addrres_ksyms__free(ks);
}

static void test_name_bare_ambiguous(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *two[2] = { NULL, NULL };
	size_t count = 0;
	struct found f;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_FIND(t, f, ks, "uncore_msr_box_offset", -ENOTUNIQ, 3);
	/* all of them, in file order */
	CHECK_U64(t, f.syms[0]->addr, 0xffffffff81000300ULL);
	CHECK_U64(t, f.syms[1]->addr, 0xffffffff81000400ULL);
	CHECK_U64(t, f.syms[2]->addr, 0xffffffff81000500ULL);
	/* less room than matches: the first ones, and the whole count */
	CHECK_ERR(t, addrres_ksyms__find_name(ks, "uncore_msr_box_offset", two, 2, &count),
		  -ENOTUNIQ);
	CHECK_INT(t, count, 3);
	CHECK(t, two[0] == f.syms[0] && two[1] == f.syms[1]);
	/* counting only */
	CHECK_ERR(t, addrres_ksyms__find_name(ks, "uncore_msr_box_offset", NULL, 0, &count),
		  -ENOTUNIQ);
	CHECK_INT(t, count, 3);
	/* the core kernel's helper and two loaded modules' */
	CHECK_FIND(t, f, ks, "helper", -ENOTUNIQ, 3);
out:
	addrres_ksyms__free(ks);
}

static void test_name_by_module(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	struct found f;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_FIND(t, f, ks, "uncore_msr_box_offset [intel_uncore_frequency]", 0, 1);
	CHECK_U64(t, f.syms[0]->addr, 0xffffffff81000500ULL);
	/* a module alone does not tell the two objects of intel_uncore apart */
	CHECK_FIND(t, f, ks, "uncore_msr_box_offset [intel_uncore]", -ENOTUNIQ, 2);
	/* a loaded module's symbol */
	CHECK_FIND(t, f, ks, "helper [ext4]", 0, 1);
	CHECK(t, f.syms[0]->loaded_module);
	CHECK_U64(t, f.syms[0]->addr, 0xffffffffc0000100ULL);
	/* the tab of a kallmodsyms line works as the space */
	CHECK_FIND(t, f, ks, "helper\t[test_module]", 0, 1);
	CHECK_FIND(t, f, ks, "helper [mbcache]", -ENOENT, 0);
out:
	addrres_ksyms__free(ks);
}

static void test_name_by_object(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	struct found f;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_FIND(t, f, ks, "uncore_msr_box_offset {uncore_snb.o}", 0, 1);
	CHECK_U64(t, f.syms[0]->addr, 0xffffffff81000400ULL);
	CHECK_FIND(t, f, ks, "uncore_msr_box_offset {uncore.o}", 0, 1);
	CHECK_U64(t, f.syms[0]->addr, 0xffffffff81000300ULL);
	CHECK_FIND(t, f, ks, "uncore_msr_box_offset {other.o}", -ENOENT, 0);
out:
	addrres_ksyms__free(ks);
}

static void test_name_by_module_and_object(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	struct found f;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_FIND(t, f, ks, "uncore_msr_box_offset [intel_uncore] {uncore.o}", 0, 1);
	CHECK_U64(t, f.syms[0]->addr, 0xffffffff81000300ULL);
	/* every qualifier must match */
	CHECK_FIND(t, f, ks, "uncore_msr_box_offset [intel_uncore_frequency] {uncore.o}",
		   -ENOENT, 0);
	/* several modules, in any order, and the object */
	CHECK_FIND(t, f, ks,
		   "uclogic_rdesc_template_apply [hid_uclogic_test] [hid_uclogic] {hid-uclogic-rdesc.o}",
		   0, 1);
	CHECK_FIND(t, f, ks, "uclogic_rdesc_template_apply [hid_uclogic] [ext4]", -ENOENT, 0);
out:
	addrres_ksyms__free(ks);
}

static void test_name_module_dash(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	struct found f;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_FIND(t, f, ks, "uclogic_rdesc_template_apply [hid-uclogic-test]", 0, 1);
	CHECK_U64(t, f.syms[0]->addr, 0xffffffff81000600ULL);
	/* only in module names: the object's '-' stays a '-' */
	CHECK_FIND(t, f, ks, "uclogic_rdesc_template_apply {hid_uclogic_rdesc.o}", -ENOENT, 0);
out:
	addrres_ksyms__free(ks);
}

static void test_name_object_suffix(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	struct found f;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	/* {x.o} is x.o, and the tail of dir/x.o and sub/adir/x.o */
	CHECK_FIND(t, f, ks, "init_one {x.o}", -ENOTUNIQ, 3);
	/* whole components: dir/x.o is not the tail of sub/adir/x.o */
	CHECK_FIND(t, f, ks, "init_one {dir/x.o}", 0, 1);
	CHECK_STR(t, f.syms[0]->object, "dir/x.o");
	CHECK_FIND(t, f, ks, "init_one {adir/x.o}", 0, 1);
	CHECK_STR(t, f.syms[0]->object, "sub/adir/x.o");
	CHECK_FIND(t, f, ks, "init_one {ir/x.o}", -ENOENT, 0);
	/* a longer path than the annotation's is not a match */
	CHECK_FIND(t, f, ks, "init_one {top/dir/x.o}", -ENOENT, 0);
out:
	addrres_ksyms__free(ks);
}

static void test_name_exact(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	struct found f;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	/* "=": the object must be x.o itself */
	CHECK_FIND(t, f, ks, "=init_one {x.o}", 0, 1);
	CHECK_U64(t, f.syms[0]->addr, 0xffffffff81000700ULL);
	/* "=NAME": the symbol without annotation */
	CHECK_FIND(t, f, ks, "=helper", 0, 1);
	CHECK_U64(t, f.syms[0]->addr, 0xffffffff81000380ULL);
	/* both intel_uncore symbols have an object */
	CHECK_FIND(t, f, ks, "=uncore_msr_box_offset [intel_uncore]", -ENOENT, 0);
	/* the module list must be the whole list */
	CHECK_FIND(t, f, ks, "=uclogic_rdesc_template_apply [hid_uclogic] {hid-uclogic-rdesc.o}",
		   -ENOENT, 0);
	CHECK_FIND(t, f, ks,
		   "=uclogic_rdesc_template_apply [hid_uclogic_test] [hid_uclogic] {hid-uclogic-rdesc.o}",
		   0, 1);
out:
	addrres_ksyms__free(ks);
}

static void test_name_indistinguishable(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	struct found f;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	/* two statics of one object: still ambiguous, both listed */
	CHECK_FIND(t, f, ks, "=dup_static {same.o}", -ENOTUNIQ, 2);
	CHECK_U64(t, f.syms[0]->addr, 0xffffffff81000a00ULL);
	CHECK_U64(t, f.syms[1]->addr, 0xffffffff81000a80ULL);
out:
	addrres_ksyms__free(ks);
}

static void test_name_not_found(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	struct found f;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	CHECK_FIND(t, f, ks, "no_such_symbol", -ENOENT, 0);
	/* a prefix or an extension of a name is another name */
	CHECK_FIND(t, f, ks, "schedul", -ENOENT, 0);
	CHECK_FIND(t, f, ks, "schedule_", -ENOENT, 0);
out:
	addrres_ksyms__free(ks);
}

static void test_name_malformed(struct test *t, const void *arg)
{
	static const char *const bad[] = {
		"", "   ", "=", "[rapl]", "{x.o}", "helper [", "helper []", "helper [ext4",
		"helper {}", "helper {x.o", "helper {a.o} {b.o}", "helper ext4",
		"helper [ext4]x", "helper [ext4][test_module]", "helper [ext 4]",
		"helper [ext4] junk",
	};
	struct addrres_ksyms *ks = NULL;
	struct found f;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_FIND(t, f, ks, bad[i], -EINVAL, 0);
out:
	addrres_ksyms__free(ks);
}

static void test_format(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *s;
	char buf[256], small[8];

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	s = addrres_ksyms__sym(ks, 12);
	CHECK_INT(t, addrres_ksym__format(s, buf, sizeof(buf)), 83);
	CHECK_STR(t, buf, "uclogic_rdesc_template_apply [hid_uclogic] [hid_uclogic_test] {hid-uclogic-rdesc.o}");
	/* cut, but the whole length returned */
	CHECK_INT(t, addrres_ksym__format(s, small, sizeof(small)), 83);
	CHECK_STR(t, small, "uclogic");
	CHECK_INT(t, addrres_ksym__format(s, NULL, 0), 83);
	CHECK_INT(t, addrres_ksym__format(addrres_ksyms__sym(ks, 19), buf, sizeof(buf)), 8);
	CHECK_STR(t, buf, "schedule");
	CHECK_ERR(t, addrres_ksym__format(NULL, buf, sizeof(buf)), -EINVAL);
	CHECK_ERR(t, addrres_ksym__format(s, NULL, 1), -EINVAL);
out:
	addrres_ksyms__free(ks);
}

static bool same_identity(const struct addrres_ksym *a, const struct addrres_ksym *b)
{
	if (strcmp(a->name, b->name) || a->nr_modules != b->nr_modules ||
	    !a->object != !b->object || (a->object && strcmp(a->object, b->object)))
		return false;
	for (size_t i = 0; i < a->nr_modules; i++) {
		if (strcmp(a->modules[i], b->modules[i]))
			return false;
	}
	return true;
}

static void test_format_round_trip(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	char query[512];
	struct found f;

	(void)arg;
	OPEN_KALLMODSYMS(t, ks);
	for (size_t i = 0; i < addrres_ksyms__count(ks); i++) {
		const struct addrres_ksym *s = addrres_ksyms__sym(ks, i);
		bool self = false;

		query[0] = '=';
		CHECK(t, addrres_ksym__format(s, query + 1, sizeof(query) - 1) > 0);
		f = find(ks, query);
		if (f.err && f.err != -ENOTUNIQ)
			FAIL(t, "find_name(\"%s\") returned %s", query, err_name(f.err));
		for (size_t j = 0; j < f.count && j < 8; j++) {
			if (f.syms[j] == s)
				self = true;
			else if (!same_identity(f.syms[j], s))
				FAIL(t, "find_name(\"%s\") also found %s at 0x%llx", query,
				     f.syms[j]->name, (unsigned long long)f.syms[j]->addr);
		}
		if (!self)
			FAIL(t, "find_name(\"%s\") did not find line %zu", query, i + 1);
	}
out:
	addrres_ksyms__free(ks);
}

static void test_fallback_kallsyms(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *s;
	char msg[256];
	struct found f;
	int err;

	(void)arg;
	err = open_files(&ks, NULL, "kallsyms", "modules", msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	CHECK_INT(t, addrres_ksyms__source(ks), ADDRRES_KSYMS_SOURCE_KALLSYMS);
	CHECK_INT(t, addrres_ksyms__count(ks), FIXTURE_SYMS);
	/* no annotation to tell them apart: ambiguous, all three listed */
	CHECK_FIND(t, f, ks, "uncore_msr_box_offset", -ENOTUNIQ, 3);
	CHECK_FIND(t, f, ks, "uncore_msr_box_offset [intel_uncore]", -ENOENT, 0);
	s = addrres_ksyms__sym(ks, 7);
	CHECK_STR(t, s->name, "cpu_to_rapl_pmu");
	CHECK_INT(t, s->nr_modules, 0);
	/* loaded modules are the same */
	CHECK_FIND(t, f, ks, "helper [ext4]", 0, 1);
	CHECK(t, f.syms[0]->loaded_module);
	CHECK_ADDR(t, ks, 0xffffffffc0002010ULL, "test_module_init", 0x10);
out:
	addrres_ksyms__free(ks);
}

/* opts.source: one file only, whether or not the other exists. */
static int open_source(struct addrres_ksyms **ks, const char *kallmodsyms,
		       enum addrres_ksyms_source source, char *msg, size_t msg_sz)
{
	ADDRRES_OPTS(addrres_ksyms_opts, opts,
		.kallmodsyms_path = fixture(kallmodsyms),
		.kallsyms_path = fixture("kallsyms"),
		.modules_path = fixture("modules"),
		.errbuf = msg,
		.errbuf_sz = msg_sz,
		.source = source,
	);

	return addrres_ksyms__open(&opts, ks);
}

static void test_source_kallsyms_forced(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	char msg[256];
	struct found f;

	(void)arg;
	/* kallmodsyms exists, and is not read */
	CHECK_ERR(t, open_source(&ks, "kallmodsyms", ADDRRES_KSYMS_SOURCE_KALLSYMS,
				 msg, sizeof(msg)), 0);
	CHECK_INT(t, addrres_ksyms__source(ks), ADDRRES_KSYMS_SOURCE_KALLSYMS);
	CHECK_FIND(t, f, ks, "uncore_msr_box_offset", -ENOTUNIQ, 3);
out:
	addrres_ksyms__free(ks);
}

static void test_source_kallmodsyms_required(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = (void *)1;
	char msg[256];

	(void)arg;
	CHECK_ERR(t, open_source(&ks, "kallmodsyms", ADDRRES_KSYMS_SOURCE_KALLMODSYMS,
				 msg, sizeof(msg)), 0);
	CHECK_INT(t, addrres_ksyms__source(ks), ADDRRES_KSYMS_SOURCE_KALLMODSYMS);
	addrres_ksyms__free(ks);
	/* no fallback to the kallsyms file, which exists */
	ks = (void *)1;
	CHECK_ERR(t, open_source(&ks, "does-not-exist", ADDRRES_KSYMS_SOURCE_KALLMODSYMS,
				 msg, sizeof(msg)), -ENOENT);
	CHECK(t, ks == NULL);
	CHECK(t, strstr(msg, "does-not-exist: ") != NULL);
	CHECK(t, strstr(msg, "kallsyms") == NULL);
	/* a source this library does not know */
	CHECK_ERR(t, open_source(&ks, "kallmodsyms", 3, msg, sizeof(msg)), -EINVAL);
	CHECK(t, ks == NULL);
	CHECK(t, strstr(msg, "unknown source 3") != NULL);
out:
	if (ks != (void *)1)
		addrres_ksyms__free(ks);
}

static void test_modules_list_missing(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	char msg[256];
	int err;

	(void)arg;
	/* a kernel without CONFIG_MODULES has no /proc/modules */
	err = open_files(&ks, "kallmodsyms", "kallsyms", NULL, msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	/* [test_module] can then only be a built-in module */
	CHECK_STR(t, addrres_ksyms__sym(ks, 22)->name, "test_module_init");
	CHECK(t, !addrres_ksyms__sym(ks, 22)->loaded_module);
	/* pseudo-modules are never built in */
	CHECK(t, addrres_ksyms__sym(ks, 27)->loaded_module);
	CHECK(t, addrres_ksyms__sym(ks, 28)->loaded_module);
out:
	addrres_ksyms__free(ks);
}

static void test_restricted(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *s = NULL;
	char msg[256];
	struct found f;
	int err;

	(void)arg;
	err = open_files(&ks, "restricted", NULL, "modules", msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	CHECK(t, addrres_ksyms__restricted(ks));
	CHECK_INT(t, addrres_ksyms__count(ks), FIXTURE_SYMS);
	CHECK_NO_ADDR(t, ks, 0, -EACCES);
	CHECK_NO_ADDR(t, ks, 0xffffffff81000050ULL, -EACCES);
	CHECK_FIND(t, f, ks, "schedule", -EACCES, 0);
	/* the names are there all the same */
	s = addrres_ksyms__sym(ks, 22);
	CHECK_STR(t, s->name, "test_module_init");
	CHECK(t, s->loaded_module);
out:
	addrres_ksyms__free(ks);
}

/* A malformed file: -EINVAL, no set, and "path:line: " and what. */
struct corrupt_case {
	const char *file;
	bool as_kallsyms;	/* read as the kallsyms fallback */
	int line;
	const char *what;	/* in the message */
};

static void test_corrupt(struct test *t, const void *arg)
{
	const struct corrupt_case *c = arg;
	struct addrres_ksyms *ks = (void *)1;
	char msg[512], prefix[PATH_MAX + 32];
	int err;

	if (c->as_kallsyms)
		err = open_files(&ks, NULL, c->file, "modules", msg, sizeof(msg));
	else
		err = open_files(&ks, c->file, "kallsyms", "modules", msg, sizeof(msg));
	if (err != -EINVAL)
		FAIL(t, "open returned %s, want -EINVAL", err_name(err));
	CHECK(t, ks == NULL);
	snprintf(prefix, sizeof(prefix), "%s:%d: ", fixture(c->file), c->line);
	if (strncmp(msg, prefix, strlen(prefix)) || !strstr(msg, c->what))
		FAIL(t, "message \"%s\", want \"%s...%s...\"", msg, prefix, c->what);
out:
	if (ks != (void *)1)
		addrres_ksyms__free(ks);
}

static const struct corrupt_case corrupt_cases[] = {
	{ "corrupt-address.kallmodsyms", false, 2, "found 'z'" },
	{ "corrupt-address-long.kallmodsyms", false, 3, "more than 16 hex digits" },
	{ "corrupt-no-type.kallmodsyms", false, 2, "missing symbol type" },
	{ "corrupt-no-name.kallmodsyms", false, 3, "missing symbol name" },
	{ "corrupt-bracket.kallmodsyms", false, 3, "unterminated \"[\"" },
	{ "corrupt-brace.kallmodsyms", false, 2, "unterminated \"{\"" },
	{ "corrupt-empty-module.kallmodsyms", false, 3, "empty module name" },
	{ "corrupt-after-object.kallmodsyms", false, 2, "after the object path" },
	{ "corrupt-space-in-name.kallmodsyms", false, 4, "space in the symbol name" },
	{ "corrupt-nul.kallmodsyms", false, 2, "NUL byte" },
	{ "corrupt-no-size.kallmodsyms", false, 2, "expected a hex size after the address, found 'T'" },
	{ "corrupt-annotated.kallsyms", true, 3, "single \"[module]\"" },
};

static void test_corrupt_modules(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = (void *)1;
	char msg[512], want[PATH_MAX + 32];

	(void)arg;
	CHECK_ERR(t, open_files(&ks, "kallmodsyms", "kallsyms", "corrupt.modules", msg, sizeof(msg)),
		  -EINVAL);
	CHECK(t, ks == NULL);
	snprintf(want, sizeof(want), "%s:2: ", fixture("corrupt.modules"));
	if (strncmp(msg, want, strlen(want)))
		FAIL(t, "message \"%s\", want \"%s...\"", msg, want);
out:
	if (ks != (void *)1)
		addrres_ksyms__free(ks);
}

static void test_error_message_cut(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	char full[512], cut[12];

	(void)arg;
	memset(cut, 'x', sizeof(cut));
	CHECK_ERR(t, open_files(&ks, "corrupt-brace.kallmodsyms", NULL, NULL, full, sizeof(full)),
		  -EINVAL);
	/* the last byte of a 10-byte buffer is the NUL; nothing past it written */
	CHECK_ERR(t, open_files(&ks, "corrupt-brace.kallmodsyms", NULL, NULL, cut, 10), -EINVAL);
	CHECK_INT(t, strlen(cut), 9);
	CHECK(t, !strncmp(cut, full, 9));
	CHECK(t, cut[10] == 'x' && cut[11] == 'x');
out:
	addrres_ksyms__free(ks);
}

static void test_empty_file(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	char msg[256];
	struct found f;
	int err;

	(void)arg;
	err = open_files(&ks, "empty", NULL, "modules", msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	CHECK_INT(t, addrres_ksyms__count(ks), 0);
	CHECK(t, !addrres_ksyms__restricted(ks));
	CHECK(t, addrres_ksyms__sym(ks, 0) == NULL);
	CHECK_NO_ADDR(t, ks, 0xffffffff81000000ULL, -ENOENT);
	CHECK_FIND(t, f, ks, "schedule", -ENOENT, 0);
out:
	addrres_ksyms__free(ks);
}

/* The kernel shows '?' for a loaded module's symbol it cannot classify. */
static void test_type_unknown(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *s;
	char msg[256], path[PATH_MAX];
	FILE *file;
	int err;

	(void)arg;
	snprintf(path, sizeof(path), "%s", path_in(scratch_dir, "unknown-type.kallsyms"));
	file = fopen(path, "w");
	if (!file)
		FAIL(t, "%s: %s", path, strerror(errno));
	fprintf(file, "ffffffff81000000 T _text\n");
	fprintf(file, "ffffffffc0002000 t test_module_init\t[test_module]\n");
	fprintf(file, "ffffffffc0002100 ? __UNIQUE_ID_odd\t[test_module]\n");
	if (fclose(file))
		FAIL(t, "%s: %s", path, strerror(errno));
	{
		ADDRRES_OPTS(addrres_ksyms_opts, opts, .kallsyms_path = path,
			     .source = ADDRRES_KSYMS_SOURCE_KALLSYMS, .errbuf = msg,
			     .errbuf_sz = sizeof(msg));
		err = addrres_ksyms__open(&opts, &ks);
	}
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	CHECK_ERR(t, addrres_ksyms__find_addr(ks, 0xffffffffc0002100ULL, &s, NULL), 0);
	CHECK_STR(t, s->name, "__UNIQUE_ID_odd");
	CHECK_INT(t, s->type, '?');
	CHECK(t, s->loaded_module);
out:
	addrres_ksyms__free(ks);
}

static void test_long_line(struct test *t, const void *arg)
{
	enum { NAME_LEN = 1 << 20, NR_MODS = 5000 };
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *s;
	char *name = NULL, *query = NULL, msg[256], path[PATH_MAX];
	struct found f;
	FILE *file;
	int err;

	(void)arg;
	snprintf(path, sizeof(path), "%s", path_in(scratch_dir, "long.kallmodsyms"));
	name = malloc(NAME_LEN + 1);
	query = malloc(NAME_LEN + 32);
	CHECK(t, name && query);
	memset(name, 'a', NAME_LEN);
	name[NAME_LEN] = '\0';
	file = fopen(path, "w");
	if (!file)
		FAIL(t, "%s: %s", path, strerror(errno));
	fprintf(file, "ffffffff81000000 0 T _text\n");
	fprintf(file, "ffffffff81000010 10 t %s\t", name);
	for (int i = 0; i < NR_MODS; i++)
		fprintf(file, "[m%d] ", i);
	fprintf(file, "{dir/%s.o}\n", name);
	fprintf(file, "ffffffff81000020 0 T _etext\n");
	if (fclose(file))
		FAIL(t, "%s: %s", path, strerror(errno));
	{
		ADDRRES_OPTS(addrres_ksyms_opts, opts, .kallmodsyms_path = path,
			     .modules_path = fixture("modules"),
			     .errbuf = msg, .errbuf_sz = sizeof(msg));

		err = addrres_ksyms__open(&opts, &ks);
	}
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	CHECK_INT(t, addrres_ksyms__count(ks), 3);
	s = addrres_ksyms__sym(ks, 1);
	CHECK_INT(t, strlen(s->name), NAME_LEN);
	CHECK_INT(t, s->nr_modules, NR_MODS);
	CHECK_STR(t, s->modules[NR_MODS - 1], "m4999");
	CHECK_INT(t, strlen(s->object), NAME_LEN + 6);
	CHECK_STR(t, addrres_ksyms__sym(ks, 2)->name, "_etext");
	snprintf(query, NAME_LEN + 32, "%s [m4999] [m0]", name);
	CHECK_FIND(t, f, ks, query, 0, 1);
	CHECK(t, f.syms[0] == s);
out:
	addrres_ksyms__free(ks);
	free(name);
	free(query);
}

/* xorshift64: the same "random" files on every run. */
static uint64_t next_random(uint64_t *state)
{
	*state ^= *state << 13;
	*state ^= *state >> 7;
	*state ^= *state << 17;
	return *state;
}

static void test_mutated_input(struct test *t, const void *arg)
{
	static const char bytes[] = "\0\t\n []{}0aT/-=";
	char *orig = NULL, *copy = NULL, msg[512], path[PATH_MAX], prefix[PATH_MAX + 2];
	struct addrres_ksyms *ks = NULL;
	uint64_t state = 0x9e3779b97f4a7c15ULL;
	size_t len = 0, opened = 0;
	FILE *file;

	(void)arg;
	snprintf(path, sizeof(path), "%s", path_in(scratch_dir, "mutated.kallmodsyms"));
	file = fopen(fixture("kallmodsyms"), "r");
	if (!file)
		FAIL(t, "%s: %s", fixture("kallmodsyms"), strerror(errno));
	orig = malloc(4096);
	copy = malloc(4096);
	if (orig && copy)
		len = fread(orig, 1, 4096, file);
	fclose(file);
	CHECK(t, orig && copy && len > 0 && len < 4096);
	snprintf(prefix, sizeof(prefix), "%s:", path);
	/* Some bytes of the sample changed: a set or -EINVAL, never a crash. */
	for (int i = 0; i < 2000; i++) {
		unsigned int changes = 1 + next_random(&state) % 4;
		size_t copy_len = len;
		int err;

		memcpy(copy, orig, len);
		for (unsigned int c = 0; c < changes; c++) {
			uint64_t r = next_random(&state);
			size_t at = r % len;

			if (r >> 60 == 0)
				copy_len = at;		/* cut the file short */
			else
				copy[at] = r >> 62 ? bytes[(r >> 32) % (sizeof(bytes) - 1)] : (char)(r >> 40);
		}
		file = fopen(path, "w");
		if (!file || fwrite(copy, 1, copy_len, file) != copy_len || fclose(file))
			FAIL(t, "%s: cannot write", path);
		{
			ADDRRES_OPTS(addrres_ksyms_opts, opts, .kallmodsyms_path = path,
				     .modules_path = fixture("modules"),
				     .errbuf = msg, .errbuf_sz = sizeof(msg));

			err = addrres_ksyms__open(&opts, &ks);
		}
		if (err == -EINVAL) {
			if (strncmp(msg, prefix, strlen(prefix)))
				FAIL(t, "file %d: message \"%s\" names no line of %s", i, msg, path);
			continue;
		}
		if (err)
			FAIL(t, "file %d: open returned %s: %s", i, err_name(err), msg);
		opened++;
		/* whatever was read can be looked up */
		for (size_t j = 0; j < addrres_ksyms__count(ks); j++) {
			const struct addrres_ksym *s = addrres_ksyms__sym(ks, j), *found;
			char query[600];
			size_t count;

			query[0] = '=';
			addrres_ksym__format(s, query + 1, sizeof(query) - 1);
			err = addrres_ksyms__find_name(ks, query, &found, 1, &count);
			if (err != 0 && err != -ENOTUNIQ && err != -EACCES)
				FAIL(t, "file %d: find_name(\"%s\") returned %s", i, query, err_name(err));
			err = addrres_ksyms__find_addr(ks, s->addr, &found, NULL);
			if (err != 0 && err != -EACCES)
				FAIL(t, "file %d: find_addr(0x%llx) returned %s", i,
				     (unsigned long long)s->addr, err_name(err));
		}
		addrres_ksyms__free(ks);
		ks = NULL;
	}
	printf("# mutated input: %zu of 2000 files opened, the others rejected\n", opened);
out:
	addrres_ksyms__free(ks);
	free(orig);
	free(copy);
}

static void test_missing_files(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = (void *)1;
	char msg[512];

	(void)arg;
	CHECK_ERR(t, open_files(&ks, NULL, NULL, NULL, msg, sizeof(msg)), -ENOENT);
	CHECK(t, ks == NULL);
	/* it names the file it could not find */
	CHECK(t, strstr(msg, fixture("does-not-exist")) != NULL);
out:
	if (ks != (void *)1)
		addrres_ksyms__free(ks);
}

static void test_opts_size(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	struct {
		struct addrres_ksyms_opts opts;
		uint64_t newer_field;
	} big;
	struct addrres_ksyms_opts opts;
	char msg[64];

	(void)arg;
	/* sz 0: not a valid struct */
	memset(&opts, 0, sizeof(opts));
	opts.kallmodsyms_path = fixture("kallmodsyms");
	CHECK_ERR(t, addrres_ksyms__open(&opts, &ks), -EINVAL);
	/* a newer caller's struct: its new fields must be zero */
	memset(&big, 0, sizeof(big));
	big.opts.sz = sizeof(big);
	big.opts.kallmodsyms_path = fixture("kallmodsyms");
	big.opts.modules_path = fixture("modules");
	CHECK_ERR(t, addrres_ksyms__open(&big.opts, &ks), 0);
	addrres_ksyms__free(ks);
	ks = NULL;
	big.newer_field = 1;
	big.opts.errbuf = msg;
	big.opts.errbuf_sz = sizeof(msg);
	CHECK_ERR(t, addrres_ksyms__open(&big.opts, &ks), -EINVAL);
	CHECK(t, !strncmp(msg, "addrres_ksyms_opts: ", 20));
	/* garbage in sz: rejected, not used to read past the struct */
	big.opts.sz = (size_t)1 << 40;
	CHECK_ERR(t, addrres_ksyms__open(&big.opts, &ks), -EINVAL);
	/*
	 * An older caller's struct, that ends after kallmodsyms_path: the
	 * fields after it are not read (no message written to msg).
	 */
	memset(&opts, 0, sizeof(opts));
	opts.sz = offsetof(struct addrres_ksyms_opts, kallsyms_path);
	opts.kallmodsyms_path = fixture("corrupt-brace.kallmodsyms");
	opts.errbuf = msg;
	opts.errbuf_sz = sizeof(msg);
	strcpy(msg, "untouched");
	CHECK_ERR(t, addrres_ksyms__open(&opts, &ks), -EINVAL);
	CHECK_STR(t, msg, "untouched");
out:
	addrres_ksyms__free(ks);
}

static void test_invalid_arguments(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *s;
	size_t count = 7;

	(void)arg;
	CHECK_ERR(t, addrres_ksyms__open(NULL, NULL), -EINVAL);
	OPEN_KALLMODSYMS(t, ks);
	CHECK_ERR(t, addrres_ksyms__find_addr(NULL, 0, &s, NULL), -EINVAL);
	CHECK_ERR(t, addrres_ksyms__find_addr(ks, 0, NULL, NULL), -EINVAL);
	CHECK_ERR(t, addrres_ksyms__find_name(NULL, "schedule", &s, 1, &count), -EINVAL);
	CHECK_ERR(t, addrres_ksyms__find_name(ks, NULL, &s, 1, &count), -EINVAL);
	CHECK_INT(t, count, 0);
	CHECK_ERR(t, addrres_ksyms__find_name(ks, "schedule", NULL, 1, NULL), -EINVAL);
	/* a count is optional */
	CHECK_ERR(t, addrres_ksyms__find_name(ks, "schedule", &s, 1, NULL), 0);
	CHECK_STR(t, s->name, "schedule");
	addrres_ksyms__free(NULL);
out:
	addrres_ksyms__free(ks);
}

static void test_proc(struct test *t, const void *arg)
{
	struct addrres_ksyms *ks = NULL;
	const struct addrres_ksym *syms[4], *s;
	char msg[512];
	size_t count;
	uint64_t off;
	int err;

	(void)arg;
	{
		ADDRRES_OPTS(addrres_ksyms_opts, opts, .errbuf = msg, .errbuf_sz = sizeof(msg));

		/* the defaults, with a message: NULL opts below */
		err = addrres_ksyms__open(&opts, &ks);
		addrres_ksyms__free(ks);
		ks = NULL;
		if (err == -ENOENT || err == -EACCES || err == -EPERM)
			SKIP(t, "no readable /proc/kallmodsyms or /proc/kallsyms: %s", msg);
		if (err)
			FAIL(t, "open with default paths: %s: %s", err_name(err), msg);
	}
	CHECK_ERR(t, addrres_ksyms__open(NULL, &ks), 0);
	CHECK(t, addrres_ksyms__count(ks) > 0);
	printf("# /proc: %zu symbols from %s\n", addrres_ksyms__count(ks),
	       addrres_ksyms__source(ks) == ADDRRES_KSYMS_SOURCE_KALLMODSYMS ?
	       "/proc/kallmodsyms" : "/proc/kallsyms");
	if (addrres_ksyms__restricted(ks))
		SKIP(t, "/proc/kallsyms hides the addresses from this user");
	err = addrres_ksyms__find_name(ks, "schedule", syms, 4, &count);
	if (err && err != -ENOTUNIQ)
		FAIL(t, "find_name(\"schedule\") returned %s", err_name(err));
	CHECK(t, count >= 1);
	CHECK(t, syms[0]->addr != 0);
	CHECK_ERR(t, addrres_ksyms__find_addr(ks, syms[0]->addr, &s, &off), 0);
	CHECK_U64(t, off, 0);
	CHECK_U64(t, s->addr, syms[0]->addr);
out:
	addrres_ksyms__free(ks);
}

#define CASE(fn) { #fn + 5, fn, NULL, false, false, "" }

static struct test tests[64] = {
	CASE(test_open_kallmodsyms),
	CASE(test_sizes),
	CASE(test_sym_order),
	CASE(test_sym_modules_object),
	CASE(test_annotations_shared),
	CASE(test_addr_offset),
	CASE(test_addr_alias_first_in_file),
	CASE(test_addr_before_first),
	CASE(test_addr_absolute_region),
	CASE(test_addr_past_image),
	CASE(test_addr_loaded_module),
	CASE(test_addr_past_module),
	CASE(test_builtin_vs_loaded),
	CASE(test_name_bare_unique),
	CASE(test_name_bare_ambiguous),
	CASE(test_name_by_module),
	CASE(test_name_by_object),
	CASE(test_name_by_module_and_object),
	CASE(test_name_module_dash),
	CASE(test_name_object_suffix),
	CASE(test_name_exact),
	CASE(test_name_indistinguishable),
	CASE(test_name_not_found),
	CASE(test_name_malformed),
	CASE(test_format),
	CASE(test_format_round_trip),
	CASE(test_fallback_kallsyms),
	CASE(test_source_kallsyms_forced),
	CASE(test_source_kallmodsyms_required),
	CASE(test_modules_list_missing),
	CASE(test_restricted),
	CASE(test_corrupt_modules),
	CASE(test_error_message_cut),
	CASE(test_empty_file),
	CASE(test_type_unknown),
	CASE(test_long_line),
	CASE(test_mutated_input),
	CASE(test_missing_files),
	CASE(test_opts_size),
	CASE(test_invalid_arguments),
	CASE(test_proc),
};

int main(int argc, char **argv)
{
	static char names[sizeof(corrupt_cases) / sizeof(corrupt_cases[0])][128];
	size_t n = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s FIXTURES_DIR SCRATCH_DIR\n", argv[0]);
		return 2;
	}
	fixtures_dir = argv[1];
	scratch_dir = argv[2];

	while (tests[n].fn)
		n++;
	if (n + sizeof(corrupt_cases) / sizeof(corrupt_cases[0]) >= sizeof(tests) / sizeof(tests[0])) {
		fprintf(stderr, "%s: tests[] is too small\n", argv[0]);
		return 2;
	}
	for (size_t i = 0; i < sizeof(corrupt_cases) / sizeof(corrupt_cases[0]); i++) {
		snprintf(names[i], sizeof(names[i]), "corrupt %s", corrupt_cases[i].file);
		tests[n].name = names[i];
		tests[n].fn = test_corrupt;
		tests[n].arg = &corrupt_cases[i];
		n++;
	}

	return run_tests(tests, n);
}
