// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Unit tests of libaddrres's ELF symbols (addrres_elf__*), on ELF files
 * that fixtures/elf/build.sh builds into the scratch directory at start
 * (from fixtures/elf/prog.c, lib.c and syms.S, with $CC or cc, binutils
 * and xz: no binary is committed), on a library this process loads, and
 * on its vdso.  What the library must find comes from elsewhere: nm's
 * listing (addresses, sizes), readelf's build ID, the "line:NAME"
 * comments of the sources, the program headers read here with <elf.h>,
 * dlsym(); and, offset after offset, libdwfl's dwfl_module_addrinfo()
 * on a Dwfl of the test's own, on those files, the vdso and this
 * process's libc.  One concern per case.
 *
 *   test_elf FIXTURES_DIR SCRATCH_DIR
 *
 * Prints KTAP; exits 1 if a case failed.  Built with ASan and UBSan by
 * run.sh, so that a leak or an out-of-bounds access fails the run too.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <link.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <signal.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/sysmacros.h>

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <elfutils/libdwelf.h>
#include <gelf.h>

#include <addrres/addrres.h>
#include "unit.h"

extern char **environ;

/* Where build.sh put the ELF files; "" if it failed. */
static const char *elf_dir = "";

static const char *out_file(const char *name)
{
	return path_in(elf_dir, name);
}

/* Every case needs the files. */
#define NEED_FIXTURES(t) do {							\
	if (!elf_dir[0])							\
		FAIL(t, "fixtures/elf/build.sh failed (see its messages)");	\
} while (0)

/* ---- the independent truth ---- */

struct nm_sym {
	uint64_t value, size;
	char type;
};

/* The symbol @name of an nm -S listing @list (a file of elf_dir). */
static bool nm_find(const char *list, const char *name, struct nm_sym *s)
{
	char line[512], sym[256];
	unsigned long long value, size;
	FILE *f = fopen(out_file(list), "re");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char type;

		if (sscanf(line, "%llx %llx %c %255s", &value, &size, &type, sym) == 4) {
			s->size = size;
		} else if (sscanf(line, "%llx %c %255s", &value, &type, sym) == 3) {
			s->size = 0;
		} else {
			continue;
		}
		if (!strcmp(sym, name)) {
			s->value = value;
			s->type = type;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* The ELF header and program headers of @path (64-bit only). */
static bool read_phdrs(const char *path, Elf64_Ehdr *eh, Elf64_Phdr *ph, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = pread(fd, eh, sizeof(*eh), 0) == (ssize_t)sizeof(*eh) &&
	     !memcmp(eh->e_ident, ELFMAG, SELFMAG) && eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	     eh->e_phentsize == sizeof(*ph) && eh->e_phnum <= max &&
	     pread(fd, ph, eh->e_phnum * sizeof(*ph), (off_t)eh->e_phoff) ==
		     (ssize_t)(eh->e_phnum * sizeof(*ph));
	close(fd);
	return ok;
}

/* The file offset of address @vaddr of @path, from its PT_LOADs. */
static bool file_offset(const char *path, uint64_t vaddr, uint64_t *off)
{
	Elf64_Phdr ph[64];
	Elf64_Ehdr eh;

	if (!read_phdrs(path, &eh, ph, 64))
		return false;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && vaddr >= ph[i].p_vaddr &&
		    vaddr - ph[i].p_vaddr < ph[i].p_filesz) {
			*off = vaddr - ph[i].p_vaddr + ph[i].p_offset;
			return true;
		}
	}
	return false;
}

/* The number of the line of fixtures/elf/@src that ends "line:@name". */
static unsigned int marker_line(const char *src, const char *name)
{
	char line[512], mark[128];
	unsigned int n = 0, found = 0;
	FILE *f = fopen(path_in(fixtures_dir, src), "re");

	if (!f)
		return 0;
	snprintf(mark, sizeof(mark), "/* line:%s */", name);
	while (!found && fgets(line, sizeof(line), f)) {
		n++;
		if (strstr(line, mark))
			found = n;
	}
	fclose(f);
	return found;
}

/* Whether @a and @b are the same file. */
static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* lib.so's build ID, from readelf, into @id: its size or 0. */
/* The build ID in hex in the fixture @name (readelf's), into @id: its size. */
static size_t fixture_build_id(const char *name, unsigned char *id)
{
	char hex[2 * ADDRRES_BUILD_ID_MAX + 2];
	size_t n = 0;
	FILE *f = fopen(out_file(name), "re");

	if (!f)
		return 0;
	if (fgets(hex, sizeof(hex), f)) {
		for (; n < ADDRRES_BUILD_ID_MAX && sscanf(hex + 2 * n, "%2hhx", &id[n]) == 1; n++)
			;
	}
	fclose(f);
	return n;
}

static size_t lib_build_id(unsigned char *id)
{
	return fixture_build_id("lib.so.build-id", id);
}

/* The open file descriptors of this process. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* ---- helpers ---- */

static int open_elf(struct addrres_elf **e, const char *debug_dirs, bool no_lines, char *msg,
		    size_t msg_sz)
{
	ADDRRES_OPTS(addrres_elf_opts, opts, .debug_dirs = debug_dirs, .no_lines = no_lines,
		     .errbuf = msg, .errbuf_sz = msg_sz);

	return addrres_elf__open(&opts, e);
}

/* addrres_elf__resolve() with the build ID @id (NULL: none) in its options. */
static int resolve_id(struct addrres_elf *e, const char *path, const unsigned char *id,
		      size_t id_size, const uint64_t *offs, size_t n,
		      const struct addrres_elf_sym **syms)
{
	ADDRRES_OPTS(addrres_elf_resolve_opts, opts, .build_id = id, .build_id_size = id_size);

	return addrres_elf__resolve(e, path, offs, n, syms, &opts);
}

/* An empty directory: no debug file to be found. */
static const char *no_debug_dir(void)
{
	const char *dir = out_file("no-debug");

	mkdir(dir, 0755);
	return dir;
}

#define OPEN(t, e, dirs, no_lines, msg) do {					\
	int e_ = open_elf(&(e), dirs, no_lines, msg, sizeof(msg));		\
	if (e_)									\
		FAIL(t, "open: %s: %s", err_name(e_), msg);			\
} while (0)

#define RESOLVE(t, e, path, id, id_size, offs, n, syms, msg) do {		\
	int e_ = resolve_id(e, path, id, id_size, offs, n, syms);		\
	(void)(msg);								\
	if (e_)									\
		FAIL(t, "resolve: %s: %s", err_name(e_), addrres_elf__errmsg(e)); \
} while (0)

#define RESOLVE_VMA(t, e, pid, vma, addrs, n, syms, msg) do {			\
	int e_ = addrres_elf__resolve_vma(e, pid, vma, addrs, n, syms);	\
	if (e_)									\
		FAIL(t, "resolve_vma: %s: %s", err_name(e_), addrres_elf__errmsg(e)); \
} while (0)

/* An nm symbol of a listing, that must be there. */
#define NM(t, list, name, s) do {						\
	if (!nm_find(list, name, s))						\
		FAIL(t, "%s: no %s in nm's listing", list, name);		\
} while (0)

/* The file offset of @vaddr in @path, that must be in a segment. */
#define OFFSET(t, path, vaddr, off) do {					\
	if (!file_offset(path, vaddr, off))					\
		FAIL(t, "%s: 0x%llx in no PT_LOAD", path, (unsigned long long)(vaddr)); \
} while (0)

/* @s is the symbol @name + @off of nm symbol @ns, from @table. */
#define CHECK_SYM(t, s, name_, ns, off, table) do {				\
	const struct addrres_elf_sym *s_ = (s);					\
	if (!s_)								\
		FAIL(t, "%s: no result, want %s+%d", #s, name_, (int)(off));	\
	CHECK_STR(t, s_->name, name_);						\
	CHECK_U64(t, s_->offset, (off));					\
	CHECK_U64(t, s_->elf_addr, (ns).value + (off));				\
	CHECK_U64(t, s_->size, (ns).size);					\
	CHECK_INT(t, s_->symtab, table);					\
} while (0)

/*
 * @s has the line of "line:@name" in fixtures/elf/@src, named by an
 * absolute path (build.sh compiles prog.c as elf/prog.c from fixtures/).
 */
#define CHECK_LINE(t, s, src, name) do {					\
	unsigned int mark_ = marker_line("elf/" src, name);			\
	if (!mark_)								\
		FAIL(t, "no line:%s in %s", name, src);				\
	if (!(s)->src_file)							\
		FAIL(t, "%s: no source line, want %s:%u", #s, src, mark_);	\
	if ((s)->src_file[0] != '/')						\
		FAIL(t, "%s: source %s, not an absolute path", #s, (s)->src_file); \
	if (!same_file((s)->src_file, path_in(fixtures_dir, "elf/" src)))	\
		FAIL(t, "%s: source %s, not fixtures/elf/%s", #s, (s)->src_file, src); \
	CHECK_INT(t, (s)->line, mark_);						\
	CHECK(t, (s)->column > 0);						\
} while (0)

/* ---- executables ---- */

static void test_pie_symbols_and_lines(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[4];
	struct nm_sym glob, stat_sym, data;
	struct addrres_elf *e = NULL;
	Elf64_Phdr ph[64];
	Elf64_Ehdr eh;
	char pie[PATH_MAX];
	const char *name;
	uint64_t offs[4];
	char msg[512];

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(pie, sizeof(pie), "%s", out_file("pie"));
	CHECK(t, read_phdrs(pie, &eh, ph, 64) && eh.e_type == ET_DYN);
	NM(t, "pie.nm", "fixture_global", &glob);
	NM(t, "pie.nm", "fixture_static", &stat_sym);
	NM(t, "pie.nm", "fixture_data", &data);
	OFFSET(t, pie, glob.value, &offs[0]);
	OFFSET(t, pie, glob.value + 4, &offs[1]);
	OFFSET(t, pie, stat_sym.value + 1, &offs[2]);
	/* .data: its file offset is not its address */
	OFFSET(t, pie, data.value + 2, &offs[3]);
	CHECK(t, offs[3] != data.value + 2);

	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, pie, NULL, 0, offs, 4, s, msg);
	CHECK_STR(t, addrres_elf__errmsg(e), "");
	CHECK_SYM(t, s[0], "fixture_global", glob, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_LINE(t, s[0], "prog.c", "fixture_global");
	CHECK_SYM(t, s[1], "fixture_global", glob, 4, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_LINE(t, s[1], "prog.c", "fixture_global");
	CHECK_SYM(t, s[2], "fixture_static", stat_sym, 1, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_LINE(t, s[2], "prog.c", "fixture_static");
	CHECK_SYM(t, s[3], "fixture_data", data, 2, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK(t, s[3]->src_file == NULL && s[3]->line == 0);

	/* again, from the cache: the strings live on */
	name = s[0]->name;
	RESOLVE(t, e, pie, NULL, 0, offs, 1, s, msg);
	CHECK(t, s[0]->name == name);
	CHECK_STR(t, name, "fixture_global");
out:
	addrres_elf__free(e);
}

static void test_non_pie_executable(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[2];
	struct nm_sym glob, stat_sym;
	struct addrres_elf *e = NULL;
	Elf64_Phdr ph[64];
	Elf64_Ehdr eh;
	char exe[PATH_MAX];
	uint64_t offs[2];
	char msg[512];

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(exe, sizeof(exe), "%s", out_file("nopie"));
	CHECK(t, read_phdrs(exe, &eh, ph, 64) && eh.e_type == ET_EXEC);
	NM(t, "nopie.nm", "fixture_global", &glob);
	NM(t, "nopie.nm", "fixture_static", &stat_sym);
	OFFSET(t, exe, glob.value + 3, &offs[0]);
	OFFSET(t, exe, stat_sym.value, &offs[1]);
	/* linked at its address: offsets are far below */
	CHECK(t, offs[0] < glob.value);

	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, exe, NULL, 0, offs, 2, s, msg);
	CHECK_SYM(t, s[0], "fixture_global", glob, 3, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_LINE(t, s[0], "prog.c", "fixture_global");
	CHECK_SYM(t, s[1], "fixture_static", stat_sym, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_LINE(t, s[1], "prog.c", "fixture_static");
out:
	addrres_elf__free(e);
}

static void test_no_lines(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym glob;
	uint64_t off;
	char msg[512];

	(void)arg;
	NEED_FIXTURES(t);
	NM(t, "pie.nm", "fixture_global", &glob);
	OFFSET(t, out_file("pie"), glob.value + 1, &off);
	OPEN(t, e, no_debug_dir(), true, msg);
	RESOLVE(t, e, out_file("pie"), NULL, 0, &off, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_global", glob, 1, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK(t, s[0]->src_file == NULL && s[0]->line == 0 && s[0]->column == 0);
out:
	addrres_elf__free(e);
}

/* ---- a shared library, loaded here ---- */

/* lib.so, loaded here, and this process's maps. */
struct loaded {
	void *handle;
	struct addrres_procmaps *pm;
};

static void loaded_undo(struct loaded *l)
{
	addrres_procmaps__free(l->pm);
	if (l->handle)
		dlclose(l->handle);
	memset(l, 0, sizeof(*l));
}

/* Load lib.so: the address of its fixture_lib_func. */
static int loaded_setup(struct loaded *l, uint64_t *func, char *msg, size_t msg_sz)
{
	void *sym;

	memset(l, 0, sizeof(*l));
	l->handle = dlopen(out_file("lib.so"), RTLD_NOW | RTLD_LOCAL);
	if (!l->handle) {
		snprintf(msg, msg_sz, "dlopen: %s", dlerror());
		return -ENOENT;
	}
	sym = dlsym(l->handle, "fixture_lib_func");
	if (!sym) {
		snprintf(msg, msg_sz, "dlsym: %s", dlerror());
		return -ENOENT;
	}
	*func = (uintptr_t)sym;
	return 0;
}

/* The VMAs of @n addresses of this process, with their build IDs. */
static int loaded_vmas(struct loaded *l, const uint64_t *addrs, size_t n,
		       const struct addrres_vma **vmas, char *msg, size_t msg_sz)
{
	ADDRRES_OPTS(addrres_procmaps_opts, opts, .build_ids = true, .errbuf = msg,
		     .errbuf_sz = msg_sz);
	int err = 0;

	if (!l->pm)
		err = addrres_procmaps__open(&opts, &l->pm);
	return err ? err : addrres_procmaps__resolve(l->pm, addrs, n, vmas);
}

static void test_shared_library_vma(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[2], *by_path;
	const struct addrres_vma *v[2];
	struct addrres_elf *e = NULL;
	struct nm_sym func;
	struct loaded l = { 0 };
	uint64_t addr, addrs[2], off;
	const char *name;
	char msg[512];
	int err;

	(void)arg;
	NEED_FIXTURES(t);
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	err = loaded_setup(&l, &addr, msg, sizeof(msg));
	if (err)
		FAIL(t, "loading lib.so: %s", msg);
	addrs[0] = addr;
	addrs[1] = addr + 5;
	err = loaded_vmas(&l, addrs, 2, v, msg, sizeof(msg));
	if (err)
		FAIL(t, "loading lib.so, its VMAs: %s: %s", err_name(err), msg);
	CHECK(t, v[0] && v[0] == v[1]);
	CHECK(t, same_file(v[0]->name, out_file("lib.so")));
	/* the build ID the VMA has is checked against the file's */
	CHECK(t, v[0]->build_id_size > 0);

	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE_VMA(t, e, 0, v[0], addrs, 2, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_func");
	CHECK_SYM(t, s[1], "fixture_lib_func", func, 5, ADDRRES_ELF_SYMTAB_SYMTAB);
	name = s[0]->name;

	/* by our pid: the same */
	RESOLVE_VMA(t, e, getpid(), v[0], addrs, 2, s, msg);
	CHECK_SYM(t, s[1], "fixture_lib_func", func, 5, ADDRRES_ELF_SYMTAB_SYMTAB);

	/* by path: the same file of the cache (device and inode) */
	OFFSET(t, out_file("lib.so"), func.value, &off);
	RESOLVE(t, e, out_file("lib.so"), NULL, 0, &off, 1, &by_path, msg);
	CHECK(t, by_path && by_path->name == name);
out:
	addrres_elf__free(e);
	loaded_undo(&l);
}

/*
 * A batch over several VMAs: each file's results survive the next file's
 * group; anonymous memory and unmapped addresses get NULL and their error.
 */
static void test_resolve_vmas_batch(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[5];
	const struct addrres_vma *v[5];
	struct addrres_elf *e = NULL;
	struct loaded l = { 0 };
	struct nm_sym func;
	uint64_t addr, addrs[5];
	char *heap = malloc(64);
	char msg[512];
	int err, errs[5];

	(void)arg;
	NEED_FIXTURES(t);
	CHECK(t, heap != NULL);
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	err = loaded_setup(&l, &addr, msg, sizeof(msg));
	if (err)
		FAIL(t, "loading lib.so: %s", msg);
	addrs[0] = addr + 5;
	addrs[1] = (uintptr_t)heap;			/* anonymous */
	addrs[2] = (uintptr_t)test_resolve_vmas_batch;	/* this program */
	addrs[3] = 16;					/* not mapped */
	addrs[4] = addr;
	err = loaded_vmas(&l, addrs, 5, v, msg, sizeof(msg));
	if (err)
		FAIL(t, "the VMAs: %s: %s", err_name(err), msg);
	CHECK(t, v[0] && v[0] == v[4] && v[1] && v[2] && !v[3]);

	OPEN(t, e, no_debug_dir(), false, msg);
	err = addrres_elf__resolve_vmas(e, 0, addrs, v, 5, s, errs);
	if (err)
		FAIL(t, "resolve_vmas: %s: %s", err_name(err), msg);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 5, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_SYM(t, s[4], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_INT(t, errs[0], 0);
	CHECK(t, !s[1]);
	CHECK_INT(t, errs[1], -ENOENT);
	CHECK(t, s[2] && s[2]->name && !strcmp(s[2]->name, "test_resolve_vmas_batch"));
	CHECK(t, s[2]->offset == 0);
	CHECK(t, !s[3]);
	CHECK_INT(t, errs[3], 0);

	/* an address outside the VMA given for it fails the batch */
	addrs[1] = v[0]->end;
	v[1] = v[0];
	CHECK_ERR(t, addrres_elf__resolve_vmas(e, 0, addrs, v, 5, s, errs), -EINVAL);
	CHECK(t, !s[0] && !s[4]);
out:
	addrres_elf__free(e);
	loaded_undo(&l);
	free(heap);
}

/*
 * A VMA whose /proc/self/map_files entry does not exist (a range that is
 * not mapped) is opened by its name, which must be its device and inode.
 */
static void test_vma_opened_by_path(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	const struct addrres_vma *v[1];
	struct addrres_vma fake;
	struct addrres_elf *e = NULL;
	struct nm_sym func;
	struct loaded l = { 0 };
	uint64_t addr, fake_addr;
	char msg[512];
	int err;

	(void)arg;
	NEED_FIXTURES(t);
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	err = loaded_setup(&l, &addr, msg, sizeof(msg));
	if (!err)
		err = loaded_vmas(&l, &addr, 1, v, msg, sizeof(msg));
	if (err || !v[0])
		FAIL(t, "loading lib.so, its VMA: %s: %s", err_name(err), msg);
	/* the same file, offset and length, one page below: not a VMA */
	fake = *v[0];
	fake.start -= 0x1000;
	fake.end -= 0x1000;
	fake_addr = addr - 0x1000;

	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE_VMA(t, e, 0, &fake, &fake_addr, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	addrres_elf__free(e);
	e = NULL;

	/* another inode at that path: the file was replaced */
	fake.inode++;
	OPEN(t, e, no_debug_dir(), false, msg);
	CHECK_ERR(t, addrres_elf__resolve_vma(e, 0, &fake, &fake_addr, 1, s), -ESTALE);
	CHECK(t, s[0] == NULL);
	CHECK(t, !strncmp(addrres_elf__errmsg(e), fake.name, strlen(fake.name)));
out:
	addrres_elf__free(e);
	loaded_undo(&l);
}

/* ---- stripped files, and where their symbols come from ---- */

static void test_stripped_dynsym(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[2];
	struct nm_sym func, dyn, stat_sym;
	struct addrres_elf *e = NULL;
	char lib[PATH_MAX];
	uint64_t offs[2];
	char msg[512];

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-stripped.so"));
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	NM(t, "lib-stripped.so.dynsym", "fixture_lib_func", &dyn);
	CHECK(t, !nm_find("lib-stripped.so.dynsym", "fixture_lib_static", &stat_sym));
	OFFSET(t, lib, dyn.value + 2, &offs[0]);
	OFFSET(t, lib, stat_sym.value + 1, &offs[1]);

	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, lib, NULL, 0, offs, 2, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_func", dyn, 2, ADDRRES_ELF_SYMTAB_DYNSYM);
	CHECK(t, s[0]->src_file == NULL);
	/* a static function: not in .dynsym */
	CHECK(t, s[1] != NULL);
	CHECK(t, !s[1]->name || strcmp(s[1]->name, "fixture_lib_static"));
	CHECK_U64(t, s[1]->elf_addr, stat_sym.value + 1);
out:
	addrres_elf__free(e);
}

static void test_gnu_debugdata(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym stat_sym;
	char lib[PATH_MAX];
	uint64_t off;
	char msg[512];

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-minidebuginfo.so"));
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	OFFSET(t, lib, stat_sym.value + 3, &off);

	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, lib, NULL, 0, &off, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_static", stat_sym, 3, ADDRRES_ELF_SYMTAB_GNU_DEBUGDATA);
	/* MiniDebugInfo has no DWARF */
	CHECK(t, s[0]->src_file == NULL);
out:
	addrres_elf__free(e);
}

static void test_debug_file_by_build_id(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[2];
	struct addrres_elf *e = NULL;
	struct nm_sym stat_sym, func;
	char msg[512], dirs[2 * PATH_MAX];
	char lib[PATH_MAX];
	uint64_t offs[2];

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-stripped.so"));
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	OFFSET(t, lib, stat_sym.value + 1, &offs[0]);
	OFFSET(t, lib, func.value, &offs[1]);
	/* a directory without it first: each is searched */
	snprintf(dirs, sizeof(dirs), "%s:%s", no_debug_dir(), out_file("debug"));

	OPEN(t, e, dirs, false, msg);
	RESOLVE(t, e, lib, NULL, 0, offs, 2, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_static", stat_sym, 1, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
	CHECK_SYM(t, s[1], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	CHECK_LINE(t, s[1], "lib.c", "fixture_lib_func");
out:
	addrres_elf__free(e);
}

static void test_debug_file_by_debuglink(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym stat_sym;
	char lib[PATH_MAX];
	uint64_t off;
	char msg[512];

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-nobid-stripped.so"));
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);	/* the same layout */
	OFFSET(t, lib, stat_sym.value + 2, &off);

	OPEN(t, e, out_file("debuglink"), false, msg);
	RESOLVE(t, e, lib, NULL, 0, &off, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_static", stat_sym, 2, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
out:
	addrres_elf__free(e);
}

/*
 * With DEBUGINFOD_URLS set, the library must not ask (the client would
 * make its cache directory first): a debug file is still found by build
 * ID, none is downloaded.
 */
static void test_no_debuginfod(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym stat_sym;
	struct stat st;
	char lib[PATH_MAX], cache[PATH_MAX];
	uint64_t off;
	char msg[512];

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-stripped.so"));
	snprintf(cache, sizeof(cache), "%s", out_file("debuginfod-cache"));
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	OFFSET(t, lib, stat_sym.value, &off);
	if (setenv("DEBUGINFOD_URLS", "http://127.0.0.1:9/", 1) ||
	    setenv("DEBUGINFOD_CACHE_PATH", cache, 1))
		FAIL(t, "setenv: %s", err_name(-errno));

	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, lib, NULL, 0, &off, 1, s, msg);
	CHECK(t, s[0] && s[0]->src_file == NULL);
	CHECK(t, stat(cache, &st) && errno == ENOENT);
	addrres_elf__free(e);
	e = NULL;

	OPEN(t, e, out_file("debug"), false, msg);
	RESOLVE(t, e, lib, NULL, 0, &off, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_static", stat_sym, 0, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	CHECK(t, stat(cache, &st) && errno == ENOENT);
out:
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	addrres_elf__free(e);
}

/* ---- a process that has exited ---- */

/* Copy the file @from to @to (mode 0755): 0 or a negative errno. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	unlink(to);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
	}
	while (!err && (n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n)
			err = -EIO;
	}
	if (n < 0)
		err = -errno;
	close(in);
	if (close(out) && !err)
		err = -errno;
	return err;
}

/*
 * Write the bytes of @from over @to, truncated: the same inode, as a
 * file rewritten in place is (copy_file() makes a new one): 0 or -1.
 */
static int overwrite_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC);
	int out = open(to, O_WRONLY | O_TRUNC | O_CLOEXEC);
	char buf[65536];
	ssize_t n = -1;

	while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0) {
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	}
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return n == 0 ? 0 : -1;
}

/*
 * A child running a copy of sleep(1) at @path: its pid, and in @vma (name
 * in @name) the VMA of its code, at @addr; 0 if it could not be set up.
 */
static pid_t sleeping_copy(const char *path, struct addrres_vma *vma, char *name,
			   size_t name_sz, uint64_t *addr)
{
	char *argv[] = { (char *)path, "60", NULL }, maps[64], line[PATH_MAX + 128];
	pid_t pid;

	if (copy_file("/bin/sleep", path) ||
	    posix_spawn(&pid, path, NULL, NULL, argv, environ))
		return 0;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
	for (int tries = 0; tries < 200; tries++) {
		FILE *f = fopen(maps, "re");
		bool found = false;

		while (f && !found && fgets(line, sizeof(line), f)) {
			unsigned long long start, end, off, ino;
			unsigned int maj, min;
			char perms[5];
			int pos = 0;

			if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, perms, &off,
				   &maj, &min, &ino, &pos) < 7 || perms[2] != 'x' || !pos)
				continue;
			line[strcspn(line, "\n")] = '\0';
			if (strcmp(line + pos, path))
				continue;
			snprintf(name, name_sz, "%s", line + pos);
			*vma = (struct addrres_vma){
				.start = start, .end = end, .offset = off, .dev_major = maj,
				.dev_minor = min, .inode = ino, .name = name,
				.flags = ADDRRES_VMA_READABLE | ADDRRES_VMA_EXECUTABLE,
			};
			*addr = start + (end - start) / 2;
			found = true;
		}
		if (f)
			fclose(f);
		if (found)
			return pid;
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return 0;
}

/* Once the process is gone, its file by its own path (device and inode checked). */
static void test_exited_process(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct addrres_vma vma;
	char path[PATH_MAX], name[PATH_MAX], msg[512];
	uint64_t addr, alive_addr;
	const char *alive_name;
	pid_t pid;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(path, sizeof(path), "%s", out_file("sleep-copy"));
	pid = sleeping_copy(path, &vma, name, sizeof(name), &addr);
	if (!pid)
		FAIL(t, "cannot run a copy of /bin/sleep");
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE_VMA(t, e, pid, &vma, &addr, 1, s, msg);
	alive_addr = s[0]->elf_addr;
	alive_name = s[0]->name;
	addrres_elf__free(e);
	e = NULL;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	/* a new handle: nothing cached; /proc/PID is gone */
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE_VMA(t, e, pid, &vma, &addr, 1, s, msg);
	CHECK_U64(t, s[0]->elf_addr, alive_addr);
	CHECK(t, !s[0]->name == !alive_name);
out:
	addrres_elf__free(e);
}

/* Exited, and its file replaced: -ESTALE, the message naming each path tried. */
static void test_exited_process_file_replaced(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct addrres_vma vma;
	char path[PATH_MAX], name[PATH_MAX], other[PATH_MAX + 8], msg[512], proc[64];
	uint64_t addr;
	pid_t pid;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(path, sizeof(path), "%s", out_file("sleep-copy-2"));
	pid = sleeping_copy(path, &vma, name, sizeof(name), &addr);
	if (!pid)
		FAIL(t, "cannot run a copy of /bin/sleep");
	/* another file at the path: made while the first exists, so a new inode */
	snprintf(other, sizeof(other), "%s.new", path);
	CHECK_INT(t, copy_file("/bin/sleep", other), 0);
	CHECK_INT(t, rename(other, path), 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	OPEN(t, e, no_debug_dir(), false, msg);
	s[0] = (void *)1;
	CHECK_ERR(t, addrres_elf__resolve_vma(e, pid, &vma, &addr, 1, s), -ESTALE);
	CHECK(t, s[0] == NULL);
	snprintf(proc, sizeof(proc), "/proc/%d/map_files/", (int)pid);
	CHECK(t, strstr(addrres_elf__errmsg(e), proc) != NULL);
	CHECK(t, strstr(addrres_elf__errmsg(e), "another file than the one mapped") != NULL);
out:
	addrres_elf__free(e);
}

/*
 * By default (debug_dirs NULL) as eu-addr2line looks: a .gnu_debuglink's
 * file beside the binary, and in its .debug directory.
 */
static void test_debuglink_default_dirs(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym stat_sym;
	char dir[PATH_MAX], lib[PATH_MAX + 32], dbg[PATH_MAX + 64], src[PATH_MAX + 64];
	uint64_t off;

	(void)arg;
	NEED_FIXTURES(t);
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	snprintf(src, sizeof(src), "%s%s/lib-nobid.debug", out_file("debuglink"), elf_dir);
	for (int where = 0; where < 2; where++) {
		snprintf(dir, sizeof(dir), "%s", out_file(where ? "linked-dotdebug" : "linked-beside"));
		mkdir(dir, 0755);
		snprintf(lib, sizeof(lib), "%s/lib-nobid-stripped.so", dir);
		CHECK_INT(t, copy_file(out_file("lib-nobid-stripped.so"), lib), 0);
		if (where) {
			snprintf(dbg, sizeof(dbg), "%s/.debug", dir);
			mkdir(dbg, 0755);
		}
		snprintf(dbg, sizeof(dbg), "%s%s/lib-nobid.debug", dir, where ? "/.debug" : "");
		CHECK_INT(t, copy_file(src, dbg), 0);
		OFFSET(t, lib, stat_sym.value + 2, &off);
		CHECK_ERR(t, addrres_elf__open(NULL, &e), 0);
		CHECK_ERR(t, addrres_elf__resolve(e, lib, &off, 1, s, NULL), 0);
		CHECK_SYM(t, s[0], "fixture_lib_static", stat_sym, 2, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
		CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
		addrres_elf__free(e);
		e = NULL;
	}
out:
	addrres_elf__free(e);
}

/*
 * An absolute debug directory is searched under the file's directory,
 * then with its leading components dropped: DIR/<last component>/N is
 * found.  A file of the debuglink's name whose CRC is not the link's is
 * passed over for the next place, unless the CRC check is off.
 */
static void test_debuglink_absolute_dir_and_crc(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym stat_sym;
	char dir[PATH_MAX], lib[PATH_MAX + 32], dbg[PATH_MAX + 64], src[PATH_MAX + 64];
	char abs[PATH_MAX], dirs[PATH_MAX + 8];
	struct stat st;
	uint64_t off;

	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = dirs);
	(void)arg;
	NEED_FIXTURES(t);
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	snprintf(src, sizeof(src), "%s%s/lib-nobid.debug", out_file("debuglink"), elf_dir);
	snprintf(dir, sizeof(dir), "%s", out_file("linked-abs"));
	mkdir(dir, 0755);
	snprintf(lib, sizeof(lib), "%s/lib-nobid-stripped.so", dir);
	CHECK_INT(t, copy_file(out_file("lib-nobid-stripped.so"), lib), 0);
	/* beside it, the first half of the debug file: not its CRC, no DWARF */
	snprintf(dbg, sizeof(dbg), "%s/lib-nobid.debug", dir);
	CHECK_INT(t, copy_file(src, dbg), 0);
	CHECK(t, !stat(dbg, &st) && !truncate(dbg, st.st_size / 2));
	snprintf(abs, sizeof(abs), "%s", out_file("abs-debug"));
	mkdir(abs, 0755);
	snprintf(dbg, sizeof(dbg), "%s/linked-abs", abs);
	mkdir(dbg, 0755);
	snprintf(dbg, sizeof(dbg), "%s/linked-abs/lib-nobid.debug", abs);
	CHECK_INT(t, copy_file(src, dbg), 0);
	snprintf(dirs, sizeof(dirs), ":%s", abs);
	OFFSET(t, lib, stat_sym.value + 2, &off);
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, lib, &off, 1, s, NULL), 0);
	CHECK_SYM(t, s[0], "fixture_lib_static", stat_sym, 2, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
	addrres_elf__free(e);
	e = NULL;
	/* the CRC check off ("-"): the half beside it is taken, no line in it */
	snprintf(dirs, sizeof(dirs), "-:%s", abs);
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, lib, &off, 1, s, NULL), 0);
	CHECK(t, !s[0] || !s[0]->src_file);
out:
	addrres_elf__free(e);
}

/* ---- files a local user controls: nothing may hang or spin on them ---- */

static int elf_stats(struct addrres_elf *e, struct addrres_elf_stats *st);
static void cache_paths(const char *cache, char *sub, size_t sub_sz, char *copy, size_t copy_sz);

/* How long a case that must not hang gets: far more than it needs under ASan. */
#define HOSTILE_SECONDS 60

/*
 * Run @fn in a child that SIGALRM ends after HOSTILE_SECONDS: a call that
 * blocks on a FIFO or reads /dev/zero for ever fails the case (and the
 * run goes on) instead of hanging the test program.
 */
static void in_bounded_child(struct test *t, void (*fn)(struct test *, const void *),
			     const void *arg)
{
	int fds[2], status;
	struct test got;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		FAIL(t, "pipe2: %s", err_name(-errno));
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		FAIL(t, "fork: %s", err_name(-errno));
	}
	if (!pid) {
		close(fds[0]);
		alarm(HOSTILE_SECONDS);
		fn(t, arg);
		n = write(fds[1], t, sizeof(*t));
		_exit(n == (ssize_t)sizeof(*t) ? 0 : 1);
	}
	close(fds[1]);
	n = read(fds[0], &got, sizeof(got));
	close(fds[0]);
	if (waitpid(pid, &status, 0) != pid)
		FAIL(t, "waitpid: %s", err_name(-errno));
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
		FAIL(t, "no answer within %d s: the call hung or spins", HOSTILE_SECONDS);
	if (!WIFEXITED(status) || WEXITSTATUS(status) || n != (ssize_t)sizeof(got))
		FAIL(t, "the child ended with status 0x%x", status);
	t->failed = got.failed;
	t->skipped = got.skipped;
	memcpy(t->why, got.why, sizeof(t->why));
out:
	return;
}

/* What a hostile debug file stands in for, where the search looks first. */
enum hostile_kind { HOSTILE_FIFO, HOSTILE_DEV_ZERO };

static int make_hostile(const char *path, enum hostile_kind kind)
{
	unlink(path);
	if (kind == HOSTILE_FIFO)
		return mkfifo(path, 0644) ? -errno : 0;
	return symlink("/dev/zero", path) ? -errno : 0;
}

/*
 * lib-nobid-stripped.so's .gnu_debuglink names lib-nobid.debug: beside the
 * file a FIFO (or a symlink to /dev/zero, whose CRC would never end), the
 * real one in .debug/.  The search must pass the first, not block on it
 * or read it, and find the second.
 */
static void debuglink_hostile_body(struct test *t, const void *arg)
{
	enum hostile_kind kind = *(const enum hostile_kind *)arg;
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym stat_sym;
	char dir[PATH_MAX], lib[PATH_MAX + 32], dbg[PATH_MAX + 64], src[PATH_MAX + 64];
	uint64_t off;

	NEED_FIXTURES(t);
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	snprintf(src, sizeof(src), "%s%s/lib-nobid.debug", out_file("debuglink"), elf_dir);
	snprintf(dir, sizeof(dir), "%s", out_file(kind == HOSTILE_FIFO ? "link-fifo" : "link-zero"));
	mkdir(dir, 0755);
	snprintf(lib, sizeof(lib), "%s/lib-nobid-stripped.so", dir);
	CHECK_INT(t, copy_file(out_file("lib-nobid-stripped.so"), lib), 0);
	snprintf(dbg, sizeof(dbg), "%s/.debug", dir);
	mkdir(dbg, 0755);
	snprintf(dbg, sizeof(dbg), "%s/.debug/lib-nobid.debug", dir);
	CHECK_INT(t, copy_file(src, dbg), 0);
	snprintf(dbg, sizeof(dbg), "%s/lib-nobid.debug", dir);
	CHECK_INT(t, make_hostile(dbg, kind), 0);
	OFFSET(t, lib, stat_sym.value + 2, &off);
	CHECK_ERR(t, addrres_elf__open(NULL, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, lib, &off, 1, s, NULL), 0);
	CHECK_SYM(t, s[0], "fixture_lib_static", stat_sym, 2, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
out:
	addrres_elf__free(e);
}

static void test_debuglink_fifo_passed(struct test *t, const void *arg)
{
	static const enum hostile_kind kind = HOSTILE_FIFO;

	(void)arg;
	in_bounded_child(t, debuglink_hostile_body, &kind);
}

static void test_debuglink_dev_zero_passed(struct test *t, const void *arg)
{
	static const enum hostile_kind kind = HOSTILE_DEV_ZERO;

	(void)arg;
	in_bounded_child(t, debuglink_hostile_body, &kind);
}

/*
 * By build ID: a FIFO at DIR/.build-id/ab/cdef....debug of the first
 * debug directory, the real debug file in the second.
 */
static void build_id_fifo_body(struct test *t, const void *arg)
{
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	char hex[2 * ADDRRES_BUILD_ID_MAX + 1] = "", bad[PATH_MAX], path[PATH_MAX + 64];
	char dirs[2 * PATH_MAX + 2];
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym stat_sym;
	size_t id_size = lib_build_id(id);
	uint64_t off;

	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = dirs);
	(void)arg;
	NEED_FIXTURES(t);
	CHECK(t, id_size > 1);
	for (size_t i = 0; i < id_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	snprintf(bad, sizeof(bad), "%s", out_file("debug-fifo"));
	snprintf(path, sizeof(path), "%s/.build-id", bad);
	mkdir(bad, 0755);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s", bad, hex);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/.build-id/%.2s/%s.debug", bad, hex, hex + 2);
	CHECK_INT(t, make_hostile(path, HOSTILE_FIFO), 0);
	snprintf(dirs, sizeof(dirs), "%s:%s", bad, out_file("debug-z"));
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	OFFSET(t, out_file("lib-stripped.so"), stat_sym.value, &off);
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, out_file("lib-stripped.so"), &off, 1, s, NULL), 0);
	CHECK_SYM(t, s[0], "fixture_lib_static", stat_sym, 0, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
out:
	addrres_elf__free(e);
}

static void test_build_id_fifo_passed(struct test *t, const void *arg)
{
	in_bounded_child(t, build_id_fifo_body, arg);
}

/* The file asked for is a FIFO: refused at once, "not a regular file". */
static void elf_fifo_body(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	char fifo[PATH_MAX];
	uint64_t off = 0x1000;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(fifo, sizeof(fifo), "%s", out_file("a-fifo.so"));
	CHECK_INT(t, make_hostile(fifo, HOSTILE_FIFO), 0);
	CHECK_ERR(t, addrres_elf__open(NULL, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, fifo, &off, 1, s, NULL), -ENOEXEC);
	CHECK(t, strstr(addrres_elf__errmsg(e), "not a regular file") != NULL);
out:
	addrres_elf__free(e);
}

static void test_elf_fifo_refused(struct test *t, const void *arg)
{
	in_bounded_child(t, elf_fifo_body, arg);
}

/* /tmp/perf-PID.map a FIFO: not read (-EPERM), said, no hang. */
static void perf_map_fifo_body(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	const struct addrres_vma *v[1];
	struct addrres_procmaps *pm = NULL;
	struct addrres_elf *e = NULL;
	char map[64] = "", msg[512];
	void *code = MAP_FAILED;
	int errs[1];
	uint64_t addr;

	(void)arg;
	NEED_FIXTURES(t);
	code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		FAIL(t, "mmap: %s", err_name(-errno));
	addr = (uintptr_t)code + 0x10;
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	CHECK_INT(t, make_hostile(map, HOSTILE_FIFO), 0);
	CHECK_ERR(t, addrres_procmaps__open(NULL, &pm), 0);
	CHECK_ERR(t, addrres_procmaps__resolve(pm, &addr, 1, v), 0);
	OPEN(t, e, no_debug_dir(), false, msg);
	CHECK_ERR(t, addrres_elf__resolve_vmas(e, 0, &addr, v, 1, s, errs), 0);
	CHECK(t, !s[0]);
	CHECK_INT(t, errs[0], -EPERM);
	CHECK(t, strstr(addrres_elf__errmsg(e), "not a regular file") != NULL);
out:
	if (map[0])
		unlink(map);
	addrres_elf__free(e);
	addrres_procmaps__free(pm);
	if (code != MAP_FAILED)
		munmap(code, 4096);
}

static void test_perf_map_fifo_refused(struct test *t, const void *arg)
{
	in_bounded_child(t, perf_map_fifo_body, arg);
}

/*
 * A shared cache: a FIFO where lib.so's copy would be is passed over (the
 * debug file read, its copy not made); a directory of the cache owned by
 * another user is not trusted: a copy in it is not read.
 */
static void debug_cache_hostile_body(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym stat_sym;
	char cache[PATH_MAX], sub[PATH_MAX + 8], copy[PATH_MAX + 160], dirs[PATH_MAX];
	struct addrres_elf_stats es;
	uint64_t off;

	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = dirs, .debug_cache_dir = cache);
	(void)arg;
	NEED_FIXTURES(t);
	snprintf(dirs, sizeof(dirs), "%s", out_file("debug-z"));
	snprintf(cache, sizeof(cache), "%s", out_file("hostile-cache"));
	cache_paths(cache, sub, sizeof(sub), copy, sizeof(copy));
	mkdir(cache, 0777);
	mkdir(sub, 0777);
	CHECK_INT(t, make_hostile(copy, HOSTILE_FIFO), 0);
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	OFFSET(t, out_file("lib-stripped.so"), stat_sym.value, &off);
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, out_file("lib-stripped.so"), &off, 1, s, NULL), 0);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
	addrres_elf__free(e);
	e = NULL;
	if (geteuid() != 0)
		SKIP(t, "not root: a cache directory owned by another user cannot be made");
	/* a good copy, in a directory then given to nobody */
	CHECK(t, !unlink(copy) || errno == ENOENT);
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, out_file("lib-stripped.so"), &off, 1, s, NULL), 0);
	addrres_elf__free(e);
	e = NULL;
	CHECK(t, !access(copy, R_OK));
	CHECK(t, !chown(sub, 65534, 65534));
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, out_file("lib-stripped.so"), &off, 1, s, NULL), 0);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
	/* decompressed again, not read from nobody's directory */
	CHECK_INT(t, elf_stats(e, &es), 0);
	CHECK(t, es.inflated > 0);
out:
	addrres_elf__free(e);
}

static void test_debug_cache_hostile(struct test *t, const void *arg)
{
	in_bounded_child(t, debug_cache_hostile_body, arg);
}

/* ---- failures ---- */

static void test_build_id_mismatch(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	struct nm_sym func;
	size_t id_size;
	uint64_t off;
	char msg[512];

	(void)arg;
	NEED_FIXTURES(t);
	id_size = lib_build_id(id);
	CHECK(t, id_size > 0);
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	OFFSET(t, out_file("lib.so"), func.value, &off);

	OPEN(t, e, no_debug_dir(), false, msg);
	/* another build ID: before the file was read, then after */
	for (int pass = 0; pass < 2; pass++) {
		id[id_size - 1] ^= 1;
		s[0] = (void *)1;
		CHECK_ERR(t, resolve_id(e, out_file("lib.so"), id, id_size, &off, 1, s),
			  -ESTALE);
		CHECK(t, s[0] == NULL);
		CHECK(t, !strncmp(addrres_elf__errmsg(e), out_file("lib.so"), strlen(out_file("lib.so"))));
		CHECK(t, strstr(addrres_elf__errmsg(e), "build ID") != NULL);
		id[id_size - 1] ^= 1;
		RESOLVE(t, e, out_file("lib.so"), id, id_size, &off, 1, s, msg);
		CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	}
	/* a file without a build ID, given one */
	CHECK_ERR(t, resolve_id(e, out_file("lib-nobid-stripped.so"), id, id_size, &off,
					  1, s),
		  -ESTALE);
out:
	addrres_elf__free(e);
}

static void test_not_elf(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	uint64_t off = 0;
	char text[PATH_MAX];
	char msg[512];
	FILE *f;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(text, sizeof(text), "%s", out_file("text"));
	f = fopen(text, "we");
	if (!f || fputs("#!/bin/sh\necho not ELF\n", f) < 0 || fclose(f))
		FAIL(t, "writing %s", text);
	OPEN(t, e, no_debug_dir(), false, msg);
	CHECK_ERR(t, resolve_id(e, text, NULL, 0, &off, 1, s), -ENOEXEC);
	CHECK(t, !strncmp(addrres_elf__errmsg(e), text, strlen(text)) && strstr(addrres_elf__errmsg(e), "not an ELF file"));
	/* an object file, asked without a section: it has no addresses */
	CHECK_ERR(t, resolve_id(e, out_file("lib.o"), NULL, 0, &off, 1, s), -EINVAL);
	CHECK(t, strstr(addrres_elf__errmsg(e), "give offsets in a section") != NULL);
	/* not a regular file */
	CHECK_ERR(t, resolve_id(e, elf_dir, NULL, 0, &off, 1, s), -ENOEXEC);
	/* a good one after them */
	RESOLVE(t, e, out_file("pie"), NULL, 0, &off, 1, s, msg);
	CHECK_STR(t, addrres_elf__errmsg(e), "");
out:
	addrres_elf__free(e);
}

static void test_no_file(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	const struct addrres_vma *v[1];
	struct addrres_procmaps *pm = NULL;
	struct addrres_elf *e = NULL;
	char missing[PATH_MAX];
	uint64_t off = 0, stack;
	char msg[512];
	int local = 0;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(missing, sizeof(missing), "%s", out_file("does-not-exist"));
	OPEN(t, e, no_debug_dir(), false, msg);
	CHECK_ERR(t, resolve_id(e, missing, NULL, 0, &off, 1, s), -ENOENT);
	CHECK(t, !strncmp(addrres_elf__errmsg(e), missing, strlen(missing)) && strstr(addrres_elf__errmsg(e), ": No such file"));

	/* a VMA without a file: the stack (or ASan's fake one) */
	stack = (uintptr_t)&local;
	CHECK_ERR(t, addrres_procmaps__open(NULL, &pm), 0);
	CHECK_ERR(t, addrres_procmaps__resolve(pm, &stack, 1, v), 0);
	CHECK(t, v[0] && v[0]->inode == 0);
	CHECK_ERR(t, addrres_elf__resolve_vma(e, 0, v[0], &stack, 1, s), -ENOENT);
	CHECK(t, s[0] == NULL);
	CHECK(t, strstr(addrres_elf__errmsg(e), ": no file is mapped there") != NULL);
out:
	addrres_procmaps__free(pm);
	addrres_elf__free(e);
}

static void test_offset_outside_segments(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[4];
	struct addrres_elf *e = NULL;
	struct nm_sym glob;
	struct stat st;
	uint64_t offs[4];
	char msg[512];

	(void)arg;
	NEED_FIXTURES(t);
	NM(t, "pie.nm", "fixture_global", &glob);
	if (stat(out_file("pie"), &st))
		FAIL(t, "stat: %s", err_name(-errno));
	/* the section headers end the file: no segment loads them */
	offs[0] = (uint64_t)st.st_size - 1;
	OFFSET(t, out_file("pie"), glob.value, &offs[1]);
	offs[2] = 1ULL << 40;
	offs[3] = UINT64_MAX;
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, out_file("pie"), NULL, 0, offs, 4, s, msg);
	CHECK(t, s[0] == NULL);
	CHECK_SYM(t, s[1], "fixture_global", glob, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK(t, s[2] == NULL && s[3] == NULL);
out:
	addrres_elf__free(e);
}

/* ---- the vdso ---- */

/* A function of the vdso that the dynamic linker knows, and its address. */
static void *vdso_function(void *vdso, const char **name)
{
	static const char *const names[] = {
		"__vdso_clock_gettime", "__kernel_clock_gettime", "__vdso_gettimeofday",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		void *p = dlsym(vdso, names[i]);

		if (p) {
			*name = names[i];
			return p;
		}
	}
	return NULL;
}

/* s is a symbol of the vdso that dlsym() puts at @addr - its offset. */
#define CHECK_VDSO_SYM(t, vdso, s, addr, off) do {				\
	if (!(s) || !(s)->name)							\
		FAIL(t, "%s: no symbol for the vdso's 0x%llx", #s,		\
		     (unsigned long long)(addr));				\
	CHECK_U64(t, (s)->offset, off);						\
	CHECK(t, (uintptr_t)dlsym(vdso, (s)->name) == (addr) - (off));		\
	CHECK(t, (s)->symtab != ADDRRES_ELF_SYMTAB_NONE);			\
} while (0)

static void test_vdso(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[2];
	const struct addrres_vma *v[2];
	struct addrres_procmaps *pm = NULL, *child_pm = NULL;
	struct addrres_elf *e = NULL;
	void *vdso = dlopen("linux-vdso.so.1", RTLD_NOLOAD | RTLD_LAZY), *fn;
	const char *fname = NULL, *name;
	uint64_t addrs[2];
	pid_t child = -1;
	int pipefd[2] = { -1, -1 };
	char msg[512], c;

	(void)arg;
	if (!vdso)
		SKIP(t, "no vdso in this process: %s", dlerror());
	fn = vdso_function(vdso, &fname);
	if (!fn)
		SKIP(t, "the vdso has none of the functions looked for");
	addrs[0] = (uintptr_t)fn;
	addrs[1] = (uintptr_t)fn + 1;
	CHECK_ERR(t, addrres_procmaps__open(NULL, &pm), 0);
	CHECK_ERR(t, addrres_procmaps__resolve(pm, addrs, 2, v), 0);
	CHECK(t, v[0] && v[0] == v[1]);
	CHECK_STR(t, v[0]->name, "[vdso]");

	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE_VMA(t, e, 0, v[0], addrs, 2, s, msg);
	CHECK_VDSO_SYM(t, vdso, s[0], addrs[0], 0);
	CHECK_VDSO_SYM(t, vdso, s[1], addrs[1], 1);
	name = s[0]->name;
	printf("# vdso: %s at 0x%llx is %s (%s)\n", fname, (unsigned long long)addrs[0], name,
	       s[0]->symtab == ADDRRES_ELF_SYMTAB_DYNSYM ? ".dynsym" : "another table");

	/* a child's, from /proc/PID/mem: the same image, at the same place */
	if (pipe2(pipefd, O_CLOEXEC))
		FAIL(t, "pipe: %s", err_name(-errno));
	child = fork();
	if (child < 0)
		FAIL(t, "fork: %s", err_name(-errno));
	if (!child) {
		close(pipefd[1]);
		while (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
			;
		_exit(0);
	}
	{
		ADDRRES_OPTS(addrres_procmaps_opts, popts, .pid = child);

		CHECK_ERR(t, addrres_procmaps__open(&popts, &child_pm), 0);
	}
	CHECK_ERR(t, addrres_procmaps__resolve(child_pm, addrs, 2, v), 0);
	CHECK(t, v[0] && v[0] == v[1]);
	CHECK_STR(t, v[0]->name, "[vdso]");
	RESOLVE_VMA(t, e, child, v[0], addrs, 2, s, msg);
	CHECK_VDSO_SYM(t, vdso, s[1], addrs[1], 1);
	/* one vdso, one file of the cache */
	CHECK(t, s[0]->name == name);
out:
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (child > 0)
		waitpid(child, NULL, 0);
	addrres_procmaps__free(pm);
	addrres_procmaps__free(child_pm);
	addrres_elf__free(e);
	if (vdso)
		dlclose(vdso);
}

/* ---- the API's rules ---- */

static void test_opts_and_arguments(struct test *t, const void *arg)
{
	struct {
		struct addrres_elf_opts opts;
		uint64_t newer_field;
	} big;
	const struct addrres_elf_sym *s[1];
	const struct addrres_vma *v[1];
	struct addrres_procmaps *pm = NULL;
	struct addrres_elf *e = (void *)1;
	unsigned char id[ADDRRES_BUILD_ID_MAX + 1] = { 1 };
	uint64_t off = 0, addr = (uintptr_t)&test_opts_and_arguments;
	char msg[256];

	(void)arg;
	NEED_FIXTURES(t);
	memset(&big, 0, sizeof(big));
	big.opts.errbuf = msg;
	big.opts.errbuf_sz = sizeof(msg);
	/* sz 0 */
	CHECK_ERR(t, addrres_elf__open(&big.opts, &e), -EINVAL);
	CHECK(t, e == NULL);
	/* a newer caller's struct: its new fields must be zero */
	big.opts.sz = sizeof(big);
	big.newer_field = 1;
	CHECK_ERR(t, addrres_elf__open(&big.opts, &e), -EINVAL);
	CHECK(t, !strncmp(msg, "addrres_elf_opts: ", 18));
	big.newer_field = 0;
	CHECK_ERR(t, addrres_elf__open(&big.opts, NULL), -EINVAL);
	/* the defaults */
	CHECK_ERR(t, addrres_elf__open(NULL, &e), 0);
	addrres_elf__free(e);
	e = NULL;
	CHECK_ERR(t, addrres_elf__open(&big.opts, &e), 0);
	CHECK_STR(t, msg, "");

	CHECK_ERR(t, resolve_id(NULL, out_file("pie"), NULL, 0, &off, 1, s), -EINVAL);
	CHECK_ERR(t, resolve_id(e, NULL, NULL, 0, &off, 1, s), -EINVAL);
	CHECK_ERR(t, resolve_id(e, out_file("pie"), NULL, 0, NULL, 1, s), -EINVAL);
	CHECK_ERR(t, resolve_id(e, out_file("pie"), NULL, 0, &off, 1, NULL), -EINVAL);
	CHECK_ERR(t, resolve_id(e, out_file("pie"), id, sizeof(id), &off, 1, s), -EINVAL);
	CHECK_ERR(t, resolve_id(e, out_file("pie"), id, 0, &off, 1, s), -EINVAL);
	CHECK_ERR(t, resolve_id(e, out_file("pie"), NULL, 4, &off, 1, s), -EINVAL);
	CHECK_ERR(t, resolve_id(e, out_file("pie"), NULL, 0, NULL, 0, NULL), 0);

	CHECK_ERR(t, addrres_procmaps__open(NULL, &pm), 0);
	CHECK_ERR(t, addrres_procmaps__resolve(pm, &addr, 1, v), 0);
	CHECK(t, v[0] != NULL);
	CHECK_ERR(t, addrres_elf__resolve_vma(NULL, 0, v[0], &addr, 1, s), -EINVAL);
	CHECK_ERR(t, addrres_elf__resolve_vma(e, 0, NULL, &addr, 1, s), -EINVAL);
	CHECK_ERR(t, addrres_elf__resolve_vma(e, -1, v[0], &addr, 1, s), -EINVAL);
	CHECK_ERR(t, addrres_elf__resolve_vma(e, 0, v[0], NULL, 1, s), -EINVAL);
	CHECK_ERR(t, addrres_elf__resolve_vma(e, 0, v[0], NULL, 0, NULL), 0);
	/* an address outside the VMA */
	off = v[0]->end;
	s[0] = (void *)1;
	CHECK_ERR(t, addrres_elf__resolve_vma(e, 0, v[0], &off, 1, s), -EINVAL);
	CHECK(t, s[0] == NULL && strstr(addrres_elf__errmsg(e), "outside the VMA"));
	/* and ours, in it */
	CHECK_ERR(t, addrres_elf__resolve_vma(e, 0, v[0], &addr, 1, s), 0);
	CHECK_STR(t, s[0]->name, "test_opts_and_arguments");
	addrres_elf__free(NULL);
out:
	addrres_procmaps__free(pm);
	if (e != (void *)1)
		addrres_elf__free(e);
}

/* The files a handle opened are closed by its free. */
static void test_free_closes_files(struct test *t, const void *arg)
{
	static const char *const files[] = {
		"pie", "nopie", "lib.so", "lib-stripped.so", "lib-minidebuginfo.so",
	};
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	uint64_t off = 0x1000;
	int before, during;
	char msg[512];

	(void)arg;
	NEED_FIXTURES(t);
	before = count_fds();
	OPEN(t, e, out_file("debug"), false, msg);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		RESOLVE(t, e, out_file(files[i]), NULL, 0, &off, 1, s, msg);
	during = count_fds();
	addrres_elf__free(e);
	e = NULL;
	CHECK(t, during > before);
	CHECK_INT(t, count_fds(), before);
out:
	addrres_elf__free(e);
}

/* ---- the symbol index against libdwfl ---- */

/*
 * The library answers from an index of each file's symbols; libdwfl's
 * dwfl_module_addrinfo() is the reference it must match at every offset
 * (elf.c: "the symbol index").  The test reads each file with a Dwfl of
 * its own, as the library does (link-time addresses, the same debug
 * directories), and compares name, offset, size and table.
 */

/* A file compared, and the debug directories both read it with. */
struct diff_file {
	char label[64];
	char path[PATH_MAX];
	const char *debug_dirs;
	size_t max_offsets;	/* 0: every byte of every PT_LOAD; see diff_offsets() */
};

/* libdwfl's view of a file, from the test's own Dwfl. */
struct oracle {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	char *dirs;		/* cb.debuginfo_path points to it */
	Dwfl_Callbacks cb;
	Elf *main_elf, *debug_elf;
	bool has_symtab, relocatable;
};

/* libdwfl reads only the file it is given. */
static int oracle_no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			 char **file_name, Elf **elfp)
{
	(void)mod;
	(void)userdata;
	(void)modname;
	(void)base;
	(void)file_name;
	(void)elfp;
	return -1;
}

static void oracle_end(struct oracle *o)
{
	if (o->dwfl)
		dwfl_end(o->dwfl);
	free(o->dirs);
	memset(o, 0, sizeof(*o));
}

static bool oracle_begin(struct oracle *o, const struct diff_file *df, char *why, size_t why_sz)
{
	Dwarf_Addr bias;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	Dwarf *dw;
	int fd;

	memset(o, 0, sizeof(*o));
	o->dirs = strdup(df->debug_dirs);
	o->cb.find_elf = oracle_no_elf;
	o->cb.find_debuginfo = dwfl_standard_find_debuginfo;
	/* an object file's sections where libdwfl lays them out, as eu-addr2line -e */
	o->cb.section_address = dwfl_offline_section_address;
	o->cb.debuginfo_path = &o->dirs;
	fd = open(df->path, O_RDONLY | O_CLOEXEC);
	if (!o->dirs || fd < 0 || !(o->dwfl = dwfl_begin(&o->cb))) {
		snprintf(why, why_sz, "%s: cannot open it or begin a Dwfl", df->path);
		if (fd >= 0)
			close(fd);
		return false;
	}
	dwfl_report_begin(o->dwfl);
	o->mod = dwfl_report_elf(o->dwfl, "diff", df->path, fd, 0, true);
	if (!o->mod || dwfl_report_end(o->dwfl, NULL, NULL) ||
	    !(o->main_elf = dwfl_module_getelf(o->mod, &bias)) || bias ||
	    !gelf_getehdr(o->main_elf, &eh)) {
		if (!o->mod)
			close(fd);
		snprintf(why, why_sz, "%s: libdwfl: %s", df->path, dwfl_errmsg(-1));
		return false;
	}
	o->relocatable = eh.e_type == ET_DYN;
	while ((scn = elf_nextscn(o->main_elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB)
			o->has_symtab = true;
	}
	dw = dwfl_module_getdwarf(o->mod, &bias);
	o->debug_elf = dw ? dwarf_getelf(dw) : NULL;
	return true;
}

/* What the library must say of module address @addr: elf.c's sym_at() on libdwfl's answer. */
static void oracle_sym(const struct oracle *o, uint64_t addr, struct addrres_elf_sym *want)
{
	GElf_Off off = 0;
	GElf_Word shndx = 0;
	GElf_Sym sym;
	Elf *elf = NULL;
	const char *name = dwfl_module_addrinfo(o->mod, addr, &off, &sym, &shndx, &elf, NULL);

	memset(want, 0, sizeof(*want));
	want->elf_addr = addr;
	/* The library's rule: an absolute symbol of a file loaded anywhere names no code. */
	if (!name || (shndx == SHN_ABS && o->relocatable))
		return;
	want->name = name;
	want->offset = off;
	want->size = sym.st_size;
	if (elf == o->main_elf)
		want->symtab = o->has_symtab ? ADDRRES_ELF_SYMTAB_SYMTAB :
					       ADDRRES_ELF_SYMTAB_DYNSYM;
	else if (elf && elf == o->debug_elf)
		want->symtab = ADDRRES_ELF_SYMTAB_DEBUG_FILE;
	else
		want->symtab = ADDRRES_ELF_SYMTAB_GNU_DEBUGDATA;
}

/*
 * Whether @ours is libdwfl's name @theirs without its symbol version
 * (a debug file's "memcpy@@GLIBC_2.14" is "memcpy", as .dynsym has it).
 */
static bool same_name_unversioned(const char *ours, const char *theirs)
{
	const char *at = theirs[0] ? strchr(theirs + 1, '@') : NULL;
	size_t len = at ? (size_t)(at - theirs) : strlen(theirs);

	return strlen(ours) == len && !strncmp(ours, theirs, len);
}

/* @a, the library's, is @b, libdwfl's (in its raw names: no demangling). */
static bool same_sym(const struct addrres_elf_sym *a, const struct addrres_elf_sym *b)
{
	return a->elf_addr == b->elf_addr && !a->name == !b->name &&
	       (!a->name || same_name_unversioned(a->name, b->name)) && a->offset == b->offset &&
	       a->size == b->size && a->symtab == b->symtab;
}

static void print_sym(const char *what, const struct addrres_elf_sym *s)
{
	if (!s) {
		printf("#     %s: (no result)\n", what);
		return;
	}
	printf("#     %s: 0x%llx %s+0x%llx size 0x%llx table %d\n", what,
	       (unsigned long long)s->elf_addr, s->name ? s->name : "(none)",
	       (unsigned long long)s->offset, (unsigned long long)s->size, (int)s->symtab);
}

/* Offsets to compare, and the address of each. */
struct diff_offs {
	uint64_t *offs, *addrs;
	size_t n, cap;
	Elf64_Phdr ph[64];
	Elf64_Ehdr eh;
};

/* Add file offset @off if a PT_LOAD's file part holds it (the first one's address). */
static bool diff_add(struct diff_offs *d, uint64_t off)
{
	for (int i = 0; i < d->eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &d->ph[i];

		if (ph->p_type != PT_LOAD || off < ph->p_offset ||
		    off - ph->p_offset >= ph->p_filesz)
			continue;
		if (d->n == d->cap) {
			size_t cap = d->cap ? 2 * d->cap : 4096;
			uint64_t *o = realloc(d->offs, cap * sizeof(*o)), *a;

			if (!o)
				return false;
			d->offs = o;
			a = realloc(d->addrs, cap * sizeof(*a));
			if (!a)
				return false;
			d->addrs = a;
			d->cap = cap;
		}
		d->offs[d->n] = off;
		d->addrs[d->n++] = off - ph->p_offset + ph->p_vaddr;
		return true;
	}
	return true;
}

/* Add module address @addr, if in the file part of an executable PT_LOAD. */
static bool diff_add_addr(struct diff_offs *d, uint64_t addr)
{
	for (int i = 0; i < d->eh.e_phnum; i++) {
		const Elf64_Phdr *ph = &d->ph[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && addr >= ph->p_vaddr &&
		    addr - ph->p_vaddr < ph->p_filesz)
			return diff_add(d, addr - ph->p_vaddr + ph->p_offset);
	}
	return true;
}

/*
 * The offsets of @df to compare: every byte of every PT_LOAD's file part;
 * or, with max_offsets, that many spread evenly over the executable
 * ones' bytes, and there the first byte of each symbol of libdwfl's
 * table @o, the first byte past it and the bytes before those, where
 * the answers change.
 */
static bool diff_offsets(const struct diff_file *df, const struct oracle *o, struct diff_offs *d)
{
	uint64_t total = 0, step, base = 0;
	size_t seg = 0, nexec = 0;
	const Elf64_Phdr *exec[64];
	int nsyms;

	memset(d, 0, sizeof(*d));
	if (!read_phdrs(df->path, &d->eh, d->ph, 64))
		return false;
	for (int i = 0; i < d->eh.e_phnum; i++) {
		if (d->ph[i].p_type != PT_LOAD || (df->max_offsets && !(d->ph[i].p_flags & PF_X)))
			continue;
		exec[nexec++] = &d->ph[i];
		total += d->ph[i].p_filesz;
	}
	if (!total)
		return false;
	step = df->max_offsets ? (total + df->max_offsets - 1) / df->max_offsets : 1;
	for (uint64_t k = 0; k < total; k += step) {
		while (k - base >= exec[seg]->p_filesz)
			base += exec[seg++]->p_filesz;
		if (!diff_add(d, exec[seg]->p_offset + (k - base)))
			return false;
	}
	nsyms = df->max_offsets ? dwfl_module_getsymtab(o->mod) : 0;
	for (int i = 1; i < nsyms; i++) {
		GElf_Addr value;
		GElf_Sym sym;

		if (!dwfl_module_getsym_info(o->mod, i, &sym, &value, NULL, NULL, NULL))
			continue;
		for (int delta = -1; delta <= 0; delta++) {
			if (!diff_add_addr(d, value + delta) ||
			    !diff_add_addr(d, value + sym.st_size + delta))
				return false;
		}
	}
	return d->n > 0;
}

/* Print at most this many differences, over all the files. */
#define DIFF_SHOWN 5

/*
 * Compare the library with libdwfl at the offsets of @df: the number of
 * offsets that differ (*@compared of them compared, among *@nsyms
 * symbols), or -1 if the comparison could not be made (*@why says why).
 */
static long diff_file_run(const struct diff_file *df, size_t *compared, int *nsyms,
			  size_t *shown, char *why, size_t why_sz)
{
	enum { CHUNK = 1 << 16 };
	const struct addrres_elf_sym **syms = NULL;
	struct addrres_elf *e = NULL;
	struct addrres_elf_sym want;
	struct oracle o;
	struct diff_offs d = { 0 };
	long differ = -1;
	char msg[512];
	int err;

	ADDRRES_OPTS(addrres_elf_opts, dopts, .no_lines = true, .no_demangle = true,
		     .errbuf = msg, .errbuf_sz = sizeof(msg));

	*compared = 0;
	*nsyms = 0;
	if (!oracle_begin(&o, df, why, why_sz))
		goto out;
	*nsyms = dwfl_module_getsymtab(o.mod);
	if (!diff_offsets(df, &o, &d)) {
		snprintf(why, why_sz, "%s: no PT_LOAD bytes, or no memory", df->path);
		goto out;
	}
	syms = calloc(CHUNK, sizeof(*syms));
	/* libdwfl's names are raw: compare them so. */
	dopts.debug_dirs = df->debug_dirs;
	err = syms ? addrres_elf__open(&dopts, &e) : -ENOMEM;
	if (err) {
		snprintf(why, why_sz, "open: %s", err_name(err));
		goto out;
	}
	differ = 0;
	for (size_t i = 0; i < d.n; i += CHUNK) {
		size_t c = d.n - i < CHUNK ? d.n - i : CHUNK;

		err = resolve_id(e, df->path, NULL, 0, d.offs + i, c, syms);
		if (err) {
			snprintf(why, why_sz, "%.64s: resolve: %.32s: %.400s", df->label,
				 err_name(err), msg);
			differ = -1;
			goto out;
		}
		for (size_t k = 0; k < c; k++) {
			oracle_sym(&o, d.addrs[i + k], &want);
			if (syms[k] && same_sym(syms[k], &want))
				continue;
			differ++;
			if ((*shown)++ < DIFF_SHOWN) {
				printf("#   %s: offset 0x%llx:\n", df->label,
				       (unsigned long long)d.offs[i + k]);
				print_sym("libaddrres", syms[k]);
				print_sym("libdwfl", &want);
			}
		}
	}
	*compared = d.n;
out:
	addrres_elf__free(e);
	free(syms);
	free(d.offs);
	free(d.addrs);
	oracle_end(&o);
	return differ;
}

/* The path of this process's libc, from dl_iterate_phdr(), into @data. */
static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *slash = strrchr(info->dlpi_name, '/');
	const char *base = slash ? slash + 1 : info->dlpi_name;

	(void)size;
	if (strncmp(base, "libc.so", 7) && strncmp(base, "libc-", 5))
		return 0;
	snprintf(data, PATH_MAX, "%s", info->dlpi_name);
	return 1;
}

/* This process's vdso, copied into the file @path: false if none. */
static bool copy_vdso(const char *path)
{
	unsigned long long start, end;
	bool found = false, ok = false;
	char line[512];
	FILE *maps = fopen("/proc/self/maps", "re");
	int fd;

	if (!maps)
		return false;
	while (!found && fgets(line, sizeof(line), maps))
		found = strstr(line, "[vdso]") && sscanf(line, "%llx-%llx", &start, &end) == 2;
	fclose(maps);
	if (!found || end <= start)
		return false;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	ok = write(fd, (const void *)(uintptr_t)start, end - start) == (ssize_t)(end - start);
	close(fd);
	return ok;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_u64_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

/*
 * Whether the SHF_ALLOC sections of @path are apart (no two start at one
 * address, none overlaps another), read with libelf here: then the
 * library finds a label's section in its own table, not with libdwfl; -1
 * if @path is unreadable.
 */
static int sections_apart(const char *path)
{
	uint64_t (*r)[2] = NULL;
	size_t n = 0, shnum;
	Elf_Scn *scn = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), apart = -1;
	Elf *elf = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ, NULL);

	if (!elf || elf_getshdrnum(elf, &shnum) || !(r = calloc(shnum + 1, sizeof(*r))))
		goto out;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC) && n < shnum) {
			r[n][0] = sh.sh_addr;
			r[n++][1] = sh.sh_addr + sh.sh_size;
		}
	}
	qsort(r, n, sizeof(*r), cmp_u64_pair);
	apart = 1;
	for (size_t i = 0; i < n; i++) {
		if (i + 1 < n && (r[i][0] == r[i + 1][0] || r[i][1] > r[i + 1][0]))
			apart = 0;
	}
out:
	free(r);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return apart;
}

static void test_index_matches_libdwfl(struct test *t, const void *arg)
{
	static const struct {
		const char *file, *label;
		int dirs;	/* 0 none, 1 debug/, 2 debuglink/ */
	} fixtures[] = {
		{ "pie", "pie", 0 },
		{ "nopie", "nopie", 0 },
		{ "lib.so", "lib.so", 0 },
		{ "lib-stripped.so", "lib-stripped.so (.dynsym)", 0 },
		{ "lib-stripped.so", "lib-stripped.so (debug file)", 1 },
		{ "lib-minidebuginfo.so", "lib-minidebuginfo.so", 0 },
		{ "lib-nobid-stripped.so", "lib-nobid-stripped.so (.gnu_debuglink)", 2 },
		{ "syms.so", "syms.so", 0 },
		{ "syms-stripped.so", "syms-stripped.so", 0 },
		{ "syms-huge.so", "syms-huge.so", 0 },
		{ "syms-notls.so", "syms-notls.so", 0 },
	};
	static struct diff_file files[sizeof(fixtures) / sizeof(fixtures[0]) + 2];
	static char no_debug[PATH_MAX], debug[PATH_MAX], debuglink[PATH_MAX];
	size_t nfiles = 0, compared = 0, differ = 0, shown = 0;
	char why[PATH_MAX + 256];
	double t0;

	(void)arg;
	NEED_FIXTURES(t);
	/* Each rule of syms.S also meets the library's own section table. */
	elf_version(EV_CURRENT);
	CHECK(t, sections_apart(out_file("syms-notls.so")) == 1);
	CHECK(t, sections_apart(out_file("syms.so")) == 0);
	snprintf(no_debug, sizeof(no_debug), "%s", no_debug_dir());
	snprintf(debug, sizeof(debug), "%s", out_file("debug"));
	snprintf(debuglink, sizeof(debuglink), "%s", out_file("debuglink"));
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct diff_file *df = &files[nfiles++];

		snprintf(df->label, sizeof(df->label), "%s", fixtures[i].label);
		snprintf(df->path, sizeof(df->path), "%s", out_file(fixtures[i].file));
		df->debug_dirs = fixtures[i].dirs == 1 ? debug :
				 fixtures[i].dirs == 2 ? debuglink : no_debug;
		df->max_offsets = 0;
	}
	/* Absolute symbols (its version names): the ET_DYN rule. */
	snprintf(files[nfiles].path, sizeof(files[nfiles].path), "%s", out_file("vdso.so"));
	if (copy_vdso(files[nfiles].path)) {
		snprintf(files[nfiles].label, sizeof(files[nfiles].label), "vdso");
		files[nfiles].debug_dirs = no_debug;
		files[nfiles++].max_offsets = 0;
	} else {
		printf("# no vdso to compare\n");
	}
	/*
	 * Thousands of symbols, and whatever this system's libc is made of.
	 * Each of libdwfl's answers reads them all (a tenth of a
	 * millisecond or more): 20,000 offsets besides those at symbols'
	 * edges, or $TEST_ELF_LIBC_OFFSETS.
	 */
	if (dl_iterate_phdr(find_libc, files[nfiles].path)) {
		const char *env = getenv("TEST_ELF_LIBC_OFFSETS");

		printf("# libc: %s\n", files[nfiles].path);
		snprintf(files[nfiles].label, sizeof(files[nfiles].label), "libc");
		files[nfiles].debug_dirs = "/usr/lib/debug";
		files[nfiles].max_offsets = env && atol(env) > 0 ? (size_t)atol(env) : 20000;
		nfiles++;
	} else {
		printf("# no libc found by dl_iterate_phdr()\n");
	}

	for (size_t i = 0; i < nfiles; i++) {
		size_t n;
		int nsyms;
		long d;

		t0 = now_s();
		d = diff_file_run(&files[i], &n, &nsyms, &shown, why, sizeof(why));
		if (d < 0)
			FAIL(t, "%s", why);
		printf("# %s: %zu offsets, %d symbols, %ld differ, %.2f s\n", files[i].label, n,
		       nsyms, d, now_s() - t0);
		compared += n;
		differ += (size_t)d;
	}
	if (differ)
		FAIL(t, "%zu of %zu offsets differ from dwfl_module_addrinfo()'s answer", differ,
		     compared);
out:
	return;
}

/* ---- inlined functions, demangling, symbol versions ---- */

/*
 * The offsets of names.so's names_outer() whose answer has @depth
 * inlined functions: the first into *@off; false if none has.
 */
static bool find_inlined(struct addrres_elf *e, const char *so, const struct nm_sym *outer,
			 size_t depth, uint64_t *off)
{
	const struct addrres_elf_sym *s[1];

	for (uint64_t a = outer->value; a < outer->value + outer->size; a++) {
		if (!file_offset(so, a, off) || resolve_id(e, so, NULL, 0, off, 1, s))
			return false;
		if (s[0] && s[0]->nr_inlined == depth)
			return true;
	}
	return false;
}

/* Inlined frame @fr is function @name, called at "line:@call" of names.c. */
#define CHECK_INLINE(t, fr, name_, call) do {					\
	unsigned int mark_ = marker_line("elf/names.c", call);			\
	CHECK_STR(t, (fr).name, name_);						\
	if (!(fr).call_file)							\
		FAIL(t, "%s: no call file", name_);				\
	CHECK(t, same_file((fr).call_file, path_in(fixtures_dir, "elf/names.c"))); \
	CHECK_INT(t, (fr).call_line, mark_);					\
	CHECK(t, mark_ > 0 && (fr).call_column > 0);				\
} while (0)

/* @arg: the file built from names.c, "names.so" (gcc) or "names-clang.so". */
static void test_inline_chain(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym outer;
	char so[PATH_MAX], nm[PATH_MAX], msg[512];
	uint64_t two, one;

	NEED_FIXTURES(t);
	snprintf(so, sizeof(so), "%s", out_file(arg));
	snprintf(nm, sizeof(nm), "%s.nm", (const char *)arg);
	NM(t, nm, "names_outer", &outer);
	OPEN(t, e, no_debug_dir(), false, msg);
	/* names_inner's body: inlined in names_middle, inlined in names_outer */
	if (!find_inlined(e, so, &outer, 2, &two))
		FAIL(t, "no offset of names_outer has two inlined functions");
	RESOLVE(t, e, so, NULL, 0, &two, 1, s, msg);
	CHECK_STR(t, s[0]->name, "names_outer");
	CHECK_LINE(t, s[0], "names.c", "inner_body");
	CHECK_INLINE(t, s[0]->inlined[0], "names_inner", "middle_calls_inner");
	CHECK_INLINE(t, s[0]->inlined[1], "names_middle", "outer_calls_middle");
	/* names_middle's own code: one */
	if (!find_inlined(e, so, &outer, 1, &one))
		FAIL(t, "no offset of names_outer has one inlined function");
	RESOLVE(t, e, so, NULL, 0, &one, 1, s, msg);
	CHECK_STR(t, s[0]->name, "names_outer");
	CHECK_LINE(t, s[0], "names.c", "middle_calls_inner");
	CHECK_INLINE(t, s[0]->inlined[0], "names_middle", "outer_calls_middle");
out:
	addrres_elf__free(e);
}

/* Whether the ELF file @path has a section named @name. */
static bool has_section(const char *path, const char *name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while (!found && (scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			const char *n;

			found = gelf_getshdr(scn, &sh) && (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
				!strcmp(n, name);
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return found;
}

/*
 * A clang binary, which has no .debug_aranges (libdw 0.188 finds units
 * by it alone): lines all the same, from the units' own ranges.
 */
static void test_clang_lines(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[2];
	struct addrres_elf *e = NULL;
	struct nm_sym func, stat_sym;
	char so[PATH_MAX], msg[512];
	uint64_t offs[2];

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(so, sizeof(so), "%s", out_file("lib-clang.so"));
	CHECK(t, has_section(so, ".debug_info"));
	/* what makes the case: else it tests nothing */
	CHECK(t, !has_section(so, ".debug_aranges"));
	NM(t, "lib-clang.so.nm", "fixture_lib_func", &func);
	NM(t, "lib-clang.so.nm", "fixture_lib_static", &stat_sym);
	OFFSET(t, so, func.value, &offs[0]);
	OFFSET(t, so, stat_sym.value, &offs[1]);
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, so, NULL, 0, offs, 2, s, msg);
	/* (clang's first row of a function has no column, as llvm-symbolizer shows) */
	for (int i = 0; i < 2; i++) {
		unsigned int mark = marker_line("elf/lib.c", i ? "fixture_lib_static" :
							      "fixture_lib_func");

		CHECK_STR(t, s[i]->name, i ? "fixture_lib_static" : "fixture_lib_func");
		CHECK(t, s[i]->src_file && same_file(s[i]->src_file, fixture("elf/lib.c")));
		CHECK_INT(t, s[i]->line, mark);
		CHECK_INT(t, s[i]->line_err, 0);
	}
out:
	addrres_elf__free(e);
}

/*
 * No line for code outside every unit (_start, from crt1.o, without
 * DWARF), where libdw 0.188 gives one: main's line sequence ends in an
 * empty row, which sorts after the sequence's end marker, and libdw
 * takes it for the addresses after it.  The library checks the line's
 * unit's ranges.
 */
static void test_no_line_past_unit(struct test *t, const void *arg)
{
	static char *no_dirs = "";
	static const Dwfl_Callbacks cb = {
		.find_elf = oracle_no_elf, .find_debuginfo = dwfl_standard_find_debuginfo,
		.debuginfo_path = &no_dirs, .section_address = dwfl_offline_section_address,
	};
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	Dwfl_Module *mod = NULL;
	Dwfl *dwfl = NULL;
	struct nm_sym start;
	char bin[PATH_MAX], msg[512];
	uint64_t off;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(bin, sizeof(bin), "%s", out_file("cxx"));
	NM(t, "cxx.nm", "_start", &start);
	OFFSET(t, bin, start.value, &off);
	/* what makes the case: libdw has a line there (the file at its link-time addresses) */
	dwfl = dwfl_begin(&cb);
	CHECK(t, dwfl != NULL);
	dwfl_report_begin(dwfl);
	mod = dwfl_report_elf(dwfl, "cxx", bin, -1, 0, true);
	CHECK(t, mod && !dwfl_report_end(dwfl, NULL, NULL));
	CHECK(t, dwfl_module_getsrc(mod, start.value) != NULL);
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, bin, NULL, 0, &off, 1, s, msg);
	CHECK(t, s[0] && s[0]->name);
	CHECK_STR(t, s[0]->name, "_start");
	CHECK(t, s[0]->src_file == NULL);
	CHECK_INT(t, s[0]->line_err, 0);
	CHECK_INT(t, s[0]->nr_inlined, 0);
out:
	if (dwfl)
		dwfl_end(dwfl);
	addrres_elf__free(e);
}

/*
 * A function nested in another (GNU C; a C++ lambda's operator() is
 * alike): its code is outside its parent's, and its inlined function is
 * found all the same, as llvm-symbolizer finds it.
 */
static void test_inline_chain_nested(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym nested;
	char so[PATH_MAX], msg[512];
	unsigned int body, call;
	uint64_t off;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(so, sizeof(so), "%s", out_file("nested.so"));
	/* GCC names a nested function's symbol NAME.N */
	NM(t, "nested.so.nm", "nested_fn.0", &nested);
	OPEN(t, e, no_debug_dir(), false, msg);
	if (!find_inlined(e, so, &nested, 1, &off))
		FAIL(t, "no offset of nested_fn has an inlined function");
	RESOLVE(t, e, so, NULL, 0, &off, 1, s, msg);
	CHECK_STR(t, s[0]->name, "nested_fn.0");
	CHECK_STR(t, s[0]->inlined[0].name, "nested_inner");
	body = marker_line("elf/nested.c", "nested_inner_body");
	call = marker_line("elf/nested.c", "nested_fn_calls");
	CHECK(t, body > 0 && call > 0);
	CHECK_INT(t, s[0]->line, body);
	CHECK(t, s[0]->inlined[0].call_file &&
		 same_file(s[0]->inlined[0].call_file, path_in(fixtures_dir, "elf/nested.c")));
	CHECK_INT(t, s[0]->inlined[0].call_line, call);
out:
	addrres_elf__free(e);
}

/* no_inlines, and no_lines, leave the chain empty; the line stays. */
static void test_inline_chain_off(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL, *off_e = NULL;
	struct nm_sym outer;
	char so[PATH_MAX], msg[512];
	uint64_t two;
	int err;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(so, sizeof(so), "%s", out_file("names.so"));
	NM(t, "names.so.nm", "names_outer", &outer);
	OPEN(t, e, no_debug_dir(), false, msg);
	if (!find_inlined(e, so, &outer, 2, &two))
		FAIL(t, "no offset of names_outer has two inlined functions");
	{
		ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = no_debug_dir(), .no_inlines = true,
			     .errbuf = msg, .errbuf_sz = sizeof(msg));

		err = addrres_elf__open(&o, &off_e);
		CHECK_INT(t, err, 0);
	}
	RESOLVE(t, off_e, so, NULL, 0, &two, 1, s, msg);
	CHECK_INT(t, s[0]->nr_inlined, 0);
	CHECK(t, s[0]->inlined == NULL);
	CHECK_LINE(t, s[0], "names.c", "inner_body");
	addrres_elf__free(off_e);
	off_e = NULL;
	OPEN(t, off_e, no_debug_dir(), true, msg);
	RESOLVE(t, off_e, so, NULL, 0, &two, 1, s, msg);
	CHECK_INT(t, s[0]->nr_inlined, 0);
	CHECK(t, s[0]->src_file == NULL);
out:
	addrres_elf__free(off_e);
	addrres_elf__free(e);
}

/* The name at nm symbol @sym of names.so, by a handle with @no_demangle. */
static int name_at(const char *sym, bool no_demangle, char *name, size_t name_sz)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	char so[PATH_MAX], msg[256];
	struct nm_sym ns;
	uint64_t off;
	int err;

	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = no_debug_dir(),
		     .no_demangle = no_demangle, .errbuf = msg, .errbuf_sz = sizeof(msg));
	snprintf(so, sizeof(so), "%s", out_file("names.so"));
	if (!nm_find("names.so.nm", sym, &ns) || !file_offset(so, ns.value + 1, &off))
		return -ENOENT;
	err = addrres_elf__open(&o, &e);
	if (!err)
		err = resolve_id(e, so, NULL, 0, &off, 1, s);
	if (!err && (!s[0] || !s[0]->name))
		err = -ENOENT;
	if (!err)
		snprintf(name, name_sz, "%s", s[0]->name);
	addrres_elf__free(e);
	return err;
}

#define CHECK_NAME_AT(t, sym, no_demangle, want) do {				\
	char name_[256];								\
	int err_ = name_at(sym, no_demangle, name_, sizeof(name_));		\
	if (err_)								\
		FAIL(t, "%s: %s", sym, err_name(err_));				\
	CHECK_STR(t, name_, want);						\
} while (0)

static void test_demangle(struct test *t, const void *arg)
{
	(void)arg;
	NEED_FIXTURES(t);
	CHECK_NAME_AT(t, "_ZNK2ns3BoxIlE3getEli", false, "ns::Box<long>::get(long, int) const");
	CHECK_NAME_AT(t, "_ZN7mycrate4util5parse17h0123456789abcdefE", false,
		      "mycrate::util::parse");
	CHECK_NAME_AT(t, "_RNvCs1234_7mycrate5parse", false, "mycrate::parse");
	CHECK_NAME_AT(t, "names_outer", false, "names_outer");
out:
	return;
}

static void test_demangle_off(struct test *t, const void *arg)
{
	(void)arg;
	NEED_FIXTURES(t);
	CHECK_NAME_AT(t, "_ZNK2ns3BoxIlE3getEli", true, "_ZNK2ns3BoxIlE3getEli");
	CHECK_NAME_AT(t, "_RNvCs1234_7mycrate5parse", true, "_RNvCs1234_7mycrate5parse");
out:
	return;
}

/* "names_versioned@NAMES_1" and "@@NAMES_2" are "names_versioned", as in .dynsym. */
static void test_symbol_versions(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[2], *d[2];
	struct addrres_elf *e = NULL;
	char so[PATH_MAX], stripped[PATH_MAX], msg[512];
	struct nm_sym v1, v2;
	uint64_t offs[2];

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(so, sizeof(so), "%s", out_file("names.so"));
	snprintf(stripped, sizeof(stripped), "%s", out_file("names-stripped.so"));
	NM(t, "names.so.nm", "names_versioned@NAMES_1", &v1);
	NM(t, "names.so.nm", "names_versioned@@NAMES_2", &v2);
	OFFSET(t, so, v1.value + 2, &offs[0]);
	OFFSET(t, so, v2.value + 2, &offs[1]);
	OPEN(t, e, no_debug_dir(), true, msg);
	RESOLVE(t, e, so, NULL, 0, offs, 2, s, msg);
	CHECK_SYM(t, s[0], "names_versioned", v1, 2, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_SYM(t, s[1], "names_versioned", v2, 2, ADDRRES_ELF_SYMTAB_SYMTAB);
	RESOLVE(t, e, stripped, NULL, 0, offs, 2, d, msg);
	CHECK_SYM(t, d[0], "names_versioned", v1, 2, ADDRRES_ELF_SYMTAB_DYNSYM);
	CHECK_SYM(t, d[1], "names_versioned", v2, 2, ADDRRES_ELF_SYMTAB_DYNSYM);
out:
	addrres_elf__free(e);
}

/*
 * The chain `eu-addr2line -i` walks (elfutils' src/addr2line.c): the
 * scopes of dwarf_getscopes(), and from each inlined subroutine those of
 * dwarf_getscopes_die(), up to the subprogram.  The library's index must
 * give the same, with names by the same rule (a linkage name, else
 * DW_AT_name, both through the abstract origin; not demangled here) and
 * call files as `eu-addr2line -A` prints them (a relative one joined to
 * the unit's DW_AT_comp_dir, as src_file is).
 */
static size_t oracle_chain(const struct oracle *o, uint64_t addr, struct addrres_elf_inline *out,
			   size_t max)
{
	/* the joined paths, until the next call */
	static char joined[64][PATH_MAX];
	Dwarf_Die *cu, *scopes = NULL, *outer;
	Dwarf_Files *files = NULL;
	Dwarf_Attribute cu_attr;
	const char *comp_dir;
	Dwarf_Addr bias;
	size_t nfiles = 0, nr = 0;
	int n, i = 0;

	cu = dwfl_module_addrdie(o->mod, addr, &bias);
	if (!cu)
		return 0;
	if (dwarf_getsrcfiles(cu, &files, &nfiles))
		files = NULL;
	comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &cu_attr));
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	while (i < n && nr < max) {
		Dwarf_Attribute attr;
		Dwarf_Word v;

		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) {
			i++;
			continue;
		}
		memset(&out[nr], 0, sizeof(out[nr]));
		if (dwarf_attr_integrate(&scopes[i], DW_AT_linkage_name, &attr) ||
		    dwarf_attr_integrate(&scopes[i], DW_AT_MIPS_linkage_name, &attr) ||
		    dwarf_attr_integrate(&scopes[i], DW_AT_name, &attr))
			out[nr].name = dwarf_formstring(&attr);
		if (files && dwarf_attr_integrate(&scopes[i], DW_AT_call_file, &attr) &&
		    !dwarf_formudata(&attr, &v) && v < nfiles)
			out[nr].call_file = dwarf_filesrc(files, v, NULL, NULL);
		/* A relative one joined to the unit's directory, as `eu-addr2line -A -i` prints it. */
		if (out[nr].call_file && out[nr].call_file[0] != '/' && comp_dir && nr < 64) {
			snprintf(joined[nr], sizeof(joined[nr]), "%s/%s", comp_dir, out[nr].call_file);
			out[nr].call_file = joined[nr];
		}
		if (dwarf_attr_integrate(&scopes[i], DW_AT_call_line, &attr) &&
		    !dwarf_formudata(&attr, &v))
			out[nr].call_line = (unsigned int)v;
		if (dwarf_attr_integrate(&scopes[i], DW_AT_call_column, &attr) &&
		    !dwarf_formudata(&attr, &v))
			out[nr].call_column = (unsigned int)v;
		nr++;
		outer = NULL;
		n = dwarf_getscopes_die(&scopes[i], &outer);
		free(scopes);
		scopes = outer;
		i = 1;
	}
	free(scopes);
	return nr;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_chain(const struct addrres_elf_sym *s, const struct addrres_elf_inline *want,
		       size_t nr)
{
	if (s->nr_inlined != nr)
		return false;
	for (size_t i = 0; i < nr; i++) {
		const struct addrres_elf_inline *a = &s->inlined[i], *b = &want[i];

		if (!same_str(a->name, b->name) || !same_str(a->call_file, b->call_file) ||
		    a->call_line != b->call_line || a->call_column != b->call_column)
			return false;
	}
	return true;
}

/*
 * The inline chains of the offsets of @df against oracle_chain(): the
 * number that differ into *@differ, and of those with a chain into
 * *@inlined; false (with @why) if the file cannot be compared.
 */
static bool chains_run(const struct diff_file *df, size_t *compared, size_t *inlined,
		       size_t *differ, size_t *shown, char *why, size_t why_sz)
{
	enum { CHUNK = 1 << 14, DEPTH = 64 };
	const struct addrres_elf_sym **syms = NULL;
	struct addrres_elf_inline want[DEPTH];
	struct addrres_elf *e = NULL;
	struct diff_offs d = { 0 };
	struct oracle o;
	bool ok = false;
	int err;

	ADDRRES_OPTS(addrres_elf_opts, opts, .no_demangle = true, .debug_dirs = df->debug_dirs);
	*compared = *inlined = *differ = 0;
	if (!oracle_begin(&o, df, why, why_sz))
		goto out;
	if (!diff_offsets(df, &o, &d)) {
		snprintf(why, why_sz, "%s: no PT_LOAD bytes, or no memory", df->path);
		goto out;
	}
	syms = calloc(CHUNK, sizeof(*syms));
	err = syms ? addrres_elf__open(&opts, &e) : -ENOMEM;
	if (err) {
		snprintf(why, why_sz, "open: %s", err_name(err));
		goto out;
	}
	for (size_t i = 0; i < d.n; i += CHUNK) {
		size_t c = d.n - i < CHUNK ? d.n - i : CHUNK;

		err = addrres_elf__resolve(e, df->path, d.offs + i, c, syms, NULL);
		if (err) {
			snprintf(why, why_sz, "%.64s: resolve: %.32s: %.400s", df->label,
				 err_name(err), addrres_elf__errmsg(e));
			goto out;
		}
		for (size_t k = 0; k < c; k++) {
			size_t nr = oracle_chain(&o, d.addrs[i + k], want, DEPTH);

			*inlined += nr > 0;
			if (syms[k] && same_chain(syms[k], want, nr))
				continue;
			(*differ)++;
			if ((*shown)++ < DIFF_SHOWN)
				printf("#   %s: offset 0x%llx: %zu inlined, libdw says %zu (first %s)\n",
				       df->label, (unsigned long long)d.offs[i + k],
				       syms[k] ? syms[k]->nr_inlined : 0, nr,
				       nr && want[0].name ? want[0].name : "-");
		}
	}
	*compared = d.n;
	ok = true;
out:
	addrres_elf__free(e);
	free(syms);
	free(d.offs);
	free(d.addrs);
	oracle_end(&o);
	return ok;
}

/* The index of inlined subroutines gives what libdw's scope walk gives. */
static void test_inlines_match_libdw(struct test *t, const void *arg)
{
	static struct diff_file files[3];
	static char no_debug[PATH_MAX];
	size_t nfiles = 0, total = 0, differ = 0, shown = 0;
	char why[PATH_MAX + 256];

	(void)arg;
	NEED_FIXTURES(t);
	/* out_file()'s buffers are reused: the files keep a copy. */
	snprintf(no_debug, sizeof(no_debug), "%s", no_debug_dir());
	snprintf(files[nfiles].label, sizeof(files[nfiles].label), "names.so");
	snprintf(files[nfiles].path, sizeof(files[nfiles].path), "%s", out_file("names.so"));
	files[nfiles++].debug_dirs = no_debug;
	snprintf(files[nfiles].label, sizeof(files[nfiles].label), "pie");
	snprintf(files[nfiles].path, sizeof(files[nfiles].path), "%s", out_file("pie"));
	files[nfiles++].debug_dirs = no_debug;
	/* libc, with its DWARF from libc6-dbg: thousands of inlined calls */
	if (dl_iterate_phdr(find_libc, files[nfiles].path)) {
		snprintf(files[nfiles].label, sizeof(files[nfiles].label), "libc");
		files[nfiles].debug_dirs = "/usr/lib/debug";
		files[nfiles++].max_offsets = 20000;
	}
	for (size_t i = 0; i < nfiles; i++) {
		size_t n, inl, d;

		if (!chains_run(&files[i], &n, &inl, &d, &shown, why, sizeof(why)))
			FAIL(t, "%s", why);
		printf("# %s: %zu offsets, %zu in inlined code, %zu differ\n", files[i].label, n,
		       inl, d);
		/* names.so is made of inlined code: the comparison must meet some */
		if (i == 0)
			CHECK(t, inl > 0);
		total += n;
		differ += d;
	}
	if (differ)
		FAIL(t, "%zu of %zu offsets have another inline chain than libdw's", differ, total);
out:
	return;
}

/* ---- object files and kernel modules (ET_REL): offsets in a section ---- */

/*
 * The module address of offset @off in section @name of the oracle's
 * file, as `eu-addr2line -j` finds it: the section of that name among
 * libdwfl's relocation bases, at the address libdwfl laid it out at;
 * its size into *@size.  False if libdwfl has no such section.
 */
static bool oracle_section_addr(const struct oracle *o, const char *name, uint64_t off,
				uint64_t *addr, uint64_t *size)
{
	int n = dwfl_module_relocations(o->mod);

	for (int i = 0; i < n; i++) {
		GElf_Word shndx = 0;
		const char *sname = dwfl_module_relocation_info(o->mod, (unsigned int)i, &shndx);
		GElf_Shdr sh;

		if (!sname || strcmp(sname, name))
			continue;
		if (!gelf_getshdr(elf_getscn(o->main_elf, shndx), &sh))
			return false;
		*addr = sh.sh_addr + off;
		*size = sh.sh_size;
		return true;
	}
	return false;
}

/* The names of the code sections of @path (at most @max), into @names. */
static size_t code_sections(const char *path, char names[][64], size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx, n = 0;

	if (elf && !elf_getshdrstrndx(elf, &shstrndx)) {
		while ((scn = elf_nextscn(elf, scn)) && n < max) {
			const char *name;
			GElf_Shdr sh;

			if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR) || !sh.sh_size)
				continue;
			name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (name)
				snprintf(names[n++], 64, "%s", name);
		}
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return n;
}

/*
 * Every offset of every code section of an object file (names.c, a
 * section a function, as a kernel module with -ffunction-sections): the
 * symbol, line and inline chain libdwfl gives at the address
 * `eu-addr2line -j SECTION OFFSET` takes, the section named, and nothing
 * past its end.
 */
static void test_object_by_section(struct test *t, const void *arg)
{
	enum { DEPTH = 64 };
	static struct diff_file df;
	const struct addrres_elf_sym *s[1];
	struct addrres_elf_inline want_chain[DEPTH];
	struct addrres_elf *e = NULL;
	size_t nsec, compared = 0, inlined = 0, lines = 0, differ = 0;
	char names[64][64], why[PATH_MAX + 256];
	struct oracle o = { 0 };

	ADDRRES_OPTS(addrres_elf_opts, opts, .no_demangle = true);
	(void)arg;
	NEED_FIXTURES(t);
	snprintf(df.path, sizeof(df.path), "%s", out_file("names-fs.o"));
	snprintf(df.label, sizeof(df.label), "names-fs.o");
	df.debug_dirs = no_debug_dir();
	opts.debug_dirs = df.debug_dirs;
	nsec = code_sections(df.path, names, 64);
	CHECK(t, nsec > 1);
	if (!oracle_begin(&o, &df, why, sizeof(why)))
		FAIL(t, "%s", why);
	CHECK_ERR(t, addrres_elf__open(&opts, &e), 0);
	for (size_t k = 0; k < nsec; k++) {
		ADDRRES_OPTS(addrres_elf_resolve_opts, in_section, .section = names[k]);
		uint64_t addr, size, off;

		if (!oracle_section_addr(&o, names[k], 0, &addr, &size))
			FAIL(t, "libdwfl has no section %s", names[k]);
		for (off = 0; off <= size; off++) {
			struct addrres_elf_sym want;
			const char *src = NULL;
			Dwfl_Line *line;
			int lineno = 0;
			size_t nr;

			CHECK_ERR(t, addrres_elf__resolve(e, df.path, &off, 1, s, &in_section), 0);
			if (off == size) {
				/* past its end: nothing, not the next section's code */
				if (s[0])
					FAIL(t, "%s+0x%llx, its end: an answer", names[k],
					     (unsigned long long)off);
				continue;
			}
			oracle_sym(&o, addr + off, &want);
			want.elf_addr = off;
			line = dwfl_module_getsrc(o.mod, addr + off);
			if (line)
				src = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
			nr = oracle_chain(&o, addr + off, want_chain, DEPTH);
			compared++;
			inlined += nr > 0;
			lines += src != NULL;
			if (s[0] && same_sym(s[0], &want) && same_str(s[0]->section, names[k]) &&
			    !s[0]->src_file == !src && (!src || s[0]->line == (unsigned int)lineno) &&
			    (!src || strstr(s[0]->src_file, "names.c")) && same_chain(s[0], want_chain, nr))
				continue;
			if (differ++ < DIFF_SHOWN) {
				printf("#   %s+0x%llx: libdwfl says %s+0x%llx line %d, %zu inlined\n",
				       names[k], (unsigned long long)off, want.name ? want.name : "-",
				       (unsigned long long)want.offset, lineno, nr);
				if (s[0])
					print_sym("ours", s[0]);
			}
		}
	}
	printf("# names-fs.o: %zu sections, %zu offsets, %zu with a line, %zu in inlined code, %zu differ\n",
	       nsec, compared, lines, inlined, differ);
	CHECK(t, lines > compared / 2 && inlined > 0);
	if (differ)
		FAIL(t, "%zu of %zu offsets differ from libdwfl's", differ, compared);
out:
	addrres_elf__free(e);
	oracle_end(&o);
}

/* What an object file is asked, and what not. */
static void test_object_errors(struct test *t, const void *arg)
{
	unsigned char id[ADDRRES_BUILD_ID_MAX], other[ADDRRES_BUILD_ID_MAX];
	const struct addrres_elf_sym **copy = NULL;
	const struct addrres_elf_sym *s[2];
	struct addrres_elf *e = NULL;
	size_t id_size = fixture_build_id("names-fs.o.build-id", id);
	uint64_t offs[2] = { 0, 0 };
	char msg[512], path[PATH_MAX];

	ADDRRES_OPTS(addrres_elf_resolve_opts, in_text, .section = ".text.names_outer");
	(void)arg;
	NEED_FIXTURES(t);
	CHECK(t, id_size > 0);
	snprintf(path, sizeof(path), "%s", out_file("names-fs.o"));
	OPEN(t, e, no_debug_dir(), false, msg);
	/* no section: an object file has no addresses */
	CHECK_ERR(t, resolve_id(e, path, NULL, 0, offs, 1, s), -EINVAL);
	CHECK(t, s[0] == NULL && strstr(addrres_elf__errmsg(e), "give offsets in a section"));
	{
		ADDRRES_OPTS(addrres_elf_resolve_opts, both, .section = ".text.names_outer",
			     .elf_addrs = true);
		ADDRRES_OPTS(addrres_elf_resolve_opts, nope, .section = ".text.nope");

		CHECK_ERR(t, addrres_elf__resolve(e, path, offs, 1, s, &both), -EINVAL);
		CHECK_ERR(t, addrres_elf__resolve(e, path, offs, 1, s, &nope), -ENOENT);
		CHECK(t, strstr(addrres_elf__errmsg(e), "no section .text.nope") != NULL);
	}
	/* its build ID is its note section's: the kernel's for a module */
	{
		ADDRRES_OPTS(addrres_elf_resolve_opts, with_id, .section = ".text.names_outer",
			     .build_id = id, .build_id_size = id_size);
		ADDRRES_OPTS(addrres_elf_resolve_opts, with_other, .section = ".text.names_outer",
			     .build_id = other, .build_id_size = id_size);

		memcpy(other, id, id_size);
		other[id_size - 1] ^= 1;
		CHECK_ERR(t, addrres_elf__resolve(e, path, offs, 1, s, &with_id), 0);
		CHECK(t, s[0] && s[0]->name && !strcmp(s[0]->name, "names_outer"));
		CHECK_ERR(t, addrres_elf__resolve(e, path, offs, 1, s, &with_other), -ESTALE);
	}
	/* the section's size and past it */
	offs[1] = 1 << 20;
	CHECK_ERR(t, addrres_elf__resolve(e, path, offs, 2, s, &in_text), 0);
	CHECK(t, s[0] && s[1] == NULL);
	CHECK_STR(t, s[0]->section, ".text.names_outer");
	/* a copy keeps the section's name past the handle */
	CHECK_ERR(t, addrres_elf_syms__dup(s, 2, &copy), 0);
	addrres_elf__free(e);
	e = NULL;
	CHECK(t, copy[0] && copy[1] == NULL);
	CHECK_STR(t, copy[0]->section, ".text.names_outer");
	CHECK_STR(t, copy[0]->name, "names_outer");
	/* an object file without a build ID, by section */
	OPEN(t, e, no_debug_dir(), false, msg);
	{
		ADDRRES_OPTS(addrres_elf_resolve_opts, lib_text, .section = ".text");

		CHECK_ERR(t, addrres_elf__resolve(e, out_file("lib.o"), offs, 1, s, &lib_text), 0);
		CHECK(t, s[0] && s[0]->name && s[0]->src_file);
	}
out:
	addrres_elf_syms__free(copy);
	addrres_elf__free(e);
}

/*
 * An object file stripped of its DWARF (an installed kernel module) gets
 * its lines from its debug file, found by its build ID: the same as the
 * unstripped file's, relocated alike.
 */
static void test_object_debug_file(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *full[1], *stripped[1];
	struct addrres_elf *e = NULL, *f = NULL;
	char msg[512], names[64][64];
	size_t nsec, with_line = 0;

	(void)arg;
	NEED_FIXTURES(t);
	nsec = code_sections(out_file("names-fs.o"), names, 64);
	CHECK(t, nsec > 1);
	OPEN(t, e, no_debug_dir(), false, msg);
	OPEN(t, f, out_file("debug-obj"), false, msg);
	for (size_t k = 0; k < nsec; k++) {
		ADDRRES_OPTS(addrres_elf_resolve_opts, in_section, .section = names[k]);

		for (uint64_t off = 0; off < 16; off++) {
			CHECK_ERR(t, addrres_elf__resolve(e, out_file("names-fs.o"), &off, 1, full,
							  &in_section), 0);
			CHECK_ERR(t, addrres_elf__resolve(f, out_file("names-fs-stripped.o"), &off, 1,
							  stripped, &in_section), 0);
			if (!full[0])
				continue;
			CHECK(t, stripped[0] != NULL);
			CHECK_STR(t, stripped[0]->name, full[0]->name);
			CHECK(t, same_str(stripped[0]->src_file, full[0]->src_file));
			CHECK_INT(t, stripped[0]->line, full[0]->line);
			CHECK_INT(t, (int)stripped[0]->nr_inlined, (int)full[0]->nr_inlined);
			with_line += full[0]->src_file != NULL;
		}
	}
	printf("# %zu offsets with a line, the same from the debug file\n", with_line);
	CHECK(t, with_line > 0);
out:
	addrres_elf__free(e);
	addrres_elf__free(f);
}

/* ---- the 0.2 API: offline, messages, copies ---- */

/* ELF addresses instead of file offsets: .data, where the two differ. */
static void test_elf_addrs(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[3];
	struct addrres_elf *e = NULL;
	struct nm_sym glob, data;
	char msg[512];
	uint64_t addrs[3];

	ADDRRES_OPTS(addrres_elf_resolve_opts, by_addr, .elf_addrs = true);
	(void)arg;
	NEED_FIXTURES(t);
	NM(t, "pie.nm", "fixture_global", &glob);
	NM(t, "pie.nm", "fixture_data", &data);
	addrs[0] = glob.value + 4;
	addrs[1] = data.value + 2;
	addrs[2] = 0x7fffffffffff;	/* in no segment */
	OPEN(t, e, no_debug_dir(), false, msg);
	CHECK_ERR(t, addrres_elf__resolve(e, out_file("pie"), addrs, 3, s, &by_addr), 0);
	CHECK_SYM(t, s[0], "fixture_global", glob, 4, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_LINE(t, s[0], "prog.c", "fixture_global");
	CHECK_SYM(t, s[1], "fixture_data", data, 2, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK(t, s[2] == NULL);
out:
	addrres_elf__free(e);
}

/* Offline: a build ID and addresses, the file found in the debug directories. */
static void test_offline_by_build_id(struct test *t, const void *arg)
{
	unsigned char id[ADDRRES_BUILD_ID_MAX], other[ADDRRES_BUILD_ID_MAX];
	const struct addrres_elf_sym *s[2];
	struct addrres_elf *e = NULL;
	struct nm_sym stat_sym, func;
	char msg[512], dirs[2 * PATH_MAX];
	size_t id_size = lib_build_id(id);
	uint64_t offs[2];

	(void)arg;
	NEED_FIXTURES(t);
	CHECK(t, id_size > 0);
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	OFFSET(t, out_file("lib.so"), stat_sym.value + 1, &offs[0]);
	OFFSET(t, out_file("lib.so"), func.value, &offs[1]);
	/* debug/.build-id/xx/yyyy.debug only: the debug package's file */
	snprintf(dirs, sizeof(dirs), "%s:%s", no_debug_dir(), out_file("debug"));
	OPEN(t, e, dirs, false, msg);
	/* its program headers have no file offsets: refused, the message says why */
	CHECK_ERR(t, resolve_id(e, NULL, id, id_size, offs, 2, s), -ENOEXEC);
	CHECK(t, strstr(addrres_elf__errmsg(e), "elf_addrs") != NULL);
	/* by ELF address */
	{
		ADDRRES_OPTS(addrres_elf_resolve_opts, by_addr, .build_id = id,
			     .build_id_size = id_size, .elf_addrs = true);

		offs[0] = stat_sym.value + 1;
		offs[1] = func.value;
		CHECK_ERR(t, addrres_elf__resolve(e, NULL, offs, 2, s, &by_addr), 0);
	}
	CHECK_SYM(t, s[0], "fixture_lib_static", stat_sym, 1, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
	CHECK_SYM(t, s[1], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	/* a build ID of no file: -ENOENT, the message naming it */
	memcpy(other, id, id_size);
	other[0] ^= 0xff;
	CHECK_ERR(t, resolve_id(e, NULL, other, id_size, offs, 1, s), -ENOENT);
	CHECK(t, s[0] == NULL);
	CHECK(t, strstr(addrres_elf__errmsg(e), "no file of it") != NULL);
	/* neither a path nor a build ID */
	CHECK_ERR(t, resolve_id(e, NULL, NULL, 0, offs, 1, s), -EINVAL);
out:
	addrres_elf__free(e);
}

/*
 * The open's message buffer may go once the open returned: later
 * messages are the handle's (ASan reports a write to the freed buffer).
 */
static void test_message_kept_by_handle(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	char *buf = malloc(256), missing[PATH_MAX];
	uint64_t off = 0;
	int err;

	(void)arg;
	NEED_FIXTURES(t);
	if (!buf)
		FAIL(t, "out of memory");
	{
		ADDRRES_OPTS(addrres_elf_opts, o, .errbuf = buf, .errbuf_sz = 256);

		err = addrres_elf__open(&o, &e);
	}
	CHECK_INT(t, err, 0);
	CHECK_STR(t, buf, "");
	free(buf);
	buf = NULL;
	CHECK_STR(t, addrres_elf__errmsg(e), "");
	snprintf(missing, sizeof(missing), "%s", out_file("no-such-file"));
	CHECK_ERR(t, addrres_elf__resolve(e, missing, &off, 1, s, NULL), -ENOENT);
	CHECK(t, !strncmp(addrres_elf__errmsg(e), missing, strlen(missing)));
	/* a success empties it */
	CHECK_ERR(t, addrres_elf__resolve(e, out_file("pie"), &off, 0, s, NULL), 0);
	CHECK_STR(t, addrres_elf__errmsg(e), "");
	CHECK_STR(t, addrres_elf__errmsg(NULL), "");
out:
	free(buf);
	addrres_elf__free(e);
}

/* What the print function got. */
static struct {
	int calls;
	enum addrres_print_level level;
	char last[1024];
} printed;

static int record_print(enum addrres_print_level level, const char *fmt, va_list args)
{
	printed.calls++;
	printed.level = level;
	vsnprintf(printed.last, sizeof(printed.last), fmt, args);
	return 0;
}

/* DEBUGINFOD_URLS set, debuginfod off: an ADDRRES_INFO message says what was done. */
static void test_print_callback(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym stat_sym;
	char lib[PATH_MAX], cache[PATH_MAX], msg[512];
	addrres_print_fn_t old;
	uint64_t off;

	(void)arg;
	NEED_FIXTURES(t);
	memset(&printed, 0, sizeof(printed));
	old = addrres_set_print(record_print);
	CHECK(t, old == NULL);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-stripped.so"));
	snprintf(cache, sizeof(cache), "%s", out_file("debuginfod-cache"));
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	OFFSET(t, lib, stat_sym.value, &off);
	if (setenv("DEBUGINFOD_URLS", "http://127.0.0.1:9/", 1) ||
	    setenv("DEBUGINFOD_CACHE_PATH", cache, 1))
		FAIL(t, "setenv: %s", err_name(-errno));
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, lib, NULL, 0, &off, 1, s, msg);
	CHECK_INT(t, printed.calls, 1);
	CHECK_INT(t, printed.level, ADDRRES_INFO);
	CHECK(t, !strncmp(printed.last, "libaddrres: ", 12));
	CHECK(t, strstr(printed.last, "DEBUGINFOD_URLS is set") != NULL);
	CHECK(t, strstr(printed.last, "lib-stripped.so") != NULL);
	CHECK(t, printed.last[strlen(printed.last) - 1] == '\n');
	/* once per file: a second batch prints nothing */
	RESOLVE(t, e, lib, NULL, 0, &off, 1, s, msg);
	CHECK_INT(t, printed.calls, 1);
	/* set back: nothing printed */
	CHECK(t, addrres_set_print(NULL) == record_print);
	addrres_elf__free(e);
	e = NULL;
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, lib, NULL, 0, &off, 1, s, msg);
	CHECK_INT(t, printed.calls, 1);
out:
	addrres_set_print(NULL);
	unsetenv("DEBUGINFOD_URLS");
	unsetenv("DEBUGINFOD_CACHE_PATH");
	addrres_elf__free(e);
}

/* The cache's stats, the struct as this test knows it. */
static int elf_stats(struct addrres_elf *e, struct addrres_elf_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->sz = sizeof(*st);
	return addrres_elf__stats(e, st);
}

/*
 * DWARF compressed with zstd, which elfutils 0.188 cannot decompress: no
 * line, and the answer and a warning say why.
 */
static void test_lines_missing_zstd(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym func;
	char lib[PATH_MAX], msg[512];
	struct stat st;
	uint64_t off;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-zstd.so"));
	if (stat(lib, &st))
		SKIP(t, "this objcopy cannot compress with zstd (build.sh made no lib-zstd.so)");
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	OFFSET(t, lib, func.value, &off);
	memset(&printed, 0, sizeof(printed));
	addrres_set_print(record_print);
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, lib, NULL, 0, &off, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	if (s[0]->src_file)
		SKIP(t, "this libdw decompresses zstd (elfutils 0.189 or later)");
	CHECK_INT(t, s[0]->line_err, -EOPNOTSUPP);
	CHECK_INT(t, printed.calls, 1);
	CHECK_INT(t, printed.level, ADDRRES_WARN);
	CHECK(t, strstr(printed.last, "lib-zstd.so: no source lines") != NULL);
	CHECK(t, strstr(printed.last, "zstd") != NULL);
	/* said once per file */
	RESOLVE(t, e, lib, NULL, 0, &off, 1, s, msg);
	CHECK_INT(t, s[0]->line_err, -EOPNOTSUPP);
	CHECK_INT(t, printed.calls, 1);
	/* a file without DWARF: nothing missing, nothing said */
	RESOLVE(t, e, out_file("lib-stripped.so"), NULL, 0, &off, 1, s, msg);
	CHECK(t, s[0] && !s[0]->src_file && s[0]->line_err == 0);
	CHECK_INT(t, printed.calls, 1);
out:
	addrres_set_print(NULL);
	addrres_elf__free(e);
}

/*
 * The lifetime rule, under ASan: with max_files 1, every answer of one
 * batch over two files (and their strings: a demangled name, a source
 * path, inline frames) is read after the call, although the second file
 * was read with the first still cached; a copy of the first call's
 * answers is read after the next call closed its file.
 */
static void test_answer_lifetime(struct test *t, const void *arg)
{
	ADDRRES_OPTS(addrres_elf_opts, o, .max_files = 1);
	const struct addrres_elf_sym **copy = NULL;
	const struct addrres_elf_sym *s[2];
	struct addrres_elf *e = NULL;
	struct addrres_elf_stats st;
	struct nm_sym func, glob;
	char lib[PATH_MAX], pie[PATH_MAX], dirs[PATH_MAX];
	uint64_t offs[2];

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(lib, sizeof(lib), "%s", out_file("lib.so"));
	snprintf(pie, sizeof(pie), "%s", out_file("pie"));
	snprintf(dirs, sizeof(dirs), "%s", no_debug_dir());
	o.debug_dirs = dirs;
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	NM(t, "pie.nm", "fixture_global", &glob);
	OFFSET(t, lib, func.value, &offs[0]);
	OFFSET(t, pie, glob.value, &offs[1]);
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, lib, &offs[0], 1, s, NULL), 0);
	CHECK_ERR(t, addrres_elf_syms__dup(s, 1, &copy), 0);
	/* the next call closes lib.so (max_files 1): the copy stays */
	CHECK_ERR(t, addrres_elf__resolve(e, pie, &offs[1], 1, &s[1], NULL), 0);
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.evicted, 1);
	CHECK_SYM(t, copy[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_LINE(t, copy[0], "lib.c", "fixture_lib_func");
	CHECK_SYM(t, s[1], "fixture_global", glob, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_LINE(t, s[1], "prog.c", "fixture_global");
	for (size_t i = 0; i < copy[0]->nr_inlined; i++)
		CHECK(t, strlen(copy[0]->inlined[i].name ? copy[0]->inlined[i].name : "") < 4096);
out:
	addrres_elf_syms__free(copy);
	addrres_elf__free(e);
}

/*
 * Within one call nothing it uses is closed: resolve_vmas() over this
 * process's libc and a library it loaded (a demangled name), max_files 1, every answer's
 * strings read after the call (ASan would see one freed).
 */
static void test_answer_lifetime_in_batch(struct test *t, const void *arg)
{
	ADDRRES_OPTS(addrres_elf_opts, o, .max_files = 1);
	const struct addrres_elf_sym *s[2];
	const struct addrres_vma *v[2];
	struct addrres_procmaps *pm = NULL;
	struct addrres_elf *e = NULL;
	struct addrres_elf_stats st;
	uint64_t addrs[2];
	void *h = NULL;

	(void)arg;
	NEED_FIXTURES(t);
	o.debug_dirs = no_debug_dir();
	h = dlopen(out_file("names.so"), RTLD_NOW | RTLD_LOCAL);
	CHECK(t, h != NULL);
	/* libc's (ASan intercepts fclose and the like, not this) */
	addrs[0] = (uintptr_t)dlsym(RTLD_DEFAULT, "getpid");
	addrs[1] = (uintptr_t)dlsym(h, "_ZNK2ns3BoxIlE3getEli");
	CHECK(t, addrs[0] && addrs[1]);
	CHECK_ERR(t, addrres_procmaps__open(NULL, &pm), 0);
	CHECK_ERR(t, addrres_procmaps__resolve(pm, addrs, 2, v), 0);
	CHECK(t, v[0] && v[1] && v[0] != v[1]);
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve_vmas(e, 0, addrs, v, 2, s, NULL), 0);
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.files, 2);
	CHECK_U64(t, st.evicted, 0);
	for (int i = 0; i < 2; i++) {
		CHECK(t, s[i] && s[i]->name);
		CHECK(t, strlen(s[i]->name) > 0);
		CHECK(t, !s[i]->src_file || strlen(s[i]->src_file) > 0);
	}
	CHECK(t, strstr(s[0]->name, "getpid") != NULL);
	CHECK(t, strstr(s[1]->name, "ns::Box<long>::get") != NULL);
out:
	addrres_elf__free(e);
	addrres_procmaps__free(pm);
	if (h)
		dlclose(h);
}

/* Whether the ELF file @path has a section compressed (SHF_COMPRESSED): 1, 0, or -1. */
static int has_compressed_section(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), any = -1;
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	Elf_Scn *scn = NULL;

	if (elf)
		any = 0;
	while (elf && !any && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		any = gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED);
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return any;
}

/*
 * debug_cache_dir: the first handle keeps the compressed debug file
 * decompressed, by build ID; the next one reads that copy.
 */
static void test_debug_cache_dir(struct test *t, const void *arg)
{
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym stat_sym;
	char lib[PATH_MAX], cache[PATH_MAX], copy[PATH_MAX + 64], hex[2 * ADDRRES_BUILD_ID_MAX + 1];
	char dirs[PATH_MAX], not_dir[PATH_MAX];
	size_t id_size = lib_build_id(id);
	struct stat st;
	uint64_t off;

	/* out_file()'s buffers are reused: the options keep copies. */
	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = dirs);
	(void)arg;
	NEED_FIXTURES(t);
	snprintf(dirs, sizeof(dirs), "%s", out_file("debug-z"));
	snprintf(not_dir, sizeof(not_dir), "%s", out_file("lib.so"));
	CHECK(t, id_size > 1);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-stripped.so"));
	snprintf(cache, sizeof(cache), "%s", out_file("decompressed"));
	for (size_t i = 0; i < id_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	snprintf(copy, sizeof(copy), "%s/%.2s/%s.debug", cache, hex, hex + 2);
	o.debug_cache_dir = cache;
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	OFFSET(t, lib, stat_sym.value, &off);
	memset(&printed, 0, sizeof(printed));
	addrres_set_print(record_print);
	for (int handle = 0; handle < 2; handle++) {
		struct addrres_elf_stats es;

		CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
		CHECK_ERR(t, addrres_elf__resolve(e, lib, &off, 1, s, NULL), 0);
		CHECK_SYM(t, s[0], "fixture_lib_static", stat_sym, 0, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
		CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
		/* the first decompresses in memory too; the second, nothing */
		CHECK_INT(t, elf_stats(e, &es), 0);
		CHECK(t, handle ? es.inflated == 0 : es.inflated > 0);
		addrres_elf__free(e);
		e = NULL;
		/* made by the first, once */
		CHECK(t, !stat(copy, &st));
		CHECK_INT(t, has_compressed_section(copy), 0);
#ifdef LIBADDRRES_TEST_SWAP_LOST
		/* and the first said that libelf decompressed (test_dwarf_inflate_checked) */
		CHECK_INT(t, printed.calls, 2);
#else
		CHECK_INT(t, printed.calls, 1);
#endif
		CHECK(t, strstr(printed.last, "decompressed once") != NULL);
	}
	/* the debug file it came from stays as it was */
	snprintf(copy, sizeof(copy), "%s/.build-id/%.2s/%s.debug", out_file("debug-z"), hex, hex + 2);
	CHECK_INT(t, has_compressed_section(copy), 1);
	/* a cache that cannot be made: a warning, and the answers all the same */
	o.debug_cache_dir = not_dir;		/* a file, no directory */
	memset(&printed, 0, sizeof(printed));
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, lib, &off, 1, s, NULL), 0);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
	CHECK_INT(t, printed.level, ADDRRES_WARN);
	CHECK(t, strstr(printed.last, "cannot keep a decompressed copy") != NULL);
out:
	addrres_set_print(NULL);
	addrres_elf__free(e);
}

/* Where the cache @cache keeps lib.so's debug file: DIR/ab into @sub, DIR/ab/cdef....debug into @copy. */
static void cache_paths(const char *cache, char *sub, size_t sub_sz, char *copy, size_t copy_sz)
{
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	char hex[2 * ADDRRES_BUILD_ID_MAX + 1] = "";
	size_t id_size = lib_build_id(id);

	for (size_t i = 0; i < id_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	snprintf(sub, sub_sz, "%s/%.2s", cache, hex);
	snprintf(copy, copy_sz, "%s/%.2s/%s.debug", cache, hex, hex + 2);
}

/* A resolve of lib-stripped.so's static function through a cache, set up once (out_file() is not for threads). */
struct cache_case {
	char cache[PATH_MAX], lib[PATH_MAX], dirs[PATH_MAX];
	uint64_t off;
	unsigned int mark;	/* the line of lib.c's "line:fixture_lib_static" */
};

/* @c for the cache directory out_file(@name): false if the fixtures lack something. */
static bool cache_case_init(struct cache_case *c, const char *name)
{
	struct nm_sym sym;

	snprintf(c->cache, sizeof(c->cache), "%s", out_file(name));
	snprintf(c->lib, sizeof(c->lib), "%s", out_file("lib-stripped.so"));
	snprintf(c->dirs, sizeof(c->dirs), "%s", out_file("debug-z"));
	c->mark = marker_line("elf/lib.c", "fixture_lib_static");
	return c->mark && nm_find("lib.so.nm", "fixture_lib_static", &sym) &&
	       file_offset(c->lib, sym.value, &c->off);
}

/* What a new handle with the cache of @c did. */
struct cached_run {
	int err;		/* of the open or the resolve */
	bool line_ok;		/* the line is lib.c's marker */
	uint64_t inflated;	/* what it decompressed itself: 0 if it read a copy */
};

static struct cached_run cached_resolve(const struct cache_case *c)
{
	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = c->dirs, .debug_cache_dir = c->cache);
	const struct addrres_elf_sym *s[1];
	struct cached_run r = { 0 };
	struct addrres_elf_stats st;
	struct addrres_elf *e = NULL;

	r.err = addrres_elf__open(&o, &e);
	if (!r.err)
		r.err = addrres_elf__resolve(e, c->lib, &c->off, 1, s, NULL);
	if (!r.err) {
		const char *slash = s[0] && s[0]->src_file ? strrchr(s[0]->src_file, '/') : NULL;

		r.line_ok = slash && !strcmp(slash, "/lib.c") && s[0]->line == c->mark;
		elf_stats(e, &st);
		r.inflated = st.inflated;
	}
	addrres_elf__free(e);
	return r;
}

/* The bytes of the file @path, "" if it cannot be read. */
static void read_small(const char *path, char *buf, size_t sz)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sz - 1) : -1;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/*
 * The cache never writes or reads through a symlink planted in it: not
 * a directory DIR/ab that points elsewhere, not the name the copy was
 * written to before its rename (PATH.tmp.PID, up to 0.2), not the copy's
 * own name.
 */
static void test_debug_cache_no_symlinks(struct test *t, const void *arg)
{
	char outside[PATH_MAX], victim[PATH_MAX], elsewhere[PATH_MAX];
	char sub[PATH_MAX + 8], copy[PATH_MAX + 80], old_tmp[PATH_MAX + 120], got[64];
	struct cache_case c;
	struct cached_run r;
	struct stat st;
	DIR *d = NULL;
	int fd;

	(void)arg;
	NEED_FIXTURES(t);
	CHECK(t, cache_case_init(&c, "cache-links"));
	snprintf(outside, sizeof(outside), "%s", out_file("cache-outside"));
	snprintf(victim, sizeof(victim), "%s", out_file("cache-victim"));
	snprintf(elsewhere, sizeof(elsewhere), "%s", out_file("cache-copy-elsewhere.debug"));
	cache_paths(c.cache, sub, sizeof(sub), copy, sizeof(copy));
	CHECK(t, !mkdir(c.cache, 0755) && !mkdir(outside, 0755));
	fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CHECK(t, fd >= 0);
	CHECK(t, write(fd, "precious\n", 9) == 9);
	close(fd);
	memset(&printed, 0, sizeof(printed));
	addrres_set_print(record_print);
	/* DIR/ab a symlink to another directory: nothing written there, and said */
	CHECK(t, !symlink(outside, sub));
	r = cached_resolve(&c);
	CHECK_INT(t, r.err, 0);
	CHECK(t, r.line_ok);
	CHECK_INT(t, printed.level, ADDRRES_WARN);
	CHECK(t, strstr(printed.last, "cannot keep a decompressed copy") != NULL);
	d = opendir(outside);
	CHECK(t, d != NULL);
	for (struct dirent *de; (de = readdir(d));)
		CHECK(t, de->d_name[0] == '.');
	/* the old temporary name, a symlink to a file of someone else's: left alone */
	CHECK(t, !unlink(sub) && !mkdir(sub, 0755));
	snprintf(old_tmp, sizeof(old_tmp), "%s.tmp.%d", copy, (int)getpid());
	CHECK(t, !symlink(victim, old_tmp));
	r = cached_resolve(&c);
	CHECK_INT(t, r.err, 0);
	CHECK(t, r.line_ok);
	read_small(victim, got, sizeof(got));
	CHECK_STR(t, got, "precious\n");
	CHECK(t, !lstat(copy, &st) && S_ISREG(st.st_mode));
	CHECK_INT(t, has_compressed_section(copy), 0);
	/* the copy's name a symlink to a good copy: not read through, not replaced */
	CHECK(t, !rename(copy, elsewhere) && !symlink(elsewhere, copy));
	r = cached_resolve(&c);
	CHECK_INT(t, r.err, 0);
	CHECK(t, r.line_ok);
	CHECK(t, r.inflated > 0);
	CHECK(t, !lstat(copy, &st) && S_ISLNK(st.st_mode));
	read_small(victim, got, sizeof(got));
	CHECK_STR(t, got, "precious\n");
out:
	if (d)
		closedir(d);
	addrres_set_print(NULL);
}

/*
 * A copy in the cache is read only if it is whole, of its build ID, and
 * owned by this user or root: else the handle decompresses the debug file
 * itself (stats.inflated), and the lines are right all the same.
 */
static void test_debug_cache_copy_checked(struct test *t, const void *arg)
{
	char sub[PATH_MAX + 8], copy[PATH_MAX + 80];
	struct cache_case c;
	struct cached_run r;
	struct stat st;

	(void)arg;
	NEED_FIXTURES(t);
	CHECK(t, cache_case_init(&c, "cache-checked"));
	cache_paths(c.cache, sub, sizeof(sub), copy, sizeof(copy));
	r = cached_resolve(&c);
	CHECK_INT(t, r.err, 0);
	CHECK(t, r.line_ok && r.inflated > 0);
	/* the copy as written: read */
	r = cached_resolve(&c);
	CHECK_INT(t, r.err, 0);
	CHECK(t, r.line_ok && r.inflated == 0);
	/* cut short (a crash while it was written, a full disk): not read, and replaced */
	CHECK(t, !stat(copy, &st) && !truncate(copy, st.st_size - 64));
	r = cached_resolve(&c);
	CHECK_INT(t, r.err, 0);
	CHECK(t, r.line_ok && r.inflated > 0);
	r = cached_resolve(&c);
	CHECK_INT(t, r.err, 0);
	CHECK(t, r.line_ok && r.inflated == 0);
	/* another file under its name (another build ID): not read */
	CHECK_INT(t, copy_file(out_file("pie"), copy), 0);
	r = cached_resolve(&c);
	CHECK_INT(t, r.err, 0);
	CHECK(t, r.line_ok && r.inflated > 0);
	/* whole, but another user's: not read (that needs root to set up) */
	CHECK(t, !unlink(copy));
	r = cached_resolve(&c);
	CHECK(t, !r.err && r.inflated > 0 && !stat(copy, &st));
	if (geteuid() != 0)
		SKIP(t, "not root: a copy owned by another user cannot be made");
	CHECK(t, !chown(copy, 65534, 65534));
	r = cached_resolve(&c);
	CHECK_INT(t, r.err, 0);
	CHECK(t, r.line_ok && r.inflated > 0);
out:
	;
}

/* Warnings counted across threads. */
static int thread_warnings;

static int count_warnings(enum addrres_print_level level, const char *fmt, va_list args)
{
	(void)fmt;
	(void)args;
	if (level == ADDRRES_WARN)
		__atomic_fetch_add(&thread_warnings, 1, __ATOMIC_RELAXED);
	return 0;
}

static void *cached_resolve_thread(void *c)
{
	struct cached_run *r = malloc(sizeof(*r));

	if (r)
		*r = cached_resolve(c);
	return r;
}

/*
 * Four threads, each with its own handle (the documented model), fill an
 * empty cache at once: no warning, every answer right, and the copy left
 * is whole (the next handle reads it).
 */
static void test_debug_cache_threads(struct test *t, const void *arg)
{
	pthread_t th[4];
	struct cache_case c;
	struct cached_run r;
	char name[32];

	(void)arg;
	NEED_FIXTURES(t);
	thread_warnings = 0;
	addrres_set_print(count_warnings);
	for (int round = 0; round < 8; round++) {
		snprintf(name, sizeof(name), "cache-threads-%d", round);
		CHECK(t, cache_case_init(&c, name));
		for (int i = 0; i < 4; i++)
			CHECK(t, !pthread_create(&th[i], NULL, cached_resolve_thread, &c));
		for (int i = 0; i < 4; i++) {
			struct cached_run *got = NULL;
			bool ok;

			CHECK(t, !pthread_join(th[i], (void **)&got) && got);
			ok = !got->err && got->line_ok;
			free(got);
			CHECK(t, ok);
		}
		CHECK_INT(t, thread_warnings, 0);
		r = cached_resolve(&c);
		CHECK_INT(t, r.err, 0);
		CHECK(t, r.line_ok && r.inflated == 0);
	}
out:
	addrres_set_print(NULL);
}

/*
 * What the zlib sections (ELFCOMPRESS_ZLIB) of the ELF file @path take
 * decompressed, from their headers: all of them, or the one named @only;
 * -1 if it cannot be read.
 */
static long long zlib_sections_size(const char *path, const char *only)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	long long total = elf ? 0 : -1;
	Elf_Scn *scn = NULL;
	size_t shstrndx = 0;

	if (elf && elf_getshdrstrndx(elf, &shstrndx))
		total = -1;
	while (total >= 0 && (scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;
		GElf_Chdr ch;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
		    gelf_getchdr(scn, &ch) && ch.ch_type == ELFCOMPRESS_ZLIB &&
		    (name = elf_strptr(elf, shstrndx, sh.sh_name)) && (!only || !strcmp(name, only)))
			total += (long long)ch.ch_size;
	}
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	return total;
}

/* The debug file of lib.so in the debug directory @dir, by build ID, into @path. */
static void lib_debug_file(const char *dir, char *path, size_t sz)
{
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	char hex[2 * ADDRRES_BUILD_ID_MAX + 1] = "";
	size_t id_size = lib_build_id(id);

	for (size_t i = 0; i < id_size; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	snprintf(path, sz, "%s/.build-id/%.2s/%s.debug", out_file(dir), hex, hex + 2);
}

/*
 * The library decompresses zlib DWARF into libelf's structures, and
 * checks after each section that libelf still gives them to libdw:
 * where it does not (a build of the library that makes the check fail,
 * -DLIBADDRRES_TEST_SWAP_LOST, stands for such an elfutils), all is put
 * back and libelf decompresses, said once; the lines are right either
 * way.  no_inflate leaves it all to libdw: nothing decompressed by the
 * library, the same lines.
 */
static void test_dwarf_inflate_checked(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct addrres_elf_stats st;
	struct nm_sym stat_sym;
	char lib[PATH_MAX], dirs[PATH_MAX];
	uint64_t off;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-stripped.so"));
	snprintf(dirs, sizeof(dirs), "%s", out_file("debug-z"));
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	OFFSET(t, lib, stat_sym.value, &off);
	memset(&printed, 0, sizeof(printed));
	addrres_set_print(record_print);
	for (int opt_out = 0; opt_out < 2; opt_out++) {
		ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = dirs, .no_inflate = opt_out);

		printed.calls = 0;
		CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
		CHECK_ERR(t, addrres_elf__resolve(e, lib, &off, 1, s, NULL), 0);
		CHECK_SYM(t, s[0], "fixture_lib_static", stat_sym, 0, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
		CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
		CHECK_INT(t, elf_stats(e, &st), 0);
		if (opt_out) {
			CHECK_U64(t, st.inflated, 0);
			CHECK_INT(t, printed.calls, 0);
		} else {
			CHECK(t, st.inflated > 0);
#ifdef LIBADDRRES_TEST_SWAP_LOST
			CHECK_INT(t, printed.calls, 1);
			CHECK(t, strstr(printed.last, "does not keep the sections") != NULL);
#else
			CHECK_INT(t, printed.calls, 0);
#endif
		}
		addrres_elf__free(e);
		e = NULL;
	}
out:
	addrres_set_print(NULL);
	addrres_elf__free(e);
}

/*
 * max_inflated: a file whose compressed DWARF would decompress to more is
 * not decompressed, by the library or by libdw: its symbols stay, its
 * lines go with line_err -EFBIG and a warning.  For a debug file found
 * for its symbols and DWARF, a file's own DWARF, and a debug file found
 * for DWARF alone (libdw decompresses it as soon as it is found); at the
 * cap itself, the lines are there.
 */
static void test_dwarf_inflate_cap(struct test *t, const void *arg)
{
	static const struct {
		const char *file, *dirs, *sized;	/* @sized: the file whose sections are counted */
		enum addrres_elf_symtab table;
	} cases[] = {
		{ "lib-stripped.so", "debug-z", NULL, ADDRRES_ELF_SYMTAB_DEBUG_FILE },
		{ "lib-zdebug.so", "no-debug", "lib-zdebug.so", ADDRRES_ELF_SYMTAB_SYMTAB },
		{ "lib-nodwarf.so", "debug-z", NULL, ADDRRES_ELF_SYMTAB_SYMTAB },
	};
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct addrres_elf_stats st;
	struct nm_sym stat_sym;
	char lib[PATH_MAX], dirs[PATH_MAX], sized[PATH_MAX + 64];
	long long total;
	uint64_t off;

	(void)arg;
	NEED_FIXTURES(t);
	no_debug_dir();
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	memset(&printed, 0, sizeof(printed));
	addrres_set_print(record_print);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(lib, sizeof(lib), "%s", out_file(cases[i].file));
		snprintf(dirs, sizeof(dirs), "%s", out_file(cases[i].dirs));
		if (cases[i].sized)
			snprintf(sized, sizeof(sized), "%s", out_file(cases[i].sized));
		else
			lib_debug_file("debug-z", sized, sizeof(sized));
		total = zlib_sections_size(sized, NULL);
		CHECK(t, total > 1);
		OFFSET(t, lib, stat_sym.value, &off);
		for (int over = 1; over >= 0; over--) {
			ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = dirs,
				     .max_inflated = (size_t)total - (size_t)over);

			printed.calls = 0;
			CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
			CHECK_ERR(t, addrres_elf__resolve(e, lib, &off, 1, s, NULL), 0);
			CHECK_SYM(t, s[0], "fixture_lib_static", stat_sym, 0, cases[i].table);
			CHECK_INT(t, elf_stats(e, &st), 0);
			if (over) {
				CHECK(t, s[0]->src_file == NULL);
				CHECK_INT(t, s[0]->line_err, -EFBIG);
				CHECK_U64(t, st.inflated, 0);
				CHECK_INT(t, printed.calls, 1);
				CHECK_INT(t, printed.level, ADDRRES_WARN);
				CHECK(t, strstr(printed.last, "max_inflated") != NULL);
			} else {
				CHECK_LINE(t, s[0], "lib.c", "fixture_lib_static");
				CHECK_INT(t, s[0]->line_err, 0);
			}
			addrres_elf__free(e);
			e = NULL;
		}
	}
out:
	addrres_set_print(NULL);
	addrres_elf__free(e);
}

/*
 * A debug file with its DWARF compressed with zlib (Debian's -dbgsym
 * packages): the library decompresses every such section itself
 * (stats.inflated), and the lines are those of the uncompressed DWARF.
 * The same with MiniDebugInfo beside the debug file (Fedora's), and for
 * a file's own compressed DWARF; nothing for DWARF not compressed.
 */
static void test_dwarf_inflated(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[2];
	struct addrres_elf *e = NULL;
	struct addrres_elf_stats st;
	struct nm_sym func, stat_sym;
	char lib[PATH_MAX], debug[PATH_MAX + 64], dirs[PATH_MAX];
	long long want;
	uint64_t offs[2];

	/* out_file()'s buffers are reused: the options keep a copy. */
	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = dirs);
	(void)arg;
	NEED_FIXTURES(t);
	snprintf(dirs, sizeof(dirs), "%s", out_file("debug-z"));
	lib_debug_file("debug-z", debug, sizeof(debug));
	want = zlib_sections_size(debug, NULL);
	CHECK(t, want > 0);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-stripped.so"));
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	OFFSET(t, lib, func.value, &offs[0]);
	OFFSET(t, lib, stat_sym.value, &offs[1]);
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.inflated, 0);
	CHECK_ERR(t, addrres_elf__resolve(e, lib, offs, 2, s, NULL), 0);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_func");
	CHECK_SYM(t, s[1], "fixture_lib_static", stat_sym, 0, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	CHECK_LINE(t, s[1], "lib.c", "fixture_lib_static");
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.inflated, (uint64_t)want);
	addrres_elf__free(e);
	e = NULL;
	/* a stripped file with MiniDebugInfo and a debug file (Fedora's layout) */
	snprintf(lib, sizeof(lib), "%s", out_file("lib-minidebuginfo.so"));
	OFFSET(t, lib, func.value, &offs[0]);
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, lib, offs, 1, s, NULL), 0);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_func");
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.inflated, (uint64_t)want);
	addrres_elf__free(e);
	e = NULL;
	/* a file with its own DWARF compressed (gcc -gz), not stripped */
	snprintf(lib, sizeof(lib), "%s", out_file("lib-zdebug.so"));
	want = zlib_sections_size(lib, NULL);
	CHECK(t, want > 0);
	snprintf(dirs, sizeof(dirs), "%s", no_debug_dir());
	OFFSET(t, lib, func.value, &offs[0]);
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, lib, offs, 1, s, NULL), 0);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_func");
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.inflated, (uint64_t)want);
	addrres_elf__free(e);
	e = NULL;
	/* DWARF as the compiler left it: nothing to decompress */
	CHECK_INT(t, (int)zlib_sections_size(out_file("lib.so"), NULL), 0);
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	OFFSET(t, out_file("lib.so"), func.value, &offs[0]);
	CHECK_ERR(t, addrres_elf__resolve(e, out_file("lib.so"), offs, 1, s, NULL), 0);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_func");
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.inflated, 0);
out:
	addrres_elf__free(e);
}

/*
 * A zlib section whose bytes do not decompress: said, naming the debug
 * file and the section; libdw cannot read it either, and the symbols
 * stay right.
 */
static void test_dwarf_inflate_corrupt(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct addrres_elf_stats st;
	struct nm_sym func;
	char lib[PATH_MAX], debug[PATH_MAX + 64], want[PATH_MAX + 128], dirs[PATH_MAX];
	long long bad;
	uint64_t off;

	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = dirs);
	(void)arg;
	NEED_FIXTURES(t);
	snprintf(dirs, sizeof(dirs), "%s", out_file("debug-zbad"));
	lib_debug_file("debug-zbad", debug, sizeof(debug));
	snprintf(lib, sizeof(lib), "%s", out_file("lib-stripped.so"));
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	OFFSET(t, lib, func.value, &off);
	memset(&printed, 0, sizeof(printed));
	addrres_set_print(record_print);
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, lib, &off, 1, s, NULL), 0);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	CHECK(t, !s[0]->src_file);
	CHECK_INT(t, s[0]->line_err, -EBADMSG);
	/* said once, naming the file and the section */
	CHECK_INT(t, printed.calls, 1);
	CHECK_INT(t, printed.level, ADDRRES_WARN);
	snprintf(want, sizeof(want), "%s: its .debug_info does not decompress", debug);
	CHECK(t, strstr(printed.last, want) != NULL);
	RESOLVE(t, e, lib, NULL, 0, &off, 1, s, want);
	CHECK_INT(t, s[0]->line_err, -EBADMSG);
	CHECK_INT(t, printed.calls, 1);
	/* the other sections decompressed all the same */
	bad = zlib_sections_size(debug, ".debug_info");
	CHECK(t, bad > 0);
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.inflated, (uint64_t)(zlib_sections_size(debug, NULL) - bad));
out:
	addrres_set_print(NULL);
	addrres_elf__free(e);
}

/*
 * dwz's multifile (.gnu_debugaltlink), where the inlined function's name
 * is: found by its own build ID, not taken for the debug file's copy in
 * the cache (libdwfl asks the same callback for both), with a cache
 * directory or without, its first handle or a later one.
 */
/* The debug file of @lib by its build ID in @dir (DIR/.build-id/ab/cdef....debug), into @path. */
static bool debug_file_of(const char *lib, const char *dir, char *path, size_t sz)
{
	int fd = open(lib, O_RDONLY | O_CLOEXEC);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ, NULL) : NULL;
	char hex[2 * ADDRRES_BUILD_ID_MAX + 1] = "";
	const unsigned char *id;
	ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, (const void **)&id) : -1;

	for (ssize_t i = 0; i < n && i < ADDRRES_BUILD_ID_MAX; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	snprintf(path, sz, "%s/.build-id/%.2s/%s.debug", dir, hex, hex + 2);
	return n > 1 && !access(path, R_OK);
}

static void test_dwz_alt_file(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym func;
	char lib[PATH_MAX], dirs[PATH_MAX], cache[PATH_MAX], debug[PATH_MAX + 64];
	struct stat st;
	uint64_t off;
	unsigned int call;

	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = dirs);
	(void)arg;
	NEED_FIXTURES(t);
	snprintf(dirs, sizeof(dirs), "%s", out_file("debug-dwz"));
	snprintf(cache, sizeof(cache), "%s", out_file("dwz-cache"));
	snprintf(lib, sizeof(lib), "%s", out_file("dwz-a-stripped.so"));
	if (stat(lib, &st))
		SKIP(t, "no dwz (Debian's dwz package): build.sh made no dwz-a-stripped.so");
	NM(t, "dwz-a.so.nm", "fixture_dwz_a", &func);
	call = marker_line("elf/dwz-a.c", "fixture_dwz_a_calls");
	CHECK(t, call > 0);
	CHECK(t, debug_file_of(lib, dirs, debug, sizeof(debug)));
	for (int handle = 0; handle < 4; handle++) {
		ADDRRES_OPTS(addrres_elf_resolve_opts, ro, .elf_addrs = true);
		bool found = false;

		/*
		 * without a cache; then the cache's writer, then its reader;
		 * then the debug file itself, which carries the DWARF and names
		 * the dwz file: the cache's copy of its build ID is not that
		 */
		o.debug_cache_dir = handle ? cache : NULL;
		CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
		for (uint64_t a = func.value; a < func.value + func.size && !found; a++) {
			if (handle == 3) {
				CHECK_ERR(t, addrres_elf__resolve(e, debug, &a, 1, s, &ro), 0);
			} else {
				OFFSET(t, lib, a, &off);
				CHECK_ERR(t, addrres_elf__resolve(e, lib, &off, 1, s, NULL), 0);
			}
			found = s[0] && s[0]->nr_inlined == 1;
		}
		if (!found)
			FAIL(t, "handle %d: no offset of fixture_dwz_a is in inlined code", handle);
		CHECK_STR(t, s[0]->name, "fixture_dwz_a");
		CHECK_STR(t, s[0]->inlined[0].name, "fixture_dwz_mix");
		CHECK_LINE(t, s[0], "dwz-common.h", "fixture_dwz_mix");
		CHECK(t, s[0]->inlined[0].call_file &&
			 same_file(s[0]->inlined[0].call_file, path_in(fixtures_dir, "elf/dwz-a.c")));
		CHECK_INT(t, s[0]->inlined[0].call_line, call);
		addrres_elf__free(e);
		e = NULL;
	}
out:
	addrres_elf__free(e);
}

/*
 * JIT code: anonymous executable memory named by /tmp/perf-PID.map, the
 * latest line winning, read again as it grows; a malformed line said.
 */
static void test_perf_map(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[3];
	const struct addrres_vma *v[3];
	struct addrres_procmaps *pm = NULL;
	struct addrres_elf *e = NULL;
	char map[64] = "", msg[512];
	uint64_t base, addrs[3];
	void *code;
	FILE *f;

	(void)arg;
	code = mmap(NULL, 2 * 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		FAIL(t, "mmap: %s", err_name(-errno));
	base = (uintptr_t)code;
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(map, "we");
	CHECK(t, f != NULL);
	fprintf(f, "%llx 40 jit_one\n0x%llx 20 jit two (old)\nnot a line\n%llx 20 jit two\n",
		(unsigned long long)base, (unsigned long long)base + 0x40,
		(unsigned long long)base + 0x40);
	CHECK(t, !fclose(f));
	addrs[0] = base + 0x10;
	addrs[1] = base + 0x50;
	addrs[2] = base + 0x1000;
	CHECK_ERR(t, addrres_procmaps__open(NULL, &pm), 0);
	CHECK_ERR(t, addrres_procmaps__resolve(pm, addrs, 3, v), 0);
	CHECK(t, v[0] && v[0]->inode == 0 && (v[0]->flags & ADDRRES_VMA_EXECUTABLE));
	memset(&printed, 0, sizeof(printed));
	addrres_set_print(record_print);
	OPEN(t, e, no_debug_dir(), false, msg);
	CHECK_ERR(t, addrres_elf__resolve_vmas(e, 0, addrs, v, 3, s, NULL), 0);
	CHECK(t, s[0] && s[1] && !s[2]);
	CHECK_STR(t, s[0]->name, "jit_one");
	CHECK_U64(t, s[0]->offset, 0x10);
	CHECK_U64(t, s[0]->elf_addr, addrs[0]);
	CHECK_INT(t, s[0]->symtab, ADDRRES_ELF_SYMTAB_PERF_MAP);
	CHECK_STR(t, s[1]->name, "jit two");
	CHECK_U64(t, s[1]->offset, 0x10);
	CHECK_INT(t, printed.calls, 1);
	CHECK_INT(t, printed.level, ADDRRES_WARN);
	CHECK(t, strstr(printed.last, ":3: ") != NULL);
	/* the runtime compiles more: the map grows, and is read again */
	f = fopen(map, "ae");
	CHECK(t, f != NULL);
	fprintf(f, "%llx 100 jit_three\n", (unsigned long long)base + 0x1000);
	CHECK(t, !fclose(f));
	CHECK_ERR(t, addrres_elf__resolve_vmas(e, 0, addrs, v, 3, s, NULL), 0);
	CHECK(t, s[2] != NULL);
	CHECK_STR(t, s[2]->name, "jit_three");
	/* no map: -ENOENT, the message naming it */
	unlink(map);
	{
		int errs[1];

		CHECK_ERR(t, addrres_elf__resolve_vmas(e, 0, addrs, v, 1, s, errs), 0);
		CHECK_INT(t, errs[0], -ENOENT);
	}
	CHECK(t, strstr(addrres_elf__errmsg(e), map) != NULL);
out:
	addrres_set_print(NULL);
	if (map[0])
		unlink(map);
	addrres_elf__free(e);
	addrres_procmaps__free(pm);
	if (code != MAP_FAILED)
		munmap(code, 2 * 4096);
}

/*
 * A perf map is read only if it is a regular file of this user, root or
 * the process's user: not through a symlink in /tmp (to a map, or to
 * anyone's file), not one another user wrote; by PID 0 and by our PID
 * (through /proc/PID/root).
 */
static void test_perf_map_untrusted(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	const struct addrres_vma *v[1];
	struct addrres_procmaps *pm = NULL;
	struct addrres_elf *e = NULL;
	char map[64] = "", real[PATH_MAX], msg[512];
	int errs[1], pids[2] = { 0, getpid() };
	uint64_t addr;
	void *code = MAP_FAILED;
	FILE *f;

	(void)arg;
	NEED_FIXTURES(t);
	code = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		FAIL(t, "mmap: %s", err_name(-errno));
	addr = (uintptr_t)code + 0x10;
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	snprintf(real, sizeof(real), "%s", out_file("perf-real.map"));
	f = fopen(real, "we");
	CHECK(t, f != NULL);
	fprintf(f, "%llx 40 jit_one\n", (unsigned long long)(uintptr_t)code);
	CHECK(t, !fclose(f));
	CHECK_ERR(t, addrres_procmaps__open(NULL, &pm), 0);
	CHECK_ERR(t, addrres_procmaps__resolve(pm, &addr, 1, v), 0);
	OPEN(t, e, no_debug_dir(), false, msg);
	for (int i = 0; i < 2; i++) {
		/* a symlink: not followed */
		unlink(map);
		CHECK(t, !symlink(real, map));
		CHECK_ERR(t, addrres_elf__resolve_vmas(e, pids[i], &addr, v, 1, s, errs), 0);
		CHECK(t, !s[0]);
		CHECK_INT(t, errs[0], -ELOOP);
		CHECK(t, strstr(addrres_elf__errmsg(e), "symlink") != NULL);
		/* a regular file: read */
		CHECK(t, !unlink(map) && !copy_file(real, map));
		CHECK_ERR(t, addrres_elf__resolve_vmas(e, pids[i], &addr, v, 1, s, errs), 0);
		CHECK_INT(t, errs[0], 0);
		CHECK(t, s[0] != NULL);
		CHECK_STR(t, s[0]->name, "jit_one");
		if (geteuid() != 0)
			continue;
		/* another user's (nobody's): not read */
		CHECK(t, !chown(map, 65534, 65534));
		CHECK_ERR(t, addrres_elf__resolve_vmas(e, pids[i], &addr, v, 1, s, errs), 0);
		CHECK(t, !s[0]);
		CHECK_INT(t, errs[0], -EPERM);
		CHECK(t, strstr(addrres_elf__errmsg(e), "uid 65534") != NULL);
	}
	if (geteuid() != 0)
		SKIP(t, "not root: a map owned by another user cannot be made");
out:
	if (map[0])
		unlink(map);
	addrres_elf__free(e);
	addrres_procmaps__free(pm);
	if (code != MAP_FAILED)
		munmap(code, 4096);
}

/*
 * max_debugdata: a MiniDebugInfo that decompresses to more is not read,
 * and said; the symbols come from .dynsym.
 */
static void test_debugdata_cap(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[2];
	struct addrres_elf *e = NULL;
	struct nm_sym func, stat_sym;
	char lib[PATH_MAX], msg[512];
	uint64_t offs[2];

	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = no_debug_dir(), .max_debugdata = 64);
	(void)arg;
	NEED_FIXTURES(t);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-minidebuginfo.so"));
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	OFFSET(t, lib, func.value, &offs[0]);
	OFFSET(t, lib, stat_sym.value, &offs[1]);
	memset(&printed, 0, sizeof(printed));
	addrres_set_print(record_print);
	/* under the default cap: its .symtab, the static function too */
	OPEN(t, e, no_debug_dir(), true, msg);
	RESOLVE(t, e, lib, NULL, 0, offs, 2, s, msg);
	CHECK_SYM(t, s[1], "fixture_lib_static", stat_sym, 0, ADDRRES_ELF_SYMTAB_GNU_DEBUGDATA);
	CHECK_INT(t, printed.calls, 0);
	addrres_elf__free(e);
	e = NULL;
	/* a cap of 64 bytes: .dynsym, and a warning */
	CHECK_ERR(t, addrres_elf__open(&o, &e), 0);
	RESOLVE(t, e, lib, NULL, 0, offs, 2, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_DYNSYM);
	CHECK(t, !s[1] || !s[1]->name || strcmp(s[1]->name, "fixture_lib_static"));
	CHECK_INT(t, printed.calls, 1);
	CHECK_INT(t, printed.level, ADDRRES_WARN);
	CHECK(t, strstr(printed.last, "lib-minidebuginfo.so: its .gnu_debugdata decompresses to more than 64 bytes") != NULL);
	addrres_elf__free(e);
	e = NULL;
	/* a bomb under the default cap (64 MiB): not decompressed by libdwfl */
	snprintf(lib, sizeof(lib), "%s", out_file("lib-bomb.so"));
	memset(&printed, 0, sizeof(printed));
	OPEN(t, e, no_debug_dir(), true, msg);
	RESOLVE(t, e, lib, NULL, 0, offs, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_DYNSYM);
	CHECK_INT(t, printed.calls, 1);
	CHECK(t, strstr(printed.last, "lib-bomb.so: its .gnu_debugdata decompresses to more than") != NULL);
out:
	addrres_set_print(NULL);
	addrres_elf__free(e);
}

/* A copy of a batch outlives the next batch and the handle. */
static void test_syms_dup(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[3], **copy = NULL;
	struct addrres_elf *e = NULL;
	struct nm_sym outer;
	char so[PATH_MAX], msg[512];
	uint64_t offs[3];

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(so, sizeof(so), "%s", out_file("names.so"));
	NM(t, "names.so.nm", "names_outer", &outer);
	OPEN(t, e, no_debug_dir(), false, msg);
	if (!find_inlined(e, so, &outer, 2, &offs[0]))
		FAIL(t, "no offset of names_outer has two inlined functions");
	offs[1] = offs[0];		/* a repeat */
	offs[2] = 0xffffffffff;		/* in no segment: NULL */
	RESOLVE(t, e, so, NULL, 0, offs, 3, s, msg);
	CHECK(t, s[0] && s[1] && !s[2]);
	CHECK_ERR(t, addrres_elf_syms__dup(s, 3, &copy), 0);
	/* the handle's answers change, then go */
	RESOLVE(t, e, out_file("pie"), NULL, 0, offs, 0, s, msg);
	addrres_elf__free(e);
	e = NULL;
	CHECK(t, copy[0] && copy[1] && copy[2] == NULL);
	CHECK(t, copy[1]->elf_addr == copy[0]->elf_addr && copy[1]->nr_inlined == 2);
	CHECK_STR(t, copy[0]->name, "names_outer");
	CHECK_LINE(t, copy[0], "names.c", "inner_body");
	CHECK_INT(t, copy[0]->nr_inlined, 2);
	CHECK_INLINE(t, copy[0]->inlined[0], "names_inner", "middle_calls_inner");
	CHECK_INLINE(t, copy[0]->inlined[1], "names_middle", "outer_calls_middle");
	addrres_elf_syms__free(copy);
	CHECK_ERR(t, addrres_elf_syms__dup(NULL, 1, &copy), -EINVAL);
	CHECK(t, copy == NULL);
	CHECK_ERR(t, addrres_elf_syms__dup(s, 0, NULL), -EINVAL);
	CHECK_ERR(t, addrres_elf_syms__dup(NULL, 0, &copy), 0);
out:
	addrres_elf_syms__free(copy);
	addrres_elf__free(e);
}

/* ---- the cache: build IDs, rewritten files, limits ---- */

/*
 * A copy of fixture @from at @to whose build ID differs in its last byte
 * (@k): another file to the cache, the same code.  0 or a negative errno.
 */
static int copy_other_build_id(const char *from, const char *to, unsigned char k)
{
	unsigned char id[ADDRRES_BUILD_ID_MAX], *buf = NULL, *at;
	size_t id_size = lib_build_id(id);
	long size;
	FILE *f;
	int err = -EIO;

	if (!id_size || strcmp(from, out_file("lib.so")))
		return -EINVAL;
	f = fopen(from, "rbe");
	if (!f)
		return -errno;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)size)) && fread(buf, 1, (size_t)size, f) == (size_t)size)
		err = 0;
	fclose(f);
	at = err ? NULL : memmem(buf, (size_t)size, id, id_size);
	if (at) {
		at[id_size - 1] ^= k;
		f = fopen(to, "wbe");
		err = f && fwrite(buf, 1, (size_t)size, f) == (size_t)size ? 0 : -EIO;
		if (f && fclose(f))
			err = -EIO;
	} else if (!err) {
		err = -ENOENT;
	}
	free(buf);
	return err;
}

/* Five copies of one file (one build ID, one size): read once. */
static void test_cache_build_id_shared(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf_stats st;
	struct addrres_elf *e = NULL;
	struct nm_sym func;
	char copy[PATH_MAX], msg[512];
	uint64_t off;

	(void)arg;
	NEED_FIXTURES(t);
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	OFFSET(t, out_file("lib.so"), func.value, &off);
	OPEN(t, e, no_debug_dir(), false, msg);
	for (int i = 0; i < 5; i++) {
		snprintf(copy, sizeof(copy), "%s/copy-%d.so", out_file("copies"), i);
		mkdir(out_file("copies"), 0755);
		CHECK_INT(t, copy_file(out_file("lib.so"), copy), 0);
		RESOLVE(t, e, copy, NULL, 0, &off, 1, s, msg);
		CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	}
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.reads, 1);
	CHECK_U64(t, st.shared, 4);
	CHECK_U64(t, st.files, 1);
out:
	addrres_elf__free(e);
}

/* A file rewritten in place (same inode): read again, not taken for what it was. */
static void test_cache_rewritten_in_place(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf_stats st;
	struct addrres_elf *e = NULL;
	struct nm_sym func, glob;
	struct stat before, after;
	char path[PATH_MAX], msg[512];
	uint64_t off;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(path, sizeof(path), "%s", out_file("rewritten.so"));
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	NM(t, "pie.nm", "fixture_global", &glob);
	CHECK_INT(t, copy_file(out_file("lib.so"), path), 0);
	OFFSET(t, out_file("lib.so"), func.value, &off);
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, path, NULL, 0, &off, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK(t, !stat(path, &before));
	/* copy_file() unlinks: write over it instead */
	CHECK_INT(t, overwrite_file(out_file("pie"), path), 0);
	CHECK(t, !stat(path, &after) && after.st_ino == before.st_ino);
	OFFSET(t, out_file("pie"), glob.value, &off);
	RESOLVE(t, e, path, NULL, 0, &off, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_global", glob, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.reads, 2);
out:
	addrres_elf__free(e);
}

/*
 * resolve_vma() of @vma at @addr (or, with @path, resolve() of @path at
 * offset @addr) in a child, whose crash is this case's failure and not
 * the program's: true if it returned @want_err and, for 0, the symbol
 * @want_name; else what went wrong, in @why.
 */
static bool resolve_in_child(struct addrres_elf *e, const char *path, const struct addrres_vma *vma,
			     uint64_t addr, int want_err, const char *want_name, char *why,
			     size_t why_sz)
{
	int status, code;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		const struct addrres_elf_sym *s[1];
		int err = path ? addrres_elf__resolve(e, path, &addr, 1, s, NULL) :
				 addrres_elf__resolve_vma(e, 0, vma, &addr, 1, s);

		if (err != want_err)
			_exit(2);
		if (!err && (!s[0] || !s[0]->name || strcmp(s[0]->name, want_name)))
			_exit(3);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		snprintf(why, why_sz, "fork or waitpid failed");
		return false;
	}
	if (WIFSIGNALED(status)) {
		snprintf(why, why_sz, "the resolve was killed by signal %d", WTERMSIG(status));
		return false;
	}
	code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (code == 1)
		snprintf(why, why_sz, "the resolve crashed (the sanitizer's report above)");
	else if (code == 2)
		snprintf(why, why_sz, "not the error wanted (%d)", want_err);
	else
		snprintf(why, why_sz, "not the symbol %s", want_name ? want_name : "");
	return code == 0;
}

/*
 * A file rewritten in place (truncated, written: the same inode) after a
 * resolve by path, then named by device and inode without a build ID (a
 * VMA's): the cached file is checked before its mapping is read, and
 * the file read again, whether it shrank to no ELF at all (-ENOEXEC,
 * where the old mapping would raise SIGBUS) or is another ELF now.
 */
static void test_cache_rewritten_vma(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct addrres_vma vma;
	struct nm_sym func, glob, stat_sym;
	char path[PATH_MAX], msg[512], why[128];
	uint64_t off, glob_off, stat_off;
	struct stat st;
	int fd;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(path, sizeof(path), "%s", out_file("rewritten-vma.so"));
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	NM(t, "lib.so.nm", "fixture_lib_static", &stat_sym);
	NM(t, "pie.nm", "fixture_global", &glob);
	OFFSET(t, out_file("lib.so"), func.value, &off);
	OFFSET(t, out_file("lib.so"), stat_sym.value, &stat_off);
	OFFSET(t, out_file("pie"), glob.value, &glob_off);
	CHECK_INT(t, copy_file(out_file("lib.so"), path), 0);
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, path, NULL, 0, &off, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK(t, !stat(path, &st));
	memset(&vma, 0, sizeof(vma));
	vma.start = 0x100000;
	vma.end = 0x400000;
	vma.inode = st.st_ino;
	vma.dev_major = major(st.st_dev);
	vma.dev_minor = minor(st.st_dev);
	vma.flags = ADDRRES_VMA_READABLE | ADDRRES_VMA_EXECUTABLE;
	vma.name = path;
	/* shrunk to a page of no ELF, the same inode */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	CHECK(t, fd >= 0);
	{
		char junk[100];

		memset(junk, 'x', sizeof(junk));
		CHECK(t, write(fd, junk, sizeof(junk)) == (ssize_t)sizeof(junk));
	}
	close(fd);
	if (!resolve_in_child(e, NULL, &vma, vma.start + stat_off, -ENOEXEC, NULL, why, sizeof(why)))
		FAIL(t, "shrunk: %s", why);
	/* another ELF now, the same inode: its symbols */
	CHECK_INT(t, overwrite_file(out_file("pie"), path), 0);
	if (!resolve_in_child(e, NULL, &vma, vma.start + glob_off, 0, "fixture_global", why, sizeof(why)))
		FAIL(t, "another ELF: %s", why);
out:
	addrres_elf__free(e);
}

/*
 * A file rewritten in place with another of the same build ID and
 * another size (strip over the unstripped file): the next call by path
 * reads it again, and the one cached under that build ID is checked
 * before it is taken instead (its mapping now runs past the file's end).
 */
static void test_cache_rewritten_same_build_id(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym func;
	char path[PATH_MAX], msg[512], why[128];
	uint64_t off;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(path, sizeof(path), "%s", out_file("rewritten-strip.so"));
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	OFFSET(t, out_file("lib.so"), func.value, &off);
	CHECK_INT(t, copy_file(out_file("lib.so"), path), 0);
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, path, NULL, 0, &off, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	/* the stripped file over it: the same inode and build ID, fewer bytes */
	CHECK_INT(t, overwrite_file(out_file("lib-stripped.so"), path), 0);
	/* another address than before (the first one's answer is kept with the old file) */
	off += 1;
	if (!resolve_in_child(e, path, NULL, off, 0, "fixture_lib_func", why, sizeof(why)))
		FAIL(t, "%s", why);
out:
	addrres_elf__free(e);
}

/*
 * A debug file rewritten in place (shrunk to no ELF) after the file's
 * symbols were read from it: the next call, by path, does not read it
 * through its old mapping but reads the file again, whose symbols then
 * come from .dynsym.
 */
static void test_cache_debug_file_rewritten(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	char lib[PATH_MAX], dirs[PATH_MAX], debug[PATH_MAX + 64], copy[PATH_MAX + 64];
	char sub[PATH_MAX + 16], msg[512], why[128];
	struct nm_sym func;
	uint64_t off;
	int fd;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-stripped.so"));
	snprintf(dirs, sizeof(dirs), "%s", out_file("debug-rewritten"));
	lib_debug_file("debug", debug, sizeof(debug));
	lib_debug_file("debug-rewritten", copy, sizeof(copy));
	*strrchr(copy, '/') = '\0';
	snprintf(sub, sizeof(sub), "%s/.build-id", dirs);
	CHECK(t, !mkdir(dirs, 0755) && !mkdir(sub, 0755) && !mkdir(copy, 0755));
	lib_debug_file("debug-rewritten", copy, sizeof(copy));
	CHECK_INT(t, copy_file(debug, copy), 0);
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	OFFSET(t, lib, func.value, &off);
	OPEN(t, e, dirs, true, msg);
	RESOLVE(t, e, lib, NULL, 0, &off, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	fd = open(copy, O_WRONLY | O_TRUNC | O_CLOEXEC);
	CHECK(t, fd >= 0);
	CHECK(t, write(fd, "not an ELF any more", 19) == 19);
	close(fd);
	/* fixture_lib_func is exported: .dynsym has it */
	if (!resolve_in_child(e, lib, NULL, off, 0, "fixture_lib_func", why, sizeof(why)))
		FAIL(t, "%s", why);
out:
	addrres_elf__free(e);
}

/*
 * A file touched (new mtime, same bytes): read again, in place of the one
 * cached (whose mapping may no longer be what the file holds: see
 * cache_rewritten_vma); one file cached.
 */
static void test_cache_touched(struct test *t, const void *arg)
{
	struct timespec later[2] = { { .tv_sec = 1000000000 }, { .tv_sec = 1000000000 } };
	const struct addrres_elf_sym *s[1];
	struct addrres_elf_stats st;
	struct addrres_elf *e = NULL;
	struct nm_sym func;
	char path[PATH_MAX], msg[512];
	uint64_t off;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(path, sizeof(path), "%s", out_file("touched.so"));
	CHECK_INT(t, copy_file(out_file("lib.so"), path), 0);
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	OFFSET(t, path, func.value, &off);
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, path, NULL, 0, &off, 1, s, msg);
	CHECK(t, !utimensat(AT_FDCWD, path, later, 0));
	RESOLVE(t, e, path, NULL, 0, &off, 1, s, msg);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.reads, 2);
	CHECK_U64(t, st.shared, 0);
	CHECK_U64(t, st.files, 1);
out:
	addrres_elf__free(e);
}

/* max_files: the least recently used go, and come back when asked again. */
static void test_cache_max_files(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf_stats st;
	struct addrres_elf *e = NULL;
	struct nm_sym func;
	char copy[PATH_MAX];
	uint64_t off;
	int before, err;

	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = no_debug_dir(), .max_files = 3);
	(void)arg;
	NEED_FIXTURES(t);
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	OFFSET(t, out_file("lib.so"), func.value, &off);
	before = count_fds();
	err = addrres_elf__open(&o, &e);
	CHECK_INT(t, err, 0);
	mkdir(out_file("ids"), 0755);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 1; i <= 8; i++) {
			snprintf(copy, sizeof(copy), "%s/id-%d.so", out_file("ids"), i);
			if (!pass)
				CHECK_INT(t, copy_other_build_id(out_file("lib.so"), copy, (unsigned char)i), 0);
			CHECK_ERR(t, addrres_elf__resolve(e, copy, &off, 1, s, NULL), 0);
			CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
			CHECK_INT(t, elf_stats(e, &st), 0);
			CHECK(t, st.files <= 3);
			/* a descriptor, two with a debug file: 3 files at most */
			CHECK(t, count_fds() - before <= 6);
		}
	}
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.reads, 16);
	CHECK_U64(t, st.evicted, 13);
out:
	addrres_elf__free(e);
}

/* max_bytes: a file past the limit goes at the next call; its estimate counts the file. */
static void test_cache_max_bytes(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf_stats st;
	struct addrres_elf *e = NULL;
	struct stat fst;
	uint64_t off = 0x1000;
	int err;

	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = no_debug_dir(), .max_bytes = 1);
	(void)arg;
	NEED_FIXTURES(t);
	err = addrres_elf__open(&o, &e);
	CHECK_INT(t, err, 0);
	CHECK_ERR(t, addrres_elf__resolve(e, out_file("pie"), &off, 1, s, NULL), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, out_file("nopie"), &off, 1, s, NULL), 0);
	/* the call kept its own file, and let the other go */
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.files, 1);
	CHECK_U64(t, st.evicted, 1);
	addrres_elf__free(e);
	e = NULL;
	/* without a limit: the estimate of nopie, made at the next call's start */
	CHECK(t, !stat(out_file("nopie"), &fst));
	o.max_bytes = 0;
	err = addrres_elf__open(&o, &e);
	CHECK_INT(t, err, 0);
	CHECK_ERR(t, addrres_elf__resolve(e, out_file("nopie"), &off, 1, s, NULL), 0);
	CHECK_ERR(t, addrres_elf__resolve(e, out_file("nopie"), &off, 1, s, NULL), 0);
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.files, 1);
	CHECK(t, st.bytes >= (size_t)fst.st_size);
out:
	addrres_elf__free(e);
}

/* Out of descriptors (RLIMIT_NOFILE): the cache closes files and goes on. */
static void test_cache_emfile(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf_stats st;
	struct addrres_elf *e = NULL;
	struct rlimit old, low;
	struct nm_sym func;
	char copy[PATH_MAX];
	bool lowered = false;
	uint64_t off;
	int err;

	ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = no_debug_dir(), .max_files = 1000);
	(void)arg;
	NEED_FIXTURES(t);
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	OFFSET(t, out_file("lib.so"), func.value, &off);
	mkdir(out_file("ids"), 0755);
	for (int i = 1; i <= 24; i++) {
		snprintf(copy, sizeof(copy), "%s/id-%d.so", out_file("ids"), i);
		CHECK_INT(t, copy_other_build_id(out_file("lib.so"), copy, (unsigned char)i), 0);
	}
	err = addrres_elf__open(&o, &e);
	CHECK_INT(t, err, 0);
	CHECK(t, !getrlimit(RLIMIT_NOFILE, &old));
	low = old;
	low.rlim_cur = (rlim_t)count_fds() + 12;
	CHECK(t, !setrlimit(RLIMIT_NOFILE, &low));
	lowered = true;
	for (int i = 1; i <= 24; i++) {
		snprintf(copy, sizeof(copy), "%s/id-%d.so", out_file("ids"), i);
		CHECK_ERR(t, addrres_elf__resolve(e, copy, &off, 1, s, NULL), 0);
		CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_SYMTAB);
	}
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK(t, st.evicted > 0);
out:
	if (lowered)
		setrlimit(RLIMIT_NOFILE, &old);
	addrres_elf__free(e);
}

/*
 * One descriptor left: the library opens the file with it, and its debug
 * file cannot be looked for.  The answer says so (line_err -EMFILE, the
 * symbol from .dynsym), and once descriptors are free again the next
 * call reads the file again, debug file and all.
 */
static void test_debug_file_emfile(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf *e = NULL;
	struct nm_sym func;
	char lib[PATH_MAX], dirs[PATH_MAX], msg[512];
	int fillers[4096], nr_fillers = 0;
	struct addrres_elf_stats st;
	struct rlimit old, low;
	bool lowered = false;
	uint64_t off;

	(void)arg;
	NEED_FIXTURES(t);
	snprintf(lib, sizeof(lib), "%s", out_file("lib-stripped.so"));
	snprintf(dirs, sizeof(dirs), "%s", out_file("debug"));
	NM(t, "lib.so.nm", "fixture_lib_func", &func);
	OFFSET(t, lib, func.value, &off);
	OPEN(t, e, dirs, false, msg);
	memset(&printed, 0, sizeof(printed));
	addrres_set_print(record_print);
	/* every descriptor taken (of a limit made low), then one given back */
	CHECK(t, !getrlimit(RLIMIT_NOFILE, &old));
	low = old;
	low.rlim_cur = (rlim_t)count_fds() + 64;
	CHECK(t, !setrlimit(RLIMIT_NOFILE, &low));
	lowered = true;
	while (nr_fillers < (int)(sizeof(fillers) / sizeof(fillers[0]))) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			break;
		fillers[nr_fillers++] = fd;
	}
	CHECK(t, nr_fillers > 0 && errno == EMFILE);
	close(fillers[--nr_fillers]);
	CHECK_ERR(t, addrres_elf__resolve(e, lib, &off, 1, s, NULL), 0);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_DYNSYM);
	CHECK(t, s[0]->src_file == NULL);
	CHECK_INT(t, s[0]->line_err, -EMFILE);
	CHECK_INT(t, printed.level, ADDRRES_WARN);
	CHECK(t, strstr(printed.last, "out of file descriptors") != NULL);
	/* descriptors again: the file read again, with its debug file */
	while (nr_fillers)
		close(fillers[--nr_fillers]);
	CHECK_ERR(t, addrres_elf__resolve(e, lib, &off, 1, s, NULL), 0);
	CHECK_SYM(t, s[0], "fixture_lib_func", func, 0, ADDRRES_ELF_SYMTAB_DEBUG_FILE);
	CHECK_LINE(t, s[0], "lib.c", "fixture_lib_func");
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.reads, 2);
	CHECK_U64(t, st.files, 1);
out:
	while (nr_fillers)
		close(fillers[--nr_fillers]);
	if (lowered)
		setrlimit(RLIMIT_NOFILE, &old);
	addrres_set_print(NULL);
	addrres_elf__free(e);
}

/* addrres_elf__drop(): every file closed, the handle usable. */
static void test_cache_drop(struct test *t, const void *arg)
{
	const struct addrres_elf_sym *s[1];
	struct addrres_elf_stats st;
	struct addrres_elf *e = NULL;
	uint64_t off = 0x1000;
	int before;
	char msg[512];

	(void)arg;
	NEED_FIXTURES(t);
	before = count_fds();
	OPEN(t, e, no_debug_dir(), false, msg);
	RESOLVE(t, e, out_file("pie"), NULL, 0, &off, 1, s, msg);
	RESOLVE(t, e, out_file("lib.so"), NULL, 0, &off, 1, s, msg);
	CHECK(t, count_fds() > before);
	addrres_elf__drop(e);
	CHECK_INT(t, count_fds(), before);
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.files, 0);
	CHECK_U64(t, st.evicted, 2);
	RESOLVE(t, e, out_file("pie"), NULL, 0, &off, 1, s, msg);
	CHECK_INT(t, elf_stats(e, &st), 0);
	CHECK_U64(t, st.reads, 3);
	addrres_elf__drop(NULL);
	CHECK_ERR(t, addrres_elf__stats(NULL, &st), -EINVAL);
out:
	addrres_elf__free(e);
}

/* ---- the fixtures ---- */

/* Run fixtures/elf/build.sh into SCRATCH/elf; elf_dir is set if it worked. */
static void build_fixtures(void)
{
	char script[PATH_MAX], dir[PATH_MAX];
	char *argv[] = { "sh", script, dir, NULL };
	pid_t pid;
	int status;

	static char built[PATH_MAX];

	snprintf(script, sizeof(script), "%s/elf/build.sh", fixtures_dir);
	snprintf(dir, sizeof(dir), "%s/elf", scratch_dir);
	if (posix_spawnp(&pid, "sh", NULL, NULL, argv, environ)) {
		fprintf(stderr, "cannot run %s\n", script);
		return;
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "%s %s failed\n", script, dir);
		return;
	}
	if (realpath(dir, built))
		elf_dir = built;
}

#define CASE(fn) { #fn + 5, fn, NULL, false, false, "" }

static struct test tests[] = {
	CASE(test_pie_symbols_and_lines),
	CASE(test_non_pie_executable),
	CASE(test_no_lines),
	CASE(test_shared_library_vma),
	CASE(test_resolve_vmas_batch),
	CASE(test_vma_opened_by_path),
	CASE(test_exited_process),
	CASE(test_exited_process_file_replaced),
	CASE(test_stripped_dynsym),
	CASE(test_gnu_debugdata),
	CASE(test_debug_file_by_build_id),
	CASE(test_debug_file_by_debuglink),
	CASE(test_debuglink_default_dirs),
	CASE(test_debuglink_absolute_dir_and_crc),
	CASE(test_debuglink_fifo_passed),
	CASE(test_debuglink_dev_zero_passed),
	CASE(test_build_id_fifo_passed),
	CASE(test_elf_fifo_refused),
	CASE(test_perf_map_fifo_refused),
	CASE(test_debug_cache_hostile),
	CASE(test_no_debuginfod),
	CASE(test_build_id_mismatch),
	CASE(test_not_elf),
	CASE(test_no_file),
	CASE(test_offset_outside_segments),
	CASE(test_vdso),
	CASE(test_opts_and_arguments),
	CASE(test_free_closes_files),
	CASE(test_index_matches_libdwfl),
	{ "inline_chain", test_inline_chain, "names.so", false, false, "" },
	{ "inline_chain_clang", test_inline_chain, "names-clang.so", false, false, "" },
	CASE(test_clang_lines),
	CASE(test_no_line_past_unit),
	CASE(test_inline_chain_nested),
	CASE(test_inline_chain_off),
	CASE(test_cache_build_id_shared),
	CASE(test_cache_rewritten_in_place),
	CASE(test_cache_rewritten_vma),
	CASE(test_cache_debug_file_rewritten),
	CASE(test_cache_rewritten_same_build_id),
	CASE(test_cache_touched),
	CASE(test_cache_max_files),
	CASE(test_cache_max_bytes),
	CASE(test_cache_emfile),
	CASE(test_debug_file_emfile),
	CASE(test_cache_drop),
	CASE(test_elf_addrs),
	CASE(test_offline_by_build_id),
	CASE(test_message_kept_by_handle),
	CASE(test_print_callback),
	CASE(test_syms_dup),
	CASE(test_answer_lifetime),
	CASE(test_answer_lifetime_in_batch),
	CASE(test_lines_missing_zstd),
	CASE(test_debug_cache_dir),
	CASE(test_debug_cache_no_symlinks),
	CASE(test_debug_cache_copy_checked),
	CASE(test_debug_cache_threads),
	CASE(test_dwarf_inflated),
	CASE(test_dwarf_inflate_corrupt),
	CASE(test_dwarf_inflate_cap),
	CASE(test_dwarf_inflate_checked),
	CASE(test_dwz_alt_file),
	CASE(test_perf_map),
	CASE(test_perf_map_untrusted),
	CASE(test_debugdata_cap),
	CASE(test_inlines_match_libdw),
	CASE(test_demangle),
	CASE(test_demangle_off),
	CASE(test_symbol_versions),
	CASE(test_object_by_section),
	CASE(test_object_errors),
	CASE(test_object_debug_file),
};

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s FIXTURES_DIR SCRATCH_DIR\n", argv[0]);
		return 2;
	}
	fixtures_dir = argv[1];
	scratch_dir = argv[2];
	/* The caller's servers must not change what is found (see test_no_debuginfod). */
	unsetenv("DEBUGINFOD_URLS");
	build_fixtures();
	return run_tests(tests, sizeof(tests) / sizeof(tests[0]));
}
