// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A cap on MiniDebugInfo (.gnu_debugdata, an xz-compressed ELF image with
 * the .symtab that a stripped file lacks).  libdwfl decompresses it whole
 * into memory, with no limit: 78 KB of xz can stand for 512 MB.  Before
 * libdwfl sees a file whose symbols would come from it, the library
 * counts what the section decompresses to, stopping at the cap
 * (&addrres_elf_opts.max_debugdata); past it, libdwfl is given a copy of
 * the file (in memory, a memfd) in which the section is renamed, so that
 * it never reads it, and the symbols come from .dynsym.  A warning names
 * the file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "elf_internal.h"

/* What a MiniDebugInfo may decompress to when the caller does not say. */
#define DEFAULT_MAX_DEBUGDATA (64 << 20)

size_t libaddrres_elf_max_debugdata(size_t opt)
{
	return opt ? opt : DEFAULT_MAX_DEBUGDATA;
}

/*
 * Whether the xz stream @in (@n bytes) decompresses to more than @cap
 * bytes: decoded into a scratch buffer, counted, stopped past the cap.
 * A stream that does not decode is not over it (libdwfl then fails on it
 * as well, and reads nothing).
 */
static bool xz_over(const uint8_t *in, size_t n, size_t cap)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	uint8_t out[1 << 16];
	uint64_t total = 0;
	lzma_ret ret;

	if (lzma_stream_decoder(&strm, UINT64_MAX, 0) != LZMA_OK)
		return false;
	strm.next_in = in;
	strm.avail_in = n;
	do {
		strm.next_out = out;
		strm.avail_out = sizeof(out);
		ret = lzma_code(&strm, LZMA_FINISH);
		total += sizeof(out) - strm.avail_out;
	} while (ret == LZMA_OK && total <= cap);
	lzma_end(&strm);
	return total > cap;
}

/*
 * The .gnu_debugdata section of @elf, if libdwfl would read it (the file
 * has no .symtab): its data and where its name is in the file.
 */
static Elf_Data *debugdata_of(Elf *elf, uint64_t *name_off)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL, *found = NULL;
	GElf_Shdr sh, strsh;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			return NULL;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".gnu_debugdata") && sh.sh_type == SHT_PROGBITS) {
			found = scn;
			*name_off = sh.sh_name;
		}
	}
	if (!found || !gelf_getshdr(elf_getscn(elf, shstrndx), &strsh))
		return NULL;
	*name_off += strsh.sh_offset;
	return elf_rawdata(found, NULL);
}

/*
 * The descriptor libdwfl is to read for the file @fd named @name: @fd,
 * or, where its MiniDebugInfo decompresses to more than the cap, a copy
 * of it with that section renamed (@fd closed).  A negative errno (@fd
 * closed, the message set) if that copy cannot be made.
 */
int libaddrres_elf_debugdata_guard(struct addrres_elf *e, int fd, const char *name)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	uint64_t name_off = 0;
	Elf_Data *d = elf ? debugdata_of(elf, &name_off) : NULL;
	bool over = d && d->d_buf && xz_over(d->d_buf, d->d_size, e->max_debugdata);
	char buf[1 << 16], ebuf[128];
	off_t at = 0;
	ssize_t got = 0;
	int copy, err;

	if (elf)
		elf_end(elf);
	if (!over)
		return fd;
	libaddrres_print(ADDRRES_WARN,
			 "%s: its .gnu_debugdata decompresses to more than %zu bytes (addrres_elf_opts.max_debugdata): not read, symbols from .dynsym",
			 name, e->max_debugdata);
	copy = memfd_create("addrres capped", MFD_CLOEXEC);
	err = copy < 0 ? -errno : 0;
	while (!err && (got = pread(fd, buf, sizeof(buf), at)) > 0) {
		if (write(copy, buf, (size_t)got) != got)
			err = -EIO;
		at += got;
	}
	if (!err && got < 0)
		err = -errno;
	/* ".gnu_debugdata" -> "Xgnu_debugdata": a section no one reads. */
	if (!err && pwrite(copy, "X", 1, (off_t)name_off) != 1)
		err = -EIO;
	close(fd);
	if (err) {
		if (copy >= 0)
			close(copy);
		return libaddrres_err(&e->eb, err, "%s: a copy without its .gnu_debugdata: %s", name,
				      libaddrres_strerror(err, ebuf, sizeof(ebuf)));
	}
	return copy;
}
