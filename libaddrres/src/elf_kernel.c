// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Kernel addresses as symbols and source lines: the running kernel's
 * image and its loaded modules, each read from a file that has the build
 * ID the kernel shows for it (/sys/kernel/notes, /sys/module/NAME/notes),
 * each placed where the kernel put it: the image moved by KASLR (_text
 * in kallsyms against _text in the file), a module's sections at the
 * addresses of /sys/module/NAME/sections.  kallsyms gives names; this
 * gives file, line and inlined functions, as `eu-addr2line -k` does from
 * the same files.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "elf_internal.h"

/* The largest notes file read: the kernel's are a few hundred bytes. */
#define NOTES_MAX 8192

/* The errors of the files tried for one image or module, for its message. */
struct tried {
	char text[1024];
	size_t len;
};

static void tried_add(struct tried *t, const char *msg)
{
	int len;

	if (t->len >= sizeof(t->text) - 1)
		return;
	len = snprintf(t->text + t->len, sizeof(t->text) - t->len, "%s%s", t->len ? "; " : "",
		       msg);
	if (len > 0)
		t->len += (size_t)len;
	if (t->len >= sizeof(t->text))
		t->len = sizeof(t->text) - 1;
}

/* A file of at most @cap bytes (sysfs' are read in one go): its size, or -errno. */
static ssize_t read_small(const char *path, void *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t r;

	if (fd < 0)
		return -errno;
	while (got < cap && (r = read(fd, (char *)buf + got, cap - got)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			close(fd);
			return r;
		}
		got += (size_t)r;
	}
	close(fd);
	return (ssize_t)got;
}

static size_t align4(size_t v)
{
	return (v + 3) & ~(size_t)3;
}

/*
 * The GNU build ID among the ELF notes of a notes file (the kernel's
 * .notes as sysfs shows them, in the machine's byte order, 4-aligned):
 * its size, 0 if there is none.
 */
static size_t notes_build_id(const unsigned char *p, size_t len, unsigned char *id)
{
	size_t off = 0;

	while (len - off >= 3 * sizeof(uint32_t)) {
		uint32_t hdr[3];	/* namesz, descsz, type */
		size_t name_at, desc_at, next;

		memcpy(hdr, p + off, sizeof(hdr));
		if (hdr[0] > len || hdr[1] > len)
			return 0;
		name_at = off + sizeof(hdr);
		desc_at = name_at + align4(hdr[0]);
		next = desc_at + align4(hdr[1]);
		if (next > len)
			return 0;
		if (hdr[2] == NT_GNU_BUILD_ID && hdr[0] == sizeof("GNU") &&
		    !memcmp(p + name_at, "GNU", sizeof("GNU")) && hdr[1] > 0 &&
		    hdr[1] <= ADDRRES_BUILD_ID_MAX) {
			memcpy(id, p + desc_at, hdr[1]);
			return hdr[1];
		}
		off = next;
	}
	return 0;
}

/* The build ID in the notes file @path: its size; 0 with *@err set if none. */
static size_t sysfs_build_id(const char *path, unsigned char *id, int *err)
{
	unsigned char buf[NOTES_MAX];
	ssize_t len = read_small(path, buf, sizeof(buf));
	size_t size;

	if (len < 0) {
		*err = (int)len;
		return 0;
	}
	size = notes_build_id(buf, (size_t)len, id);
	*err = size ? 0 : -ENODATA;
	return size;
}

/* A module name as the kernel writes it: '-' in a file name is '_' there. */
static bool same_module(const char *name, const char *file, size_t len)
{
	for (size_t i = 0; i < len; i++, name++) {
		char c = file[i] == '-' ? '_' : file[i];

		if (*name != c)
			return false;
	}
	return *name == '\0';
}

/*
 * The path, relative to the list's directory, of module @name in a list
 * of modules, one path a line and ':' ending it if more follows
 * (modules.dep, modules.order), into @rel; false if it has none.  A path
 * is taken up to its ".ko" (".o" in a newer modules.order), which
 * replaces what followed: the uncompressed module.
 */
static bool module_in_list(const char *list, const char *name, char *rel, size_t sz)
{
	FILE *f = fopen(list, "re");
	char *line = NULL;
	size_t cap = 0;
	bool found = false;

	if (!f)
		return false;
	while (!found && getline(&line, &cap, f) > 0) {
		char *end = line + strcspn(line, ":\n"), *base, *ext;

		*end = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		ext = strstr(base, ".ko");
		if (!ext && (ext = strrchr(base, '.')) && strcmp(ext, ".o"))
			ext = NULL;
		if (!ext || !same_module(name, base, (size_t)(ext - base)))
			continue;
		found = snprintf(rel, sz, "%.*s.ko", (int)(ext - line), line) < (int)sz;
	}
	free(line);
	fclose(f);
	return found;
}

/*
 * The first file of @paths (NULL entries skipped, a "" entry: by build ID
 * in the debug directories) that has build ID @id, pinned for this call;
 * 0, or the last error with the message naming each file tried.
 */
static int first_of(struct addrres_elf *e, const char *what, const char *const *paths, size_t n,
		    const unsigned char *id, size_t id_size, struct elf_file **fp)
{
	char found[PATH_MAX], hex[2 * ADDRRES_BUILD_ID_MAX + 1];
	struct tried t = { .len = 0 };
	int err = -ENOENT;

	for (size_t i = 0; i < n; i++) {
		if (!paths[i])
			continue;
		err = libaddrres_elf_file_at(e, *paths[i] ? paths[i] : NULL, id, id_size, found,
					     sizeof(found), fp);
		if (!err)
			return 0;
		tried_add(&t, e->msg);
	}
	libaddrres_hex(id, id_size, hex);
	return libaddrres_err(&e->eb, err == -ESTALE ? -ESTALE : -ENOENT,
			      "%s (build ID %s): no file of it: %s", what, hex, t.text);
}

/* The path libdwfl has of @f, for messages. */
static const char *file_name(struct elf_file *f)
{
	const char *main_file = NULL;

	dwfl_module_info(f->mod, NULL, NULL, NULL, NULL, NULL, &main_file, NULL);
	return main_file ? main_file : "?";
}

/* The value of symbol @name in @f's symbol table (libdwfl's): 0 or -ENOENT. */
static int symbol_value(struct elf_file *f, const char *name, uint64_t *value)
{
	int n = dwfl_module_getsymtab(f->mod);

	for (int i = 1; i < n; i++) {
		GElf_Word shndx;
		GElf_Addr addr;
		GElf_Sym sym;
		const char *sname = dwfl_module_getsym_info(f->mod, i, &sym, &addr, &shndx, NULL,
							    NULL);

		if (sname && !strcmp(sname, name) && shndx != SHN_UNDEF) {
			*value = addr - f->bias;
			return 0;
		}
	}
	return -ENOENT;
}

/* Where the files of one kernel release are looked for. */
struct kernel_dirs {
	const char *build_dir, *vmlinux;
	char release[sizeof(((struct utsname *)0)->release)];
};

static const char *path_or_null(char *buf, size_t sz, const char *fmt, const char *a,
				const char *b)
{
	int len = snprintf(buf, sz, fmt, a, b);

	return len > 0 && (size_t)len < sz ? buf : NULL;
}

/* By how much KASLR moved image @f: where kallsyms has _text (@text) minus where @f has it. */
static int image_text(struct addrres_elf *e, struct elf_file *f, const struct addrres_ksym *text,
		      uint64_t *slide)
{
	int err;

	/* Read once a handle's file: the symbol table of a vmlinux is large. */
	if (!f->text_known) {
		err = symbol_value(f, "_text", &f->text);
		if (err)
			return libaddrres_err(&e->eb, err, "%s: no symbol _text: no KASLR offset",
					      file_name(f));
		f->text_known = true;
	}
	*slide = text->addr - f->text;
	return 0;
}

/*
 * The kernel image: the file of the running kernel's build ID, and by how
 * much KASLR moved it (kallsyms' _text minus the file's).
 */
static int image_get(struct addrres_elf *e, const struct addrres_ksyms *ks,
		     const struct kernel_dirs *d, struct elf_file **fp, uint64_t *slide)
{
	char p[5][PATH_MAX];
	const char *paths[6];
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	const struct addrres_ksym *text;
	size_t id_size, count, n;
	int err;

	id_size = sysfs_build_id("/sys/kernel/notes", id, &err);
	if (!id_size)
		return libaddrres_err(&e->eb, err == -ENODATA ? -ENOENT : err,
				      "/sys/kernel/notes: %s", err == -ENODATA ?
				      "no build ID: no file can be told to be the running kernel's" :
				      strerror(-err));
	err = addrres_ksyms__find_name(ks, "=_text", &text, 1, &count);
	if (err)
		return libaddrres_err(&e->eb, err == -EACCES ? -EACCES : -ENOENT,
				      "_text: %s", err == -EACCES ?
				      "the kernel hides its symbol addresses: no KASLR offset" :
				      "not one symbol of that name in the kernel's symbols: no KASLR offset");
	/* A file the caller named is the only one: not another behind its back. */
	if (d->vmlinux) {
		paths[0] = d->vmlinux;
		n = 1;
	} else {
		paths[0] = d->build_dir ?
			   path_or_null(p[0], PATH_MAX, "%s/vmlinux%s", d->build_dir, "") : NULL;
		paths[1] = "";
		paths[2] = path_or_null(p[1], PATH_MAX, "/usr/lib/debug/boot/vmlinux-%s%s",
					d->release, "");
		paths[3] = path_or_null(p[2], PATH_MAX, "/usr/lib/debug/lib/modules/%s/vmlinux%s",
					d->release, "");
		paths[4] = path_or_null(p[3], PATH_MAX, "/lib/modules/%s/build/vmlinux%s",
					d->release, "");
		paths[5] = path_or_null(p[4], PATH_MAX, "/boot/vmlinux-%s%s", d->release, "");
		n = 6;
	}
	err = first_of(e, "the kernel", paths, n, id, id_size, fp);
	return err ? err : image_text(e, *fp, text, slide);
}

/* The module file of loaded module @name, of the build ID the kernel shows. */
static int module_get(struct addrres_elf *e, const char *name, const struct kernel_dirs *d,
		      struct elf_file **fp)
{
	char p[5][PATH_MAX], rel[PATH_MAX], what[PATH_MAX];
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	const char *paths[4] = { NULL };
	size_t id_size;
	int err;

	snprintf(what, sizeof(what), "/sys/module/%s/notes/.note.gnu.build-id", name);
	id_size = sysfs_build_id(what, id, &err);
	if (!id_size)
		return libaddrres_err(&e->eb, err == -ENODATA ? -ENOENT : err, "%s: %s", what,
				      err == -ENODATA ? "no build ID" : strerror(-err));
	if (d->build_dir && path_or_null(p[0], PATH_MAX, "%s/modules.order%s", d->build_dir, "") &&
	    module_in_list(p[0], name, rel, sizeof(rel)))
		paths[0] = path_or_null(p[1], PATH_MAX, "%s/%s", d->build_dir, rel);
	paths[1] = "";
	if (path_or_null(p[2], PATH_MAX, "/lib/modules/%s/modules.dep%s", d->release, "") &&
	    module_in_list(p[2], name, rel, sizeof(rel))) {
		paths[2] = path_or_null(p[3], PATH_MAX, "/usr/lib/debug/lib/modules/%s/%s",
					d->release, rel);
		paths[3] = path_or_null(p[4], PATH_MAX, "/lib/modules/%s/%s", d->release, rel);
	}
	snprintf(what, sizeof(what), "module %s", name);
	return first_of(e, what, paths, 4, id, id_size, fp);
}

/*
 * The section of module @name (file @f) that holds @addr, from the
 * addresses the kernel gave its sections (/sys/module/NAME/sections, one
 * file each) and their sizes in @f: its offset there into *@off.
 */
static int module_section(struct addrres_elf *e, const char *name, struct elf_file *f,
			  uint64_t addr, const char **section, uint64_t *off)
{
	char dir[PATH_MAX], path[PATH_MAX + 256], text[64];
	struct dirent *de;
	int err = -ENOENT;
	DIR *dp;

	snprintf(dir, sizeof(dir), "/sys/module/%s/sections", name);
	dp = opendir(dir);
	if (!dp)
		return libaddrres_err(&e->eb, -errno, "%s: %s", dir, strerror(errno));
	while ((de = readdir(dp))) {
		uint64_t start, size, at;
		const char *shown;
		ssize_t len;
		char *end;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		len = read_small(path, text, sizeof(text) - 1);
		if (len < 0) {
			err = (int)len;
			continue;
		}
		text[len] = '\0';
		errno = 0;
		at = strtoull(text, &end, 16);
		if (errno || end == text || !at)
			continue;
		if (libaddrres_elf_section_at(f, de->d_name, &start, &size, &shown))
			continue;
		if (addr >= at && addr - at < size) {
			/* The file's name of it: it lives as long as the answer. */
			*section = shown;
			*off = addr - at;
			err = 0;
			break;
		}
	}
	closedir(dp);
	if (err == -EACCES || err == -EPERM)
		return libaddrres_err(&e->eb, err, "%s: %s (its section addresses are root's)", dir,
				      strerror(-err));
	if (err)
		return libaddrres_err(&e->eb, err, "module %s: no section of it holds 0x%llx", name,
				      (unsigned long long)addr);
	return 0;
}

/* What one call found of a module: read once however many addresses it has. */
struct module_seen {
	const char *name;
	struct elf_file *f;
	int err;
	char msg[LIBADDRRES_MSG_SZ];
};

/* Where one address is answered: its file and what to ask it. */
static int resolve_one(struct addrres_elf *e, const struct addrres_ksyms *ks,
		       const struct kernel_dirs *d, uint64_t addr, const struct addrres_elf_sym **sym,
		       struct addrres_elf_sym *store, struct module_seen *seen, size_t *nr_seen,
		       size_t max_seen)
{
	const struct addrres_ksym *ksym = NULL;
	struct module_seen *m = NULL;
	uint64_t slide = 0, off = 0;
	const char *section = NULL;
	struct elf_file *f;
	int err;

	if (addrres_ksyms__find_addr(ks, addr, &ksym, &off))
		ksym = NULL;
	if (!ksym || !ksym->loaded_module) {
		err = image_get(e, ks, d, &f, &slide);
		if (err)
			return err;
		libaddrres_elf_resolve_file(e, f, &addr, -slide, true, 1, sym, store);
		return 0;
	}
	if (!strcmp(ksym->modules[0], "bpf") || !strncmp(ksym->modules[0], "__builtin__", 11))
		return libaddrres_err(&e->eb, -ENOENT, "0x%llx: code the kernel made (%s): no file",
				      (unsigned long long)addr, ksym->modules[0]);
	for (size_t i = 0; i < *nr_seen; i++) {
		if (!strcmp(seen[i].name, ksym->modules[0]))
			m = &seen[i];
	}
	if (!m && *nr_seen < max_seen) {
		m = &seen[(*nr_seen)++];
		m->name = ksym->modules[0];
		m->err = module_get(e, m->name, d, &m->f);
		snprintf(m->msg, sizeof(m->msg), "%s", e->msg);
	}
	if (m && m->err)
		return libaddrres_err(&e->eb, m->err, "%s", m->msg);
	if (m) {
		f = m->f;
	} else {
		err = module_get(e, ksym->modules[0], d, &f);
		if (err)
			return err;
	}
	err = module_section(e, ksym->modules[0], f, addr, &section, &off);
	if (err)
		return err;
	return libaddrres_elf_resolve_in_section(e, f, file_name(f), section, &off, 1, sym, store);
}

int addrres_elf__resolve_kernel(struct addrres_elf *e, const struct addrres_ksyms *ks,
				const uint64_t *addrs, size_t n,
				const struct addrres_elf_sym **syms, int *errs,
				const struct addrres_elf_kernel_opts *opts)
{
	struct module_seen seen[16];
	struct kernel_dirs d;
	struct utsname u;
	size_t nr_seen = 0;
	char last[LIBADDRRES_MSG_SZ] = "";
	int err;

	if (syms) {
		for (size_t i = 0; i < n; i++)
			syms[i] = NULL;
	}
	if (errs) {
		for (size_t i = 0; i < n; i++)
			errs[i] = 0;
	}
	if (!e)
		return -EINVAL;
	libaddrres_err_clear(&e->eb);
	libaddrres_elf_call_start(e);
	if (!libaddrres_opts_valid(opts, sizeof(*opts)))
		return libaddrres_err(&e->eb, -EINVAL,
				      "addrres_elf_kernel_opts: sz is too small or too large, or fields unknown to this libaddrres are set");
	if (!ks || ((!addrs || !syms) && n))
		return libaddrres_err(&e->eb, -EINVAL,
				      "addrres_elf__resolve_kernel: ks, addrs or syms is NULL");
	d.build_dir = LIBADDRRES_OPTS_GET(opts, build_dir, NULL);
	d.vmlinux = LIBADDRRES_OPTS_GET(opts, vmlinux, NULL);
	if (uname(&u))
		return libaddrres_err(&e->eb, -errno, "uname: %s", strerror(errno));
	memcpy(d.release, u.release, sizeof(d.release));
	err = libaddrres_elf_syms_reserve(e, n, "kernel");
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		err = resolve_one(e, ks, &d, addrs[i], &syms[i], &e->syms[i], seen, &nr_seen,
				  sizeof(seen) / sizeof(seen[0]));
		if (err == -ENOMEM)
			goto fail;
		if (err) {
			snprintf(last, sizeof(last), "%s", e->msg);
			syms[i] = NULL;
		}
		if (errs)
			errs[i] = err;
	}
	libaddrres_err_clear(&e->eb);
	if (*last)
		libaddrres_err(&e->eb, 0, "%s", last);
	return 0;
fail:
	for (size_t i = 0; i < n; i++)
		syms[i] = NULL;
	return err;
}
