// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * ELF symbols: offsets of an executable or shared library (or of a
 * section of an object file or kernel module), or addresses of one VMA
 * of a process, as symbols and source lines, with elfutils' libdwfl.
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
 *
 * This file holds the API and libdwfl's callbacks; the running kernel's
 * files are found in elf_kernel.c, the cache is in elf_cache.c, the vdso in elf_vdso.c, the symbol index and the answers
 * in elf_symbols.c, what they share in elf_internal.h.  LIBELF=0 builds
 * elf_none.c instead of all of them.
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>

#include "elf_internal.h"

/* Where debug files are looked for when the caller does not say. */
#define DEFAULT_DEBUG_DIRS ":.debug:/usr/lib/debug"

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

/* @f's debug file could not be looked for: said once, and @f read again at the next call. */
static void starved(struct elf_file *f, const char *name)
{
	if (!f->debug_starved)
		libaddrres_print(ADDRRES_WARN,
				 "%s: its debug file not looked for: out of file descriptors (it is, in the next call)",
				 name);
	f->debug_starved = true;
}

/*
 * Whether the process has a descriptor left for a debug file's search,
 * after closing the files the call does not use if it had none.
 */
static bool fd_left(struct elf_file *f)
{
	int probe = f->held[0].fd >= 0 ? fcntl(f->held[0].fd, F_DUPFD_CLOEXEC, 0) : 0;

	if (probe < 0 && libaddrres_elf_fds_reclaim(f->owner, -errno))
		probe = fcntl(f->held[0].fd, F_DUPFD_CLOEXEC, 0);
	if (probe < 0)
		return errno != EMFILE && errno != ENFILE;
	if (f->held[0].fd >= 0)
		close(probe);
	return true;
}

/*
 * DIR/.build-id/ab/cdef...@suffix for the element [@dir, @end) of the
 * debug directories, into @path: false for an element that is not an
 * absolute directory (past libdwfl's "+" and "-" CRC prefixes, which its
 * search strips too; a relative one is relative to a file) or a path too
 * long.
 */
static bool build_id_path(const char *dir, const char *end, const char *hex, const char *suffix,
			  char *path, size_t sz)
{
	int len;

	while (dir < end && (*dir == '+' || *dir == '-'))
		dir++;
	if (dir == end || *dir != '/')
		return false;
	len = snprintf(path, sz, "%.*s/.build-id/%.2s/%s%s", (int)(end - dir), dir, hex, hex + 2,
		       suffix);
	return len > 0 && (size_t)len < sz;
}

/*
 * Whether libdwfl is looking for the dwz file of @f's own DWARF (a file
 * that carries DWARF and a .gnu_debugaltlink): it names the file from that
 * section, with no CRC.  (Once a debug file was found, debug_found says
 * the next search is for its dwz file.)
 */
static bool altlink_lookup(struct elf_file *f, const char *debuglink_file, GElf_Word crc)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (!debuglink_file || crc || !f->elf || elf_getshdrstrndx(f->elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(f->elf, scn))) {
		const char *name;
		Elf_Data *d;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(f->elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, ".gnu_debugaltlink"))
			continue;
		d = elf_getdata(scn, NULL);
		return d && d->d_buf && d->d_size > strlen(debuglink_file) &&
		       !memcmp(d->d_buf, debuglink_file, strlen(debuglink_file) + 1);
	}
	return false;
}

/*
 * Whether the debug file of @f that libdwfl's search by build ID finds
 * first (DIR/.build-id/ab/cdef....debug, in the order of its absolute
 * debug directories) is over &addrres_elf_opts.max_inflated.
 */
static bool debug_by_build_id_over_cap(struct elf_file *f)
{
	char hex[2 * ADDRRES_BUILD_ID_MAX + 1], path[PATH_MAX];
	const char *dir = f->owner->debug_dirs, *end;

	if (!f->facts.build_id_size)
		return false;
	libaddrres_hex(f->facts.build_id, f->facts.build_id_size, hex);
	for (; *dir; dir = *end ? end + 1 : end) {
		bool over;
		int fd;

		end = strchrnul(dir, ':');
		if (!build_id_path(dir, end, hex, ".debug", path, sizeof(path)))
			continue;
		fd = libaddrres_open_regular(AT_FDCWD, path, 0, NULL);
		if (fd < 0)
			continue;
		over = libaddrres_elf_fd_over_cap(f, fd, path, false);
		close(fd);
		return over;
	}
	return false;
}

/*
 * libdwfl's find_debuginfo callback: the debug file in the places of
 * libdwfl's standard search (&addrres_elf_opts.debug_dirs), looked for by
 * libaddrres_elf_debug_search(), which opens nothing that could block or
 * never end.  libdwfl's own search runs only to ask the debuginfod
 * servers of $DEBUGINFOD_URLS, and only if &addrres_elf_opts.debuginfod
 * allows it: a library must not do that behind its caller's back (a
 * download, or a wait on the network, per file).
 *
 * libdwfl calls it again, once a debug file is found, for that file's
 * .gnu_debugaltlink (dwz's file of what several debug files share): that
 * search is never the cache's.
 */
static int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	/* libaddrres_elf_file_new() made the module's userdata its file. */
	struct elf_file *f = *userdata;
	bool alt = f && (f->debug_found || altlink_lookup(f, debuglink_file, debuglink_crc));
	int fd;

	/*
	 * What a failed search named before, which libdwfl keeps and
	 * overwrites when it asks again (for DWARF after the symbols): not
	 * a file to open now.
	 */
	free(*debuginfo_file_name);
	*debuginfo_file_name = NULL;
	/*
	 * The search opens files: without a descriptor left, it would find
	 * nothing and say nothing, and libdwfl would not look again.
	 */
	if (f && !fd_left(f)) {
		starved(f, file_name ? file_name : modname);
		return -1;
	}
	/* A decompressed copy of it, kept by an earlier reader. */
	fd = f && !alt ? libaddrres_elf_debug_cache_find(f, debuginfo_file_name) : -1;
	if (fd >= 0) {
		f->debug_found = true;
		libaddrres_elf_held_set(&f->held[1], fd);
		return fd;
	}
	/*
	 * For DWARF alone: libdwfl's search by build ID keeps the ELF it
	 * opened in the module, whatever is returned here; the file it would
	 * find is weighed first.
	 */
	if (f && !alt && f->in_getdwarf && debug_by_build_id_over_cap(f))
		return -1;
	/*
	 * Our own search of libdwfl's places, every file opened as a
	 * regular file that cannot block (elf_debug_search.c); libdwfl's
	 * own, which would open a FIFO or read /dev/zero for ever, runs
	 * only for debuginfod, when the caller asked for it.  Its errno
	 * says whether it ran out of descriptors.
	 */
	fd = f ? libaddrres_elf_debug_search(f, file_name, debuglink_file, debuglink_crc, alt,
					     debuginfo_file_name) : -1;
	if (fd < 0 && urls && *urls && f && !f->owner->debuginfod && !f->told_debuginfod) {
		libaddrres_print(ADDRRES_INFO,
				 "%s: DEBUGINFOD_URLS is set but debuginfod is off (addrres_elf_opts.debuginfod): its debug file is looked for in the debug directories only",
				 file_name ? file_name : modname);
		f->told_debuginfod = true;
	}
	if (fd < 0 && errno != EMFILE && errno != ENFILE && urls && *urls && f &&
	    f->owner->debuginfod) {
		errno = 0;
		fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						  debuglink_file, debuglink_crc, debuginfo_file_name);
	}
	/*
	 * Found for DWARF alone (the file has a .symtab of its own), not by
	 * build ID (weighed before the search): by its .gnu_debuglink name.
	 * libdw decompresses it the moment it is given, so the cap is
	 * applied here; libdwfl opened nothing of it yet.  A dwz file found
	 * by build ID is libdwfl's as soon as its search returns, whatever
	 * is returned here: it is weighed but not refused (a gap, said at
	 * &addrres_elf_opts.max_inflated).
	 */
	if (f && fd >= 0 && f->in_getdwarf && !alt &&
	    libaddrres_elf_fd_over_cap(f, fd, *debuginfo_file_name ? *debuginfo_file_name :
								   debuglink_file ? debuglink_file : modname,
				       true)) {
		close(fd);
		free(*debuginfo_file_name);
		*debuginfo_file_name = NULL;
		return -1;
	}
	if (f && fd >= 0 && f->in_getdwarf && alt)
		libaddrres_elf_fd_over_cap(f, fd, debuglink_file ? debuglink_file : modname, true);
	if (f && fd < 0 && (errno == EMFILE || errno == ENFILE))
		starved(f, file_name ? file_name : modname);
	/* The cache's copy is written once its DWARF is decompressed (libaddrres_elf_dwarf()). */
	if (f && !alt && fd >= 0)
		f->debug_found = true;
	/* libdwfl keeps it open, and maps it: checked as the file is. */
	if (f && fd >= 0)
		libaddrres_elf_held_set(&f->held[alt ? 2 : 1], fd);
	return fd;
}

/*
 * An eighth of the descriptors the process may open: each file holds one
 * or two, and the caller's are its own.
 */
static size_t default_max_files(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur / 8 > 65536)
		return 65536;
	return rl.rlim_cur / 8 > 4 ? (size_t)(rl.rlim_cur / 8) : 4;
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
	/* Later messages are the handle's: the caller's buffer may go. */
	libaddrres_err_own(&e->eb, e->msg, sizeof(e->msg));
	e->no_lines = LIBADDRRES_OPTS_GET(opts, no_lines, false);
	e->no_inlines = LIBADDRRES_OPTS_GET(opts, no_inlines, false);
	e->no_demangle = LIBADDRRES_OPTS_GET(opts, no_demangle, false);
	e->debuginfod = LIBADDRRES_OPTS_GET(opts, debuginfod, false);
	e->no_inflate = LIBADDRRES_OPTS_GET(opts, no_inflate, false);
	e->max_files = LIBADDRRES_OPTS_GET(opts, max_files, 0);
	if (!e->max_files)
		e->max_files = default_max_files();
	e->max_bytes = LIBADDRRES_OPTS_GET(opts, max_bytes, 0);
	e->max_debugdata = libaddrres_elf_max_debugdata(LIBADDRRES_OPTS_GET(opts, max_debugdata, 0));
	e->max_inflated = libaddrres_elf_max_inflated(LIBADDRRES_OPTS_GET(opts, max_inflated, 0));
	dirs = LIBADDRRES_OPTS_GET(opts, debug_cache_dir, NULL);
	if (dirs && *dirs && !(e->debug_cache_dir = strdup(dirs))) {
		free(e->debug_dirs);
		free(e);
		return libaddrres_err(&eb, -ENOMEM, "addrres_elf__open: out of memory");
	}
	e->stats.sz = sizeof(e->stats);
	e->callbacks.find_elf = find_no_elf;
	e->callbacks.find_debuginfo = find_debuginfo;
	e->callbacks.debuginfo_path = &e->debug_dirs;
	/*
	 * An object file's sections: libdwfl lays them out from 0, one after
	 * the other, and relocates its symbols and DWARF there.
	 */
	e->callbacks.section_address = dwfl_offline_section_address;
	/* Idempotent; libelf refuses to work before it. */
	elf_version(EV_CURRENT);
	*ep = e;
	return 0;
}

int addrres_elf__stats(const struct addrres_elf *e, struct addrres_elf_stats *stats)
{
	if (!e || !stats)
		return -EINVAL;
	return libaddrres_stats_copy(stats, &e->stats, sizeof(e->stats));
}

void addrres_elf__drop(struct addrres_elf *e)
{
	if (!e)
		return;
	libaddrres_elf_cache_drop(e);
	libaddrres_elf_perf_maps_free(e);
	/* Names and sources of the answers given: none is valid any more. */
	libaddrres_strmap_free(&e->srcs);
	libaddrres_strmap_free(&e->names);
	libaddrres_arena_free(&e->arena);
}

void addrres_elf__free(struct addrres_elf *e)
{
	if (!e)
		return;
	/* Each file takes its keys with it: the maps are left empty. */
	libaddrres_elf_cache_drop(e);
	libaddrres_strmap_free(&e->files);
	libaddrres_strmap_free(&e->inodes);
	libaddrres_strmap_free(&e->builds);
	libaddrres_strmap_free(&e->srcs);
	libaddrres_strmap_free(&e->names);
	libaddrres_arena_free(&e->arena);
	libaddrres_elf_perf_maps_free(e);
	free(e->syms);
	free(e->debug_dirs);
	free(e->debug_cache_dir);
	free(e);
}

const char *addrres_elf__errmsg(const struct addrres_elf *e)
{
	return e ? e->msg : "";
}

/*
 * The file of build ID @id in the debug directories, opened into *@fdp
 * with its path in @path: DIR/.build-id/ab/cdef..., else the same with
 * ".debug" (a debug package's file: the program headers, so the file
 * offsets, of the binary).  0, or -ENOENT (or another error of the last
 * open) with the message set.
 */
static int open_by_build_id(struct addrres_elf *e, const unsigned char *id, size_t size,
			    char *path, size_t path_sz, int *fdp)
{
	static const char *const suffixes[] = { "", ".debug" };
	char hex[2 * ADDRRES_BUILD_ID_MAX + 1], ebuf[128];
	const char *dir = e->debug_dirs, *end;
	int err = -ENOENT;

	libaddrres_hex(id, size, hex);
	for (; *dir; dir = *end ? end + 1 : end) {
		end = strchrnul(dir, ':');
		for (size_t k = 0; k < 2; k++) {
			if (!build_id_path(dir, end, hex, suffixes[k], path, path_sz))
				continue;
			*fdp = libaddrres_elf_open_retry(e, path);
			if (*fdp >= 0)
				return 0;
			if (*fdp != -ENOENT)
				err = *fdp;
		}
	}
	return libaddrres_err(&e->eb, err, "build ID %s: %s in %s", hex,
			      err == -ENOENT ? "no file of it" :
					       libaddrres_open_strerror(err, ebuf, sizeof(ebuf)),
			      e->debug_dirs);
}

/*
 * The file at @path, or if @path is NULL the one of @build_id in the debug
 * directories (its path into @found), which must have @build_id if
 * @build_id_size, pinned for this call: from the cache (same device,
 * inode, modification time and size) or read.  0, or a negative errno
 * with the message set.
 */
int libaddrres_elf_file_at(struct addrres_elf *e, const char *path, const unsigned char *build_id,
			   size_t build_id_size, char *found, size_t found_sz, struct elf_file **fp)
{
	char ebuf[128];
	struct elf_file *f;
	struct stat st;
	struct key mk;
	int fd = -1, err;

	if (!path) {
		err = open_by_build_id(e, build_id, build_id_size, found, found_sz, &fd);
		if (err)
			return err;
		path = found;
	} else {
		fd = libaddrres_elf_open_retry(e, path);
	}
	if (fd == -ENOEXEC)
		return libaddrres_err(&e->eb, fd, "%s: not a regular file", path);
	if (fd < 0) {
		err = fd;
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
	/* By path: device, inode, modification time and size. */
	libaddrres_elf_key_stat(&mk, &st);
	f = libaddrres_elf_map_get(&e->inodes, &mk);
	if (f && build_id_size && (f->facts.build_id_size != build_id_size ||
				   memcmp(f->facts.build_id, build_id, build_id_size)))
		f = NULL;
	if (f && libaddrres_elf_file_pin(e, f))
		f = NULL;
	if (f) {
		close(fd);
		*fp = f;
		return 0;
	}
	return libaddrres_elf_file_get(e, fd, path, (uint64_t)st.st_dev, (uint64_t)st.st_ino,
				       build_id, build_id_size, false, fp);
}

/*
 * Where section @name of @f starts among its module's addresses, and its
 * size: 0, -ENOENT for no SHF_ALLOC section of that name, -ENOTUNIQ for
 * several.  An object file's are where libdwfl laid them out: it wrote
 * the addresses into the section headers of its ELF, which its
 * relocation of symbols and DWARF (dwfl_offline_section_address()) reads.
 */
int libaddrres_elf_section_at(struct elf_file *f, const char *name, uint64_t *start,
			      uint64_t *size, const char **shown)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	int found = 0;

	if (elf_getshdrstrndx(f->elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(f->elf, scn))) {
		const char *sname;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		sname = elf_strptr(f->elf, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, name))
			continue;
		if (found++)
			return -ENOTUNIQ;
		*start = sh.sh_addr;
		*size = sh.sh_size;
		*shown = sname;
	}
	return found ? 0 : -ENOENT;
}

/*
 * The answers of @n offsets in section @name of @f, pinned: kept in
 * @store, each answer's address the offset, with the section named;
 * NULL past the section's end.
 */
int libaddrres_elf_resolve_in_section(struct addrres_elf *e, struct elf_file *f, const char *path,
				      const char *name, const uint64_t *offsets, size_t n,
				      const struct addrres_elf_sym **syms, struct addrres_elf_sym *store)
{
	uint64_t start = 0, size = 0;
	const char *shown = NULL;
	int err = libaddrres_elf_section_at(f, name, &start, &size, &shown);

	if (err)
		return libaddrres_err(&e->eb, err, "%s: %s section %s", path,
				      err == -ENOENT ? "no" : "more than one", name);
	/*
	 * libdwfl lays out an object file's sections from 0 but keeps an
	 * address a section has (arm64 modules' __patchable_function_entries):
	 * where another lands on the one asked, its symbols could answer.
	 */
	for (size_t i = 0; f->facts.object && i < f->facts.nr_loads; i++) {
		const struct elf_load *l = &f->facts.loads[i];

		if ((l->vaddr != start || l->memsz != size) && l->vaddr < start + size &&
		    start < l->vaddr + l->memsz)
			return libaddrres_err(&e->eb, -ENOEXEC,
					      "%s: section %s overlaps another where libdwfl lays them out",
					      path, name);
	}
	libaddrres_elf_resolve_file(e, f, offsets, start, true, n, syms, store);
	for (size_t i = 0; i < n; i++) {
		if (!syms[i])
			continue;
		if (offsets[i] >= size) {
			syms[i] = NULL;
			continue;
		}
		store[i].elf_addr = offsets[i];
		store[i].section = shown;
	}
	return 0;
}

/*
 * addrres_elf__resolve(): its 0.3 form if @objects (object files asked by
 * section), else its 0.2 form, which refuses them as 0.2 did.
 */
static int resolve_path(struct addrres_elf *e, const char *path, const uint64_t *file_offsets,
			size_t n, const struct addrres_elf_sym **syms,
			const struct addrres_elf_resolve_opts *opts, bool objects)
{
	const unsigned char *build_id;
	char found[PATH_MAX];
	const char *section;
	size_t build_id_size;
	bool elf_addrs;
	struct elf_file *f;
	int err;

	if (syms) {
		for (size_t i = 0; i < n; i++)
			syms[i] = NULL;
	}
	if (!e)
		return -EINVAL;
	libaddrres_err_clear(&e->eb);
	libaddrres_elf_call_start(e);
	if (!libaddrres_opts_valid(opts, sizeof(*opts)))
		return libaddrres_err(&e->eb, -EINVAL,
				      "addrres_elf_resolve_opts: sz is too small or too large, or fields unknown to this libaddrres are set");
	build_id = LIBADDRRES_OPTS_GET(opts, build_id, NULL);
	build_id_size = LIBADDRRES_OPTS_GET(opts, build_id_size, 0);
	elf_addrs = LIBADDRRES_OPTS_GET(opts, elf_addrs, false);
	section = LIBADDRRES_OPTS_GET(opts, section, NULL);
	if ((!path && !build_id) || ((!file_offsets || !syms) && n) || (section && elf_addrs))
		return libaddrres_err(&e->eb, -EINVAL,
				      "addrres_elf__resolve: no path and no build ID, file_offsets or syms NULL, or both a section and ELF addresses");
	if (build_id_size > ADDRRES_BUILD_ID_MAX || !build_id != !build_id_size)
		return libaddrres_err(&e->eb, -EINVAL,
				      "%s: a build ID of %zu bytes (1 to %d, with a pointer)",
				      path ? path : "addrres_elf__resolve", build_id_size,
				      ADDRRES_BUILD_ID_MAX);
	err = libaddrres_elf_file_at(e, path, build_id, build_id_size, found, sizeof(found), &f);
	if (err)
		return err;
	if (!path)
		path = found;
	if (f->facts.object && !objects)
		return libaddrres_err(&e->eb, -ENOEXEC, "%s: not an ELF executable or shared library",
				      path);
	if (f->facts.object && !section)
		return libaddrres_err(&e->eb, -EINVAL,
				      "%s: an object file has no addresses of its own: give offsets in a section (addrres_elf_resolve_opts.section)",
				      path);
	if (!elf_addrs && !section && f->facts.no_code_bytes)
		return libaddrres_err(&e->eb, -ENOEXEC,
				      "%s: its code has no bytes in the file (a debug file): no file offsets to resolve; give ELF addresses (addrres_elf_resolve_opts.elf_addrs)",
				      path);
	err = libaddrres_elf_syms_reserve(e, n, path);
	if (err)
		return err;
	if (section)
		return libaddrres_elf_resolve_in_section(e, f, path, section, file_offsets, n, syms,
							 e->syms);
	libaddrres_elf_resolve_file(e, f, file_offsets, 0, elf_addrs, n, syms, e->syms);
	return 0;
}

/*
 * The versions of addrres_elf__resolve() (libaddrres.map; its 0.1 form
 * is in answers.c), each given to an internal name: a definition of the
 * plain name would also take the node that the map lists it in first.
 * 0.3, the default, reads object files; a program built against 0.2
 * keeps 0.2's answer for them, -ENOEXEC, and never gets answers whose
 * &addrres_elf_sym.section its library would not have.
 */
LIBADDRRES_API int libaddrres_elf_resolve_0_3(struct addrres_elf *e, const char *path,
					      const uint64_t *file_offsets, size_t n,
					      const struct addrres_elf_sym **syms,
					      const struct addrres_elf_resolve_opts *opts);
__asm__(".symver libaddrres_elf_resolve_0_3, addrres_elf__resolve@@ADDRRES_0.3");
int libaddrres_elf_resolve_0_3(struct addrres_elf *e, const char *path,
			       const uint64_t *file_offsets, size_t n,
			       const struct addrres_elf_sym **syms,
			       const struct addrres_elf_resolve_opts *opts)
{
	return resolve_path(e, path, file_offsets, n, syms, opts, true);
}

__asm__(".symver libaddrres_elf_resolve_0_2, addrres_elf__resolve@ADDRRES_0.2");
int libaddrres_elf_resolve_0_2(struct addrres_elf *e, const char *path,
			       const uint64_t *file_offsets, size_t n,
			       const struct addrres_elf_sym **syms,
			       const struct addrres_elf_resolve_opts *opts)
{
	return resolve_path(e, path, file_offsets, n, syms, opts, false);
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
		err = libaddrres_elf_vdso_get(e, pid, vma, &f);
		if (err)
			return err;
		/* Its image starts at the VMA's start: offsets from there. */
		libaddrres_elf_resolve_file(e, f, addrs, -vma->start, false, n, syms, store);
		return 0;
	}
	/* Anonymous code: a JIT's, named in its perf map if it writes one. */
	if (!vma->inode && (vma->flags & ADDRRES_VMA_EXECUTABLE) && vname[0] != '[')
		return libaddrres_elf_perf_map_resolve(e, pid, vma, name, addrs, n, syms, store);
	if (!vma->inode)
		return libaddrres_err(&e->eb, -ENOENT, "%s: no file is mapped there", name);
	dev = (uint64_t)makedev(vma->dev_major, vma->dev_minor);
	f = libaddrres_elf_file_cached(e, dev, vma->inode, vma->build_id, vma->build_id_size);
	if (f && libaddrres_elf_file_pin(e, f))
		f = NULL;
	if (!f) {
		fd = libaddrres_open_mapped_file(pid, vma, vname, why, sizeof(why));
		if (libaddrres_elf_fds_reclaim(e, fd))
			fd = libaddrres_open_mapped_file(pid, vma, vname, why, sizeof(why));
		if (fd < 0)
			return libaddrres_err(&e->eb, fd, "%s: %s", name, why);
		/* The path libdwfl's search by .gnu_debuglink starts from. */
		len = strlen(name);
		if (len > strlen(deleted) && !strcmp(name + len - strlen(deleted), deleted))
			name[len - strlen(deleted)] = '\0';
		err = libaddrres_elf_file_get(e, fd, name, dev, vma->inode, vma->build_id,
					      vma->build_id_size, true, &f);
		if (err)
			return err;
	}
	/* No loader maps one: its sections have file offsets, not a layout. */
	if (f->facts.object)
		return libaddrres_err(&e->eb, -ENOEXEC, "%s: an object file, not an executable or shared library",
				      name);
	libaddrres_elf_resolve_file(e, f, addrs, vma->offset - vma->start, false, n, syms,
				    store);
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
	libaddrres_elf_call_start(e);
	if (!vma || pid < 0 || ((!addrs || !syms) && n))
		return libaddrres_err(&e->eb, -EINVAL,
				      "addrres_elf__resolve_vma: a negative pid, or vma, addrs or syms is NULL");
	err = libaddrres_elf_syms_reserve(e, n, vma->name ? vma->name : "");
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
	libaddrres_elf_call_start(e);
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
	err = libaddrres_elf_syms_reserve(e, n, "addrres_elf__resolve_vmas");
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
