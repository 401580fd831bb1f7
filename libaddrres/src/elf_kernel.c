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
#include <sys/stat.h>
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

/*
 * A regular file of at most @cap bytes (sysfs' are read in one go): its
 * size, or -errno.  Never a FIFO or device that would block the caller.
 */
static ssize_t read_small(const char *path, void *buf, size_t cap)
{
	int fd = libaddrres_open_regular(AT_FDCWD, path, 0, NULL);
	size_t got = 0;
	ssize_t r = 0;

	if (fd < 0)
		return fd;
	while (got < cap && (r = read(fd, (char *)buf + got, cap - got)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		got += (size_t)r;
	}
	r = r < 0 ? -errno : (ssize_t)got;
	close(fd);
	return r;
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
	FILE *f = libaddrres_fopen_regular(list);
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
 * 0, or an error with the message naming each file tried: -ENOMEM at
 * once; -ESTALE if a file was found but of another build; else the
 * error of a file that could not be read (-EACCES, -ENOEXEC...), or
 * -ENOENT for none at all.
 */
static int first_of(struct addrres_elf *e, const char *what, const char *const *paths, size_t n,
		    const unsigned char *id, size_t id_size, struct elf_file **fp)
{
	char found[PATH_MAX], hex[2 * ADDRRES_BUILD_ID_MAX + 1];
	struct tried t = { .len = 0 };
	int err, worst = -ENOENT;

	for (size_t i = 0; i < n; i++) {
		if (!paths[i])
			continue;
		err = libaddrres_elf_file_at(e, *paths[i] ? paths[i] : NULL, id, id_size, found,
					     sizeof(found), fp);
		if (!err)
			return 0;
		if (err == -ENOMEM)
			return err;
		if (err == -ESTALE || (err != -ENOENT && worst == -ENOENT))
			worst = err;
		tried_add(&t, e->msg);
	}
	libaddrres_hex(id, id_size, hex);
	return libaddrres_err(&e->eb, worst, "%s (build ID %s): no file of it: %s", what, hex,
			      t.len ? t.text : "none to look at");
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

/* @fmt with @a and @b into @buf: NULL if it does not fit. */
static const char *path_or_null(char *buf, size_t sz, const char *fmt, const char *a,
				const char *b)
{
	int len = snprintf(buf, sz, fmt, a, b);

	return len > 0 && (size_t)len < sz ? buf : NULL;
}

/* Room for five paths, off the stack: a profiler's threads may have little. */
struct paths {
	char p[5][PATH_MAX];
};

/* What one call knows of the kernel: each file looked for once, however many addresses. */
struct kernel_call {
	const char *build_dir, *vmlinux;
	char release[sizeof(((struct utsname *)0)->release)];
	struct paths *buf;
	bool image_tried;
	int image_err;
	char *image_msg;		/* the message of image_err, malloc'd */
	struct elf_file *image;
	uint64_t slide;			/* the KASLR offset: running minus linked */
	struct module_seen *mods;
	size_t nr_mods;
};

/* A loaded module as one call found it. */
struct module_seen {
	const char *name;		/* the ksyms set's */
	int err;
	char *msg;			/* the message of err, malloc'd */
	struct elf_file *f;
	/* its sections where the kernel loaded them (sysfs), sizes from @f */
	struct { const char *name; uint64_t start, size; } *scns;
	size_t nr_scns;
};

/* @err with e's message kept in *@msg (malloc'd) for the call's next addresses. */
static int remembered(struct addrres_elf *e, int err, char **msg)
{
	free(*msg);
	*msg = err ? strdup(e->msg) : NULL;
	return err && !*msg ? -ENOMEM : err;
}

/* By how much KASLR moved image @f: where kallsyms has _text (@text) minus where @f has it. */
static int image_text(struct addrres_elf *e, struct elf_file *f, uint64_t text, uint64_t *slide)
{
	/* Read once a handle's file: the symbol table of a vmlinux is large. */
	if (!f->text_known) {
		f->text_err = symbol_value(f, "_text", &f->text);
		f->text_known = true;
	}
	if (f->text_err)
		return libaddrres_err(&e->eb, f->text_err, "%s: no symbol _text: no KASLR offset",
				      file_name(f));
	*slide = text - f->text;
	return 0;
}

/*
 * The kernel image: the file of the running kernel's build ID, and by how
 * much KASLR moved it.
 */
static int image_find(struct addrres_elf *e, const struct addrres_ksyms *ks, struct kernel_call *c)
{
	char (*p)[PATH_MAX] = c->buf->p;
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	const struct addrres_ksym *text;
	char ebuf[128];
	const char *paths[6];
	size_t id_size, count, n;
	int err;

	id_size = sysfs_build_id("/sys/kernel/notes", id, &err);
	if (!id_size)
		return libaddrres_err(&e->eb, err == -ENODATA ? -ENOENT : err,
				      "/sys/kernel/notes: %s", err == -ENODATA ?
				      "no build ID: no file can be told to be the running kernel's" :
				      libaddrres_strerror(err, ebuf, sizeof(ebuf)));
	err = addrres_ksyms__find_name(ks, "=_text", &text, 1, &count);
	if (err)
		return libaddrres_err(&e->eb, err == -EACCES ? -EACCES : -ENOENT,
				      "_text: %s", err == -EACCES ?
				      "the kernel hides its symbol addresses: no KASLR offset" :
				      "not one symbol of that name in the kernel's symbols: no KASLR offset");
	/* A file the caller named is the only one: not another behind its back. */
	if (c->vmlinux) {
		paths[0] = c->vmlinux;
		n = 1;
	} else {
		paths[0] = c->build_dir ?
			   path_or_null(p[0], PATH_MAX, "%s/vmlinux%s", c->build_dir, "") : NULL;
		paths[1] = "";
		paths[2] = path_or_null(p[1], PATH_MAX, "/usr/lib/debug/boot/vmlinux-%s%s",
					c->release, "");
		paths[3] = path_or_null(p[2], PATH_MAX, "/usr/lib/debug/lib/modules/%s/vmlinux%s",
					c->release, "");
		paths[4] = path_or_null(p[3], PATH_MAX, "/lib/modules/%s/build/vmlinux%s",
					c->release, "");
		paths[5] = path_or_null(p[4], PATH_MAX, "/boot/vmlinux-%s%s", c->release, "");
		n = 6;
	}
	err = first_of(e, "the kernel", paths, n, id, id_size, &c->image);
	return err ? err : image_text(e, c->image, text->addr, &c->slide);
}

/* The module file of loaded module @name, of the build ID the kernel shows. */
static int module_find(struct addrres_elf *e, const char *name, struct kernel_call *c,
		       struct elf_file **fp)
{
	char (*p)[PATH_MAX] = c->buf->p, ebuf[128];
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	const char *paths[4] = { NULL };
	size_t id_size;
	int err;

	/* p[4]: the notes file, then the relative path of the module. */
	snprintf(p[4], PATH_MAX, "/sys/module/%s/notes/.note.gnu.build-id", name);
	id_size = sysfs_build_id(p[4], id, &err);
	if (!id_size)
		return libaddrres_err(&e->eb, err == -ENODATA ? -ENOENT : err, "%s: %s", p[4],
				      err == -ENODATA ? "no build ID" :
				      libaddrres_strerror(err, ebuf, sizeof(ebuf)));
	if (c->build_dir && path_or_null(p[0], PATH_MAX, "%s/modules.order%s", c->build_dir, "") &&
	    module_in_list(p[0], name, p[4], PATH_MAX))
		paths[0] = path_or_null(p[1], PATH_MAX, "%s/%s", c->build_dir, p[4]);
	paths[1] = "";
	if (path_or_null(p[0], PATH_MAX, "/lib/modules/%s/modules.dep%s", c->release, "") &&
	    module_in_list(p[0], name, p[4], PATH_MAX)) {
		paths[2] = path_or_null(p[2], PATH_MAX, "/usr/lib/debug/lib/modules/%s/%s",
					c->release, p[4]);
		paths[3] = path_or_null(p[3], PATH_MAX, "/lib/modules/%s/%s", c->release, p[4]);
	}
	snprintf(p[4], PATH_MAX, "module %s", name);
	return first_of(e, p[4], paths, 4, id, id_size, fp);
}

/*
 * The sections of module @m where the kernel loaded them
 * (/sys/module/NAME/sections, one file each, root's) with their sizes in
 * its file: those that take memory.  -EACCES where the kernel shows every
 * address as 0 (to a reader without CAP_SYSLOG, or kptr_restrict).
 */
static int module_sections(struct addrres_elf *e, struct module_seen *m, struct kernel_call *c)
{
	char *dir = c->buf->p[0], *path = c->buf->p[1], text[64], ebuf[128];
	size_t hidden = 0, cap = 0;
	struct dirent *de;
	int err = 0;
	DIR *dp;

	snprintf(dir, PATH_MAX, "/sys/module/%s/sections", m->name);
	dp = opendir(dir);
	if (!dp)
		return libaddrres_err(&e->eb, -errno, "%s: %s", dir,
				      libaddrres_strerror(-errno, ebuf, sizeof(ebuf)));
	while ((de = readdir(dp))) {
		uint64_t start, size, at;
		const char *shown;
		ssize_t len;
		char *end;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(path, PATH_MAX, "%s/%s", dir, de->d_name) >= PATH_MAX)
			continue;
		len = read_small(path, text, sizeof(text) - 1);
		if (len < 0) {
			err = (int)len;
			continue;
		}
		text[len] = '\0';
		errno = 0;
		at = strtoull(text, &end, 16);
		if (errno || end == text)
			continue;
		if (!at) {
			hidden++;
			continue;
		}
		if (libaddrres_elf_section_at(m->f, de->d_name, &start, &size, &shown) || !size)
			continue;
		if (m->nr_scns == cap) {
			void *more = reallocarray(m->scns, cap ? 2 * cap : 16, sizeof(*m->scns));

			if (!more) {
				closedir(dp);
				return libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", dir);
			}
			m->scns = more;
			cap = cap ? 2 * cap : 16;
		}
		/* The file's name of it: it lives as long as the answers. */
		m->scns[m->nr_scns].name = shown;
		m->scns[m->nr_scns].start = at;
		m->scns[m->nr_scns++].size = size;
	}
	closedir(dp);
	if (!m->nr_scns && (hidden || err == -EACCES || err == -EPERM))
		return libaddrres_err(&e->eb, -EACCES,
				      "%s: the kernel shows its section addresses only to root (CAP_SYSLOG, kptr_restrict)",
				      dir);
	if (!m->nr_scns)
		return libaddrres_err(&e->eb, -ENOENT, "%s: no section of %s there", dir,
				      file_name(m->f));
	return 0;
}

/* Module @name as this call found it, looked for on its first address. */
static int module_get(struct addrres_elf *e, const char *name, struct kernel_call *c,
		      struct module_seen **mp)
{
	struct module_seen *m;
	void *more;
	int err;

	for (size_t i = 0; i < c->nr_mods; i++) {
		if (!strcmp(c->mods[i].name, name)) {
			*mp = &c->mods[i];
			return c->mods[i].err ? libaddrres_err(&e->eb, c->mods[i].err, "%s",
								c->mods[i].msg) : 0;
		}
	}
	more = reallocarray(c->mods, c->nr_mods + 1, sizeof(*c->mods));
	if (!more)
		return libaddrres_err(&e->eb, -ENOMEM, "module %s: out of memory", name);
	c->mods = more;
	m = memset(&c->mods[c->nr_mods++], 0, sizeof(*m));
	m->name = name;
	/* A name from the symbols is a file name in sysfs: no path in it. */
	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		err = libaddrres_err(&e->eb, -EINVAL, "\"%s\": not a module name", name);
	else
		err = module_find(e, name, c, &m->f);
	if (!err)
		err = module_sections(e, m, c);
	*mp = m;
	return remembered(e, m->err = err, &m->msg);
}

/* Where one address is answered: its file, and what to ask it. */
static int resolve_one(struct addrres_elf *e, const struct addrres_ksyms *ks,
		       struct kernel_call *c, uint64_t addr, const struct addrres_elf_sym **sym,
		       struct addrres_elf_sym *store)
{
	const struct addrres_ksym *ksym = NULL;
	struct module_seen *m = NULL;
	uint64_t off = 0;
	int err;

	err = addrres_ksyms__find_addr(ks, addr, &ksym, &off);
	if (err)
		return libaddrres_err(&e->eb, err == -EACCES ? -EACCES : -ENOENT,
				      "0x%llx: %s", (unsigned long long)addr, err == -EACCES ?
				      "the kernel hides its symbol addresses" :
				      "no symbol of the kernel's holds it");
	if (!ksym->loaded_module) {
		if (!c->image_tried) {
			c->image_tried = true;
			c->image_err = remembered(e, image_find(e, ks, c), &c->image_msg);
		}
		if (c->image_err)
			return libaddrres_err(&e->eb, c->image_err, "%s", c->image_msg);
		libaddrres_elf_resolve_file(e, c->image, &addr, -c->slide, true, 1, sym, store);
		return 0;
	}
	if (!strcmp(ksym->modules[0], "bpf") || !strncmp(ksym->modules[0], "__builtin__", 11))
		return libaddrres_err(&e->eb, -ENOENT, "0x%llx: code the kernel made (%s): no file",
				      (unsigned long long)addr, ksym->modules[0]);
	err = module_get(e, ksym->modules[0], c, &m);
	if (err)
		return err;
	for (size_t i = 0; i < m->nr_scns; i++) {
		if (addr >= m->scns[i].start && addr - m->scns[i].start < m->scns[i].size) {
			off = addr - m->scns[i].start;
			return libaddrres_elf_resolve_in_section(e, m->f, file_name(m->f),
								 m->scns[i].name, &off, 1, sym,
								 store);
		}
	}
	return libaddrres_err(&e->eb, -ENOENT, "module %s: no section of it holds 0x%llx",
			      m->name, (unsigned long long)addr);
}

static void kernel_call_free(struct kernel_call *c)
{
	for (size_t i = 0; i < c->nr_mods; i++) {
		free(c->mods[i].msg);
		free(c->mods[i].scns);
	}
	free(c->mods);
	free(c->image_msg);
	free(c->buf);
}

int addrres_elf__resolve_kernel(struct addrres_elf *e, const struct addrres_ksyms *ks,
				const uint64_t *addrs, size_t n,
				const struct addrres_elf_sym **syms, int *errs,
				const struct addrres_elf_kernel_opts *opts)
{
	struct kernel_call c = { 0 };
	char *last = NULL, ebuf[128];
	struct utsname u;
	int err = 0;

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
	c.build_dir = LIBADDRRES_OPTS_GET(opts, build_dir, NULL);
	c.vmlinux = LIBADDRRES_OPTS_GET(opts, vmlinux, NULL);
	if (uname(&u))
		return libaddrres_err(&e->eb, -errno, "uname: %s",
				      libaddrres_strerror(-errno, ebuf, sizeof(ebuf)));
	memcpy(c.release, u.release, sizeof(c.release));
	c.buf = malloc(sizeof(*c.buf));
	if (!c.buf)
		return libaddrres_err(&e->eb, -ENOMEM, "kernel: out of memory");
	err = libaddrres_elf_syms_reserve(e, n, "kernel");
	for (size_t i = 0; !err && i < n; i++) {
		int one = resolve_one(e, ks, &c, addrs[i], &syms[i], &e->syms[i]);

		if (one == -ENOMEM) {
			err = one;
			break;
		}
		if (one) {
			syms[i] = NULL;
			free(last);
			last = strdup(e->msg);
		}
		if (errs)
			errs[i] = one;
	}
	kernel_call_free(&c);
	if (err) {
		for (size_t i = 0; i < n; i++)
			syms[i] = NULL;
		free(last);
		return err;
	}
	/* The message of the last address without an answer. */
	libaddrres_err_clear(&e->eb);
	if (last)
		libaddrres_err(&e->eb, 0, "%s", last);
	free(last);
	return 0;
}
