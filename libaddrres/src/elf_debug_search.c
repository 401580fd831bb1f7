// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The search for a file's debug file, libaddrres' own (libdwfl's
 * find_debuginfo callback, see elf.c).  libdwfl's standard search opens
 * whatever it finds with a plain open() and reads it whole for the
 * .gnu_debuglink CRC: a FIFO planted where it looks hangs the caller, a
 * symlink to /dev/zero spins it forever.  The places are the same as
 * libdwfl's (elfutils 0.188, find-debuginfo.c, read to learn them, in
 * the order &addrres_elf_opts.debug_dirs documents): by build ID in each
 * absolute debug directory, then by .gnu_debuglink name, then the same
 * from the file's real path if it is a symlink.  Every candidate is opened
 * with libaddrres_open_regular() and is kept only if it is the file's:
 * its build ID, or where the file has none, the CRC of its whole bytes,
 * read to the size fstat() gave.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "elf_internal.h"

/* A debug file larger than this is not read for its CRC (a sparse file). */
#define CRC_READ_MAX ((off_t)4 << 30)

/* The GNU .gnu_debuglink CRC (zlib's CRC-32) of @fd's first @size bytes; -errno. */
static int file_crc(int fd, off_t size, uint32_t *crc)
{
	enum { CHUNK = 64 * 1024 };
	unsigned char *buf;
	off_t at = 0;
	uint32_t c = 0;
	int err = 0;

	if (size > CRC_READ_MAX)
		return -EFBIG;
	buf = malloc(CHUNK);
	if (!buf)
		return -ENOMEM;
	while (at < size) {
		size_t want = size - at < CHUNK ? (size_t)(size - at) : CHUNK;
		ssize_t got = pread(fd, buf, want, at);

		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			/* 0: cut short since fstat() */
			err = got < 0 ? -errno : -EIO;
			break;
		}
		c = libdeflate_crc32(c, buf, (size_t)got);
		at += got;
	}
	free(buf);
	*crc = c;
	return err;
}

struct search {
	struct elf_file *f;
	const unsigned char *id;	/* the build ID wanted, or NULL */
	size_t id_size;
	GElf_Word crc;			/* the debuglink's, where no build ID */
	bool skip_main;			/* not the main file itself */
	struct stat main_st;
	int last_err;			/* EMFILE or ENFILE, for the caller */
};

/* Whether the open regular file @fd is the one wanted; @check: its CRC. */
static bool wanted(struct search *s, int fd, const struct stat *st, bool check)
{
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	uint32_t crc;

	if (s->skip_main && st->st_dev == s->main_st.st_dev && st->st_ino == s->main_st.st_ino)
		return false;
	if (s->id_size)
		return libaddrres_fd_build_id(fd, id) == s->id_size &&
		       !memcmp(id, s->id, s->id_size);
	if (!check || !s->crc)
		return true;
	return !file_crc(fd, st->st_size, &crc) && crc == s->crc;
}

/* @path opened and kept if it is the one wanted: an fd, or -1. */
static int try_path(struct search *s, const char *path, bool check, char **found)
{
	struct stat st;
	int fd = libaddrres_open_regular(AT_FDCWD, path, 0, &st);

	if (fd < 0) {
		if (fd == -EMFILE || fd == -ENFILE)
			s->last_err = -fd;
		return -1;
	}
	if (!wanted(s, fd, &st, check) || !(*found = strdup(path))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* DIR/.build-id/ab/cdef....debug in each absolute debug directory. */
static int by_build_id(struct search *s, char **found)
{
	char hex[2 * ADDRRES_BUILD_ID_MAX + 1], path[PATH_MAX];
	const char *dir, *end;
	int fd;

	if (s->id_size < 2)
		return -1;
	libaddrres_hex(s->id, s->id_size, hex);
	for (dir = s->f->owner->debug_dirs; *dir; dir = *end ? end + 1 : end) {
		const char *d;
		int len;

		end = strchrnul(dir, ':');
		for (d = dir; d < end && (*d == '+' || *d == '-'); d++)
			;
		if (d == end || *d != '/')
			continue;
		len = snprintf(path, sizeof(path), "%.*s/.build-id/%.2s/%s.debug", (int)(end - d),
			       d, hex, hex + 2);
		if (len <= 0 || (size_t)len >= sizeof(path))
			continue;
		fd = try_path(s, path, false, found);
		if (fd >= 0)
			return fd;
	}
	return -1;
}

/*
 * @link (a .gnu_debuglink name) for the file at @file_name, in the order
 * of &addrres_elf_opts.debug_dirs: an empty element for FILEDIR/@link, a
 * relative DIR for FILEDIR/DIR/@link, an absolute DIR for
 * DIR/FILEDIR/@link and then with FILEDIR's leading components dropped
 * one by one.  A leading '-' ('+') on the whole string or on an element
 * turns the CRC check off (on) for it, as in libdwfl's debuginfo_path.
 */
static int by_link(struct search *s, const char *file_name, const char *link, char **found)
{
	const char *dir = s->f->owner->debug_dirs, *end, *slash, *sub;
	char fdir[PATH_MAX], path[PATH_MAX];
	bool defcheck = true;
	int fd, len;

	if (!file_name || !link || !*link)
		return -1;
	if (*link == '/')
		return try_path(s, link, true, found);
	slash = strrchr(file_name, '/');
	if (!slash)
		snprintf(fdir, sizeof(fdir), ".");
	else if ((size_t)snprintf(fdir, sizeof(fdir), "%.*s", (int)(slash - file_name),
				  file_name) >= sizeof(fdir))
		return -1;
	if (*dir == '-' || *dir == '+')
		defcheck = *dir++ == '+';
	for (;; dir = end + 1) {
		bool check = defcheck;
		const char *d = dir;

		end = strchrnul(dir, ':');
		if (d < end && (*d == '+' || *d == '-'))
			check = *d++ == '+';
		if (d == end || *d != '/') {
			if (d == end)
				len = snprintf(path, sizeof(path), "%s/%s", fdir, link);
			else
				len = snprintf(path, sizeof(path), "%s/%.*s/%s", fdir,
					       (int)(end - d), d, link);
			if (len > 0 && (size_t)len < sizeof(path) &&
			    (fd = try_path(s, path, check, found)) >= 0)
				return fd;
		} else {
			/* DIR/usr/bin/N, DIR/bin/N, DIR/N for /usr/bin/ls */
			for (sub = fdir;;) {
				while (*sub == '/')
					sub++;
				len = snprintf(path, sizeof(path), "%.*s/%s%s%s", (int)(end - d), d,
					       sub, *sub ? "/" : "", link);
				if (len > 0 && (size_t)len < sizeof(path) &&
				    (fd = try_path(s, path, check, found)) >= 0)
					return fd;
				if (!*sub)
					break;
				sub += strcspn(sub, "/");
			}
		}
		if (!*end)
			return -1;
	}
}

/* The name and build ID that @elf's .gnu_debugaltlink gives: 0, or -ENOENT. */
static int altlink_of(Elf *elf, const char **name, const unsigned char **id, size_t *id_size)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *sname;
		size_t len;
		Elf_Data *d;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(sname = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(sname, ".gnu_debugaltlink"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return -ENOENT;
		len = strnlen(d->d_buf, d->d_size);
		if (len + 1 >= d->d_size || d->d_size - len - 1 > ADDRRES_BUILD_ID_MAX)
			return -ENOENT;
		*name = d->d_buf;
		*id = (const unsigned char *)d->d_buf + len + 1;
		*id_size = d->d_size - len - 1;
		return 0;
	}
	return -ENOENT;
}

/* The dwz file of @f's DWARF: by its build ID, then by its name. */
static int alt_search(struct search *s, const char *altname, char **found)
{
	const char *debugfile = NULL, *name;
	char path[PATH_MAX];
	const unsigned char *id;
	size_t id_size;
	Elf *debug = NULL;
	int fd = -1;

	dwfl_module_info(s->f->mod, NULL, NULL, NULL, NULL, NULL, NULL, &debugfile);
	/* The DWARF is in the debug file libdwfl has open, or in the file. */
	if (s->f->held[1].fd >= 0)
		debug = elf_begin(s->f->held[1].fd, ELF_C_READ_MMAP, NULL);
	if (altlink_of(debug ? debug : s->f->elf, &name, &id, &id_size))
		goto out;
	s->id = id;
	s->id_size = id_size;
	if (!altname)
		altname = name;
	fd = by_build_id(s, found);
	if (fd >= 0 || !altname)
		goto out;
	if (*altname == '/' || !debugfile || !strrchr(debugfile, '/')) {
		fd = try_path(s, altname, false, found);
	} else if ((size_t)snprintf(path, sizeof(path), "%.*s/%s",
				    (int)(strrchr(debugfile, '/') - debugfile), debugfile,
				    altname) < sizeof(path)) {
		fd = try_path(s, path, false, found);
	}
out:
	if (debug)
		elf_end(debug);
	return fd;
}

int libaddrres_elf_debug_search(struct elf_file *f, const char *file_name,
				const char *debuglink_file, GElf_Word crc, bool alt, char **found)
{
	struct search s = { .f = f, .crc = crc };
	char *local = NULL, *canon = NULL;
	int fd = -1;

	*found = NULL;
	if (alt) {
		fd = alt_search(&s, debuglink_file, found);
		goto out;
	}
	s.id = f->facts.build_id;
	s.id_size = f->facts.build_id_size;
	s.skip_main = f->held[0].fd >= 0 && !fstat(f->held[0].fd, &s.main_st);
	fd = by_build_id(&s, found);
	if (fd >= 0)
		goto out;
	/* Without a .gnu_debuglink, libdwfl's default name: the file's, plus .debug. */
	if (!debuglink_file && file_name) {
		const char *base = strrchr(file_name, '/');

		if (asprintf(&local, "%s.debug", base ? base + 1 : file_name) < 0)
			local = NULL;
		debuglink_file = local;
	}
	fd = by_link(&s, file_name, debuglink_file, found);
	if (fd < 0 && file_name && (canon = realpath(file_name, NULL)) && strcmp(canon, file_name))
		fd = by_link(&s, canon, debuglink_file, found);
out:
	free(local);
	free(canon);
	errno = fd < 0 ? s.last_err : 0;
	return fd;
}
