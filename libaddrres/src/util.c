// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Helpers shared by the parts of libaddrres: options structs, error
 * messages, the string arena, the string map, a VMA's file and build IDs
 * (see internal.h).
 */
#define _GNU_SOURCE		/* the GNU strerror_r() */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#ifndef LIBADDRRES_NO_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

#include "internal.h"

bool libaddrres_opts_valid(const void *opts, size_t known_sz)
{
	const unsigned char *bytes = opts;
	size_t sz;

	if (!opts)
		return true;
	memcpy(&sz, opts, sizeof(sz));
	if (sz < sizeof(size_t) || sz > LIBADDRRES_OPTS_MAX_SZ)
		return false;
	for (size_t i = known_sz; i < sz; i++) {
		if (bytes[i])
			return false;
	}
	return true;
}

/* @fn with a va_list made of the rest. */
static void call_print(addrres_print_fn_t fn, enum addrres_print_level level, const char *fmt,
		       ...) LIBADDRRES_PRINTF(3, 4);
static void call_print(addrres_print_fn_t fn, enum addrres_print_level level, const char *fmt,
		       ...)
{
	va_list ap;

	va_start(ap, fmt);
	fn(level, fmt, ap);
	va_end(ap);
}

int libaddrres_opts_start(const void *opts, size_t known_sz, struct libaddrres_errbuf *eb,
			  const char *type)
{
	libaddrres_err_clear(eb);
	if (!libaddrres_opts_valid(opts, known_sz))
		return libaddrres_err(eb, -EINVAL,
				      "%s: sz is too small or too large, or fields unknown to this libaddrres are set",
				      type);
	return 0;
}

void libaddrres_err_own(struct libaddrres_errbuf *eb, char *msg, size_t sz)
{
	eb->buf = msg;
	eb->sz = sz;
	msg[0] = '\0';
}

/* ---- the print function ---- */

/*
 * The caller's, or none: the library prints nothing by default (a
 * profiler's output is its own).  Set before the library is used, as
 * libbpf_set_print() is: it is read without a lock.
 */
static addrres_print_fn_t print_fn;

addrres_print_fn_t addrres_set_print(addrres_print_fn_t fn)
{
	addrres_print_fn_t old = print_fn;

	print_fn = fn;
	return old;
}

void libaddrres_print(enum addrres_print_level level, const char *fmt, ...)
{
	addrres_print_fn_t fn = print_fn;
	char line[LIBADDRRES_MSG_SZ];
	va_list ap;

	if (!fn)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	call_print(fn, level, "libaddrres: %s\n", line);
}

void libaddrres_err_clear(struct libaddrres_errbuf *eb)
{
	if (eb && eb->buf && eb->sz)
		eb->buf[0] = '\0';
}

int libaddrres_err(struct libaddrres_errbuf *eb, int err, const char *fmt, ...)
{
	va_list ap;

	if (eb && eb->buf && eb->sz) {
		va_start(ap, fmt);
		vsnprintf(eb->buf, eb->sz, fmt, ap);
		va_end(ap);
	}
	return err;
}

const char *libaddrres_strerror(int err, char *buf, size_t sz)
{
	return strerror_r(err < 0 ? -err : err, buf, sz);
}

/* ---- arena ---- */

#define ARENA_CHUNK_SIZE (64 * 1024)

struct libaddrres_arena_chunk {
	struct libaddrres_arena_chunk *next;
	max_align_t data[];
};

void *libaddrres_arena_alloc(struct libaddrres_arena *a, size_t size, size_t align)
{
	struct libaddrres_arena_chunk *c;
	size_t pad, cap;

	/* align: a power of two, at most that of max_align_t */
	if (!size)
		size = 1;
	pad = a->left ? (size_t)(-(uintptr_t)a->next & (align - 1)) : 0;
	if (a->left >= pad && a->left - pad >= size) {
		void *p = a->next + pad;

		a->next += pad + size;
		a->left -= pad + size;
		return p;
	}
	cap = size > ARENA_CHUNK_SIZE ? size : ARENA_CHUNK_SIZE;
	if (cap > SIZE_MAX - sizeof(*c))
		return NULL;
	c = malloc(sizeof(*c) + cap);
	if (!c)
		return NULL;
	a->bytes += sizeof(*c) + cap;
	if (size >= ARENA_CHUNK_SIZE && a->chunks) {
		/*
		 * A chunk of its own, behind the newest: the newest keeps
		 * its free space for the allocations that follow.
		 */
		c->next = a->chunks->next;
		a->chunks->next = c;
		return c->data;
	}
	c->next = a->chunks;
	a->chunks = c;
	a->next = (char *)c->data + size;
	a->left = cap - size;
	return c->data;
}

char *libaddrres_arena_strndup(struct libaddrres_arena *a, const char *s, size_t n)
{
	char *p;

	if (n == SIZE_MAX)
		return NULL;
	p = libaddrres_arena_alloc(a, n + 1, 1);
	if (!p)
		return NULL;
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void libaddrres_arena_free(struct libaddrres_arena *a)
{
	struct libaddrres_arena_chunk *c = a->chunks, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	a->chunks = NULL;
	a->next = NULL;
	a->left = 0;
}

/* ---- hashing and the string map ---- */

/* FNV-1a, 64-bit, with a final mix so that the low bits are usable. */
uint64_t libaddrres_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static struct libaddrres_strmap_ent *
strmap_slot(struct libaddrres_strmap_ent *ents, size_t cap, const char *key, size_t n,
	    uint64_t hash)
{
	size_t mask = cap - 1;

	for (size_t i = hash & mask;; i = (i + 1) & mask) {
		struct libaddrres_strmap_ent *e = &ents[i];

		if (!e->key || (e->hash == hash && e->len == n && !memcmp(e->key, key, n)))
			return e;
	}
}

struct libaddrres_strmap_ent *
libaddrres_strmap_find(const struct libaddrres_strmap *m, const char *key, size_t n)
{
	struct libaddrres_strmap_ent *e;

	if (!m->cap)
		return NULL;
	e = strmap_slot(m->ents, m->cap, key, n, libaddrres_hash(key, n));
	return e->key ? e : NULL;
}

static int strmap_grow(struct libaddrres_strmap *m)
{
	size_t cap = m->cap ? 2 * m->cap : 16;
	struct libaddrres_strmap_ent *ents;

	if (cap > SIZE_MAX / 2 / sizeof(*ents))
		return -ENOMEM;
	ents = calloc(cap, sizeof(*ents));
	if (!ents)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++) {
		struct libaddrres_strmap_ent *e = &m->ents[i];

		if (e->key)
			*strmap_slot(ents, cap, e->key, e->len, e->hash) = *e;
	}
	free(m->ents);
	m->ents = ents;
	m->cap = cap;
	return 0;
}

int libaddrres_strmap_add(struct libaddrres_strmap *m, const char *key, size_t n, void *val)
{
	struct libaddrres_strmap_ent *e;
	uint64_t hash = libaddrres_hash(key, n);

	/* At most half full, so that probes stay short and always end. */
	if (m->nr + 1 > m->cap / 2) {
		int err = strmap_grow(m);

		if (err)
			return err;
	}
	e = strmap_slot(m->ents, m->cap, key, n, hash);
	e->key = key;
	e->len = n;
	e->hash = hash;
	e->val = val;
	m->nr++;
	return 0;
}

/*
 * Linear probing's deletion: the entries after @ent up to a free slot
 * that were placed past it are moved back, so that every probe still
 * finds them.
 */
void libaddrres_strmap_del(struct libaddrres_strmap *m, struct libaddrres_strmap_ent *ent)
{
	size_t mask = m->cap - 1, hole = (size_t)(ent - m->ents), j = hole;

	for (;;) {
		struct libaddrres_strmap_ent *x;
		size_t home;

		j = (j + 1) & mask;
		x = &m->ents[j];
		if (!x->key)
			break;
		home = x->hash & mask;
		/* Stays if its home is cyclically in (hole, j]. */
		if (hole <= j ? (hole < home && home <= j) : (hole < home || home <= j))
			continue;
		m->ents[hole] = *x;
		hole = j;
	}
	memset(&m->ents[hole], 0, sizeof(m->ents[hole]));
	m->nr--;
}

void libaddrres_strmap_free(struct libaddrres_strmap *m)
{
	free(m->ents);
	m->ents = NULL;
	m->cap = 0;
	m->nr = 0;
}

const char *libaddrres_intern(struct libaddrres_strmap *m, struct libaddrres_arena *a,
			      const char *s, size_t n)
{
	struct libaddrres_strmap_ent *e = libaddrres_strmap_find(m, s, n);
	char *copy;

	if (e)
		return e->key;
	copy = libaddrres_arena_strndup(a, s, n);
	if (!copy || libaddrres_strmap_add(m, copy, n, copy))
		return NULL;
	return copy;
}

/* ---- a VMA's file and build IDs ---- */

/*
 * Open @path for the VMA @v: an fd if it is the file mapped (device and
 * inode), else a negative errno (-ESTALE: another file), with "PATH:
 * reason" appended to @why.
 */
static int open_as_mapped(const char *path, const struct addrres_vma *v, char *why,
			  size_t why_sz)
{
	size_t used = why ? strlen(why) : 0;
	char ebuf[128];
	struct stat st;
	int fd;

	fd = libaddrres_open_regular(AT_FDCWD, path, 0, &st);
	if (fd >= 0 && ((uint64_t)st.st_ino != v->inode || major(st.st_dev) != v->dev_major ||
			minor(st.st_dev) != v->dev_minor)) {
		close(fd);
		if (why && used < why_sz)
			snprintf(why + used, why_sz - used,
				 "%s%s: another file than the one mapped (device or inode: replaced since it was mapped)",
				 used ? "; " : "", path);
		return -ESTALE;
	}
	if (fd < 0 && why && used < why_sz)
		snprintf(why + used, why_sz - used, "%s%s: %s", used ? "; " : "", path,
			 libaddrres_open_strerror(fd, ebuf, sizeof(ebuf)));
	return fd;
}

/*
 * The file mapped at @v, tried in turn, each checked to be the VMA's
 * device and inode:
 *  1. /proc/PID/map_files/START-END, the file itself, even removed or in
 *     another mount namespace (it needs CAP_SYS_ADMIN);
 *  2. the path of the name through /proc/PID/root (the process's own
 *     view of its files) for another process, the path itself for us;
 *  3. for another process, the path itself: once the process has exited
 *     (a profile's short-lived processes) its /proc directory is gone,
 *     but the file is most often still there.  The device and inode
 *     check, and the build ID check of the caller where the VMA has one,
 *     tell another file from it (another mount namespace, say).
 * A removed file (" (deleted)") has only the first.  Failing all, @why
 * names each path tried and why it failed; the errno is -ESTALE if one
 * was another file, else the last one's.
 */
int libaddrres_open_mapped_file(int pid, const struct addrres_vma *v, const char *name,
				char *why, size_t why_sz)
{
	static const char deleted[] = " (deleted)";
	size_t len = strlen(name), dlen = strlen(deleted);
	char path[PATH_MAX + 64], proc[32];
	bool stale = false;
	int fd, n;

	if (why && why_sz)
		why[0] = '\0';
	if (pid)
		snprintf(proc, sizeof(proc), "/proc/%d", pid);
	else
		snprintf(proc, sizeof(proc), "/proc/self");
	snprintf(path, sizeof(path), "%s/map_files/%llx-%llx", proc,
		 (unsigned long long)v->start, (unsigned long long)v->end);
	fd = open_as_mapped(path, v, why, why_sz);
	if (fd >= 0)
		return fd;
	stale |= fd == -ESTALE;
	if (name[0] != '/' || (len >= dlen && !strcmp(name + len - dlen, deleted))) {
		if (why && why_sz && strlen(why) < why_sz - 1)
			snprintf(why + strlen(why), why_sz - strlen(why), "; no path to open");
		return stale ? -ESTALE : fd;
	}
	n = pid ? snprintf(path, sizeof(path), "%s/root%s", proc, name) :
		  snprintf(path, sizeof(path), "%s", name);
	if (n < 0 || (size_t)n >= sizeof(path)) {
		if (why)
			snprintf(why, why_sz, "path too long");
		return -ENAMETOOLONG;
	}
	fd = open_as_mapped(path, v, why, why_sz);
	if (fd >= 0)
		return fd;
	stale |= fd == -ESTALE;
	if (pid) {
		fd = open_as_mapped(name, v, why, why_sz);
		if (fd >= 0)
			return fd;
		stale |= fd == -ESTALE;
	}
	return stale ? -ESTALE : fd;
}

void libaddrres_hex(const unsigned char *id, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[id[i] >> 4];
		hex[2 * i + 1] = digits[id[i] & 0xf];
	}
	hex[2 * n] = '\0';
}

int libaddrres_open_regular(int dirfd, const char *path, int flags, struct stat *st)
{
	struct stat own;
	int fd, err;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | flags);
	if (fd < 0)
		return -errno;
	if (!st)
		st = &own;
	if (fstat(fd, st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if (!S_ISREG(st->st_mode)) {
		close(fd);
		return -ENOEXEC;
	}
	return fd;
}

FILE *libaddrres_fopen_regular(const char *path)
{
	int fd = libaddrres_open_regular(AT_FDCWD, path, 0, NULL), err;
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		err = errno;
		close(fd);
		errno = err;
	}
	return f;
}

const char *libaddrres_open_strerror(int err, char *buf, size_t sz)
{
	if (err == -ENOEXEC || err == ENOEXEC) {
		snprintf(buf, sz, "not a regular file");
		return buf;
	}
	return libaddrres_strerror(err, buf, sz);
}

bool libaddrres_owner_trusted(const struct stat *st, uid_t also)
{
	return st->st_uid == geteuid() || st->st_uid == 0 || (also != (uid_t)-1 && st->st_uid == also);
}

#ifndef LIBADDRRES_NO_LIBELF
/* The GNU build ID among the notes of @data, into @id: its size, 0 if none. */
static size_t notes_build_id(Elf_Data *data, unsigned char *id)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nhdr;

	/*
	 * Stop before the end, not at gelf_getnote()'s 0: at the end it sets
	 * libelf's error, a TLS variable, and GCC 12's ASan crashes in its
	 * __tls_get_addr interceptor on that (glibc 2.36).
	 */
	while (data->d_size - off >= sizeof(GElf_Nhdr) &&
	       (off = gelf_getnote(data, off, &nhdr, &name_off, &desc_off)) > 0) {
		if (nhdr.n_type == NT_GNU_BUILD_ID && nhdr.n_namesz == sizeof("GNU") &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", sizeof("GNU")) &&
		    nhdr.n_descsz > 0 && nhdr.n_descsz <= ADDRRES_BUILD_ID_MAX) {
			memcpy(id, (char *)data->d_buf + desc_off, nhdr.n_descsz);
			return nhdr.n_descsz;
		}
	}
	return 0;
}

/*
 * As the kernel's build_id_parse() finds it (lib/buildid.c): a note of
 * type NT_GNU_BUILD_ID, name "GNU", 1 to 20 bytes.  Not the SHT_NOTE
 * sections: the kernel reads only segments, and what the library reads
 * must agree with what the PROCMAP_QUERY ioctl reports.  An object file
 * (ET_REL: a kernel module) has no segments: its note sections, which
 * the kernel shows a loaded module's in /sys/module/NAME/notes.
 */
size_t libaddrres_elf_build_id(struct Elf *elf, unsigned char *id)
{
	Elf_Scn *scn = NULL;
	GElf_Ehdr ehdr;
	size_t phnum, size;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr))
		return 0;
	if (ehdr.e_type == ET_REL) {
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			Elf_Data *data;

			if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
				continue;
			data = elf_getdata(scn, NULL);
			size = data && data->d_buf ? notes_build_id(data, id) : 0;
			if (size)
				return size;
		}
		return 0;
	}
	if (elf_getphdrnum(elf, &phnum))
		return 0;
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr phdr;
		Elf_Data *data;

		if (!gelf_getphdr(elf, (int)i, &phdr) || phdr.p_type != PT_NOTE)
			continue;
		data = elf_getdata_rawchunk(elf, (int64_t)phdr.p_offset, phdr.p_filesz,
					    phdr.p_align == 8 ? ELF_T_NHDR8 : ELF_T_NHDR);
		size = data ? notes_build_id(data, id) : 0;
		if (size)
			return size;
	}
	return 0;
}

size_t libaddrres_fd_build_id(int fd, unsigned char *id)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t size;

	if (!elf)
		return 0;
	size = libaddrres_elf_build_id(elf, id);
	elf_end(elf);
	return size;
}
#endif

/*
 * A handle's stats @ours (@ours_sz bytes, a size_t sz first) into the
 * caller's @stats, as long as its sz says: fields this version does not
 * know read 0.  -EINVAL for a sz smaller than the size_t or beyond
 * LIBADDRRES_OPTS_MAX_SZ.
 */
int libaddrres_stats_copy(void *stats, const void *ours, size_t ours_sz)
{
	size_t want = *(const size_t *)stats, sz;

	if (want < sizeof(size_t) || want > LIBADDRRES_OPTS_MAX_SZ)
		return -EINVAL;
	sz = want < ours_sz ? want : ours_sz;
	memcpy((char *)stats + sizeof(size_t), (const char *)ours + sizeof(size_t),
	       sz - sizeof(size_t));
	if (want > sz)
		memset((char *)stats + sz, 0, want - sz);
	return 0;
}
