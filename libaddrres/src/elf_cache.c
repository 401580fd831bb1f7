// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The ELF part's cache of files (see elf.c): the keys, reading a file
 * with libdwfl, and keeping it under its keys.
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

#include "elf_internal.h"

/* ---- the cache's keys ---- */

void libaddrres_elf_key_init(struct key *k, char kind)
{
	k->b[0] = (unsigned char)kind;
	k->len = 1;
}

void libaddrres_elf_key_add(struct key *k, const void *p, size_t n)
{
	memcpy(k->b + k->len, p, n);
	k->len += n;
}

static void key_inode(struct key *k, char kind, uint64_t dev, uint64_t ino)
{
	libaddrres_elf_key_init(k, kind);
	libaddrres_elf_key_add(k, &dev, sizeof(dev));
	libaddrres_elf_key_add(k, &ino, sizeof(ino));
}

struct elf_file *libaddrres_elf_map_get(const struct libaddrres_strmap *m, const struct key *k)
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
struct elf_file *libaddrres_elf_file_cached(struct addrres_elf *e, uint64_t dev, uint64_t ino,
					    const unsigned char *id, size_t id_size)
{
	struct elf_file *f;
	struct key k;

	key_inode(&k, 'i', dev, ino);
	f = libaddrres_elf_map_get(&e->inodes, &k);
	if (!f || !id_size || same_id(&f->facts, id, id_size))
		return f;
	/* Rewritten in place since, and now asked for as it was before? */
	key_inode(&k, 'f', dev, ino);
	libaddrres_elf_key_add(&k, id, id_size);
	return libaddrres_elf_map_get(&e->files, &k);
}

/* ---- reading a file ---- */

void libaddrres_elf_facts_free(struct elf_facts *f)
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
int libaddrres_elf_facts_read(Elf *elf, struct elf_facts *f, const char **why)
{
	size_t phnum, shnum, shstrndx;
	bool code = false, code_bytes = false;
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
		if ((ph.p_flags & PF_X) && ph.p_memsz)
			code = true, code_bytes |= ph.p_filesz > 0;
		f->loads[f->nr_loads++] = (struct elf_load){
			.offset = ph.p_offset, .filesz = ph.p_filesz,
			.memsz = ph.p_memsz, .vaddr = ph.p_vaddr,
		};
	}
	f->no_code_bytes = code && !code_bytes;
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

void libaddrres_elf_file_free(struct elf_file *f)
{
	if (f->dwfl)
		dwfl_end(f->dwfl);
	libaddrres_elf_facts_free(&f->facts);
	libaddrres_elf_index_free(&f->index);
	libaddrres_elf_inlines_free(f);
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

	err = libaddrres_elf_facts_read(elf, &facts, &why);
	if (elf)
		elf_end(elf);
	libaddrres_elf_facts_free(&facts);
	if (err)
		return libaddrres_err(&e->eb, err, "%s: %s", name, why);
	return libaddrres_err(&e->eb, -ENOEXEC, "%s: libdwfl: %s", name, dwfl_why);
}

/*
 * A file read from @fd (consumed, also on failure): libdwfl's module of it
 * and, from the ELF libdwfl opened (read once), its facts.  @name is what
 * libdwfl calls it, and the path of its search by .gnu_debuglink.
 */
int libaddrres_elf_file_new(struct addrres_elf *e, int fd, const char *name,
			    struct elf_file **filep)
{
	struct elf_file *f = calloc(1, sizeof(*f));
	const char *why = NULL;
	void **userdata;
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
	/* find_debuginfo() reads the handle's options through it. */
	f->owner = e;
	dwfl_module_info(f->mod, &userdata, NULL, NULL, NULL, NULL, NULL, NULL);
	*userdata = f;
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
	err = libaddrres_elf_facts_read(f->elf, &f->facts, &why);
	if (err) {
		err = libaddrres_err(&e->eb, err, "%s: %s", name, why);
		goto fail;
	}
	*filep = f;
	return 0;
fail:
	libaddrres_elf_file_free(f);
	return err;
}

/*
 * Into the cache: @f under the file key @fk, or the file already there
 * (@f freed); the inode key @ik, if not NULL, then maps to it too.
 */
int libaddrres_elf_file_keep(struct addrres_elf *e, struct elf_file *f, const char *name,
			     const struct key *fk, const struct key *ik, struct elf_file **filep)
{
	struct elf_file *had = libaddrres_elf_map_get(&e->files, fk);

	if (had) {
		libaddrres_elf_file_free(f);
		f = had;
	} else if (map_set(e, &e->files, fk, f)) {
		libaddrres_elf_file_free(f);
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
 * has it (another file of that inode than libaddrres_elf_file_cached() found), else
 * read and added.
 */
int libaddrres_elf_file_get(struct addrres_elf *e, int fd, const char *name, uint64_t dev,
			    uint64_t ino, const unsigned char *want, size_t want_size,
			    struct elf_file **filep)
{
	struct elf_file *f;
	struct key fk, ik;
	int err;

	err = libaddrres_elf_file_new(e, fd, name, &f);
	if (err)
		return err;
	if (want_size && !same_id(&f->facts, want, want_size)) {
		err = libaddrres_err(&e->eb, -ESTALE, "%s: %s (replaced since it was mapped?)", name,
				     f->facts.build_id_size ? "its build ID is not the one given" :
							      "it has no build ID, and one was given");
		libaddrres_elf_file_free(f);
		return err;
	}
	key_inode(&fk, 'f', dev, ino);
	libaddrres_elf_key_add(&fk, f->facts.build_id, f->facts.build_id_size);
	key_inode(&ik, 'i', dev, ino);
	return libaddrres_elf_file_keep(e, f, name, &fk, &ik, filep);
}
