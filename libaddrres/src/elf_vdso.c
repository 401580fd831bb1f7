// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The vdso: read from the process's memory (it has no file), and cached
 * under its build ID.
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

/* The largest vdso image read: the kernel's are a few pages. */
#define VDSO_MAX_SIZE (16u << 20)

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
	fd = libaddrres_open_regular(AT_FDCWD, path, 0, NULL);
	if (fd < 0) {
		err = fd;
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
int libaddrres_elf_vdso_get(struct addrres_elf *e, int pid, const struct addrres_vma *vma,
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
	err = libaddrres_elf_facts_read(elf, &facts, &why);
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
	libaddrres_elf_key_init(&fk, 'v');
	if (facts.build_id_size) {
		libaddrres_elf_key_add(&fk, facts.build_id, facts.build_id_size);
	} else {
		uint64_t hash = libaddrres_hash(image, size), sz = size;

		libaddrres_elf_key_add(&fk, &sz, sizeof(sz));
		libaddrres_elf_key_add(&fk, &hash, sizeof(hash));
	}
	libaddrres_elf_facts_free(&facts);
	*filep = libaddrres_elf_map_get(&e->files, &fk);
	if (*filep && !libaddrres_elf_file_pin(e, *filep)) {
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
	err = libaddrres_elf_file_new(e, fd, "[vdso]", &f);
	if (err)
		return err;
	return libaddrres_elf_file_keep(e, f, "[vdso]", &fk, NULL, filep);
}
