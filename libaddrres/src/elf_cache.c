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

/*
 * Map @k to @f, replacing what it mapped to, and note the key in @f to
 * remove with it: 0 or -ENOMEM.  The map owns a copy of the key.
 */
static int map_set(struct libaddrres_strmap *m, const struct key *k, struct elf_file *f)
{
	struct libaddrres_strmap_ent *ent = libaddrres_strmap_find(m, (const char *)k->b, k->len);
	struct elf_alias *more;
	char *copy;

	if (ent && ent->val == f)
		return 0;
	more = reallocarray(f->aliases, f->nr_aliases + 1, sizeof(*more));
	if (!more)
		return -ENOMEM;
	f->aliases = more;
	if (ent) {
		ent->val = f;
	} else {
		copy = malloc(k->len);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, k->b, k->len);
		if (libaddrres_strmap_add(m, copy, k->len, f)) {
			free(copy);
			return -ENOMEM;
		}
	}
	f->aliases[f->nr_aliases++] = (struct elf_alias){ .map = m, .key = *k };
	return 0;
}

/* ---- the limits: least recently used first ---- */

static void lru_unlink(struct addrres_elf *e, struct elf_file *f)
{
	if (f->lru_prev)
		f->lru_prev->lru_next = f->lru_next;
	else if (e->lru_head == f)
		e->lru_head = f->lru_next;
	if (f->lru_next)
		f->lru_next->lru_prev = f->lru_prev;
	else if (e->lru_tail == f)
		e->lru_tail = f->lru_prev;
	f->lru_prev = f->lru_next = NULL;
}

static void lru_push(struct addrres_elf *e, struct elf_file *f)
{
	f->lru_prev = NULL;
	f->lru_next = e->lru_head;
	if (e->lru_head)
		e->lru_head->lru_prev = f;
	e->lru_head = f;
	if (!e->lru_tail)
		e->lru_tail = f;
}

/* @f is used by the current call: most recent, and not to be closed. */
static void file_touch(struct addrres_elf *e, struct elf_file *f)
{
	f->used = e->calls;
	if (e->lru_head != f) {
		lru_unlink(e, f);
		lru_push(e, f);
	}
}

/* Close @f: every key that names it goes, then the file. */
static void file_evict(struct addrres_elf *e, struct elf_file *f)
{
	for (size_t i = 0; i < f->nr_aliases; i++) {
		const struct elf_alias *a = &f->aliases[i];
		struct libaddrres_strmap_ent *ent =
			libaddrres_strmap_find(a->map, (const char *)a->key.b, a->key.len);

		/* A key since given to another file stays its. */
		if (ent && ent->val == f) {
			free((char *)ent->key);
			libaddrres_strmap_del(a->map, ent);
		}
	}
	lru_unlink(e, f);
	e->nr_files--;
	e->stats.evicted++;
	libaddrres_elf_file_free(f);
}

/* ---- a file's lifetime in a call ---- */

/*
 * A resolve call's start: its number, and the files beyond the limits
 * closed (none is in use yet).  The files it then uses are pinned
 * (libaddrres_elf_file_pin()) until the next call starts: as long as its
 * answers, which point into them, live.  Nothing else opens, checks or
 * closes a file: the lookups (elf_symbols.c) only read pinned ones.
 */
void libaddrres_elf_call_start(struct addrres_elf *e)
{
	e->calls++;
	libaddrres_elf_cache_trim(e, 0);
}

/* Hold @fd's file as it is now; -1 for none. */
void libaddrres_elf_held_set(struct held_fd *h, int fd)
{
	struct stat st;

	h->fd = -1;
	if (fd < 0 || fstat(fd, &st))
		return;
	*h = (struct held_fd){
		.fd = fd, .dev = st.st_dev, .ino = st.st_ino, .size = st.st_size,
		.mtime = st.st_mtim,
	};
}

/* Whether the file of @h is as it was when read (a descriptor gone, or reused, is not). */
static bool held_same(const struct held_fd *h)
{
	struct stat st;

	if (h->fd < 0)
		return true;
	return !fstat(h->fd, &st) && st.st_dev == h->dev && st.st_ino == h->ino &&
	       st.st_size == h->size && st.st_mtim.tv_sec == h->mtime.tv_sec &&
	       st.st_mtim.tv_nsec == h->mtime.tv_nsec;
}

/**
 * libaddrres_elf_file_pin() - make a cached file safe to read for this call
 * @e: the handle
 * @f: a file the cache gave
 *
 * The first time a call uses @f, its file, debug file and dwz file are
 * checked on the descriptors libdwfl holds (size and modification time):
 * one rewritten in place since it was read is closed, as the answers of
 * earlier calls may be (libaddrres_elf_call_start()); so is one whose
 * debug file could not be looked for, out of descriptors, to look again.  @f then stays
 * until the next call.
 *
 * Return: 0; -ESTALE if @f was closed: read the file again.
 */
int libaddrres_elf_file_pin(struct addrres_elf *e, struct elf_file *f)
{
	if (f->used != e->calls) {
		for (size_t i = 0; i < sizeof(f->held) / sizeof(f->held[0]); i++) {
			/* One read without its debug file for want of descriptors: again. */
			if (!held_same(&f->held[i]) || f->debug_starved) {
				file_evict(e, f);
				e->stats.files = e->nr_files;
				return -ESTALE;
			}
		}
	}
	file_touch(e, f);
	return 0;
}

/*
 * What libdw holds for a file's DWARF, past the sections themselves (see
 * docs/figures.md, "stats.bytes"): fitted to its heap growth on Debian
 * 12's elfutils 0.188, libc6-dbg's libc asked 1 to 3,000 addresses
 * (2,063 units; within 2% at each size).  Per unit of the file once its
 * DWARF is open (aranges, unit headers), per unit whose line table was
 * read, per row of those tables.
 */
#define LIBDW_UNIT_BYTES 2300
#define LIBDW_LINE_UNIT_BYTES 6250
#define LIBDW_LINE_ROW_BYTES 59

/*
 * What @f takes: the files libdwfl maps (the file, its debug file and dwz
 * file, by the size of each when read), what was decompressed of them
 * (by the library, exactly; by libdw, from the sections' headers), the
 * library's indexes and answers, and libdw's own structures for the
 * DWARF read so far (the model above).
 */
static size_t file_bytes(struct elf_file *f)
{
	size_t total = f->index_bytes + f->arena.bytes + f->inflated_bytes + f->libdw_inflated;

	/*
	 * From counts only: a file is weighed before a call pins it, and one
	 * rewritten since must not be read (libaddrres_elf_file_pin()).
	 */
	for (size_t i = 0; i < sizeof(f->held) / sizeof(f->held[0]); i++) {
		if (f->held[i].fd >= 0)
			total += (size_t)f->held[i].size;
	}
	return total + f->nr_dwarf_units * LIBDW_UNIT_BYTES + f->nr_line_units * LIBDW_LINE_UNIT_BYTES +
	       f->line_rows * LIBDW_LINE_ROW_BYTES;
}

/*
 * Close the least recently used files, but those of the current call,
 * until @room more fit within max_files and the estimates within
 * max_bytes.
 */
void libaddrres_elf_cache_trim(struct addrres_elf *e, size_t room)
{
	/*
	 * The files are weighed at a call's start (for the stats) and, with
	 * max_bytes, before each file read: not for every file a batch reads
	 * when nothing limits bytes.
	 */
	bool weigh = e->max_bytes || !room;
	size_t bytes = 0;

	for (struct elf_file *f = weigh ? e->lru_head : NULL; f; f = f->lru_next) {
		if (f->bytes_at < f->used || !f->bytes_at) {
			f->bytes = file_bytes(f);
			f->bytes_at = e->calls;
		}
		bytes += f->bytes;
	}
	while (e->lru_tail && e->lru_tail->used != e->calls &&
	       (e->nr_files + room > e->max_files || (e->max_bytes && bytes > e->max_bytes))) {
		struct elf_file *f = e->lru_tail;

		if (weigh)
			bytes -= f->bytes;
		file_evict(e, f);
	}
	e->stats.files = e->nr_files;
	/* the names and paths of the answers, the handle's: no file's to close */
	if (weigh)
		e->stats.bytes = bytes + e->arena.bytes;
}

void libaddrres_elf_cache_drop(struct addrres_elf *e)
{
	while (e->lru_head)
		file_evict(e, e->lru_head);
	e->stats.files = 0;
	e->stats.bytes = 0;
}

/*
 * Where an open failed with @err for want of descriptors (-EMFILE,
 * -ENFILE), close the files the current call does not use: whether it
 * did, and the open is worth trying once more.
 */
bool libaddrres_elf_fds_reclaim(struct addrres_elf *e, int err)
{
	if (err != -EMFILE && err != -ENFILE)
		return false;
	libaddrres_elf_cache_trim(e, SIZE_MAX / 2);
	return true;
}

/* open(@path) for the cache, once more if out of descriptors: an fd or a negative errno. */
int libaddrres_elf_open_retry(struct addrres_elf *e, const char *path)
{
	int fd = libaddrres_open_regular(AT_FDCWD, path, 0, NULL);

	if (libaddrres_elf_fds_reclaim(e, fd))
		fd = libaddrres_open_regular(AT_FDCWD, path, 0, NULL);
	return fd;
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
	/* What a process maps, or an object file (a kernel module); no core file. */
	f->relocatable = ehdr.e_type == ET_DYN;
	f->object = ehdr.e_type == ET_REL;
	if (ehdr.e_type != ET_EXEC && ehdr.e_type != ET_DYN && !f->object) {
		*why = "not an ELF executable, shared library or object file";
		return -ENOEXEC;
	}
	if (elf_getphdrnum(elf, &phnum)) {
		*why = "unreadable ELF program headers";
		return -ENOEXEC;
	}
	/* An object file's program headers, if any, say nothing: libdwfl lays out its sections. */
	if (f->object)
		phnum = 0;
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
	if (elf_getshdrstrndx(elf, &shstrndx) || elf_getshdrnum(elf, &shnum)) {
		if (!f->object)
			return 0;
		*why = "an object file without section headers";
		return -ENOEXEC;
	}
	if (f->object) {
		void *loads = reallocarray(f->loads, shnum ? shnum : 1, sizeof(*f->loads));

		if (!loads) {
			*why = "out of memory";
			return -ENOMEM;
		}
		f->loads = loads;
	}
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
		if (f->object && (sh.sh_flags & SHF_ALLOC) && sh.sh_size && f->nr_loads < shnum) {
			f->loads[f->nr_loads++] = (struct elf_load){
				.offset = sh.sh_offset, .memsz = sh.sh_size, .vaddr = sh.sh_addr,
				.filesz = sh.sh_type == SHT_NOBITS ? 0 : sh.sh_size,
			};
		}
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
	/* libdw read them until its end. */
	for (size_t i = 0; i < f->nr_inflated; i++)
		free(f->inflated[i]);
	free(f->inflated);
	libaddrres_elf_facts_free(&f->facts);
	libaddrres_elf_index_free(&f->index);
	free(f->units);
	free(f->ranged_units);
	libaddrres_elf_inlines_free(f);
	libaddrres_arena_free(&f->arena);
	libaddrres_strmap_free(&f->srcs);
	libaddrres_strmap_free(&f->answers);
	libaddrres_strmap_free(&f->line_units);
	free(f->aliases);
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
	/* A MiniDebugInfo too large to decompress is hidden from libdwfl. */
	fd = libaddrres_elf_debugdata_guard(e, fd, name);
	if (fd < 0) {
		err = fd;
		goto fail;
	}
	for (size_t i = 0; i < sizeof(f->held) / sizeof(f->held[0]); i++)
		f->held[i].fd = -1;
	libaddrres_elf_held_set(&f->held[0], fd);
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
	e->stats.reads++;
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

	/* The one cached may have been rewritten since (the same build ID, another size): checked. */
	if (had && had != f && libaddrres_elf_file_pin(e, had))
		had = NULL;
	if (had) {
		/* One read twice: the new one goes (not one the cache holds already). */
		if (had != f && !f->cached)
			libaddrres_elf_file_free(f);
		f = had;
	} else if (map_set(&e->files, fk, f)) {
		/* A file shared by build ID is the cache's already. */
		if (!f->cached)
			libaddrres_elf_file_free(f);
		return libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", name);
	} else if (!f->cached) {
		/* The cache owns it now: closed by its limits, a drop or the free. */
		f->cached = true;
		lru_push(e, f);
		e->nr_files++;
		e->stats.files = e->nr_files;
	}
	file_touch(e, f);
	*filep = f;
	if (ik && map_set(&e->inodes, ik, f))
		return libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", name);
	return 0;
}

/* The key of the files of build ID @id whose file has @size bytes. */
static void key_build(struct key *k, const unsigned char *id, size_t id_size, uint64_t size)
{
	libaddrres_elf_key_init(k, 'b');
	libaddrres_elf_key_add(k, &size, sizeof(size));
	libaddrres_elf_key_add(k, id, id_size);
}

/*
 * The file @fd (consumed) of device @dev and inode @ino, named @name,
 * which must have the build ID @want if @want_size (a VMA's, if @mapped:
 * a mismatch then says the file was likely replaced): from the cache if it
 * has it (another file of that inode than libaddrres_elf_file_cached() found), else
 * read and added.
 */
int libaddrres_elf_file_get(struct addrres_elf *e, int fd, const char *name, uint64_t dev,
			    uint64_t ino, const unsigned char *want, size_t want_size, bool mapped,
			    struct elf_file **filep)
{
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	size_t id_size = libaddrres_fd_build_id(fd, id);
	struct elf_file *f = NULL;
	struct key fk, ik, bk, mk;
	struct stat st;
	int err;

	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return libaddrres_err(&e->eb, err, "%s: fstat: %s", name, strerror(-err));
	}
	if (want_size && (id_size != want_size || memcmp(id, want, want_size))) {
		close(fd);
		return libaddrres_err(&e->eb, -ESTALE, "%s: %s%s", name,
				      id_size ? "its build ID is not the one given" :
						"it has no build ID, and one was given",
				      mapped ? " (replaced since it was mapped?)" : "");
	}
	/* Another copy of a file read already (same build ID and size): that one. */
	if (id_size) {
		key_build(&bk, id, id_size, (uint64_t)st.st_size);
		f = libaddrres_elf_map_get(&e->builds, &bk);
		if (f && libaddrres_elf_file_pin(e, f))
			f = NULL;
	}
	if (f) {
		close(fd);
		e->stats.shared++;
	} else {
		/* Room for it first: the files the current call uses stay. */
		libaddrres_elf_cache_trim(e, 1);
		err = libaddrres_elf_file_new(e, fd, name, &f);
		if (err)
			return err;
	}
	key_inode(&fk, 'f', dev, ino);
	libaddrres_elf_key_add(&fk, id, id_size);
	key_inode(&ik, 'i', dev, ino);
	err = libaddrres_elf_file_keep(e, f, name, &fk, &ik, filep);
	if (!err && id_size && !libaddrres_elf_map_get(&e->builds, &bk) &&
	    map_set(&e->builds, &bk, *filep))
		err = libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", name);
	/* By path, a file is known by its modification time and size too. */
	libaddrres_elf_key_stat(&mk, &st);
	if (!err && map_set(&e->inodes, &mk, *filep))
		err = libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", name);
	return err;
}

/*
 * The key of a file by path: device, inode, modification time and size,
 * so that a file rewritten in place is not taken for what it was.
 */
void libaddrres_elf_key_stat(struct key *k, const struct stat *st)
{
	uint64_t v[4] = {
		(uint64_t)st->st_dev, (uint64_t)st->st_ino,
		(uint64_t)st->st_mtim.tv_sec * 1000000000 + (uint64_t)st->st_mtim.tv_nsec,
		(uint64_t)st->st_size,
	};

	libaddrres_elf_key_init(k, 'm');
	libaddrres_elf_key_add(k, v, sizeof(v));
}
