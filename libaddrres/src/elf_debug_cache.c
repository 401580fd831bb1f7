// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The cache of decompressed debug files (&addrres_elf_opts.debug_cache_dir).
 *
 * DWARF compressed with zlib is decompressed by each handle that reads it
 * (elf_inflate.c): for libc6-dbg's libc, 9.8 MB from 4.1 MB, a quarter of
 * a first batch.  A new handle, or a new run of a profiler, paid that
 * again for the same build ID.  With a cache directory, the first handle
 * that reads its DWARF also writes it out as decompressed, DIR/ab/cdef....debug
 * by its build ID, and from then on every handle of every process reads
 * that copy, which libdw maps as it is.  What it costs is disk: each
 * cached copy is its DWARF's decompressed size (libc's: 10.4 MB).
 * Nothing ever removes one; the directory is the caller's to clean.
 *
 * The library runs in other people's processes, often privileged, and the
 * directory may be writable by others (a shared /var/cache), so:
 *  - below DIR nothing is followed through a symlink: DIR/ab and the copy
 *    are opened relative to the directory above them, with O_NOFOLLOW;
 *  - a copy is written to a file no one else can name (O_TMPFILE, else a
 *    new name made with O_EXCL), and only then linked under its name,
 *    whole: threads and processes writing the same copy never share a
 *    file, and a reader never sees half of one;
 *  - a copy is read only if it is a regular file owned by this user or
 *    root, has the build ID it is named by, and is as long as its own
 *    headers say (a copy cut short, by a crash say, is not read), and one
 *    refused so is replaced by the next copy written;
 *  - a copy is as readable as the debug file it copies, no more.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/stat.h>

#include "elf_internal.h"

/* Where the copy of build ID @id goes: DIR/@sub/@leaf, "ab" and "cdef....debug". */
struct cache_name {
	char sub[3];
	char leaf[2 * ADDRRES_BUILD_ID_MAX + sizeof(".debug")];
};

static void cache_name(const unsigned char *id, size_t n, struct cache_name *cn)
{
	char hex[2 * ADDRRES_BUILD_ID_MAX + 1];

	libaddrres_hex(id, n, hex);
	snprintf(cn->sub, sizeof(cn->sub), "%.2s", hex);
	snprintf(cn->leaf, sizeof(cn->leaf), "%s.debug", hex + 2);
}

/*
 * DIR/@sub of the cache, opened (O_PATH would not do: openat() needs a
 * directory it may search); made first if @make.  An fd, or a negative
 * errno: -ELOOP for a symlink there, -EPERM for a directory of another
 * user than this one or root (in a cache others may write to, whoever
 * made it could swap its entries).
 */
static int sub_open(const char *dir, const char *sub, bool make)
{
	struct stat st;
	int dfd, sfd, err;

	if (make && mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	/* DIR itself is the caller's: a symlink there is what it chose. */
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (make && mkdirat(dfd, sub, 0755) && errno != EEXIST) {
		err = -errno;
		close(dfd);
		return err;
	}
	sfd = openat(dfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	err = sfd < 0 ? -errno : sfd;
	close(dfd);
	if (sfd >= 0 && (fstat(sfd, &st) || !libaddrres_owner_trusted(&st, (uid_t)-1))) {
		close(sfd);
		return -EPERM;
	}
	/* O_DIRECTORY|O_NOFOLLOW on a symlink: ENOTDIR on some kernels. */
	return err == -ENOTDIR ? -ELOOP : err;
}

/*
 * Whether @elf, a file of @size bytes, is as long as its headers say: its
 * section headers, program headers and sections all in it, the last
 * ending at its end (libelf lays a copy out so).  A copy cut short fails.
 */
static bool elf_whole(Elf *elf, uint64_t size)
{
	size_t shnum, phnum;
	uint64_t end = 0;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;

	if (!gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &shnum) || elf_getphdrnum(elf, &phnum))
		return false;
	if (shnum)
		end = eh.e_shoff + (uint64_t)shnum * eh.e_shentsize;
	if (phnum && eh.e_phoff + (uint64_t)phnum * eh.e_phentsize > end)
		end = eh.e_phoff + (uint64_t)phnum * eh.e_phentsize;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return false;
		if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > end)
			end = sh.sh_offset + sh.sh_size;
	}
	return end == size;
}

/*
 * The cached copy of the debug file of @f, if there is one to trust (see
 * above): an fd, its path in *@name (malloc'd); -1 otherwise.
 */
int libaddrres_elf_debug_cache_find(struct elf_file *f, char **name)
{
	const char *dir = f->owner->debug_cache_dir;
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	struct cache_name cn;
	struct stat st;
	bool ok = false;
	int sfd, fd;
	Elf *elf;

	if (!dir || !f->facts.build_id_size)
		return -1;
	cache_name(f->facts.build_id, f->facts.build_id_size, &cn);
	sfd = sub_open(dir, cn.sub, false);
	if (sfd < 0)
		return -1;
	fd = libaddrres_open_regular(sfd, cn.leaf, O_NOFOLLOW, &st);
	close(sfd);
	if (fd < 0)
		return -1;
	if (libaddrres_owner_trusted(&st, (uid_t)-1) &&
	    libaddrres_fd_build_id(fd, id) == f->facts.build_id_size &&
	    !memcmp(id, f->facts.build_id, f->facts.build_id_size)) {
		elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
		ok = elf && elf_whole(elf, (uint64_t)st.st_size);
		if (elf)
			elf_end(elf);
	}
	if (!ok || asprintf(name, "%s/%s/%s", dir, cn.sub, cn.leaf) < 0) {
		if (!ok) {
			libaddrres_print(ADDRRES_INFO, "%s/%s/%s: not read: not a whole copy of that build ID, owned by this user or root",
					 dir, cn.sub, cn.leaf);
			f->cache_copy_bad = true;
		}
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * A new file in the directory @sfd that no one else can open by a name:
 * an O_TMPFILE, or where the file system has none, a name of its own
 * made with O_EXCL into @tmp (else @tmp is "").  An fd or a negative errno.
 */
static int tmp_open(int sfd, const char *leaf, mode_t mode, char *tmp, size_t tmp_sz)
{
	static unsigned int seq;
	int fd;

	tmp[0] = '\0';
	fd = openat(sfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd < 0 ? -errno : fd;
	for (int tries = 0; tries < 64; tries++) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		snprintf(tmp, tmp_sz, ".%s.%d.%lx.%x", leaf, (int)getpid(), (unsigned long)ts.tv_nsec,
			 __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED));
		/* O_EXCL: never a file, or a symlink, that is there already. */
		fd = openat(sfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		tmp[0] = '\0';
	return fd < 0 ? -errno : fd;
}

/* Give the written copy @fd (its name @tmp, or "" for an O_TMPFILE) the name @leaf in @sfd. */
static int tmp_install(int sfd, int fd, const char *tmp, const char *leaf)
{
	char proc[64];

	if (tmp[0])
		return renameat(sfd, tmp, sfd, leaf) ? -errno : 0;
	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc/self/fd does not. */
	if (!linkat(fd, "", sfd, leaf, AT_EMPTY_PATH))
		return 0;
	if (errno == EEXIST)
		return -EEXIST;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return linkat(AT_FDCWD, proc, sfd, leaf, AT_SYMLINK_FOLLOW) ? -errno : 0;
}

/*
 * @debug, libdwfl's ELF of the debug file of @f (named @name), its zlib
 * DWARF just decompressed in place (libaddrres_elf_dwarf()): write it so
 * into the cache, for the next handles.  0, or a negative errno, said as
 * a warning, if it cannot be written.  Another handle that wrote the
 * same copy first is no failure.
 */
int libaddrres_elf_debug_cache_add(struct elf_file *f, Elf *debug, const char *name)
{
	const char *dir = f->owner->debug_cache_dir;
	char tmp[sizeof(((struct cache_name *)0)->leaf) + 64];
	struct cache_name cn;
	mode_t mode = 0600;
	struct stat st;
	int sfd, fd, err;

	if (!dir || !f->facts.build_id_size)
		return -ENOENT;
	cache_name(f->facts.build_id, f->facts.build_id_size, &cn);
	sfd = sub_open(dir, cn.sub, true);
	if (sfd < 0) {
		err = sfd;
		goto fail;
	}
	/*
	 * As readable as the debug file it copies, no more: the directory
	 * may be shared, and the reader privileged.  A copy the next reader
	 * refused (cut short, another user's, a symlink) goes first.
	 */
	if (f->held[1].fd >= 0 && !fstat(f->held[1].fd, &st))
		mode = st.st_mode & 0644;
	if (f->cache_copy_bad)
		unlinkat(sfd, cn.leaf, 0);
	fd = tmp_open(sfd, cn.leaf, mode, tmp, sizeof(tmp));
	if (fd < 0) {
		err = fd;
		close(sfd);
		goto fail;
	}
	err = libaddrres_elf_inflate(debug, fd);
	/* On disk before it has its name: a crash leaves no copy cut short. */
	if (!err && fsync(fd))
		err = -errno;
	if (!err)
		err = tmp_install(sfd, fd, tmp, cn.leaf);
	close(fd);
	if (err && tmp[0])
		unlinkat(sfd, tmp, 0);
	close(sfd);
	if (err == -EEXIST)
		return 0;
	if (err)
		goto fail;
	libaddrres_print(ADDRRES_INFO, "%s: its DWARF decompressed once, into %s/%s/%s", name, dir,
			 cn.sub, cn.leaf);
	return 0;
fail:
	libaddrres_print(ADDRRES_WARN, "%s: cannot keep a decompressed copy in %s: %s", name, dir,
			 strerror(-err));
	return err;
}
