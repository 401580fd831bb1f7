// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of libaddrres's process addresses (addrres_procmaps__*): the
 * text parser on the sample maps files of fixtures/ (see fixtures/README)
 * and on files written into a scratch directory, then this very process,
 * with each method.  One concern per case.
 *
 *   test_procmaps FIXTURES_DIR SCRATCH_DIR
 *
 * Prints KTAP; exits 1 if a case failed.  Built with ASan and UBSan by
 * run.sh, so that a leak or an out-of-bounds access fails the run too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <dlfcn.h>

#include <addrres/addrres.h>
#include "unit.h"
/* PROCMAP_QUERY and its struct, for the ioctl the tests stand between. */
#include "addrres/procmap_query.h"

#ifndef PR_SET_VMA
#define PR_SET_VMA		0x53564d41
#define PR_SET_VMA_ANON_NAME	0
#endif

static const char *fixtures_dir, *scratch_dir;
/* Open a maps file (fixture or not) with @method; the message to @msg. */
static int open_maps(struct addrres_procmaps **pm, const char *path,
		     enum addrres_procmaps_method method, char *msg, size_t msg_sz)
{
	ADDRRES_OPTS(addrres_procmaps_opts, opts, .maps_path = path, .method = method,
		     .errbuf = msg, .errbuf_sz = msg_sz);

	return addrres_procmaps__open(&opts, pm);
}

/* resolve() that must succeed. */
#define RESOLVE(t, pm, addrs, n, vmas, msg) do {				\
	int e_ = addrres_procmaps__resolve(pm, addrs, n, vmas);			\
	(void)(msg);								\
	if (e_)									\
		FAIL(t, "resolve: %s: %s", err_name(e_), addrres_procmaps__errmsg(pm)); \
} while (0)

/* The VMA @v must be START-END PERMS OFFSET MAJOR:MINOR INODE NAME. */
#define CHECK_VMA(t, v, start_, end_, flags_, off_, maj_, min_, ino_, name_) do { \
	const struct addrres_vma *v_ = (v);					\
	if (!v_)								\
		FAIL(t, "%s is not mapped, want %s", #v, name_);		\
	CHECK_U64(t, v_->start, start_);					\
	CHECK_U64(t, v_->end, end_);						\
	CHECK_INT(t, v_->flags, flags_);					\
	CHECK_U64(t, v_->offset, off_);						\
	CHECK_INT(t, v_->dev_major, maj_);					\
	CHECK_INT(t, v_->dev_minor, min_);					\
	CHECK_U64(t, v_->inode, ino_);						\
	CHECK_STR(t, v_->name, name_);						\
	CHECK(t, !v_->build_id && !v_->build_id_size);				\
} while (0)

#define R ADDRRES_VMA_READABLE
#define W ADDRRES_VMA_WRITABLE
#define X ADDRRES_VMA_EXECUTABLE
#define S ADDRRES_VMA_SHARED

/* ---- the fixture ---- */

/* One address in each line of fixtures/maps, in reverse order. */
static const uint64_t fixture_addrs[] = {
	0xffffffffff600000, 0x7ffd1cbd9fff, 0x7ffd1cbd4000, 0x7ffd1ca00000,
	0x7f1e60a03800, 0x7f1e60a02000, 0x7f1e60a01000, 0x7f1e60a00fff,
	0x7f1e5c021000, 0x7f1e5c000010, 0x55d0c3e4f000, 0x55d0c2a0b000,
	0x55d0c2a06fff, 0x55d0c2a00000,
};
#define NR_FIXTURE_ADDRS (sizeof(fixture_addrs) / sizeof(fixture_addrs[0]))

static void test_fixture_fields(struct test *t, const void *arg)
{
	const struct addrres_vma *v[NR_FIXTURE_ADDRS];
	struct addrres_procmaps *pm = NULL;
	char msg[512];
	int err;

	(void)arg;
	err = open_maps(&pm, fixture("maps"), ADDRRES_PROCMAPS_METHOD_TEXT, msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	RESOLVE(t, pm, fixture_addrs, NR_FIXTURE_ADDRS, v, msg);
	CHECK_INT(t, addrres_procmaps__method(pm), ADDRRES_PROCMAPS_METHOD_TEXT);
	/* [vsyscall]: not a VMA of the process, as PROCMAP_QUERY sees it */
	CHECK(t, v[0] == NULL);
	CHECK_VMA(t, v[1], 0x7ffd1cbd8000, 0x7ffd1cbda000, R | X, 0, 0, 0, 0, "[vdso]");
	CHECK_VMA(t, v[2], 0x7ffd1cbd4000, 0x7ffd1cbd8000, R, 0, 0, 0, 0, "[vvar]");
	CHECK_VMA(t, v[3], 0x7ffd1c9e0000, 0x7ffd1ca01000, R | W, 0, 0, 0, 0, "[stack]");
	/* a backslash stays; "\012" is a newline */
	CHECK_VMA(t, v[4], 0x7f1e60a03000, 0x7f1e60a04000, R, 0x1000, 0x103, 2, 12345678901ULL,
		  "/srv/x\\y\n0");
	CHECK_VMA(t, v[5], 0x7f1e60a02000, 0x7f1e60a03000, R | W, 0, 0, 0, 0,
		  "[anon:procmap test]");
	CHECK_VMA(t, v[6], 0x7f1e60a01000, 0x7f1e60a02000, R | S, 0x10000, 0, 0x1a, 77,
		  "/tmp/a\nb c (deleted)");
	CHECK_VMA(t, v[7], 0x7f1e60a00000, 0x7f1e60a01000, R | W | S, 0, 0, 5, 4096,
		  "/dev/zero (deleted)");
	/* no name: with the kernel's trailing space, and without */
	CHECK_VMA(t, v[8], 0x7f1e5c021000, 0x7f1e60000000, 0, 0, 0, 0, 0, "");
	CHECK_VMA(t, v[9], 0x7f1e5c000000, 0x7f1e5c021000, R | W, 0, 0, 0, 0, "");
	CHECK_VMA(t, v[10], 0x55d0c3e4f000, 0x55d0c3e70000, R | W, 0, 0, 0, 0, "[heap]");
	CHECK_VMA(t, v[11], 0x55d0c2a0b000, 0x55d0c2a0c000, R | W, 0xa000, 0xfd, 1, 1311001,
		  "/usr/bin/cat");
	CHECK_VMA(t, v[12], 0x55d0c2a02000, 0x55d0c2a07000, R | X, 0x2000, 0xfd, 1, 1311001,
		  "/usr/bin/cat");
	CHECK_VMA(t, v[13], 0x55d0c2a00000, 0x55d0c2a02000, R, 0, 0xfd, 1, 1311001,
		  "/usr/bin/cat");
out:
	addrres_procmaps__free(pm);
}

static void test_fixture_unmapped(struct test *t, const void *arg)
{
	static const uint64_t addrs[] = {
		0, 0x55d0c29fffff,		/* before the first VMA */
		0x55d0c2a07000, 0x55d0c2a0afff,	/* a gap */
		0x55d0c2a0c000,			/* the end of a VMA */
		0x7ffd1cbda000, UINT64_MAX,	/* above the last VMA */
	};
	const struct addrres_vma *v[sizeof(addrs) / sizeof(addrs[0])];
	struct addrres_procmaps_stats st = { .sz = sizeof(st) };
	struct addrres_procmaps *pm = NULL;
	char msg[512];
	int err;

	(void)arg;
	memset(v, 0xff, sizeof(v));
	err = open_maps(&pm, fixture("maps"), ADDRRES_PROCMAPS_METHOD_TEXT, msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	RESOLVE(t, pm, addrs, sizeof(addrs) / sizeof(addrs[0]), v, msg);
	for (size_t i = 0; i < sizeof(addrs) / sizeof(addrs[0]); i++) {
		if (v[i])
			FAIL(t, "0x%llx resolved to %llx-%llx, want unmapped",
			     (unsigned long long)addrs[i], (unsigned long long)v[i]->start,
			     (unsigned long long)v[i]->end);
	}
	CHECK_ERR(t, addrres_procmaps__stats(pm, &st), 0);
	CHECK_INT(t, st.vmas, 0);
	CHECK_INT(t, st.method, ADDRRES_PROCMAPS_METHOD_TEXT);
	CHECK_INT(t, st.ioctl_queries, 0);
	/* UINT64_MAX is above every line: the whole file is read */
	CHECK_INT(t, st.text_lines, 14);
out:
	addrres_procmaps__free(pm);
}

/* Unsorted, repeated: one pointer per VMA, the parse stops early. */
static void test_fixture_unsorted_repeated(struct test *t, const void *arg)
{
	static const uint64_t addrs[] = {
		0x55d0c2a02010, 0x55d0c2a00000, 0x55d0c2a02010, 0x55d0c2a06000, 0x1000,
		0x55d0c2a00fff, 0x55d0c2a02010,
	};
	const struct addrres_vma *v[sizeof(addrs) / sizeof(addrs[0])];
	struct addrres_procmaps_stats st = { .sz = sizeof(st) };
	struct addrres_procmaps *pm = NULL;
	char msg[512];
	int err;

	(void)arg;
	err = open_maps(&pm, fixture("maps"), ADDRRES_PROCMAPS_METHOD_TEXT, msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	RESOLVE(t, pm, addrs, sizeof(addrs) / sizeof(addrs[0]), v, msg);
	CHECK(t, v[0] && v[0] == v[2] && v[0] == v[3] && v[0] == v[6]);
	CHECK(t, v[1] && v[1] == v[5] && v[1] != v[0]);
	CHECK(t, v[4] == NULL);
	CHECK_U64(t, v[0]->start, 0x55d0c2a02000);
	CHECK_U64(t, v[1]->start, 0x55d0c2a00000);
	CHECK_ERR(t, addrres_procmaps__stats(pm, &st), 0);
	CHECK_INT(t, st.vmas, 2);
	/* lines 1 and 2 hold the addresses: line 3 is not read */
	CHECK_INT(t, st.text_lines, 2);
	/* a second batch replaces the first */
	RESOLVE(t, pm, fixture_addrs, 1, v, msg);
	CHECK(t, v[0] == NULL);
	CHECK_ERR(t, addrres_procmaps__stats(pm, &st), 0);
	CHECK_INT(t, st.vmas, 0);
out:
	addrres_procmaps__free(pm);
}

/* A regular file answers the ioctl with ENOTTY: AUTO reads the text. */
static void test_fixture_auto_falls_back(struct test *t, const void *arg)
{
	const struct addrres_vma *v[NR_FIXTURE_ADDRS];
	struct addrres_procmaps_stats st = { .sz = sizeof(st) };
	struct addrres_procmaps *pm = NULL;
	char msg[512];
	int err;

	(void)arg;
	err = open_maps(&pm, fixture("maps"), ADDRRES_PROCMAPS_METHOD_AUTO, msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	CHECK_INT(t, addrres_procmaps__method(pm), ADDRRES_PROCMAPS_METHOD_AUTO);
	RESOLVE(t, pm, fixture_addrs, NR_FIXTURE_ADDRS, v, msg);
	CHECK_INT(t, addrres_procmaps__method(pm), ADDRRES_PROCMAPS_METHOD_TEXT);
	CHECK_ERR(t, addrres_procmaps__stats(pm, &st), 0);
	CHECK(t, st.ioctl_unsupported);
	CHECK_INT(t, st.ioctl_queries, 1);
	CHECK_INT(t, st.vmas, NR_FIXTURE_ADDRS - 1);
	CHECK_STR(t, v[13]->name, "/usr/bin/cat");
	/* the next batch does not try again */
	RESOLVE(t, pm, fixture_addrs, NR_FIXTURE_ADDRS, v, msg);
	CHECK_ERR(t, addrres_procmaps__stats(pm, &st), 0);
	CHECK_INT(t, st.ioctl_queries, 0);
	CHECK(t, st.ioctl_unsupported);
	CHECK_STR(t, v[4]->name, "/srv/x\\y\n0");
out:
	addrres_procmaps__free(pm);
}

static void test_fixture_ioctl_enotty(struct test *t, const void *arg)
{
	const struct addrres_vma *v[2] = { (void *)1, (void *)1 };
	struct addrres_procmaps *pm = NULL;
	char msg[512];
	int err;

	(void)arg;
	err = open_maps(&pm, fixture("maps"), ADDRRES_PROCMAPS_METHOD_IOCTL, msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	CHECK_ERR(t, addrres_procmaps__resolve(pm, fixture_addrs, 2, v), -ENOTTY);
	CHECK(t, !v[0] && !v[1]);
	/* the message is the set's: the open's buffer has none */
	CHECK_STR(t, msg, "");
	CHECK(t, strstr(addrres_procmaps__errmsg(pm), "PROCMAP_QUERY") != NULL);
	CHECK(t, !strncmp(addrres_procmaps__errmsg(pm), fixture("maps"), strlen(fixture("maps"))));
out:
	addrres_procmaps__free(pm);
}

/*
 * The open's message buffer may go once the open returned: a resolve's
 * message is the set's (ASan reports a write to the freed buffer).
 */
static void test_message_kept_by_set(struct test *t, const void *arg)
{
	const struct addrres_vma *v[2] = { (void *)1, (void *)1 };
	struct addrres_procmaps *pm = NULL;
	char *buf = malloc(256);
	int err;

	(void)arg;
	if (!buf)
		FAIL(t, "out of memory");
	err = open_maps(&pm, fixture("maps"), ADDRRES_PROCMAPS_METHOD_IOCTL, buf, 256);
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), buf);
	CHECK_STR(t, buf, "");
	free(buf);
	buf = NULL;
	CHECK_ERR(t, addrres_procmaps__resolve(pm, fixture_addrs, 2, v), -ENOTTY);
	CHECK(t, strstr(addrres_procmaps__errmsg(pm), "PROCMAP_QUERY") != NULL);
	CHECK_STR(t, addrres_procmaps__errmsg(NULL), "");
out:
	free(buf);
	addrres_procmaps__free(pm);
}

struct corrupt_case {
	const char *file;
	uint64_t addr;		/* resolved: in line 2, or only its range */
	const char *what;
};

static void test_corrupt(struct test *t, const void *arg)
{
	const struct corrupt_case *c = arg;
	const struct addrres_vma *v[2] = { (void *)1, (void *)1 };
	uint64_t addrs[2] = { 0x55d0c2a00000, c->addr };
	struct addrres_procmaps *pm = NULL;
	char msg[512], prefix[PATH_MAX + 32];
	int err;

	err = open_maps(&pm, fixture(c->file), ADDRRES_PROCMAPS_METHOD_AUTO, msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	CHECK_ERR(t, addrres_procmaps__resolve(pm, addrs, 2, v), -EINVAL);
	CHECK(t, !v[0] && !v[1]);
	snprintf(prefix, sizeof(prefix), "%s:2: ", fixture(c->file));
	if (strncmp(addrres_procmaps__errmsg(pm), prefix, strlen(prefix)) ||
	    !strstr(addrres_procmaps__errmsg(pm), c->what))
		FAIL(t, "message \"%s\", want \"%s...%s...\"", addrres_procmaps__errmsg(pm), prefix,
		     c->what);
	/* the line before it is good: an address there alone resolves */
	RESOLVE(t, pm, addrs, 1, v, msg);
	CHECK(t, v[0] && v[0]->start == 0x55d0c2a00000);
out:
	addrres_procmaps__free(pm);
}

static const struct corrupt_case corrupt_cases[] = {
	{ "corrupt-range.maps", 0x55d0c2a03000, "START-END" },
	{ "corrupt-address-long.maps", 0x55d0c2a03000, "START-END" },
	{ "corrupt-backwards.maps", 0x55d0c2a03000, "ends (0x55d0c2a02000) before it starts" },
	{ "corrupt-overlap.maps", 0x55d0c2a03000, "before the previous one ends" },
	{ "corrupt-perms.maps", 0x55d0c2a03000, "permission 4 is 'q'" },
	{ "corrupt-short.maps", 0x55d0c2a03000, "4 permission characters" },
	{ "corrupt-offset.maps", 0x55d0c2a03000, "file offset" },
	{ "corrupt-device.maps", 0x55d0c2a03000, "MAJOR:MINOR" },
	{ "corrupt-inode.maps", 0x55d0c2a03000, "inode number" },
	{ "corrupt-nul.maps", 0x55d0c2a03000, "NUL byte" },
};

/* Write @len bytes to a new file of the scratch directory; its path. */
static const char *scratch_file(const char *name, const char *data, size_t len)
{
	const char *path = path_in(scratch_dir, name);
	FILE *f = fopen(path, "we");

	if (!f)
		return NULL;
	if (fwrite(data, 1, len, f) != len) {
		fclose(f);
		return NULL;
	}
	return fclose(f) ? NULL : path;
}

/* A name longer than a read, the last line without "\n"; an empty file. */
static void test_long_line_and_empty(struct test *t, const void *arg)
{
	static const char head[] = "1000-2000 r--p 00000000 08:01 42 /";
	size_t name_len = 10000, len = strlen(head) + name_len;
	const struct addrres_vma *v[2];
	uint64_t addrs[2] = { 0x1000, 0x1fff };
	struct addrres_procmaps *pm = NULL;
	char *text = malloc(len + 1), msg[512];
	const char *path;
	int err;

	(void)arg;
	if (!text)
		FAIL(t, "out of memory");
	memcpy(text, head, strlen(head));
	memset(text + strlen(head), 'n', name_len);
	path = scratch_file("long.maps", text, len);
	if (!path)
		FAIL(t, "cannot write long.maps in %s", scratch_dir);
	{
		ADDRRES_OPTS(addrres_procmaps_opts, opts, .maps_path = path,
			     .method = ADDRRES_PROCMAPS_METHOD_TEXT, .text_read_size = 7,
			     .errbuf = msg, .errbuf_sz = sizeof(msg));

		err = addrres_procmaps__open(&opts, &pm);
		if (err)
			FAIL(t, "open: %s: %s", err_name(err), msg);
	}
	RESOLVE(t, pm, addrs, 2, v, msg);
	CHECK(t, v[0] && v[0] == v[1]);
	CHECK_INT(t, strlen(v[0]->name), 1 + name_len);
	CHECK(t, v[0]->name[0] == '/' && v[0]->name[name_len] == 'n');
	addrres_procmaps__free(pm);
	pm = NULL;

	path = scratch_file("empty.maps", "", 0);
	if (!path)
		FAIL(t, "cannot write empty.maps in %s", scratch_dir);
	err = open_maps(&pm, path, ADDRRES_PROCMAPS_METHOD_TEXT, msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	v[0] = (void *)1;
	RESOLVE(t, pm, addrs, 1, v, msg);
	CHECK(t, v[0] == NULL);
out:
	free(text);
	addrres_procmaps__free(pm);
}

static void test_opts_and_arguments(struct test *t, const void *arg)
{
	struct addrres_procmaps *pm = (void *)1;
	struct {
		struct addrres_procmaps_opts opts;
		uint64_t newer_field;
	} big;
	struct addrres_procmaps_stats st;
	const struct addrres_vma *v[1];
	char msg[128];

	(void)arg;
	memset(&big, 0, sizeof(big));
	big.opts.maps_path = fixture("maps");
	big.opts.errbuf = msg;
	big.opts.errbuf_sz = sizeof(msg);
	/* sz 0 */
	CHECK_ERR(t, addrres_procmaps__open(&big.opts, &pm), -EINVAL);
	CHECK(t, pm == NULL);
	/* a newer caller's struct: its new fields must be zero */
	big.opts.sz = sizeof(big);
	big.newer_field = 1;
	CHECK_ERR(t, addrres_procmaps__open(&big.opts, &pm), -EINVAL);
	CHECK(t, !strncmp(msg, "addrres_procmaps_opts: ", 23));
	big.newer_field = 0;
	big.opts.method = 3;
	CHECK_ERR(t, addrres_procmaps__open(&big.opts, &pm), -EINVAL);
	big.opts.method = ADDRRES_PROCMAPS_METHOD_TEXT;
	big.opts.pid = -1;
	CHECK_ERR(t, addrres_procmaps__open(&big.opts, &pm), -EINVAL);
	big.opts.pid = 0;
	CHECK_ERR(t, addrres_procmaps__open(&big.opts, NULL), -EINVAL);
	/* a file that does not exist */
	big.opts.maps_path = fixture("does-not-exist");
	CHECK_ERR(t, addrres_procmaps__open(&big.opts, &pm), -ENOENT);
	CHECK(t, strstr(msg, "does-not-exist: ") != NULL);
	big.opts.maps_path = fixture("maps");
	CHECK_ERR(t, addrres_procmaps__open(&big.opts, &pm), 0);
	CHECK_STR(t, msg, "");

	CHECK_ERR(t, addrres_procmaps__resolve(NULL, fixture_addrs, 1, v), -EINVAL);
	CHECK_ERR(t, addrres_procmaps__resolve(pm, NULL, 1, v), -EINVAL);
	CHECK_ERR(t, addrres_procmaps__resolve(pm, fixture_addrs, 1, NULL), -EINVAL);
	CHECK_ERR(t, addrres_procmaps__resolve(pm, NULL, 0, NULL), 0);
	/* stats of an older caller: only the fields that fit */
	memset(&st, 0xab, sizeof(st));
	st.sz = offsetof(struct addrres_procmaps_stats, ioctl_queries);
	CHECK_ERR(t, addrres_procmaps__stats(pm, &st), 0);
	CHECK_INT(t, st.method, ADDRRES_PROCMAPS_METHOD_TEXT);
	CHECK_U64(t, st.ioctl_queries, 0xababababababababULL);
	/* a newer caller's: the fields this library does not know read 0 */
	{
		struct {
			struct addrres_procmaps_stats known;
			uint64_t later[2];
		} newer;

		memset(&newer, 0xab, sizeof(newer));
		newer.known.sz = sizeof(newer);
		CHECK_ERR(t, addrres_procmaps__stats(pm, &newer.known), 0);
		CHECK_INT(t, newer.known.method, ADDRRES_PROCMAPS_METHOD_TEXT);
		CHECK_U64(t, newer.later[0], 0);
		CHECK_U64(t, newer.later[1], 0);
	}
	st.sz = 0;
	CHECK_ERR(t, addrres_procmaps__stats(pm, &st), -EINVAL);
	CHECK_ERR(t, addrres_procmaps__stats(NULL, &st), -EINVAL);
	CHECK_INT(t, addrres_procmaps__method(NULL), ADDRRES_PROCMAPS_METHOD_AUTO);
	addrres_procmaps__free(NULL);
out:
	if (pm != (void *)1)
		addrres_procmaps__free(pm);
}

/* ---- this process ---- */

struct build_id {
	unsigned char data[ADDRRES_BUILD_ID_MAX];
	size_t size;
};

/* The test program's own build ID, from its notes in memory. */
static int self_build_id_phdr(struct dl_phdr_info *info, size_t sz, void *data)
{
	struct build_id *id = data;

	(void)sz;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *notes = (const char *)(info->dlpi_addr + ph->p_vaddr);
		size_t align = ph->p_align == 8 ? 8 : 4, len = ph->p_memsz, off = 0;

		if (ph->p_type != PT_NOTE)
			continue;
		/* Name and descriptor each start aligned, from the segment's start. */
		while (len - off >= sizeof(ElfW(Nhdr))) {
			const ElfW(Nhdr) *nh = (const void *)(notes + off);
			size_t name_off = off + sizeof(*nh);
			size_t desc_off = (name_off + nh->n_namesz + align - 1) & ~(align - 1);

			if (desc_off > len || nh->n_descsz > len - desc_off)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(notes + name_off, "GNU", 4) && nh->n_descsz <= sizeof(id->data)) {
				memcpy(id->data, notes + desc_off, nh->n_descsz);
				id->size = nh->n_descsz;
				return 1;
			}
			off = (desc_off + nh->n_descsz + align - 1) & ~(align - 1);
			if (off > len)
				break;
		}
	}
	return 1;	/* the main program comes first: stop there */
}

/* Mappings this process makes for the live cases, undone by live_undo(). */
struct live {
	char newline_path[PATH_MAX + 16];	/* a file with "\n" in its name */
	char deleted_path[PATH_MAX + 16];
	void *newline_map, *deleted_map, *anon, *hole_base;
	struct stat newline_st;
	bool anon_named;
	long page;
};

static int live_map_file(const char *path, void **map, struct stat *st, long page)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, page) || (st && fstat(fd, st)))
		err = -errno;
	if (!err) {
		*map = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
		if (*map == MAP_FAILED) {
			*map = NULL;
			err = -errno;
		}
	}
	close(fd);
	return err;
}

static void live_undo(struct live *l)
{
	if (l->newline_map)
		munmap(l->newline_map, (size_t)l->page);
	if (l->deleted_map)
		munmap(l->deleted_map, (size_t)l->page);
	if (l->anon)
		munmap(l->anon, (size_t)l->page);
	if (l->hole_base)
		munmap(l->hole_base, 3 * (size_t)l->page);
	if (l->newline_path[0])
		unlink(l->newline_path);
	memset(l, 0, sizeof(*l));
}

/*
 * A file with a newline in its name, a removed file, a named anonymous
 * VMA (if the kernel can name them) and a hole between two pages.
 */
static int live_setup(struct live *l)
{
	char dir[PATH_MAX], *hole;
	int err;

	memset(l, 0, sizeof(*l));
	l->page = sysconf(_SC_PAGESIZE);

	if (!realpath(scratch_dir, dir))
		return -errno;
	snprintf(l->newline_path, sizeof(l->newline_path), "%s/new\nline", dir);
	snprintf(l->deleted_path, sizeof(l->deleted_path), "%s/removed", dir);
	err = live_map_file(l->newline_path, &l->newline_map, &l->newline_st, l->page);
	if (!err)
		err = live_map_file(l->deleted_path, &l->deleted_map, NULL, l->page);
	if (err)
		return err;
	if (unlink(l->deleted_path))
		return -errno;
	l->anon = mmap(NULL, (size_t)l->page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (l->anon == MAP_FAILED) {
		l->anon = NULL;
		return -errno;
	}
	l->anon_named = !prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, l->anon, l->page,
			       "addrres test");
	hole = mmap(NULL, 3 * (size_t)l->page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (hole == MAP_FAILED)
		return -errno;
	l->hole_base = hole;
	return munmap(hole + l->page, (size_t)l->page) ? -errno : 0;
}

static int live_open(struct addrres_procmaps **pm, enum addrres_procmaps_method method, int pid,
		     bool build_ids, char *msg, size_t msg_sz)
{
	ADDRRES_OPTS(addrres_procmaps_opts, opts, .pid = pid, .method = method, .build_ids = build_ids,
		     .errbuf = msg, .errbuf_sz = msg_sz);

	return addrres_procmaps__open(&opts, pm);
}

/* Whether this kernel answers PROCMAP_QUERY (skip reason in @why). */
static bool host_has_ioctl(char *why, size_t sz)
{
	const uint64_t addr = (uintptr_t)&host_has_ioctl;
	const struct addrres_vma *v;
	struct addrres_procmaps *pm;
	char msg[256];
	int err = live_open(&pm, ADDRRES_PROCMAPS_METHOD_IOCTL, 0, true, msg, sizeof(msg));

	if (!err) {
		err = addrres_procmaps__resolve(pm, &addr, 1, &v);
		addrres_procmaps__free(pm);
	}
	if (err)
		snprintf(why, sz, "PROCMAP_QUERY on this kernel (%s): %s", err_name(err), msg);
	return !err;
}

enum { A_FUNC, A_STACK, A_HEAP, A_HOLE, A_NULL, A_NEWLINE, A_DELETED, A_ANON, NR_LIVE };

static void live_addrs(const struct live *l, uint64_t *a, const void *stack, const void *heap)
{
	a[A_FUNC] = (uintptr_t)&live_addrs;
	a[A_STACK] = (uintptr_t)stack;
	a[A_HEAP] = (uintptr_t)heap;
	a[A_HOLE] = (uintptr_t)l->hole_base + (uint64_t)l->page + 8;
	a[A_NULL] = 0;
	a[A_NEWLINE] = (uintptr_t)l->newline_map + 1;
	a[A_DELETED] = (uintptr_t)l->deleted_map;
	a[A_ANON] = (uintptr_t)l->anon + 100;
}

static void test_live_text(struct test *t, const void *arg)
{
	const struct addrres_vma *v[NR_LIVE];
	struct addrres_procmaps *pm = NULL;
	struct build_id self = { .size = 0 };
	char exe[PATH_MAX], msg[512], deleted[PATH_MAX + 32];
	uint64_t addrs[NR_LIVE];
	struct live l;
	void *heap = malloc(64);
	ssize_t n;
	int local = 0, err;

	(void)arg;
	err = live_setup(&l);
	if (err || !heap)
		FAIL(t, "setting up mappings: %s", err_name(err ? err : -ENOMEM));
	live_addrs(&l, addrs, &local, heap);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0)
		FAIL(t, "readlink /proc/self/exe: %s", err_name(-errno));
	exe[n] = '\0';
	dl_iterate_phdr(self_build_id_phdr, &self);

	err = live_open(&pm, ADDRRES_PROCMAPS_METHOD_TEXT, 0, true, msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	RESOLVE(t, pm, addrs, NR_LIVE, v, msg);
	CHECK_INT(t, addrres_procmaps__method(pm), ADDRRES_PROCMAPS_METHOD_TEXT);

	CHECK(t, v[A_FUNC] && (v[A_FUNC]->flags & ADDRRES_VMA_EXECUTABLE));
	CHECK(t, !(v[A_FUNC]->flags & (ADDRRES_VMA_WRITABLE | ADDRRES_VMA_SHARED)));
	CHECK(t, v[A_FUNC]->inode != 0);
	CHECK_STR(t, v[A_FUNC]->name, exe);
	if (self.size) {
		CHECK_INT(t, v[A_FUNC]->build_id_size, self.size);
		CHECK(t, !memcmp(v[A_FUNC]->build_id, self.data, self.size));
	}
	CHECK(t, v[A_STACK] && v[A_STACK]->flags == (ADDRRES_VMA_READABLE | ADDRRES_VMA_WRITABLE));
	CHECK_STR(t, v[A_STACK]->name, "[stack]");
	/* ASan's allocator maps its own memory: anonymous, not [heap] */
	CHECK(t, v[A_HEAP] && v[A_HEAP]->flags == (ADDRRES_VMA_READABLE | ADDRRES_VMA_WRITABLE));
	CHECK(t, v[A_HEAP]->inode == 0 && !v[A_HEAP]->build_id);
	/* the hole, unless the process mapped something there since (msync: ENOMEM) */
	if (msync((void *)(uintptr_t)(addrs[A_HOLE] & ~(uint64_t)(l.page - 1)), (size_t)l.page,
		  MS_ASYNC) && errno == ENOMEM)
		CHECK(t, v[A_HOLE] == NULL);
	else
		printf("# the hole was mapped meanwhile: not checked\n");
	CHECK(t, v[A_NULL] == NULL);
	CHECK(t, v[A_NEWLINE] && v[A_NEWLINE]->flags == (ADDRRES_VMA_READABLE | ADDRRES_VMA_SHARED));
	CHECK_STR(t, v[A_NEWLINE]->name, l.newline_path);
	CHECK_U64(t, v[A_NEWLINE]->inode, l.newline_st.st_ino);
	CHECK_INT(t, v[A_NEWLINE]->dev_major, major(l.newline_st.st_dev));
	CHECK_INT(t, v[A_NEWLINE]->dev_minor, minor(l.newline_st.st_dev));
	CHECK(t, !v[A_NEWLINE]->build_id);	/* not an ELF file */
	snprintf(deleted, sizeof(deleted), "%s (deleted)", l.deleted_path);
	CHECK(t, v[A_DELETED] != NULL);
	CHECK_STR(t, v[A_DELETED]->name, deleted);
	CHECK(t, v[A_ANON] && v[A_ANON]->inode == 0);
	CHECK_STR(t, v[A_ANON]->name, l.anon_named ? "[anon:addrres test]" : "");
	if (!l.anon_named)
		printf("# this kernel cannot name anonymous VMAs: [anon:NAME] not checked live\n");
out:
	addrres_procmaps__free(pm);
	live_undo(&l);
	free(heap);
}

/*
 * The library's ioctl() goes through here (this definition interposes on
 * libc's).  While drop_build_ids is set, PROCMAP_QUERY answers lose their
 * build ID, as when the kernel cannot read the file: upstream then answers
 * build_id_size 0 with the VMA.
 */
static bool drop_build_ids;
static unsigned int build_ids_dropped;

int ioctl(int fd, unsigned long request, ...)
{
	static int (*next_ioctl)(int, unsigned long, ...);
	struct procmap_query *q;
	va_list ap;
	void *arg;
	int ret;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!next_ioctl) {
		next_ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
		if (!next_ioctl) {
			errno = ENOSYS;
			return -1;
		}
	}
	ret = next_ioctl(fd, request, arg);
	q = arg;
	if (!ret && drop_build_ids && request == PROCMAP_QUERY && q->build_id_size) {
		memset((void *)(uintptr_t)q->build_id_addr, 0, q->build_id_size);
		q->build_id_size = 0;
		build_ids_dropped++;
	}
	return ret;
}

/* A file VMA that the kernel answers without a build ID: the library reads the file. */
static void test_live_ioctl_size_0_reads_the_file(struct test *t, const void *arg)
{
	const uint64_t addr = (uintptr_t)&test_live_ioctl_size_0_reads_the_file;
	struct build_id self = { .size = 0 };
	struct addrres_procmaps *pm = NULL;
	const struct addrres_vma *v;
	char msg[512], why[512];
	int err;

	(void)arg;
	if (!host_has_ioctl(why, sizeof(why)))
		SKIP(t, "%s", why);
	dl_iterate_phdr(self_build_id_phdr, &self);
	if (!self.size)
		SKIP(t, "the test program has no GNU build ID note");
	err = live_open(&pm, ADDRRES_PROCMAPS_METHOD_IOCTL, 0, true, msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	drop_build_ids = true;
	build_ids_dropped = 0;
	err = addrres_procmaps__resolve(pm, &addr, 1, &v);
	drop_build_ids = false;
	if (err)
		FAIL(t, "resolve: %s: %s", err_name(err), msg);
	/* The kernel did give one, and the test took it away. */
	CHECK_INT(t, build_ids_dropped, 1);
	CHECK(t, v && v->inode != 0);
	CHECK_INT(t, v->build_id_size, self.size);
	CHECK(t, !memcmp(v->build_id, self.data, self.size));
out:
	drop_build_ids = false;
	addrres_procmaps__free(pm);
}

/* Identical VMAs, build IDs included. */
static bool same_vma(const struct addrres_vma *a, const struct addrres_vma *b)
{
	if (!a || !b)
		return !a && !b;
	return a->start == b->start && a->end == b->end && a->offset == b->offset &&
	       a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor && a->flags == b->flags &&
	       !strcmp(a->name, b->name) && a->build_id_size == b->build_id_size &&
	       (!a->build_id_size || !memcmp(a->build_id, b->build_id, a->build_id_size));
}

static void show_vma(const char *who, const struct addrres_vma *v)
{
	if (!v) {
		printf("#   %s: not mapped\n", who);
		return;
	}
	printf("#   %s: %llx-%llx flags %x off %llx %x:%x %llu \"%s\" build ID %zu bytes\n", who,
	       (unsigned long long)v->start, (unsigned long long)v->end, v->flags,
	       (unsigned long long)v->offset, v->dev_major, v->dev_minor,
	       (unsigned long long)v->inode, v->name, v->build_id_size);
}

/*
 * Every line of /proc/self/maps gives three addresses: its start, its
 * last byte and its end (mapped or not); with @files_only, only the first
 * two of the lines of files.  Then the live cases' addresses.
 */
static uint64_t *every_vma_addrs(bool files_only, const uint64_t *extra, size_t nr_extra,
				 size_t *n)
{
	unsigned long long start, end, inode;
	size_t cap = 3 * 4096 + nr_extra, nr = 0;
	uint64_t *a = malloc(cap * sizeof(*a));
	char line[PATH_MAX + 256];
	FILE *f = fopen("/proc/self/maps", "re");

	if (!a || !f) {
		free(a);
		if (f)
			fclose(f);
		return NULL;
	}
	while (fgets(line, sizeof(line), f) && nr + 3 <= cap - nr_extra) {
		if (sscanf(line, "%llx-%llx %*s %*s %*s %llu", &start, &end, &inode) != 3)
			continue;
		if (files_only && !inode)
			continue;
		a[nr++] = start;
		a[nr++] = end - 1;
		if (!files_only)
			a[nr++] = end;
	}
	fclose(f);
	memcpy(a + nr, extra, nr_extra * sizeof(*a));
	*n = nr + nr_extra;
	return a;
}

/*
 * @a and @b resolve @addrs alike.  The process's own allocations may map
 * memory between the two: a batch is tried up to 3 times, each method's
 * buffers already grown by the try before.
 */
static int compare_methods(struct addrres_procmaps *a, struct addrres_procmaps *b,
			   const uint64_t *addrs, size_t n, size_t *bad)
{
	const struct addrres_vma **va = calloc(n, sizeof(*va)), **vb = calloc(n, sizeof(*vb));
	int err = -ENOMEM;

	*bad = SIZE_MAX;
	for (int attempt = 0; va && vb && attempt < 3 && *bad; attempt++) {
		err = addrres_procmaps__resolve(a, addrs, n, va);
		if (!err)
			err = addrres_procmaps__resolve(b, addrs, n, vb);
		if (err)
			break;
		*bad = 0;
		for (size_t i = 0; i < n && !*bad; i++) {
			if (!same_vma(va[i], vb[i])) {
				*bad = i + 1;
				if (attempt == 2) {
					printf("# address 0x%llx:\n", (unsigned long long)addrs[i]);
					show_vma("first", va[i]);
					show_vma("second", vb[i]);
				}
			}
		}
	}
	free(va);
	free(vb);
	return err;
}

static void test_live_auto(struct test *t, const void *arg)
{
	struct addrres_procmaps_stats st = { .sz = sizeof(st) };
	struct addrres_procmaps *pm = NULL;
	const struct addrres_vma *v[NR_LIVE];
	char msg[512], why[512];
	uint64_t addrs[NR_LIVE];
	bool has_ioctl = host_has_ioctl(why, sizeof(why));
	struct live l;
	int local = 0, err;
	void *heap = malloc(64);

	(void)arg;
	err = live_setup(&l);
	if (err || !heap)
		FAIL(t, "setting up mappings: %s", err_name(err ? err : -ENOMEM));
	live_addrs(&l, addrs, &local, heap);
	/* by pid: the same as our own */
	err = live_open(&pm, ADDRRES_PROCMAPS_METHOD_AUTO, getpid(), true, msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);
	RESOLVE(t, pm, addrs, NR_LIVE, v, msg);
	CHECK_ERR(t, addrres_procmaps__stats(pm, &st), 0);
	if (has_ioctl) {
		/* a few VMAs: the ioctl, one query per VMA or gap */
		CHECK_INT(t, st.method, ADDRRES_PROCMAPS_METHOD_IOCTL);
		CHECK(t, !st.ioctl_unsupported);
		CHECK(t, st.ioctl_queries >= st.vmas && st.ioctl_queries <= NR_LIVE);
		CHECK_INT(t, st.text_lines, 0);
	} else {
		printf("# %s: AUTO must fall back\n", why);
		CHECK_INT(t, st.method, ADDRRES_PROCMAPS_METHOD_TEXT);
		CHECK(t, st.ioctl_unsupported);
		CHECK(t, st.text_lines > 0);
	}
	CHECK(t, v[A_FUNC] && (v[A_FUNC]->flags & ADDRRES_VMA_EXECUTABLE));
	CHECK(t, v[A_NULL] == NULL);
	CHECK_STR(t, v[A_NEWLINE]->name, l.newline_path);
	CHECK_STR(t, v[A_STACK]->name, "[stack]");
out:
	addrres_procmaps__free(pm);
	live_undo(&l);
	free(heap);
}

/*
 * IOCTL and TEXT on every VMA of this process.  Reading build IDs
 * allocates (libelf), and ASan's allocator then grows its own anonymous
 * VMAs between the two reads: build IDs are compared on file VMAs only,
 * which allocations do not change, and the rest without them.
 */
static void test_live_ioctl_matches_text(struct test *t, const void *arg)
{
	struct addrres_procmaps *text = NULL, *ioctl = NULL;
	uint64_t extra[NR_LIVE], *addrs = NULL;
	char msg[512], why[512];
	size_t n = 0, bad;
	struct live l;
	int local = 0, err;
	void *heap = malloc(64);

	(void)arg;
	err = live_setup(&l);
	if (err || !heap)
		FAIL(t, "setting up mappings: %s", err_name(err ? err : -ENOMEM));
	if (!host_has_ioctl(why, sizeof(why)))
		SKIP(t, "%s", why);
	live_addrs(&l, extra, &local, heap);
	for (int build_ids = 0; build_ids < 2; build_ids++) {
		addrs = every_vma_addrs(build_ids, extra, NR_LIVE, &n);
		if (!addrs)
			FAIL(t, "reading /proc/self/maps: %s", err_name(-errno));
		err = live_open(&text, ADDRRES_PROCMAPS_METHOD_TEXT, 0, build_ids, msg, sizeof(msg));
		if (!err)
			err = live_open(&ioctl, ADDRRES_PROCMAPS_METHOD_IOCTL, 0, build_ids, msg,
					sizeof(msg));
		if (err)
			FAIL(t, "open: %s: %s", err_name(err), msg);
		err = compare_methods(text, ioctl, addrs, n, &bad);
		if (err)
			FAIL(t, "resolve: %s", err_name(err));
		if (bad)
			FAIL(t, "TEXT and IOCTL differ on address %zu of %zu%s (see above)", bad - 1,
			     n, build_ids ? ", with build IDs" : "");
		printf("# TEXT and IOCTL agree on %zu addresses (%s)\n", n,
		       build_ids ? "2 per file VMA, with build IDs" : "3 per VMA");
		addrres_procmaps__free(text);
		addrres_procmaps__free(ioctl);
		free(addrs);
		text = ioctl = NULL;
		addrs = NULL;
	}
out:
	addrres_procmaps__free(text);
	addrres_procmaps__free(ioctl);
	free(addrs);
	live_undo(&l);
	free(heap);
}

/*
 * Runs of addresses in VMAs and in a hole, sorted and in reverse: each
 * address gets its page's VMA, one pointer per VMA, with each method.
 */
static void test_live_runs(struct test *t, const void *arg)
{
	enum { NR_PAGES = 16, HOLE = 5, MAX_ADDRS = NR_PAGES * 50 };
	static const enum addrres_procmaps_method methods[] = {
		ADDRRES_PROCMAPS_METHOD_TEXT, ADDRRES_PROCMAPS_METHOD_IOCTL,
		ADDRRES_PROCMAPS_METHOD_AUTO,
	};
	struct addrres_procmaps_stats st = { .sz = sizeof(st) };
	const struct addrres_vma *v[MAX_ADDRS], *first[NR_PAGES];
	struct addrres_procmaps *pm = NULL;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t addrs[MAX_ADDRS];
	char msg[512], why[512], *base;
	bool has_ioctl = host_has_ioctl(why, sizeof(why));
	size_t n = 0;
	int err;

	(void)arg;
	base = mmap(NULL, NR_PAGES * (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED)
		FAIL(t, "mmap: %s", err_name(-errno));
	/* r-- and rw- in turn: a VMA per page; runs of 1 to 49 addresses, repeated ones too */
	for (size_t i = 0; i < NR_PAGES; i++) {
		size_t run = 1 + (i * 7) % 49;

		if (i % 2 && mprotect(base + i * page, (size_t)page, PROT_READ | PROT_WRITE))
			FAIL(t, "mprotect: %s", err_name(-errno));
		for (size_t j = 0; j < run; j++)
			addrs[n++] = (uintptr_t)base + i * (uint64_t)page + (j / 2) * 16;
	}
	if (munmap(base + HOLE * page, (size_t)page))
		FAIL(t, "munmap: %s", err_name(-errno));
	for (size_t m = 0; m < sizeof(methods) / sizeof(methods[0]); m++) {
		if (methods[m] == ADDRRES_PROCMAPS_METHOD_IOCTL && !has_ioctl) {
			printf("# %s: IOCTL not checked\n", why);
			continue;
		}
		err = live_open(&pm, methods[m], 0, false, msg, sizeof(msg));
		if (err)
			FAIL(t, "open: %s: %s", err_name(err), msg);
		for (int reversed = 0; reversed < 2; reversed++) {
			memset(first, 0, sizeof(first));
			RESOLVE(t, pm, addrs, n, v, msg);
			for (size_t i = 0; i < n; i++) {
				size_t pg = (size_t)((addrs[i] - (uintptr_t)base) / (uint64_t)page);

				if (pg == HOLE) {
					if (v[i])
						FAIL(t, "method %d: address %zu in the hole",
						     (int)methods[m], i);
					continue;
				}
				/* the first and last pages may merge with VMAs around */
				if (!v[i] || v[i]->start > addrs[i] || v[i]->end <= addrs[i] ||
				    (pg > 0 && pg < NR_PAGES - 1 &&
				     (v[i]->start != (uintptr_t)base + pg * (uint64_t)page ||
				      v[i]->end != v[i]->start + (uint64_t)page)))
					FAIL(t, "method %d%s: address %zu is not in its page's VMA",
					     (int)methods[m], reversed ? ", reversed" : "", i);
				if (!first[pg])
					first[pg] = v[i];
				if (v[i] != first[pg])
					FAIL(t, "method %d: two pointers for page %zu",
					     (int)methods[m], pg);
			}
			CHECK_ERR(t, addrres_procmaps__stats(pm, &st), 0);
			CHECK_INT(t, st.vmas, NR_PAGES - 1);
			/* reverse the batch for the second round */
			for (size_t i = 0; i < n / 2; i++) {
				uint64_t a = addrs[i];

				addrs[i] = addrs[n - 1 - i];
				addrs[n - 1 - i] = a;
			}
		}
		addrres_procmaps__free(pm);
		pm = NULL;
	}
out:
	addrres_procmaps__free(pm);
	if (base != MAP_FAILED)
		munmap(base, NR_PAGES * (size_t)page);
}

/*
 * AUTO's choice on 1000 VMAs of one page, r-- and rw- in turn: a batch
 * that hits every one of them is placed by the text after a few queries
 * (and as the text places it); one clustered in 30 of them, 20 addresses
 * each, or spread over every other one (the text would read two lines a
 * query), by queries alone.
 */
static void test_live_auto_switches(struct test *t, const void *arg)
{
	enum { NR_VMAS = 1000, NR_CLUSTERS = 30, PER_CLUSTER = 20 };
	struct addrres_procmaps_stats st = { .sz = sizeof(st) };
	struct addrres_procmaps *text = NULL, *autom = NULL;
	const struct addrres_vma **v = calloc(NR_VMAS, sizeof(*v));
	long page = sysconf(_SC_PAGESIZE);
	uint64_t *addrs = calloc(NR_VMAS, sizeof(*addrs));
	char msg[512], why[512], *base;
	size_t n, bad;
	int err;

	(void)arg;
	base = mmap(NULL, NR_VMAS * (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED || !v || !addrs)
		FAIL(t, "mmap or calloc: %s", err_name(-errno));
	/* r-- and rw- in turn: the kernel cannot merge them */
	for (size_t i = 0; i < NR_VMAS; i++) {
		if (i % 2 && mprotect(base + i * page, (size_t)page, PROT_READ | PROT_WRITE))
			FAIL(t, "mprotect: %s", err_name(-errno));
		addrs[i] = (uintptr_t)base + i * (uint64_t)page + 8;
	}
	if (!host_has_ioctl(why, sizeof(why)))
		SKIP(t, "%s", why);
	err = live_open(&text, ADDRRES_PROCMAPS_METHOD_TEXT, 0, false, msg, sizeof(msg));
	if (!err)
		err = live_open(&autom, ADDRRES_PROCMAPS_METHOD_AUTO, 0, false, msg, sizeof(msg));
	if (err)
		FAIL(t, "open: %s: %s", err_name(err), msg);

	/* every VMA: the text, soon */
	err = compare_methods(text, autom, addrs, NR_VMAS, &bad);
	if (err)
		FAIL(t, "resolve: %s", err_name(err));
	if (bad)
		FAIL(t, "TEXT and AUTO differ on address %zu (see above)", bad - 1);
	CHECK_ERR(t, addrres_procmaps__stats(autom, &st), 0);
	printf("# AUTO: %zu queries, then %zu lines of text, for %d VMAs\n",
	       st.ioctl_queries, st.text_lines, NR_VMAS);
	CHECK_INT(t, st.method, ADDRRES_PROCMAPS_METHOD_TEXT);
	CHECK_INT(t, st.vmas, NR_VMAS);
	CHECK(t, st.ioctl_queries >= 8 && st.ioctl_queries <= 32);
	CHECK(t, st.text_lines >= NR_VMAS - st.ioctl_queries);

	/* 30 clusters, one VMA in 33 */
	n = 0;
	for (size_t c = 0; c < NR_CLUSTERS; c++) {
		for (size_t j = 0; j < PER_CLUSTER; j++)
			addrs[n++] = (uintptr_t)base + c * (NR_VMAS / NR_CLUSTERS) * (uint64_t)page +
				     j * 8;
	}
	RESOLVE(t, autom, addrs, n, v, msg);
	CHECK_ERR(t, addrres_procmaps__stats(autom, &st), 0);
	printf("# AUTO: %zu queries, %zu lines of text, for %d clusters\n",
	       st.ioctl_queries, st.text_lines, NR_CLUSTERS);
	CHECK_INT(t, st.method, ADDRRES_PROCMAPS_METHOD_IOCTL);
	CHECK_INT(t, st.vmas, NR_CLUSTERS);
	CHECK_INT(t, st.ioctl_queries, NR_CLUSTERS);
	CHECK_INT(t, st.text_lines, 0);
	for (size_t i = 0; i < n; i++)
		CHECK(t, v[i] && v[i]->start <= addrs[i] && addrs[i] < v[i]->end);

	/* every other VMA */
	n = 0;
	for (size_t i = 0; i < NR_VMAS; i += 2)
		addrs[n++] = (uintptr_t)base + i * (uint64_t)page + 8;
	RESOLVE(t, autom, addrs, n, v, msg);
	CHECK_ERR(t, addrres_procmaps__stats(autom, &st), 0);
	printf("# AUTO: %zu queries, %zu lines of text, for every other VMA\n",
	       st.ioctl_queries, st.text_lines);
	CHECK_INT(t, st.method, ADDRRES_PROCMAPS_METHOD_IOCTL);
	CHECK_INT(t, st.vmas, NR_VMAS / 2);
	CHECK_INT(t, st.text_lines, 0);
out:
	addrres_procmaps__free(text);
	addrres_procmaps__free(autom);
	if (base != MAP_FAILED)
		munmap(base, NR_VMAS * (size_t)page);
	free(v);
	free(addrs);
}

#define CASE(fn) { #fn + 5, fn, NULL, false, false, "" }

static struct test tests[64] = {
	CASE(test_fixture_fields),
	CASE(test_fixture_unmapped),
	CASE(test_fixture_unsorted_repeated),
	CASE(test_fixture_auto_falls_back),
	CASE(test_fixture_ioctl_enotty),
	CASE(test_message_kept_by_set),
	CASE(test_long_line_and_empty),
	CASE(test_opts_and_arguments),
	CASE(test_live_text),
	CASE(test_live_auto),
	CASE(test_live_ioctl_matches_text),
	CASE(test_live_ioctl_size_0_reads_the_file),
	CASE(test_live_runs),
	CASE(test_live_auto_switches),
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
