// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The cache of decompressed debug files (&addrres_elf_opts.debug_cache_dir).
 *
 * A debug file with DWARF compressed with zlib is decompressed by each
 * handle that reads it (elf_inflate.c): for libc6-dbg's libc, 9.8 MB from
 * 4.1 MB, a quarter of a first batch.  A new handle, or a new run of a
 * profiler, paid that again for the same build ID.  With a cache
 * directory, the first handle that reads its DWARF also writes it out as
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

/*
 * @debug, libdwfl's ELF of the debug file of @f (named @name), its zlib
 * DWARF just decompressed in place (libaddrres_elf_dwarf()): write it so
 * into the cache, for the next handles.  0, or a negative errno, said as
 * a warning, if it cannot be written.
 */
int libaddrres_elf_debug_cache_add(struct elf_file *f, Elf *debug, const char *name)
{
	const char *dir = f->owner->debug_cache_dir;
	char path[PATH_MAX], tmp[PATH_MAX + 32], sub[PATH_MAX];
	const char *slash;
	int out, err;

	if (!dir || !f->facts.build_id_size ||
	    !cache_path(dir, f->facts.build_id, f->facts.build_id_size, path, sizeof(path)))
		return -ENOENT;
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
	err = libaddrres_elf_inflate(debug, out);
	close(out);
	/* Whole or not at all: another process may read it the moment it is there. */
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		goto fail;
	}
	libaddrres_print(ADDRRES_INFO, "%s: its DWARF decompressed once, into %s", name, path);
	return 0;
fail:
	libaddrres_print(ADDRRES_WARN, "%s: cannot keep a decompressed copy in %s: %s", name, dir,
			 strerror(-err));
	return err;
}
