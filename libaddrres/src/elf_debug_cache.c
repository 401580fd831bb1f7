// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The cache of decompressed debug files (&addrres_elf_opts.debug_cache_dir).
 *
 * Debian's and Fedora's debug files have their DWARF sections compressed
 * (zlib), and libdw decompresses every one of them each time it opens
 * such a file: for libc6-dbg's libc, 9.8 MB from 4.1 MB, the better part
 * of a first batch.  A new handle, or a new run of a profiler, paid that
 * again for the same build ID.  With a cache directory, the first reader
 * of a debug file with compressed sections writes a copy with them
 * decompressed, DIR/ab/cdef....debug by its build ID, and from then on
 * every handle of every process reads that copy, which libdw maps as it
 * is.  What it costs is disk: each cached copy is its DWARF's
 * decompressed size (libc's: 10.4 MB).  Nothing ever removes one; the
 * directory is the caller's to clean.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "elf_internal.h"

/* DIR/ab/cdef....debug of build ID @id, into @path: false if too long. */
static bool cache_path(const char *dir, const unsigned char *id, size_t n, char *path,
		       size_t path_sz)
{
	char hex[2 * ADDRRES_BUILD_ID_MAX + 1];
	int len;

	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	len = snprintf(path, path_sz, "%s/%.2s/%s.debug", dir, hex, hex + 2);
	return len > 0 && (size_t)len < path_sz;
}

/*
 * The cached copy of the debug file of @f, if there is one (and it is of
 * @f's build ID): an fd, its path in *@name (malloc'd); -1 otherwise.
 */
int libaddrres_elf_debug_cache_find(struct elf_file *f, char **name)
{
	const char *dir = f->owner->debug_cache_dir;
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	char path[PATH_MAX];
	int fd;

	if (!dir || !f->facts.build_id_size ||
	    !cache_path(dir, f->facts.build_id, f->facts.build_id_size, path, sizeof(path)))
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (libaddrres_fd_build_id(fd, id) != f->facts.build_id_size ||
	    memcmp(id, f->facts.build_id, f->facts.build_id_size) || !(*name = strdup(path))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether the ELF file @fd has a section compressed (SHF_COMPRESSED). */
static bool has_compressed(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	bool any = false;

	while (elf && !any && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		any = gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED);
	}
	if (elf)
		elf_end(elf);
	return any;
}

/* Copy all of @in to @out (from their starts): 0 or a negative errno. */
static int copy_fd(int in, int out)
{
	char buf[1 << 16];
	off_t at = 0;
	ssize_t n;

	while ((n = pread(in, buf, sizeof(buf), at)) > 0) {
		for (ssize_t done = 0; done < n;) {
			ssize_t put = write(out, buf + done, (size_t)(n - done));

			if (put < 0)
				return -errno;
			done += put;
		}
		at += n;
	}
	return n < 0 ? -errno : 0;
}

/* Decompress every compressed section of the ELF file @fd, in place. */
static int decompress_in_place(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_RDWR, NULL);
	Elf_Scn *scn = NULL;
	int err = 0;

	if (!elf)
		return -EINVAL;
	while (!err && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_COMPRESSED) &&
		    elf_compress(scn, 0, 0) < 0)
			err = -ENOTSUP;
	}
	if (!err && elf_update(elf, ELF_C_WRITE) < 0)
		err = -EIO;
	elf_end(elf);
	return err;
}

/*
 * @fd, the debug file of @f that libdwfl's search found (named *@name),
 * has compressed sections: write its decompressed copy into the cache,
 * and give that instead (fd and *@name replaced, the old ones closed and
 * freed).  @fd as it was where there is nothing to do or it fails (said
 * once, as a warning).
 */
int libaddrres_elf_debug_cache_add(struct elf_file *f, int fd, char **name)
{
	const char *dir = f->owner->debug_cache_dir;
	char path[PATH_MAX], tmp[PATH_MAX + 32], sub[PATH_MAX];
	const char *slash;
	char *copy_name;
	int out, err;

	if (!dir || fd < 0 || !f->facts.build_id_size || !has_compressed(fd) ||
	    !cache_path(dir, f->facts.build_id, f->facts.build_id_size, path, sizeof(path)))
		return fd;
	/* DIR, then DIR/ab: made as needed. */
	slash = strrchr(path, '/');
	snprintf(sub, sizeof(sub), "%.*s", (int)(slash - path), path);
	if ((mkdir(dir, 0755) && errno != EEXIST) || (mkdir(sub, 0755) && errno != EEXIST)) {
		err = -errno;
		goto fail;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	out = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		err = -errno;
		goto fail;
	}
	err = copy_fd(fd, out);
	if (!err)
		err = decompress_in_place(out);
	/* Whole or not at all: another process may read it the moment it is there. */
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		close(out);
		unlink(tmp);
		goto fail;
	}
	copy_name = strdup(path);
	if (!copy_name) {
		close(out);
		return fd;
	}
	libaddrres_print(ADDRRES_INFO, "%s: its DWARF decompressed once, into %s", *name, path);
	close(fd);
	free(*name);
	*name = copy_name;
	return out;
fail:
	libaddrres_print(ADDRRES_WARN, "%s: cannot keep a decompressed copy in %s: %s", *name, dir,
			 strerror(-err));
	return fd;
}
