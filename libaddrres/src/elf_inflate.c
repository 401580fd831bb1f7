// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DWARF compressed with zlib, decompressed by the library.
 *
 * Debian's and Fedora's debug files have their DWARF sections compressed
 * with zlib (SHF_COMPRESSED, ELFCOMPRESS_ZLIB), and libdw decompresses
 * every one of them, through libelf and zlib, when it opens the file:
 * for libc6-dbg's libc, 9.8 MB from 4.1 MB in 61 ms, two fifths of a
 * first batch.  libdeflate (Debian's libdeflate-dev) decompresses whole
 * buffers of that format in half the time.  So before libdw first reads
 * a file's DWARF, the library decompresses those sections itself, in the
 * ELFs that libdwfl opened (the file's, and its debug file's: libdwfl's
 * search puts the debug file's ELF into the module itself, so a copy
 * given back by the find_debuginfo callback would never be read).  Each
 * section's data, converted and raw (libdw 0.188 reads the one; since
 * 0.189, elfutils commit 9548a7f06e4b, the other), becomes the
 * decompressed bytes and its header no longer says it is compressed, so
 * libdw finds nothing left to do: the state libelf's own elf_compress()
 * leaves.  What libdeflate does not take (several zlib streams in one
 * section) is left to elf_compress().  The memory is what libdw's
 * decompression would take: the buffers live as long as the file.  The
 * cache directory's copies (elf_debug_cache.c) are written from the ELF
 * so decompressed.
 *
 * Sections compressed otherwise (zstd; .zdebug_*) stay as they are, for
 * libdw to read or not, as before.
 *
 * After each swap, libelf is asked again for the section: where it does
 * not give the library's buffer in both views and the header as
 * decompressed (an elfutils that works otherwise), all is put back and
 * libelf decompresses the section, once said.  &addrres_elf_opts.no_inflate
 * leaves every section to libdw from the start.
 *
 * None of it, by the library or by libdw, past a cap on what a file's
 * compressed sections decompress to (&addrres_elf_opts.max_inflated),
 * counted from their headers first: over it, the sections are hidden
 * from libdw (made empty) and the file has no lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libdeflate.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_internal.h"

/* Whether @scn is compressed with zlib (ELF's own header): its header in @ch. */
static bool zlib_section(Elf_Scn *scn, const GElf_Shdr *sh, GElf_Chdr *ch)
{
	return (sh->sh_flags & SHF_COMPRESSED) && sh->sh_type != SHT_NOBITS &&
	       gelf_getchdr(scn, ch) && ch->ch_type == ELFCOMPRESS_ZLIB;
}

/*
 * The zlib section @scn (its raw bytes @raw, its header @ch) of @elf,
 * decompressed with @dd into *@buf (malloc'd, ch_size bytes).  0, or a
 * negative errno: a section that is not exactly what its header says is
 * corrupt (-EBADMSG).
 */
static int inflate_section(struct libdeflate_decompressor *dd, Elf *elf, const Elf_Data *raw,
			   const GElf_Chdr *ch, void **buf)
{
	size_t hdr = gelf_fsize(elf, ELF_T_CHDR, 1, EV_CURRENT);

	*buf = NULL;
	/*
	 * DEFLATE expands by 1032:1 at most: a header that says more is
	 * corrupt, and the allocation it asks for is not made.
	 */
	if (!hdr || !raw->d_buf || raw->d_size < hdr || ch->ch_size > SIZE_MAX ||
	    ch->ch_size / 1032 > raw->d_size - hdr || (ch->ch_addralign & (ch->ch_addralign - 1)))
		return -EBADMSG;
	*buf = malloc(ch->ch_size ? ch->ch_size : 1);
	if (!*buf)
		return -ENOMEM;
	if (libdeflate_zlib_decompress(dd, (const char *)raw->d_buf + hdr, raw->d_size - hdr,
				       *buf, ch->ch_size, NULL) != LIBDEFLATE_SUCCESS) {
		free(*buf);
		*buf = NULL;
		return -EBADMSG;
	}
	return 0;
}

/*
 * Section @scn of @in (header @sh) into a new section of @out, its data
 * the bytes of @in's file (no conversion: the copy has @in's byte
 * order), decompressed if it is a zlib section.  The buffer a
 * decompression made goes into *@buf, for the caller to free once @out
 * is written.  0, or a negative errno.
 */
static int copy_section(struct libdeflate_decompressor *dd, Elf *in, Elf_Scn *scn,
			GElf_Shdr *sh, Elf *out, void **buf)
{
	Elf_Scn *oscn = elf_newscn(out);
	Elf_Data *od = oscn ? elf_newdata(oscn) : NULL;
	Elf_Data *raw = elf_rawdata(scn, NULL);
	GElf_Chdr ch;
	int err;

	if (!od || !raw)
		return -ENOEXEC;
	od->d_type = ELF_T_BYTE;
	od->d_version = EV_CURRENT;
	od->d_align = sh->sh_addralign ? sh->sh_addralign : 1;
	od->d_buf = raw->d_buf;
	od->d_size = raw->d_size;
	if (zlib_section(scn, sh, &ch)) {
		err = inflate_section(dd, in, raw, &ch, buf);
		if (err)
			return err;
		sh->sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
		sh->sh_size = ch.ch_size;
		sh->sh_addralign = ch.ch_addralign;
		od->d_buf = *buf;
		od->d_size = ch.ch_size;
		od->d_align = ch.ch_addralign ? ch.ch_addralign : 1;
	}
	return gelf_update_shdr(oscn, sh) ? 0 : -ENOEXEC;
}

/*
 * Write to @out_fd (empty) a copy of @in with its zlib sections
 * decompressed: the same sections, at the same indexes, laid out anew by
 * libelf.  @in is an ELF of libdwfl's whose DWARF sections are
 * decompressed in place already (libaddrres_elf_dwarf()): those are
 * copied as they are now, any other zlib section is decompressed here.
 * 0; -EBADMSG for a section that does not decompress; -ENOEXEC,
 * -EOPNOTSUPP (extended section numbering), -ENOMEM, -EIO.
 */
int libaddrres_elf_inflate(Elf *in, int out_fd)
{
	struct libdeflate_decompressor *dd = NULL;
	size_t shnum = 0, phnum = 0, shstrndx, nr_bufs = 0;
	void **bufs = NULL;
	Elf *out = NULL;
	GElf_Ehdr eh;
	int err = 0;

	if (elf_kind(in) != ELF_K_ELF || !gelf_getehdr(in, &eh) || elf_getshdrnum(in, &shnum) ||
	    elf_getphdrnum(in, &phnum) || elf_getshdrstrndx(in, &shstrndx))
		return -ENOEXEC;
	/* Extended numbering (a section count past 0xff00): not for a copy here. */
	if (shnum >= SHN_LORESERVE || shstrndx >= SHN_LORESERVE || phnum >= PN_XNUM)
		return -EOPNOTSUPP;
	dd = libdeflate_alloc_decompressor();
	bufs = calloc(shnum, sizeof(*bufs));
	out = elf_begin(out_fd, ELF_C_WRITE, NULL);
	if (!dd || !bufs || !out) {
		err = -ENOMEM;
		goto out;
	}
	if (!gelf_newehdr(out, gelf_getclass(in)) || !gelf_update_ehdr(out, &eh) ||
	    (phnum && !gelf_newphdr(out, phnum))) {
		err = -ENOEXEC;
		goto out;
	}
	for (size_t i = 0; i < phnum && !err; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(in, (int)i, &ph) || !gelf_update_phdr(out, (int)i, &ph))
			err = -ENOEXEC;
	}
	/* Sections 1 to shnum - 1, in order: every index stays what it was. */
	for (Elf_Scn *scn = NULL; !err && (scn = elf_nextscn(in, scn));) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			err = -ENOEXEC;
		else
			err = copy_section(dd, in, scn, &sh, out, &bufs[nr_bufs++]);
	}
	/* libelf lays the copy out: offsets follow the sections' sizes now. */
	if (!err && elf_update(out, ELF_C_WRITE) < 0)
		err = -EIO;
out:
	if (out)
		elf_end(out);
	for (size_t i = 0; i < nr_bufs; i++)
		free(bufs[i]);
	free(bufs);
	if (dd)
		libdeflate_free_decompressor(dd);
	return err;
}

/* @data, a section's data as libelf gives it, made the @size bytes of @buf. */
static void data_set(Elf_Data *data, void *buf, size_t size, size_t align)
{
	data->d_buf = buf;
	data->d_size = size;
	data->d_type = ELF_T_BYTE;
	data->d_align = align ? align : 1;
	data->d_off = 0;
}

/* Whether libelf gives @scn's data as @buf (@size bytes), in both views, and its header as decompressed. */
static bool swap_kept(Elf_Scn *scn, const void *buf, size_t size)
{
	Elf_Data *data = elf_getdata(scn, NULL), *raw = elf_rawdata(scn, NULL);
	GElf_Shdr sh;

#ifdef LIBADDRRES_TEST_SWAP_LOST
	/* the tests' build: as if this libelf did not keep the swap */
	return false;
#endif
	return data && raw && data->d_buf == buf && data->d_size == size && raw->d_buf == buf &&
	       raw->d_size == size && gelf_getshdr(scn, &sh) && !(sh.sh_flags & SHF_COMPRESSED) &&
	       sh.sh_size == size;
}

/* libelf's own decompression of @scn, as libdw would have done it: 0, or -EBADMSG (said). */
static int inflate_by_libelf(struct elf_file *f, Elf_Scn *scn, const GElf_Chdr *ch,
			     const char *file, const char *name)
{
	if (elf_compress(scn, 0, 0) < 0) {
		libaddrres_print(ADDRRES_WARN, "%s: its %s does not decompress: %s", file, name,
				 elf_errmsg(-1));
		f->dwarf_corrupt = true;
		return -EBADMSG;
	}
	f->owner->stats.inflated += ch->ch_size;
	f->inflated_bytes += ch->ch_size;
	return 0;
}

/*
 * Decompress the zlib section @scn (header @sh, named @name) of @elf in
 * place (see above), the buffer @f's: 0, or a negative errno.  Where
 * libdeflate cannot, libelf's elf_compress() tries (what libdw would
 * have done); where neither can, it stays compressed, and it is said.
 */
static int inflate_in_place(struct elf_file *f, struct libdeflate_decompressor *dd, Elf *elf,
			    Elf_Scn *scn, GElf_Shdr *sh, const GElf_Chdr *ch, const char *file,
			    const char *name)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	Elf_Data *raw = data ? elf_rawdata(scn, NULL) : NULL;
	Elf_Data old_data, old_raw;
	GElf_Shdr old_sh;
	void **bufs, *buf;

	bufs = realloc(f->inflated, (f->nr_inflated + 1) * sizeof(*bufs));
	if (!bufs)
		return -ENOMEM;
	f->inflated = bufs;
	if (!raw || inflate_section(dd, elf, raw, ch, &buf))
		return inflate_by_libelf(f, scn, ch, file, name);
	old_sh = *sh;
	old_data = *data;
	old_raw = *raw;
	sh->sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
	sh->sh_size = ch->ch_size;
	sh->sh_addralign = ch->ch_addralign;
	if (!gelf_update_shdr(scn, sh)) {
		free(buf);
		return -ENOEXEC;
	}
	data_set(data, buf, ch->ch_size, ch->ch_addralign);
	data_set(raw, buf, ch->ch_size, ch->ch_addralign);
	/*
	 * libdw must be handed these very structures, and see the section
	 * as decompressed: an elfutils whose libelf does otherwise would have
	 * it read the compressed bytes.  Where it does not, all is put back
	 * and libelf decompresses the section itself.
	 */
	if (!swap_kept(scn, buf, ch->ch_size)) {
		gelf_update_shdr(scn, &old_sh);
		*data = old_data;
		*raw = old_raw;
		free(buf);
		if (!f->owner->told_swap_lost)
			libaddrres_print(ADDRRES_WARN,
					 "%s: this libelf does not keep the sections the library decompresses: libelf decompresses them (slower)",
					 file);
		f->owner->told_swap_lost = true;
		return inflate_by_libelf(f, scn, ch, file, name);
	}
	f->inflated[f->nr_inflated++] = buf;
	f->owner->stats.inflated += ch->ch_size;
	f->inflated_bytes += ch->ch_size;
	return 0;
}

/*
 * The zlib DWARF sections (.debug_*) of @elf (of @file), decompressed in
 * place: whether there were any.
 */
static bool inflate_dwarf(struct elf_file *f, Elf *elf, const char *file)
{
	struct libdeflate_decompressor *dd = NULL;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool any = false;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		GElf_Shdr sh;
		GElf_Chdr ch;

		if (!gelf_getshdr(scn, &sh) || !zlib_section(scn, &sh, &ch) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strncmp(name, ".debug_", 7))
			continue;
		any = true;
		if (!dd && !(dd = libdeflate_alloc_decompressor()))
			break;
		if (inflate_in_place(f, dd, elf, scn, &sh, &ch, file, name) == -ENOMEM)
			break;
	}
	if (dd)
		libdeflate_free_decompressor(dd);
	return any;
}

/* The cap on a file's compressed DWARF when the caller does not say. */
#define DEFAULT_MAX_INFLATED ((size_t)512 << 20)

size_t libaddrres_elf_max_inflated(size_t opt)
{
	return opt ? opt : DEFAULT_MAX_INFLATED;
}

/*
 * The size a .zdebug_* section says it decompresses to: "ZLIB", then
 * 8 bytes big-endian (the old GNU format); 0 if it is not one.
 */
static uint64_t zdebug_size(Elf_Scn *scn)
{
	Elf_Data *raw = elf_rawdata(scn, NULL);
	const unsigned char *p;
	uint64_t size = 0;

	if (!raw || !raw->d_buf || raw->d_size < 12 || memcmp(raw->d_buf, "ZLIB", 4))
		return 0;
	p = (const unsigned char *)raw->d_buf + 4;
	for (int i = 0; i < 8; i++)
		size = size << 8 | p[i];
	return size;
}

/*
 * What the compressed sections of @elf take decompressed, as their
 * headers say (before any is): SHF_COMPRESSED ones whatever their
 * method, .zdebug_* ones.  Saturates at UINT64_MAX.
 */
uint64_t libaddrres_elf_inflated_size(Elf *elf)
{
	uint64_t total = 0;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		uint64_t size = 0;
		GElf_Shdr sh;
		GElf_Chdr ch;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if ((sh.sh_flags & SHF_COMPRESSED) && gelf_getchdr(scn, &ch))
			size = ch.ch_size;
		else if (name && !strncmp(name, ".zdebug_", 8))
			size = zdebug_size(scn);
		total = size > UINT64_MAX - total ? UINT64_MAX : total + size;
	}
	return total;
}

/*
 * Hide from libdw the compressed sections of @elf: each becomes empty
 * and no longer compressed, in both of libelf's views (as
 * inflate_in_place() leaves a decompressed one), so that libdw
 * decompresses none of them.
 */
static void hide_compressed(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data, *raw;
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!(sh.sh_flags & SHF_COMPRESSED) && !(name && !strncmp(name, ".zdebug_", 8)))
			continue;
		data = elf_getdata(scn, NULL);
		raw = elf_rawdata(scn, NULL);
		sh.sh_flags &= ~(GElf_Xword)SHF_COMPRESSED;
		sh.sh_size = 0;
		gelf_update_shdr(scn, &sh);
		if (data)
			data_set(data, NULL, 0, 1);
		if (raw)
			data_set(raw, NULL, 0, 1);
	}
}

/* Say once that @f's DWARF in @name is over the cap, @size bytes. */
static void cap_said(struct elf_file *f, const char *name, uint64_t size)
{
	if (!f->dwarf_capped)
		libaddrres_print(ADDRRES_WARN,
				 "%s: its compressed DWARF decompresses to %llu bytes, more than the %zu allowed (addrres_elf_opts.max_inflated): no source lines",
				 name, (unsigned long long)size, f->owner->max_inflated);
	f->dwarf_capped = true;
}

/* The compressed sections of @elf (of @name) over the cap: hidden, said.  Whether they were. */
static bool cap_elf(struct elf_file *f, Elf *elf, const char *name)
{
	uint64_t size = libaddrres_elf_inflated_size(elf);

	if (size <= f->owner->max_inflated)
		return false;
	hide_compressed(elf);
	cap_said(f, name, size);
	return true;
}

/**
 * libaddrres_elf_fd_over_cap() - whether a debug file's compressed DWARF is over the cap
 * @f: the file it is the debug file (or dwz file) of
 * @fd: the debug file, not consumed
 * @name: its name, for the warning
 * @weigh: it is given to libdw: what it decompresses counts in @f's weight
 *
 * For the debug files libdw opens as soon as libdwfl finds them (see
 * find_debuginfo()): counted from @fd's own headers, said once.
 *
 * Return: true if over &addrres_elf_opts.max_inflated.
 */
bool libaddrres_elf_fd_over_cap(struct elf_file *f, int fd, const char *name, bool weigh)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	uint64_t size = libaddrres_elf_inflated_size(elf);

	if (elf)
		elf_end(elf);
	if (size <= f->owner->max_inflated) {
		/* Given to libdw, which decompresses it all: the file's weight. */
		if (weigh)
			f->libdw_inflated += size;
		return false;
	}
	cap_said(f, name, size);
	return true;
}

/**
 * libaddrres_elf_dwarf() - libdw's DWARF of a file, its zlib sections decompressed first
 * @f: the file
 * @bias: where to store the DWARF's bias (dwfl_module_getdwarf()'s)
 *
 * Every use of @f's DWARF goes through here, so that libdw never opens it
 * before the library decompressed its zlib sections: those of the file
 * and those of the debug file libdwfl found for the symbols, where they
 * come from one.  (A debug file found for DWARF alone, the file having a
 * .symtab of its own, is left to libdw: libdwfl gives no handle on its
 * ELF before libdw opens it.)  A section that does not decompress is
 * said, naming the file, and makes line_err -EBADMSG.  With a cache
 * directory, the debug file is then written there as it is now, for the
 * next handles (elf_debug_cache.c): decompressed once for both.
 *
 * Return: dwfl_module_getdwarf()'s DWARF, or NULL.
 */
Dwarf *libaddrres_elf_dwarf(struct elf_file *f, Dwarf_Addr *bias)
{
	const char *file = NULL, *debugfile = NULL;
	Elf *symelf = NULL;
	Dwarf_Addr sym_bias;
	GElf_Word shndx;
	GElf_Addr value;
	GElf_Sym sym;

	Dwarf *dw;

	if (!f->dwarf_inflated) {
		f->dwarf_inflated = true;
		dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, &file, &debugfile);
		if (!cap_elf(f, f->elf, file ? file : "(file)") && !f->owner->no_inflate)
			inflate_dwarf(f, f->elf, file ? file : "(file)");
		/* Any symbol's ELF is the symbol table's: symbol 0, the null one, will do. */
		if (debugfile && dwfl_module_getsymtab(f->mod) > 0 &&
		    dwfl_module_getsym_info(f->mod, 0, &sym, &value, &shndx, &symelf, &sym_bias) &&
		    symelf && symelf != f->elf && !cap_elf(f, symelf, debugfile) &&
		    !f->owner->no_inflate && inflate_dwarf(f, symelf, debugfile))
			libaddrres_elf_debug_cache_add(f, symelf, debugfile);
		/* What is still compressed (zstd), libdw decompresses if it can. */
		f->libdw_inflated += libaddrres_elf_inflated_size(f->elf);
		if (symelf && symelf != f->elf)
			f->libdw_inflated += libaddrres_elf_inflated_size(symelf);
	}
	f->in_getdwarf = true;
	dw = dwfl_module_getdwarf(f->mod, bias);
	f->in_getdwarf = false;
	/* What it holds counts in the file's weight (file_bytes()): its units, once. */
	if (dw && !f->nr_dwarf_units) {
		Dwarf_Off off = 0, next;
		size_t hsize;

		f->dwarf_used = true;
		while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
			f->nr_dwarf_units++;
			off = next;
		}
	}
	return dw;
}
