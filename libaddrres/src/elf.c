// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ELF symbols: offsets of an executable or shared library, or addresses
 * of one VMA of a process, as symbols and source lines, with elfutils'
 * libdwfl.
 *
 * Each file gets a Dwfl of its own with one module, reported at its
 * link-time addresses (dwfl_report_elf() with base 0 and add_p_vaddr, so
 * a bias of 0 whether it is ET_EXEC or ET_DYN): a module address is then
 * the file's own address, &addrres_elf_sym.elf_addr.  One Dwfl for every
 * file would need an address space where the files do not overlap, which
 * link-time addresses are not.  libdwfl does the rest: which symbol table
 * (.symtab, else a debug file's, else .dynsym and .gnu_debugdata), the
 * search for the debug file, the DWARF line tables.
 *
 * The cache has two maps with binary keys (copied into the arena), both
 * to a struct elf_file: "files" by device, inode and build ID holds every
 * file read, "inodes" by device and inode the last file read of that
 * inode, so that a VMA without a build ID finds its file without opening
 * anything.  The vdso has no inode: its key in "files" is its build ID
 * (without one, its size and a hash of its bytes).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#ifndef LIBADDRRES_NO_LIBELF
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>
#endif

#include "internal.h"

#ifndef LIBADDRRES_NO_LIBELF

/* Where debug files are looked for when the caller does not say. */
#define DEFAULT_DEBUG_DIRS "/usr/lib/debug"
/* The largest vdso image read: the kernel's are a few pages. */
#define VDSO_MAX_SIZE (16u << 20)

/* A PT_LOAD segment: where its bytes are in the file and in memory. */
struct elf_load {
	uint64_t offset, filesz, memsz, vaddr;
};

/*
 * A section that takes memory (SHF_ALLOC): at [start, end], end included
 * as libdwfl's dwfl_module_address_section() includes it.
 */
struct elf_alloc_scn {
	uint64_t start, end;
};

/* What the library reads of a file itself, from the ELF libdwfl opened. */
struct elf_facts {
	struct elf_load *loads;
	size_t nr_loads;
	unsigned char build_id[ADDRRES_BUILD_ID_MAX];
	size_t build_id_size;
	bool has_symtab;	/* a .symtab of its own */
	bool has_debugdata;	/* a .gnu_debugdata section */
	bool relocatable;	/* ET_DYN: a PIE, a shared library, the vdso */
	/*
	 * The SHF_ALLOC sections by address, no two starting together, none
	 * overlapping; NULL where they are not so (libdwfl is asked, see
	 * section_of()).
	 */
	struct elf_alloc_scn *scns;
	size_t nr_scns;
};

/* A symbol as dwfl_module_addrinfo() weighs it (see "the symbol index"). */
struct sym_ent {
	uint64_t value;		/* the address it is matched at: getsym_info's */
	uint64_t size;		/* st_size */
	const char *name;
	Elf *elf;		/* the ELF of its table */
	GElf_Word shndx;	/* getsym_info's: -1 if its section is not SHF_ALLOC */
	int ndx;		/* its index in libdwfl's table: the order of its scan */
	int bind;		/* libdwfl's preference: global 3, weak 2, local 1, other 0 */
};

/* The globals or the locals of a module, which libdwfl searches apart. */
struct sym_range {
	struct sym_ent *ents;	/* by value, then index */
	/*
	 * A Fenwick tree of the ends (value + size, at most UINT64_MAX):
	 * maxend[j], 1 <= j <= n, is the largest end of ents[j - lowbit(j)]
	 * to ents[j - 1].  It finds the symbols holding an address without
	 * visiting all those below it, however far below a large one starts.
	 */
	uint64_t *maxend;
	size_t n;
};

enum sym_index_state {
	SYM_INDEX_NONE,		/* not built yet: on the file's first lookup */
	SYM_INDEX_BUILT,
	SYM_INDEX_LIBDWFL,	/* not usable: every lookup asks libdwfl */
};

struct sym_index {
	enum sym_index_state state;
	struct sym_range globals, locals;
};

/* A file of the cache. */
struct elf_file {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;		/* the module's main ELF, libdwfl's */
	uint64_t bias;		/* module address - file address: 0, checked */
	struct elf_facts facts;
	struct sym_index index;
	/*
	 * The last relative source name made absolute, the compilation
	 * directory it was joined with, and what that made.
	 */
	const char *rel_src, *rel_dir, *abs_src;
};

struct addrres_elf {
	struct libaddrres_errbuf eb;
	bool no_lines;
	char *debug_dirs;		/* callbacks.debuginfo_path points to it */
	Dwfl_Callbacks callbacks;	/* libdwfl keeps a pointer to it */
	struct libaddrres_arena arena;	/* the maps' keys */
	struct libaddrres_strmap files;	/* file key -> struct elf_file */
	struct libaddrres_strmap inodes;	/* inode key -> the last one of it */
	struct libaddrres_strmap srcs;	/* source paths made absolute, interned */
	struct addrres_elf_sym *syms;	/* the results of the last resolve */
	size_t syms_cap;
};

/* ---- libdwfl's callbacks ---- */

/*
 * Where libdwfl looks for a module's file when it was not given one:
 * dwfl_report_elf() always gives it, and nothing else may be looked for
 * (dwfl_build_id_find_elf() would ask debuginfod).
 */
static int find_no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
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

/*
 * libdwfl's standard search of the debug file (callbacks.debuginfo_path
 * from &addrres_elf_opts.debug_dirs), but for its last resort: where it
 * found nothing for a file with a build ID, it asks the debuginfod
 * servers of $DEBUGINFOD_URLS, which a library must not do behind its
 * caller's back (a download, or a wait on the network, per file).  With
 * servers set, only the search by build ID runs, which never asks them;
 * without any, the standard search's query returns at once (ENOSYS).
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");

	if (urls && *urls)
		return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					    debuglink_file, debuglink_crc, debuginfo_file_name);
}

/* ---- the cache's keys ---- */

/* A kind byte ('f' file, 'i' inode, 'v' vdso), then what identifies it. */
struct key {
	unsigned char b[1 + 2 * sizeof(uint64_t) + ADDRRES_BUILD_ID_MAX];
	size_t len;
};

static void key_init(struct key *k, char kind)
{
	k->b[0] = (unsigned char)kind;
	k->len = 1;
}

static void key_add(struct key *k, const void *p, size_t n)
{
	memcpy(k->b + k->len, p, n);
	k->len += n;
}

static void key_inode(struct key *k, char kind, uint64_t dev, uint64_t ino)
{
	key_init(k, kind);
	key_add(k, &dev, sizeof(dev));
	key_add(k, &ino, sizeof(ino));
}

static struct elf_file *map_get(const struct libaddrres_strmap *m, const struct key *k)
{
	struct libaddrres_strmap_ent *ent = libaddrres_strmap_find(m, (const char *)k->b, k->len);

	return ent ? ent->val : NULL;
}

/* Map @k to @f, replacing what it mapped to: 0 or -ENOMEM. */
static int map_set(struct addrres_elf *e, struct libaddrres_strmap *m, const struct key *k,
		   struct elf_file *f)
{
	struct libaddrres_strmap_ent *ent = libaddrres_strmap_find(m, (const char *)k->b, k->len);
	char *copy;

	if (ent) {
		ent->val = f;
		return 0;
	}
	copy = libaddrres_arena_alloc(&e->arena, k->len, 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, k->b, k->len);
	return libaddrres_strmap_add(m, copy, k->len, f);
}

static bool same_id(const struct elf_facts *f, const unsigned char *id, size_t size)
{
	return f->build_id_size == size && !memcmp(f->build_id, id, size);
}

/*
 * The cached file of device @dev and inode @ino, with the build ID @id
 * if @id_size (else the last one read of that inode); NULL if none.
 */
static struct elf_file *file_cached(struct addrres_elf *e, uint64_t dev, uint64_t ino,
				    const unsigned char *id, size_t id_size)
{
	struct elf_file *f;
	struct key k;

	key_inode(&k, 'i', dev, ino);
	f = map_get(&e->inodes, &k);
	if (!f || !id_size || same_id(&f->facts, id, id_size))
		return f;
	/* Rewritten in place since, and now asked for as it was before? */
	key_inode(&k, 'f', dev, ino);
	key_add(&k, id, id_size);
	return map_get(&e->files, &k);
}

/* ---- reading a file ---- */

static void facts_free(struct elf_facts *f)
{
	free(f->loads);
	free(f->scns);
	memset(f, 0, sizeof(*f));
}

static int cmp_alloc_scn(const void *a, const void *b)
{
	const struct elf_alloc_scn *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * Keep f->scns only if libdwfl's search in them has one answer (see
 * section_of()): no two start at one address, none overlaps another.
 */
static void scns_check(struct elf_facts *f)
{
	bool exact = f->scns != NULL;

	if (exact)
		qsort(f->scns, f->nr_scns, sizeof(*f->scns), cmp_alloc_scn);
	for (size_t i = 0; exact && i < f->nr_scns; i++) {
		exact = i + 1 == f->nr_scns ||
			(f->scns[i].start < f->scns[i + 1].start &&
			 f->scns[i].end <= f->scns[i + 1].start);
	}
	if (!exact) {
		free(f->scns);
		f->scns = NULL;
		f->nr_scns = 0;
	}
}

/*
 * The segments, build ID, tables and sections of @elf (libdwfl's, or an
 * image in memory), read with libelf.  0; -ENOEXEC (*@why says why) or
 * -ENOMEM.
 */
static int facts_read(Elf *elf, struct elf_facts *f, const char **why)
{
	size_t phnum, shnum, shstrndx;
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;

	memset(f, 0, sizeof(*f));
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr)) {
		*why = "not an ELF file";
		return -ENOEXEC;
	}
	/* What a process maps: no object file, no core file. */
	f->relocatable = ehdr.e_type == ET_DYN;
	if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN) {
		*why = "not an ELF executable or shared library";
		return -ENOEXEC;
	}
	if (elf_getphdrnum(elf, &phnum)) {
		*why = "unreadable ELF program headers";
		return -ENOEXEC;
	}
	f->loads = calloc(phnum ? phnum : 1, sizeof(*f->loads));
	if (!f->loads) {
		*why = "out of memory";
		return -ENOMEM;
	}
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->loads[f->nr_loads++] = (struct elf_load){
			.offset = ph.p_offset, .filesz = ph.p_filesz,
			.memsz = ph.p_memsz, .vaddr = ph.p_vaddr,
		};
	}
	f->build_id_size = libaddrres_elf_build_id(elf, f->build_id);
	/* No section headers (a file stripped of them): no .symtab either. */
	if (elf_getshdrstrndx(elf, &shstrndx) || elf_getshdrnum(elf, &shnum))
		return 0;
	/* Without room for them, libdwfl is asked which section is where. */
	f->scns = calloc(shnum ? shnum : 1, sizeof(*f->scns));
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			f->has_symtab = true;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".gnu_debugdata"))
			f->has_debugdata = true;
		if (f->scns && (sh.sh_flags & SHF_ALLOC) && f->nr_scns < shnum) {
			f->scns[f->nr_scns++] = (struct elf_alloc_scn){
				.start = sh.sh_addr, .end = sh.sh_addr + sh.sh_size,
			};
		}
	}
	scns_check(f);
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash && slash[1] ? slash + 1 : path;
}

static void index_free(struct sym_index *ix);

static void file_free(struct elf_file *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);
	facts_free(&f->facts);
	index_free(&f->index);
	free(f);
}

/*
 * Why libdwfl could not report the file @fd (not consumed) named @name:
 * -ENOEXEC with what the file is, or -ENOMEM.  Only on that failure is the
 * file opened a second time.
 */
static int report_failed(struct addrres_elf *e, int fd, const char *name)
{
	const char *dwfl_why = dwfl_errmsg(-1), *why = NULL;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	struct elf_facts facts;
	int err;

	err = facts_read(elf, &facts, &why);
	if (elf)
		elf_end(elf);
	facts_free(&facts);
	if (err)
		return libaddrres_err(&e->eb, err, "%s: %s", name, why);
	return libaddrres_err(&e->eb, -ENOEXEC, "%s: libdwfl: %s", name, dwfl_why);
}

/*
 * A file read from @fd (consumed, also on failure): libdwfl's module of it
 * and, from the ELF libdwfl opened (read once), its facts.  @name is what
 * libdwfl calls it, and the path of its search by .gnu_debuglink.
 */
static int file_new(struct addrres_elf *e, int fd, const char *name, struct elf_file **filep)
{
	struct elf_file *f = calloc(1, sizeof(*f));
	const char *why = NULL;
	Dwarf_Addr bias;
	int err;

	if (!f) {
		close(fd);
		return libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", name);
	}
	f->dwfl = dwfl_begin(&e->callbacks);
	if (!f->dwfl) {
		close(fd);
		err = libaddrres_err(&e->eb, -ENOMEM, "%s: libdwfl: %s", name, dwfl_errmsg(-1));
		goto fail;
	}
	dwfl_report_begin(f->dwfl);
	f->mod = dwfl_report_elf(f->dwfl, base_name(name), name, fd, 0, true);
	if (!f->mod) {
		err = report_failed(e, fd, name);
		close(fd);	/* consumed on success only */
		goto fail;
	}
	if (dwfl_report_end(f->dwfl, NULL, NULL)) {
		err = libaddrres_err(&e->eb, -ENOMEM, "%s: libdwfl: %s", name, dwfl_errmsg(-1));
		goto fail;
	}
	f->elf = dwfl_module_getelf(f->mod, &bias);
	if (!f->elf) {
		err = libaddrres_err(&e->eb, -ENOEXEC, "%s: libdwfl: %s", name, dwfl_errmsg(-1));
		goto fail;
	}
	f->bias = bias;
	err = facts_read(f->elf, &f->facts, &why);
	if (err) {
		err = libaddrres_err(&e->eb, err, "%s: %s", name, why);
		goto fail;
	}
	*filep = f;
	return 0;
fail:
	file_free(f);
	return err;
}

/*
 * Into the cache: @f under the file key @fk, or the file already there
 * (@f freed); the inode key @ik, if not NULL, then maps to it too.
 */
static int file_keep(struct addrres_elf *e, struct elf_file *f, const char *name,
		     const struct key *fk, const struct key *ik, struct elf_file **filep)
{
	struct elf_file *had = map_get(&e->files, fk);

	if (had) {
		file_free(f);
		f = had;
	} else if (map_set(e, &e->files, fk, f)) {
		file_free(f);
		return libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", name);
	}
	/* The files map owns it now: it is freed with the handle. */
	*filep = f;
	if (ik && map_set(e, &e->inodes, ik, f))
		return libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", name);
	return 0;
}

/*
 * The file @fd (consumed) of device @dev and inode @ino, named @name,
 * which must have the build ID @want if @want_size: from the cache if it
 * has it (another file of that inode than file_cached() found), else
 * read and added.
 */
static int file_get(struct addrres_elf *e, int fd, const char *name, uint64_t dev, uint64_t ino,
		    const unsigned char *want, size_t want_size, struct elf_file **filep)
{
	struct elf_file *f;
	struct key fk, ik;
	int err;

	err = file_new(e, fd, name, &f);
	if (err)
		return err;
	if (want_size && !same_id(&f->facts, want, want_size)) {
		err = libaddrres_err(&e->eb, -ESTALE, "%s: %s (replaced since it was mapped?)", name,
				     f->facts.build_id_size ? "its build ID is not the one given" :
							      "it has no build ID, and one was given");
		file_free(f);
		return err;
	}
	key_inode(&fk, 'f', dev, ino);
	key_add(&fk, f->facts.build_id, f->facts.build_id_size);
	key_inode(&ik, 'i', dev, ino);
	return file_keep(e, f, name, &fk, &ik, filep);
}

/* ---- the vdso ---- */

/*
 * A copy of the vdso image @vma of process @pid (0: ours).  Ours is read
 * with process_vm_readv(), not copied from getauxval(AT_SYSINFO_EHDR):
 * the VMA given may be of the past, no longer mapped or not as long,
 * which must fail (EFAULT), not crash; where a seccomp filter forbids
 * it, and for another process, from /proc/PID/mem, which those allowed
 * to ptrace the process may read (as its maps file).
 */
static int vdso_read(struct addrres_elf *e, int pid, const struct addrres_vma *vma,
		     char **imagep, size_t *sizep)
{
	size_t size = vma->end - vma->start, done = 0;
	char path[64], ebuf[128], *image;
	int fd, err;

	if (size > VDSO_MAX_SIZE)
		return libaddrres_err(&e->eb, -EFBIG, "[vdso]: %zu bytes, too large for a vdso", size);
	image = malloc(size);
	if (!image)
		return libaddrres_err(&e->eb, -ENOMEM, "[vdso]: out of memory");
	if (!pid) {
		struct iovec local = { .iov_base = image, .iov_len = size };
		struct iovec remote = { .iov_base = (void *)(uintptr_t)vma->start, .iov_len = size };
		ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);

		if (got >= 0 && (size_t)got == size) {
			*imagep = image;
			*sizep = size;
			return 0;
		}
		if (got >= 0 || (errno != ENOSYS && errno != EPERM)) {
			err = got < 0 ? -errno : -EFAULT;
			free(image);
			return libaddrres_err(&e->eb, err, "[vdso]: reading %llx-%llx: %s",
					      (unsigned long long)vma->start,
					      (unsigned long long)vma->end,
					      libaddrres_strerror(err, ebuf, sizeof(ebuf)));
		}
	}
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/mem");
	if (vma->start > (uint64_t)INT64_MAX - size) {
		free(image);
		return libaddrres_err(&e->eb, -EINVAL, "[vdso]: %s: address 0x%llx out of range",
				      path, (unsigned long long)vma->start);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(image);
		return libaddrres_err(&e->eb, err, "[vdso]: %s: %s", path,
				      libaddrres_strerror(err, ebuf, sizeof(ebuf)));
	}
	while (done < size) {
		ssize_t got = pread(fd, image + done, size - done, (off_t)(vma->start + done));

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			/* 0: the process is gone, or the VMA with it. */
			err = got < 0 ? -errno : -EIO;
			close(fd);
			free(image);
			return libaddrres_err(&e->eb, err, "[vdso]: %s at 0x%llx: %s", path,
					      (unsigned long long)vma->start,
					      libaddrres_strerror(err, ebuf, sizeof(ebuf)));
		}
		done += (size_t)got;
	}
	close(fd);
	*imagep = image;
	*sizep = size;
	return 0;
}

/*
 * The vdso of @vma as a file of the cache: libdwfl reads files, so the
 * image goes into a memfd, which is the vdso's file from then on.
 */
static int vdso_get(struct addrres_elf *e, int pid, const struct addrres_vma *vma,
		    struct elf_file **filep)
{
	struct elf_facts facts;
	struct elf_file *f;
	const char *why = NULL;
	char ebuf[128], *image = NULL;
	size_t size = 0, done = 0;
	struct key fk;
	Elf *elf;
	int fd, err;

	err = vdso_read(e, pid, vma, &image, &size);
	if (err)
		return err;
	/* Its build ID first: libdwfl reads only a vdso not seen before. */
	elf = elf_memory(image, size);
	err = facts_read(elf, &facts, &why);
	if (elf)
		elf_end(elf);
	if (err) {
		free(image);
		return libaddrres_err(&e->eb, err, "[vdso]: %s", why);
	}
	/*
	 * Every process of one ABI has the same vdso: its build ID says
	 * which; without one, its bytes do.
	 */
	key_init(&fk, 'v');
	if (facts.build_id_size) {
		key_add(&fk, facts.build_id, facts.build_id_size);
	} else {
		uint64_t hash = libaddrres_hash(image, size), sz = size;

		key_add(&fk, &sz, sizeof(sz));
		key_add(&fk, &hash, sizeof(hash));
	}
	facts_free(&facts);
	*filep = map_get(&e->files, &fk);
	if (*filep) {
		free(image);
		return 0;
	}
	/* libdwfl reads files: the image goes into one. */
	fd = memfd_create("addrres vdso", MFD_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		free(image);
		return libaddrres_err(&e->eb, err, "[vdso]: memfd_create: %s",
				      libaddrres_strerror(err, ebuf, sizeof(ebuf)));
	}
	while (done < size) {
		ssize_t put = write(fd, image + done, size - done);

		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0) {
			err = put < 0 ? -errno : -EIO;
			close(fd);
			free(image);
			return libaddrres_err(&e->eb, err, "[vdso]: writing its copy: %s",
					      libaddrres_strerror(err, ebuf, sizeof(ebuf)));
		}
		done += (size_t)put;
	}
	free(image);
	err = file_new(e, fd, "[vdso]", &f);
	if (err)
		return err;
	return file_keep(e, f, "[vdso]", &fk, NULL, filep);
}

/* ---- resolving ---- */

/* The segment holding file offset @off: in its file bytes, else its page's .bss. */
static const struct elf_load *load_of(const struct elf_facts *f, uint64_t off)
{
	for (size_t i = 0; i < f->nr_loads; i++) {
		if (off >= f->loads[i].offset && off - f->loads[i].offset < f->loads[i].filesz)
			return &f->loads[i];
	}
	for (size_t i = 0; i < f->nr_loads; i++) {
		if (off >= f->loads[i].offset && off - f->loads[i].offset < f->loads[i].memsz)
			return &f->loads[i];
	}
	return NULL;
}

/*
 * Which table libdwfl found the symbol in, from the ELF it says it came
 * from: the file's own (its .symtab if it has one, else its .dynsym), or
 * another: a debug file or the image of .gnu_debugdata.  libdwfl reads
 * .gnu_debugdata only when the debug file it found (if any) has no
 * .symtab, so without a debug file it is that one, and with a debug file
 * but no .gnu_debugdata the debug file.
 */
static enum addrres_elf_symtab symtab_of(const struct elf_file *f, Elf *symelf)
{
	const char *debugfile = NULL;
	Dwarf_Addr bias;
	Dwarf *dw;

	if (!symelf || symelf == f->elf)
		return f->facts.has_symtab ? ADDRRES_ELF_SYMTAB_SYMTAB : ADDRRES_ELF_SYMTAB_DYNSYM;
	dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	if (!debugfile)
		return ADDRRES_ELF_SYMTAB_GNU_DEBUGDATA;
	if (!f->facts.has_debugdata)
		return ADDRRES_ELF_SYMTAB_DEBUG_FILE;
	dw = dwfl_module_getdwarf(f->mod, &bias);
	return dw && dwarf_getelf(dw) == symelf ? ADDRRES_ELF_SYMTAB_DEBUG_FILE :
						  ADDRRES_ELF_SYMTAB_GNU_DEBUGDATA;
}

/* ---- the symbol index ---- */

/*
 * dwfl_module_addrinfo() reads the module's whole symbol table for every
 * address it is asked (elfutils' libdwfl/dwfl_module_addrsym.c: a loop
 * over the globals, then one over the locals), thousands of symbols for
 * a libc.  The index holds the same symbols, read once through libdwfl
 * on the file's first lookup (dwfl_module_getsym_info(): the same tables,
 * .symtab, the debug file's, .dynsym with .gnu_debugdata, at the same
 * addresses), sorted by address, and gives libdwfl's answer from the few
 * symbols around the address.  What libdwfl does, and the index with it:
 *
 *  - it skips the symbols without a name, undefined (st_shndx SHN_UNDEF),
 *    of type STT_SECTION, STT_FILE or STT_TLS, or above the address;
 *  - it scans the globals (from dwfl_module_getsymtab_first_global() on),
 *    then the locals only if no sized global holds the address and no
 *    sizeless global is at the address itself;
 *  - of the sized symbols that hold the address in the part scanned, it
 *    keeps, in table order, each that starts higher than the one kept, or
 *    binds more strongly (global, weak, local, other), or starts at the
 *    same address with the same binding and is smaller.  With bindings
 *    that differ the order matters, so the index replays that on the
 *    symbols holding the address;
 *  - failing one, a sizeless symbol (an assembly label) only if it is at
 *    the highest end (value + size) of all the symbols scanned at or
 *    below the address (no other ends between it and the address), and
 *    in the address's section (dwfl_module_address_section()'s, whatever
 *    its st_shndx; one of a special section, absolute or not SHF_ALLOC,
 *    only at the address itself): the last such in table order.
 *
 * libdwfl is asked instead where a function's address is not its
 * st_value (function descriptors: libdwfl then tries both), where memory
 * for the index is short, where more than SYM_HOLDERS_MAX symbols hold
 * the address, and where it cannot say which section a label is in.
 */
#define SYM_HOLDERS_MAX 64

static void range_free(struct sym_range *r)
{
	free(r->ents);
	free(r->maxend);
	memset(r, 0, sizeof(*r));
}

static void index_free(struct sym_index *ix)
{
	range_free(&ix->globals);
	range_free(&ix->locals);
}

static uint64_t sym_end(const struct sym_ent *s)
{
	return s->value > UINT64_MAX - s->size ? UINT64_MAX : s->value + s->size;
}

/* libdwfl's preference among bindings: higher is better. */
static int bind_value(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

static int cmp_sym_ent(const void *a, const void *b)
{
	const struct sym_ent *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return (x->ndx > y->ndx) - (x->ndx < y->ndx);
}

/* Sort @r and build its tree of ends: 0 or -ENOMEM. */
static int range_finish(struct sym_range *r)
{
	if (r->n)
		qsort(r->ents, r->n, sizeof(*r->ents), cmp_sym_ent);
	r->maxend = calloc(r->n + 1, sizeof(*r->maxend));
	if (!r->maxend)
		return -ENOMEM;
	for (size_t j = 1; j <= r->n; j++) {
		uint64_t m = sym_end(&r->ents[j - 1]);

		/* Its block: its own symbol and the blocks of j - 1, j - 2, j - 4... */
		for (size_t k = 1; k < (j & -j); k <<= 1) {
			if (r->maxend[j - k] > m)
				m = r->maxend[j - k];
		}
		r->maxend[j] = m;
	}
	return 0;
}

/*
 * Read the module's symbols into f->index as dwfl_module_addrinfo() reads
 * them; where that cannot be done, every lookup of the file asks libdwfl.
 */
static void index_build(struct elf_file *f)
{
	struct sym_index *ix = &f->index;
	int nsyms = dwfl_module_getsymtab(f->mod), first_global, start, end;

	ix->state = SYM_INDEX_BUILT;
	/* Without a table libdwfl finds nothing, and so does an empty index. */
	first_global = nsyms < 0 ? -1 : dwfl_module_getsymtab_first_global(f->mod);
	if (first_global < 0)
		return;
	/* libdwfl's two scans: [start, nsyms), then [1, first_global). */
	start = first_global > 1 ? first_global : 1;
	end = first_global > nsyms ? first_global : nsyms;
	ix->globals.ents = calloc(nsyms > 0 ? (size_t)nsyms : 1, sizeof(struct sym_ent));
	ix->locals.ents = calloc((size_t)start, sizeof(struct sym_ent));
	if (!ix->globals.ents || !ix->locals.ents)
		goto libdwfl;
	for (int i = 1; i < end; i++) {
		struct sym_range *r = i < start ? &ix->locals : &ix->globals;
		const char *name;
		GElf_Addr value;
		GElf_Word shndx;
		Dwarf_Addr bias;
		GElf_Sym sym;
		Elf *elf;
		int type;

		if (i >= nsyms && r == &ix->globals)
			break;
		name = dwfl_module_getsym_info(f->mod, i, &sym, &value, &shndx, &elf, &bias);
		if (!name || !name[0] || sym.st_shndx == SHN_UNDEF)
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_SECTION || type == STT_FILE || type == STT_TLS)
			continue;
		/* A function descriptor's: libdwfl also tries st_value. */
		if ((type == STT_FUNC || type == STT_GNU_IFUNC) && value != sym.st_value + bias)
			goto libdwfl;
		r->ents[r->n++] = (struct sym_ent){
			.value = value, .size = sym.st_size, .name = name, .elf = elf,
			.shndx = shndx, .ndx = i, .bind = bind_value(&sym),
		};
	}
	if (range_finish(&ix->globals) || range_finish(&ix->locals))
		goto libdwfl;
	return;
libdwfl:
	index_free(ix);
	ix->state = SYM_INDEX_LIBDWFL;
}

/* How many symbols of @r are at or below @addr. */
static size_t range_upto(const struct sym_range *r, uint64_t addr)
{
	size_t lo = 0, hi = r->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->ents[mid].value <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The sized symbol, of the first @upto of @r, that libdwfl's scan keeps
 * for @addr into *@best, NULL if none holds @addr; false if too many do
 * to replay the scan here.
 */
static bool range_holder(const struct sym_range *r, size_t upto, uint64_t addr,
			 const struct sym_ent **best)
{
	const struct sym_ent *held[SYM_HOLDERS_MAX], *c = NULL;
	size_t n = 0, j = upto;

	while (j > 0) {
		const struct sym_ent *s = &r->ents[j - 1];

		/* None of ents[j - lowbit(j)] to ents[j - 1] reaches @addr. */
		if (r->maxend[j] <= addr && r->maxend[j] != UINT64_MAX) {
			j -= j & -j;
			continue;
		}
		if (s->size && addr - s->value < s->size) {
			if (n == SYM_HOLDERS_MAX)
				return false;
			held[n++] = s;
		}
		j--;
	}
	/* Found from the top down: into table order, that of the scan. */
	for (size_t i = 1; i < n; i++) {
		const struct sym_ent *s = held[i];
		size_t k = i;

		for (; k > 0 && held[k - 1]->ndx > s->ndx; k--)
			held[k] = held[k - 1];
		held[k] = s;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sym_ent *s = held[i];

		if (!c || c->value < s->value || c->bind < s->bind ||
		    (c->value == s->value && c->bind == s->bind && c->size > s->size))
			c = s;
	}
	*best = c;
	return true;
}

/* The largest end of the first @upto symbols of @r; 0 if none. */
static uint64_t range_maxend(const struct sym_range *r, size_t upto)
{
	uint64_t m = 0;

	for (size_t j = upto; j > 0; j -= j & -j) {
		if (r->maxend[j] > m)
			m = r->maxend[j];
	}
	return m;
}

/* Whether @r has a sizeless symbol at @addr, among its first @upto. */
static bool range_label_at(const struct sym_range *r, size_t upto, uint64_t addr)
{
	for (size_t j = upto; j > 0 && r->ents[j - 1].value == addr; j--) {
		if (!r->ents[j - 1].size)
			return true;
	}
	return false;
}

/*
 * Which of @f's sections dwfl_module_address_section() finds module
 * address @addr in: its position in f->facts.scns, -1 if none (elfutils'
 * libdwfl/derelocate.c, find_section(): a binary search in the sections
 * sorted by address, where a section holds its end too unless the next
 * one starts there).  With no two starting at one address and none
 * overlapping, as scns_check() made sure, at most two sections hold an
 * address, the second starting there, and every path of that search
 * ends on it: this one's answer.
 */
static long section_of(const struct elf_file *f, uint64_t addr)
{
	const struct elf_facts *fa = &f->facts;
	size_t lo = 0, hi = fa->nr_scns;

	addr -= f->bias;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < fa->scns[mid].start) {
			hi = mid;
		} else if (addr > fa->scns[mid].end) {
			lo = mid + 1;
		} else {
			if (addr == fa->scns[mid].end && mid + 1 < fa->nr_scns &&
			    addr == fa->scns[mid + 1].start)
				mid++;
			return (long)mid;
		}
	}
	return -1;
}

/*
 * Whether libdwfl finds module addresses @label and @addr in the same
 * section (dwfl_module_addrinfo() compares what
 * dwfl_module_address_section() gives for both): 1 or 0; -1 if it
 * cannot say.  That is NULL for an address in no section, and NULL is
 * NULL's section; a label is in a section but for the odd end-of-section
 * marker past a gap, so such a label means asking libdwfl.
 *
 * From the file's own section table where it has one answer: libdwfl's
 * call loads the module's DWARF first (derelocate.c, check_module()), the
 * better part of a file's first lookup when no line is asked for.  Where
 * that DWARF is broken, libdwfl finds no section for either address and
 * would take a label of any section; the table keeps to the address's.
 */
static int same_section(const struct elf_file *f, uint64_t label, uint64_t addr)
{
	Dwarf_Addr a = label, b = addr, bias;
	Elf_Scn *sa, *sb;
	long la;

	if (f->facts.scns) {
		la = section_of(f, label);
		if (la >= 0)
			return la == section_of(f, addr);
		return -1;
	}
	sa = dwfl_module_address_section(f->mod, &a, &bias);
	if (!sa)
		return -1;
	sb = dwfl_module_address_section(f->mod, &b, &bias);
	return sb && elf_ndxscn(sa) == elf_ndxscn(sb);
}

/*
 * The sizeless symbol at @m of @r that libdwfl would fall back to for
 * @addr: the last in table order in @addr's section, into *@best (NULL
 * if none).  *@same caches same_section() (-1: not asked yet).  false:
 * libdwfl must be asked.
 */
static bool range_label(const struct elf_file *f, const struct sym_range *r, uint64_t m,
			uint64_t addr, int *same, const struct sym_ent **best)
{
	*best = NULL;
	/* By index within one value: from the top, the first that fits. */
	for (size_t j = range_upto(r, m); j > 0 && r->ents[j - 1].value == m; j--) {
		const struct sym_ent *s = &r->ents[j - 1];

		if (s->size)
			continue;
		if (m != addr && s->shndx >= SHN_LORESERVE)
			continue;
		if (m != addr && *same < 0) {
			*same = same_section(f, m, addr);
			if (*same < 0)
				return false;
		}
		if (m != addr && !*same)
			continue;
		*best = s;
		return true;
	}
	return true;
}

/*
 * dwfl_module_addrinfo()'s symbol for module address @addr, from the
 * index, into *@hit (NULL: none); false where libdwfl must be asked.
 */
static bool index_lookup(struct elf_file *f, uint64_t addr, const struct sym_ent **hit)
{
	struct sym_index *ix = &f->index;
	size_t gupto, lupto = 0;
	bool locals;
	int same = -1;
	uint64_t m;

	if (ix->state == SYM_INDEX_NONE)
		index_build(f);
	if (ix->state != SYM_INDEX_BUILT)
		return false;
	gupto = range_upto(&ix->globals, addr);
	if (!range_holder(&ix->globals, gupto, addr, hit))
		return false;
	if (*hit)
		return true;
	locals = ix->locals.n && !range_label_at(&ix->globals, gupto, addr);
	/* No symbol holds @addr: every end is at or below it. */
	m = range_maxend(&ix->globals, gupto);
	if (locals) {
		lupto = range_upto(&ix->locals, addr);
		if (!range_holder(&ix->locals, lupto, addr, hit))
			return false;
		if (*hit)
			return true;
		if (range_maxend(&ix->locals, lupto) > m)
			m = range_maxend(&ix->locals, lupto);
		/* Scanned last: a local label comes after a global one. */
		if (!range_label(f, &ix->locals, m, addr, &same, hit))
			return false;
		if (*hit)
			return true;
	}
	return range_label(f, &ix->globals, m, addr, &same, hit);
}

/*
 * dwfl_module_addrinfo() of module address @addr, from the index if it
 * can answer: the symbol's name (NULL if none), its offset, size,
 * section index and ELF.
 */
static const char *addrinfo(struct elf_file *f, uint64_t addr, uint64_t *off, uint64_t *size,
			    GElf_Word *shndx, Elf **symelf)
{
	const struct sym_ent *s;
	const char *name;
	GElf_Off o;
	GElf_Sym sym;

	if (index_lookup(f, addr, &s)) {
		if (!s)
			return NULL;
		*off = addr - s->value;
		*size = s->size;
		*shndx = s->shndx;
		*symelf = s->elf;
		return s->name;
	}
	name = dwfl_module_addrinfo(f->mod, addr, &o, &sym, shndx, symelf, NULL);
	if (name) {
		*off = o;
		*size = sym.st_size;
	}
	return name;
}

/*
 * The source file of @line, named @src by its line table: made absolute
 * with its compilation directory, as eu-addr2line prints it, if relative.
 * Out of memory for that, @src.
 */
static const char *src_path(struct addrres_elf *e, struct elf_file *f, Dwfl_Line *line,
			    const char *src)
{
	const char *dir = src[0] != '/' ? dwfl_line_comp_dir(line) : NULL;
	const char *abs;
	char *path;
	int len;

	if (!dir || !*dir)
		return src;
	/* A line table names its files once: the pointers say which. */
	if (src == f->rel_src && dir == f->rel_dir)
		return f->abs_src;
	len = asprintf(&path, "%s/%s", dir, src);
	if (len < 0)
		return src;
	abs = libaddrres_intern(&e->srcs, &e->arena, path, (size_t)len);
	free(path);
	if (!abs)
		return src;
	f->rel_src = src;
	f->rel_dir = dir;
	f->abs_src = abs;
	return abs;
}

/* What file offset @off of @f holds, into @s; NULL if no segment holds it. */
static const struct addrres_elf_sym *sym_at(struct addrres_elf *e, struct elf_file *f,
					    uint64_t off, struct addrres_elf_sym *s)
{
	const struct elf_load *l = load_of(&f->facts, off);
	uint64_t mod_addr, sym_off = 0, sym_size = 0;
	GElf_Word shndx = SHN_UNDEF;
	Elf *symelf = NULL;
	const char *name;

	if (!l)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->elf_addr = off - l->offset + l->vaddr;
	mod_addr = s->elf_addr + f->bias;
	name = addrinfo(f, mod_addr, &sym_off, &sym_size, &shndx, &symelf);
	/*
	 * An absolute symbol of a file loaded anywhere (the vdso's version
	 * names, of value 0) does not move with it: it names no code there,
	 * as eu-addr2line --pid, which loads the file at its real address,
	 * finds.
	 */
	if (name && shndx == SHN_ABS && f->facts.relocatable)
		name = NULL;
	if (name) {
		s->name = name;
		s->offset = sym_off;
		s->size = sym_size;
		s->symtab = symtab_of(f, symelf);
	}
	if (!e->no_lines) {
		Dwfl_Line *line = dwfl_module_getsrc(f->mod, mod_addr);
		int lineno = 0, col = 0;
		const char *src = line ? dwfl_lineinfo(line, NULL, &lineno, &col, NULL, NULL) : NULL;

		if (src) {
			s->src_file = src_path(e, f, line, src);
			s->line = lineno > 0 ? (unsigned int)lineno : 0;
			s->column = col > 0 ? (unsigned int)col : 0;
		}
	}
	return s;
}

/*
 * Room for @n results in e->syms.  Pointers into it from an earlier call
 * die: a batch reserves once for all its groups (resolve_vmas()).
 */
static int syms_reserve(struct addrres_elf *e, size_t n, const char *name)
{
	struct addrres_elf_sym *p;

	if (n <= e->syms_cap)
		return 0;
	if (n > SIZE_MAX / sizeof(*p))
		return libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", name);
	p = realloc(e->syms, n * sizeof(*p));
	if (!p)
		return libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", name);
	e->syms = p;
	e->syms_cap = n;
	return 0;
}

/*
 * syms[i] for the file offset @vals[i] + @adj of @f (wrapping), i < @n,
 * kept in @store[i].  A profile names the same addresses again and
 * again: a hash table of the offsets seen (open addressing, slots of
 * index + 1) looks each up once and copies it to its repeats.  Short of
 * memory for the table, each is looked up where it is.
 */
static void resolve_file(struct addrres_elf *e, struct elf_file *f,
			 const uint64_t *vals, uint64_t adj, size_t n,
			 const struct addrres_elf_sym **syms, struct addrres_elf_sym *store)
{
	unsigned int bits = 4;
	size_t *slots = NULL, mask;

	while (bits < 8 * sizeof(size_t) - 2 && ((size_t)1 << bits) < 2 * n)
		bits++;
	mask = ((size_t)1 << bits) - 1;
	/* At most half full, so that a probe ends on a free slot soon. */
	if (n > 1 && n <= (mask >> 1) + 1)
		slots = calloc(mask + 1, sizeof(*slots));
	for (size_t i = 0; i < n; i++) {
		uint64_t off = vals[i] + adj;
		/* The product's top bits: offsets alike in their low bits spread. */
		size_t h = (size_t)((off * 0x9e3779b97f4a7c15ull) >> (64 - bits));

		if (!slots) {
			syms[i] = sym_at(e, f, off, &store[i]);
			continue;
		}
		while (slots[h] && vals[slots[h] - 1] + adj != off)
			h = (h + 1) & mask;
		if (slots[h]) {
			size_t k = slots[h] - 1;

			if (syms[k])
				store[i] = store[k];
			syms[i] = syms[k] ? &store[i] : NULL;
			continue;
		}
		slots[h] = i + 1;
		syms[i] = sym_at(e, f, off, &store[i]);
	}
	free(slots);
}

/* ---- the API ---- */

int addrres_elf__open(const struct addrres_elf_opts *opts, struct addrres_elf **ep)
{
	struct libaddrres_errbuf eb = { 0 };
	struct addrres_elf *e;
	const char *dirs;
	int err;

	if (ep)
		*ep = NULL;
	err = LIBADDRRES_OPTS_START(opts, &eb, "addrres_elf_opts");
	if (err)
		return err;
	if (!ep)
		return libaddrres_err(&eb, -EINVAL, "addrres_elf__open: ep is NULL");
	e = calloc(1, sizeof(*e));
	if (!e)
		return libaddrres_err(&eb, -ENOMEM, "addrres_elf__open: out of memory");
	dirs = LIBADDRRES_OPTS_GET(opts, debug_dirs, NULL);
	e->debug_dirs = strdup(dirs ? dirs : DEFAULT_DEBUG_DIRS);
	if (!e->debug_dirs) {
		free(e);
		return libaddrres_err(&eb, -ENOMEM, "addrres_elf__open: out of memory");
	}
	e->eb = eb;
	e->no_lines = LIBADDRRES_OPTS_GET(opts, no_lines, false);
	e->callbacks.find_elf = find_no_elf;
	e->callbacks.find_debuginfo = find_debuginfo;
	e->callbacks.debuginfo_path = &e->debug_dirs;
	/*
	 * Only for an object file, which libdwfl lays out before
	 * facts_read() refuses it: without one, libdwfl calls NULL.
	 */
	e->callbacks.section_address = dwfl_offline_section_address;
	/* Idempotent; libelf refuses to work before it. */
	elf_version(EV_CURRENT);
	*ep = e;
	return 0;
}

void addrres_elf__free(struct addrres_elf *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->files.cap; i++) {
		struct elf_file *f = e->files.ents[i].val;

		if (!e->files.ents[i].key)
			continue;
		file_free(f);
	}
	libaddrres_strmap_free(&e->files);
	libaddrres_strmap_free(&e->inodes);
	libaddrres_strmap_free(&e->srcs);
	libaddrres_arena_free(&e->arena);
	free(e->syms);
	free(e->debug_dirs);
	free(e);
}

int addrres_elf__resolve(struct addrres_elf *e, const char *path,
			 const unsigned char *build_id, size_t build_id_size,
			 const uint64_t *file_offsets, size_t n,
			 const struct addrres_elf_sym **syms)
{
	struct elf_file *f;
	struct stat st;
	char ebuf[128];
	int fd, err;

	if (syms) {
		for (size_t i = 0; i < n; i++)
			syms[i] = NULL;
	}
	if (!e)
		return -EINVAL;
	libaddrres_err_clear(&e->eb);
	if (!path || ((!file_offsets || !syms) && n))
		return libaddrres_err(&e->eb, -EINVAL,
				      "addrres_elf__resolve: path, file_offsets or syms is NULL");
	if (build_id_size > ADDRRES_BUILD_ID_MAX || !build_id != !build_id_size)
		return libaddrres_err(&e->eb, -EINVAL,
				      "%s: a build ID of %zu bytes (1 to %d, with a pointer)", path,
				      build_id_size, ADDRRES_BUILD_ID_MAX);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		return libaddrres_err(&e->eb, err, "%s: %s", path,
				      libaddrres_strerror(err, ebuf, sizeof(ebuf)));
	}
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return libaddrres_err(&e->eb, err, "%s: %s", path,
				      libaddrres_strerror(err, ebuf, sizeof(ebuf)));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return libaddrres_err(&e->eb, -ENOEXEC, "%s: not a regular file", path);
	}
	f = file_cached(e, (uint64_t)st.st_dev, (uint64_t)st.st_ino, build_id, build_id_size);
	if (f) {
		close(fd);
	} else {
		err = file_get(e, fd, path, (uint64_t)st.st_dev, (uint64_t)st.st_ino, build_id,
			       build_id_size, &f);
		if (err)
			return err;
	}
	err = syms_reserve(e, n, path);
	if (!err)
		resolve_file(e, f, file_offsets, 0, n, syms, e->syms);
	return err;
}

/* addrres_elf__resolve_vma(), its results kept in @store (@n of them). */
static int resolve_vma(struct addrres_elf *e, int pid, const struct addrres_vma *vma,
		       const uint64_t *addrs, size_t n, const struct addrres_elf_sym **syms,
		       struct addrres_elf_sym *store)
{
	static const char deleted[] = " (deleted)";
	char why[PATH_MAX + 160], name[PATH_MAX + 32];
	const char *vname;
	struct elf_file *f;
	uint64_t dev;
	size_t len;
	int fd, err;

	vname = vma->name ? vma->name : "";
	/* For messages: the VMA's name, or its range if it has none. */
	if (*vname)
		snprintf(name, sizeof(name), "%s", vname);
	else
		snprintf(name, sizeof(name), "%llx-%llx", (unsigned long long)vma->start,
			 (unsigned long long)vma->end);
	if (vma->build_id_size > ADDRRES_BUILD_ID_MAX || !vma->build_id != !vma->build_id_size)
		return libaddrres_err(&e->eb, -EINVAL, "%s: a build ID of %zu bytes", name,
				      vma->build_id_size);
	for (size_t i = 0; i < n; i++) {
		if (addrs[i] < vma->start || addrs[i] >= vma->end)
			return libaddrres_err(&e->eb, -EINVAL,
					      "%s: address 0x%llx is outside the VMA %llx-%llx", name,
					      (unsigned long long)addrs[i],
					      (unsigned long long)vma->start,
					      (unsigned long long)vma->end);
	}
	if (!vma->inode && !strcmp(vname, "[vdso]")) {
		err = vdso_get(e, pid, vma, &f);
		if (err)
			return err;
		/* Its image starts at the VMA's start: offsets from there. */
		resolve_file(e, f, addrs, -vma->start, n, syms, store);
		return 0;
	}
	if (!vma->inode)
		return libaddrres_err(&e->eb, -ENOENT, "%s: no file is mapped there", name);
	dev = (uint64_t)makedev(vma->dev_major, vma->dev_minor);
	f = file_cached(e, dev, vma->inode, vma->build_id, vma->build_id_size);
	if (!f) {
		fd = libaddrres_open_mapped_file(pid, vma, vname, why, sizeof(why));
		if (fd < 0)
			return libaddrres_err(&e->eb, fd, "%s: %s", name, why);
		/* The path libdwfl's search by .gnu_debuglink starts from. */
		len = strlen(name);
		if (len > strlen(deleted) && !strcmp(name + len - strlen(deleted), deleted))
			name[len - strlen(deleted)] = '\0';
		err = file_get(e, fd, name, dev, vma->inode, vma->build_id, vma->build_id_size, &f);
		if (err)
			return err;
	}
	resolve_file(e, f, addrs, vma->offset - vma->start, n, syms, store);
	return 0;
}

int addrres_elf__resolve_vma(struct addrres_elf *e, int pid, const struct addrres_vma *vma,
			     const uint64_t *addrs, size_t n,
			     const struct addrres_elf_sym **syms)
{
	int err;

	if (syms) {
		for (size_t i = 0; i < n; i++)
			syms[i] = NULL;
	}
	if (!e)
		return -EINVAL;
	libaddrres_err_clear(&e->eb);
	if (!vma || pid < 0 || ((!addrs || !syms) && n))
		return libaddrres_err(&e->eb, -EINVAL,
				      "addrres_elf__resolve_vma: a negative pid, or vma, addrs or syms is NULL");
	err = syms_reserve(e, n, vma->name ? vma->name : "");
	if (!err)
		err = resolve_vma(e, pid, vma, addrs, n, syms, e->syms);
	return err;
}

/* Of two positions of a batch, the one whose VMA starts lower first. */
static int cmp_by_vma(const void *a, const void *b, void *vmas)
{
	const struct addrres_vma *const *v = vmas;
	const struct addrres_vma *x = v[*(const size_t *)a], *y = v[*(const size_t *)b];
	uint64_t xs = x ? x->start : 0, ys = y ? y->start : 0;

	return xs < ys ? -1 : xs > ys;
}

int addrres_elf__resolve_vmas(struct addrres_elf *e, int pid, const uint64_t *addrs,
			      const struct addrres_vma *const *vmas, size_t n,
			      const struct addrres_elf_sym **syms, int *errs)
{
	const struct addrres_elf_sym **group_syms = NULL;
	uint64_t *group_addrs = NULL;
	size_t *order = NULL, i, j;
	int err = 0;

	if (syms) {
		for (i = 0; i < n; i++)
			syms[i] = NULL;
	}
	if (errs) {
		for (i = 0; i < n; i++)
			errs[i] = 0;
	}
	if (!e)
		return -EINVAL;
	libaddrres_err_clear(&e->eb);
	if (pid < 0 || ((!addrs || !vmas || !syms) && n))
		return libaddrres_err(&e->eb, -EINVAL,
				      "addrres_elf__resolve_vmas: a negative pid, or addrs, vmas or syms is NULL");
	if (!n)
		return 0;
	order = calloc(n, sizeof(*order));
	group_addrs = calloc(n, sizeof(*group_addrs));
	group_syms = calloc(n, sizeof(*group_syms));
	if (!order || !group_addrs || !group_syms) {
		err = libaddrres_err(&e->eb, -ENOMEM, "addrres_elf__resolve_vmas: out of memory");
		goto out;
	}
	/* Room for the whole batch first: each group keeps its part. */
	err = syms_reserve(e, n, "addrres_elf__resolve_vmas");
	if (err)
		goto out;
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_by_vma, (void *)vmas);
	for (i = 0; i < n; i = j) {
		const struct addrres_vma *vma = vmas[order[i]];
		int verr;

		for (j = i; j < n && vmas[order[j]] == vma; j++)
			group_addrs[j - i] = addrs[order[j]];
		if (!vma)
			continue;
		verr = resolve_vma(e, pid, vma, group_addrs, j - i, group_syms, &e->syms[i]);
		if (verr == -ENOMEM || verr == -EINVAL) {
			err = verr;
			goto out;
		}
		for (size_t k = i; k < j; k++) {
			syms[order[k]] = verr ? NULL : group_syms[k - i];
			if (errs)
				errs[order[k]] = verr;
		}
	}
out:
	if (err) {
		for (i = 0; i < n; i++)
			syms[i] = NULL;
	}
	free(order);
	free(group_addrs);
	free(group_syms);
	return err;
}

#else /* LIBADDRRES_NO_LIBELF */

/* Built without elfutils (LIBELF=0): the same functions, that say so. */

int addrres_elf__open(const struct addrres_elf_opts *opts, struct addrres_elf **ep)
{
	struct libaddrres_errbuf eb = { 0 };
	int err;

	if (ep)
		*ep = NULL;
	err = LIBADDRRES_OPTS_START(opts, &eb, "addrres_elf_opts");
	if (err)
		return err;
	if (!ep)
		return libaddrres_err(&eb, -EINVAL, "addrres_elf__open: ep is NULL");
	return libaddrres_err(&eb, -EOPNOTSUPP,
			      "addrres_elf__open: libaddrres was built without elfutils (LIBELF=0)");
}

void addrres_elf__free(struct addrres_elf *e)
{
	(void)e;
}

/* What every lookup of this build answers: no symbols, -EOPNOTSUPP. */
static int unsupported(const struct addrres_elf_sym **syms, int *errs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (syms)
			syms[i] = NULL;
		if (errs)
			errs[i] = -EOPNOTSUPP;
	}
	return -EOPNOTSUPP;
}

int addrres_elf__resolve(struct addrres_elf *e, const char *path,
			 const unsigned char *build_id, size_t build_id_size,
			 const uint64_t *file_offsets, size_t n,
			 const struct addrres_elf_sym **syms)
{
	(void)e, (void)path, (void)build_id, (void)build_id_size, (void)file_offsets;
	return unsupported(syms, NULL, n);
}

int addrres_elf__resolve_vma(struct addrres_elf *e, int pid, const struct addrres_vma *vma,
			     const uint64_t *addrs, size_t n,
			     const struct addrres_elf_sym **syms)
{
	(void)e, (void)pid, (void)vma, (void)addrs;
	return unsupported(syms, NULL, n);
}

int addrres_elf__resolve_vmas(struct addrres_elf *e, int pid, const uint64_t *addrs,
			      const struct addrres_vma *const *vmas, size_t n,
			      const struct addrres_elf_sym **syms, int *errs)
{
	(void)e, (void)pid, (void)addrs, (void)vmas;
	return unsupported(syms, errs, n);
}

#endif /* LIBADDRRES_NO_LIBELF */
