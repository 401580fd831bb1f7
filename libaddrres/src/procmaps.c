// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Process addresses: the VMA of each of a batch of addresses, from the
 * PROCMAP_QUERY ioctl on /proc/PID/maps or from the file's text.
 *
 * Both walks go over the addresses sorted (struct addr_ent keeps each
 * one's place in the caller's array) and record each VMA they meet once,
 * in a growable array of slots whose strings (names, build IDs) live in
 * one growable byte buffer as offsets; the pointers of struct addrres_vma
 * are set once the walk is done, when neither will move any more.  All of
 * it is kept from one batch to the next, so that a caller resolving batch
 * after batch does not allocate.
 *
 * The text of a maps line (fs/proc/task_mmu.c, show_map_vma() in 6.1):
 *
 *   start-end perms offset major:minor inode [padding name] "\n"
 *
 * in hex but the inode (decimal); perms is [r-][w-][x-][sp]; the name is
 * a file's path as seq_file_path(m, file, "\n") writes it (a newline as
 * "\012", octal, nothing else escaped: not even the backslash), followed
 * by " (deleted)" if the file was removed, or one of the kernel's names
 * ("[heap]", "[anon:NAME]", ...), or nothing.  PROCMAP_QUERY gives the
 * same path unescaped (d_path(), " (deleted)" included), the same names,
 * flags, offset (0 without a file), device and inode.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/types.h>

#ifndef LIBADDRRES_NO_LIBELF
#include <libelf.h>
#endif

#include "internal.h"
#include "procmap_query_uapi.h"

_Static_assert(ADDRRES_VMA_READABLE == PROCMAP_QUERY_VMA_READABLE, "flag values");
_Static_assert(ADDRRES_VMA_WRITABLE == PROCMAP_QUERY_VMA_WRITABLE, "flag values");
_Static_assert(ADDRRES_VMA_EXECUTABLE == PROCMAP_QUERY_VMA_EXECUTABLE, "flag values");
_Static_assert(ADDRRES_VMA_SHARED == PROCMAP_QUERY_VMA_SHARED, "flag values");

#define VMA_FLAGS_MASK (ADDRRES_VMA_READABLE | ADDRRES_VMA_WRITABLE | \
			ADDRRES_VMA_EXECUTABLE | ADDRRES_VMA_SHARED)

/*
 * AUTO's switch from the ioctl to the text: queries in one batch after
 * which the addresses left are placed by one text pass.  A query costs
 * about what the kernel spends printing and we spend parsing a few maps
 * lines; a process has hundreds to thousands of them.  This is a guess
 * that bench/procmap-query-bench.c is there to tune: what matters is that
 * a clustered batch (a few binaries' code) never reaches it and a batch
 * spread over every VMA does not pay a query per VMA.
 */
#define AUTO_MAX_QUERIES 64

#define DEFAULT_READ_SIZE (64 * 1024)
#define NO_VMA SIZE_MAX
/* The ioctl's names are d_path()s, which the kernel caps at PATH_MAX. */
#define IOCTL_NAME_MAX PATH_MAX
/* The ioctl refuses a build ID buffer smaller than the ID (ENAMETOOLONG). */
#define IOCTL_BUILD_ID_BUF 64

/* One address of the batch, sorted, and what the walk found for it. */
struct addr_ent {
	uint64_t addr;
	size_t pos;		/* in the caller's arrays */
	size_t vma;		/* in addrres_procmaps.slots, or NO_VMA */
};

/* A VMA found, its strings as offsets into addrres_procmaps.bytes. */
struct vma_slot {
	struct addrres_vma vma;
	size_t name_off;
	size_t build_id_off;
};

struct addrres_procmaps {
	int fd;
	bool own_fd;
	int pid;		/* 0: ourselves */
	char *path;		/* of the maps file, for messages */
	enum addrres_procmaps_method method;
	bool build_ids;
	size_t read_size;
	struct libaddrres_errbuf eb;

	/* Reused from batch to batch. */
	struct addr_ent *ents;
	size_t ents_cap;
	struct vma_slot *slots;
	size_t nr_slots, slots_cap;
	char *bytes;
	size_t bytes_len, bytes_cap;
	char *rbuf;		/* the text, a read and a partial line */
	size_t rbuf_cap;

	struct addrres_procmaps_stats last;
	bool ioctl_unsupported;
};

/* ---- growing the buffers ---- */

static int grow(void **buf, size_t *cap, size_t need, size_t elem, size_t first)
{
	size_t c = *cap ? *cap : first;
	void *p;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	if (c > SIZE_MAX / elem)
		return -ENOMEM;
	p = realloc(*buf, c * elem);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = c;
	return 0;
}

static int bytes_reserve(struct addrres_procmaps *pm, size_t extra)
{
	if (extra > SIZE_MAX - pm->bytes_len)
		return -ENOMEM;
	return grow((void **)&pm->bytes, &pm->bytes_cap, pm->bytes_len + extra, 1, 4096);
}

/* A new slot, zeroed, its name and build ID empty; NULL if out of memory. */
static struct vma_slot *slot_new(struct addrres_procmaps *pm)
{
	struct vma_slot *s;

	if (grow((void **)&pm->slots, &pm->slots_cap, pm->nr_slots + 1, sizeof(*pm->slots), 64))
		return NULL;
	s = &pm->slots[pm->nr_slots];
	memset(s, 0, sizeof(*s));
	s->name_off = SIZE_MAX;
	s->build_id_off = SIZE_MAX;
	return s;
}

/* ---- the text of the maps file ---- */

struct text_walk {
	struct addrres_procmaps *pm;
	struct addr_ent *ents;
	size_t n;
	size_t next;		/* the first address not placed */
	size_t lineno;
	uint64_t prev_end;	/* of the previous line: VMAs come in order */
};

static int line_error(struct text_walk *w, const char *fmt, ...) LIBADDRRES_PRINTF(2, 3);
static int line_error(struct text_walk *w, const char *fmt, ...)
{
	char msg[200];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return libaddrres_err(&w->pm->eb, -EINVAL, "%s:%zu: %s", w->pm->path, w->lineno, msg);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;	/* the kernel prints lower case */
}

/*
 * A hex number of 1 to @max_digits digits at *@p, which must be followed
 * by @stop; *@p is moved past @stop.  0, or -1 if malformed.
 */
static int parse_hex(const char **p, const char *end, char stop, int max_digits,
		     uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	for (; s < end && hexval(*s) >= 0; s++) {
		if (++digits > max_digits)
			return -1;
		v = v << 4 | (uint64_t)hexval(*s);
	}
	if (!digits || s == end || *s != stop)
		return -1;
	*out = v;
	*p = s + 1;
	return 0;
}

struct maps_line {
	uint64_t start, end, offset, inode, major, minor;
	uint32_t flags;
	const char *name;
	size_t name_len;
};

/* "start-end ": all that a line nobody asks about needs. */
static int parse_range(struct text_walk *w, const char **p, const char *eol,
		       struct maps_line *l)
{
	if (parse_hex(p, eol, '-', 16, &l->start))
		return line_error(w, "expected \"START-END \" in hex at the start of the line");
	if (parse_hex(p, eol, ' ', 16, &l->end))
		return line_error(w, "expected \"START-END \" in hex at the start of the line");
	if (l->end <= l->start)
		return line_error(w, "the VMA ends (0x%llx) before it starts (0x%llx)",
				  (unsigned long long)l->end, (unsigned long long)l->start);
	if (l->start < w->prev_end)
		return line_error(w, "the VMA starts (0x%llx) before the previous one ends (0x%llx)",
				  (unsigned long long)l->start, (unsigned long long)w->prev_end);
	w->prev_end = l->end;
	return 0;
}

/* "perms offset major:minor inode [name]" after the range. */
static int parse_rest(struct text_walk *w, const char *p, const char *eol, struct maps_line *l)
{
	static const char perms[4][2] = { { 'r', '-' }, { 'w', '-' }, { 'x', '-' }, { 's', 'p' } };
	uint64_t inode = 0;
	int digits = 0;

	if (eol - p < 5 || p[4] != ' ')
		return line_error(w, "expected 4 permission characters and a space after the range");
	l->flags = 0;
	for (int i = 0; i < 4; i++) {
		if (p[i] == perms[i][0])
			l->flags |= 1u << i;	/* READABLE, WRITABLE, EXECUTABLE, SHARED */
		else if (p[i] != perms[i][1])
			return line_error(w, "permission %d is '%c', not '%c' or '%c'", i + 1,
					  p[i] >= 0x20 && p[i] < 0x7f ? p[i] : '?',
					  perms[i][0], perms[i][1]);
	}
	p += 5;
	if (parse_hex(&p, eol, ' ', 16, &l->offset))
		return line_error(w, "expected the file offset in hex after the permissions");
	if (parse_hex(&p, eol, ':', 8, &l->major) || parse_hex(&p, eol, ' ', 8, &l->minor))
		return line_error(w, "expected the device as MAJOR:MINOR in hex after the offset");
	for (; p < eol && *p >= '0' && *p <= '9'; p++) {
		if (++digits > 20 || inode > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
			return line_error(w, "inode number too large");
		inode = inode * 10 + (uint64_t)(*p - '0');
	}
	if (!digits || (p < eol && *p != ' '))
		return line_error(w, "expected the inode number in decimal after the device");
	l->inode = inode;
	/* The kernel pads to a column before a name, and ends there without. */
	while (p < eol && *p == ' ')
		p++;
	l->name = p;
	l->name_len = (size_t)(eol - p);
	if (memchr(l->name, '\0', l->name_len))
		return line_error(w, "NUL byte in the name");
	return 0;
}

/* The name of @l into the byte buffer, "\012" back to "\n"; its offset. */
static int store_text_name(struct addrres_procmaps *pm, const struct maps_line *l, size_t *off)
{
	const char *s = l->name, *end = l->name + l->name_len;
	char *d;
	int err = bytes_reserve(pm, l->name_len + 1);

	if (err)
		return err;
	*off = pm->bytes_len;
	d = pm->bytes + pm->bytes_len;
	while (s < end) {
		if (end - s >= 4 && !memcmp(s, "\\012", 4)) {
			*d++ = '\n';
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d++ = '\0';
	pm->bytes_len = (size_t)(d - pm->bytes);
	return 0;
}

static int text_build_id(struct addrres_procmaps *pm, struct vma_slot *slot);

/* One line, without its "\n"; 1 once every address is placed. */
static int text_line(struct text_walk *w, const char *line, const char *eol)
{
	struct addrres_procmaps *pm = w->pm;
	struct maps_line l;
	struct vma_slot *slot;
	const char *p = line;
	size_t idx;
	int err;

	w->lineno++;
	pm->last.text_lines++;
	err = parse_range(w, &p, eol, &l);
	if (err)
		return err;
	/* Addresses below this VMA are in a gap. */
	while (w->next < w->n && w->ents[w->next].addr < l.start)
		w->ents[w->next++].vma = NO_VMA;
	if (w->next == w->n)
		return 1;
	if (w->ents[w->next].addr >= l.end)
		return 0;
	err = parse_rest(w, p, eol, &l);
	if (err)
		return err;
	/* The gate page of x86_64 is no VMA of the process: see addrres.h. */
	if (l.name_len == strlen("[vsyscall]") && !memcmp(l.name, "[vsyscall]", l.name_len)) {
		while (w->next < w->n && w->ents[w->next].addr < l.end)
			w->ents[w->next++].vma = NO_VMA;
		return w->next == w->n;
	}
	slot = slot_new(pm);
	if (!slot)
		return libaddrres_err(&pm->eb, -ENOMEM, "%s: out of memory", pm->path);
	slot->vma.start = l.start;
	slot->vma.end = l.end;
	slot->vma.offset = l.offset;
	slot->vma.inode = l.inode;
	slot->vma.dev_major = (uint32_t)l.major;
	slot->vma.dev_minor = (uint32_t)l.minor;
	slot->vma.flags = l.flags;
	err = store_text_name(pm, &l, &slot->name_off);
	if (err)
		return libaddrres_err(&pm->eb, err, "%s: out of memory", pm->path);
	idx = pm->nr_slots++;
	if (pm->build_ids && l.inode) {
		err = text_build_id(pm, slot);
		if (err)
			return libaddrres_err(&pm->eb, err, "%s: out of memory", pm->path);
	}
	while (w->next < w->n && w->ents[w->next].addr < l.end)
		w->ents[w->next++].vma = idx;
	return w->next == w->n;
}

/* Place ents[from..n) by reading the text from its start. */
static int text_walk(struct addrres_procmaps *pm, struct addr_ent *ents, size_t n, size_t from)
{
	struct text_walk w = { .pm = pm, .ents = ents, .n = n, .next = from };
	size_t len = 0, need = pm->read_size + PATH_MAX + 256;
	char ebuf[128];
	int ret = 0;

	pm->last.method = ADDRRES_PROCMAPS_METHOD_TEXT;
	if (from == n)
		return 0;
	if (grow((void **)&pm->rbuf, &pm->rbuf_cap, need, 1, need))
		return libaddrres_err(&pm->eb, -ENOMEM, "%s: out of memory", pm->path);
	/* seq_file starts again, from the VMAs of now, at offset 0. */
	if (lseek(pm->fd, 0, SEEK_SET) < 0) {
		ret = -errno;
		return libaddrres_err(&pm->eb, ret, "%s: %s", pm->path,
				      libaddrres_strerror(ret, ebuf, sizeof(ebuf)));
	}
	while (!ret) {
		const char *p, *end, *eol;
		size_t room;
		ssize_t got;

		if (len == pm->rbuf_cap &&
		    grow((void **)&pm->rbuf, &pm->rbuf_cap, len + 1, 1, need))
			return libaddrres_err(&pm->eb, -ENOMEM, "%s: out of memory", pm->path);
		room = pm->rbuf_cap - len;
		got = read(pm->fd, pm->rbuf + len, room < pm->read_size ? room : pm->read_size);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			return libaddrres_err(&pm->eb, ret, "%s:%zu: %s", pm->path, w.lineno + 1,
					      libaddrres_strerror(ret, ebuf, sizeof(ebuf)));
		}
		if (!got) {
			/* The kernel ends every line; a copy may not end its last. */
			if (len)
				ret = text_line(&w, pm->rbuf, pm->rbuf + len);
			break;
		}
		len += (size_t)got;
		p = pm->rbuf;
		end = pm->rbuf + len;
		while ((eol = memchr(p, '\n', (size_t)(end - p)))) {
			ret = text_line(&w, p, eol);
			p = eol + 1;
			if (ret)
				break;
		}
		len = (size_t)(end - p);
		memmove(pm->rbuf, p, len);
	}
	if (ret < 0)
		return ret;
	while (w.next < n)
		ents[w.next++].vma = NO_VMA;
	return 0;
}

/* ---- build IDs of the text path: the mapped file, read with libelf ---- */

/*
 * The build ID of @slot's file into the byte buffer: the previous slot's
 * if it maps the same file (a binary's VMAs come together), else read
 * from the file.  0, also when there is none; -ENOMEM.
 */
static int text_build_id(struct addrres_procmaps *pm, struct vma_slot *slot)
{
#ifndef LIBADDRRES_NO_LIBELF
	unsigned char id[ADDRRES_BUILD_ID_MAX];
	size_t size;
	int fd;

	if (slot > pm->slots && slot[-1].vma.inode == slot->vma.inode &&
	    slot[-1].vma.dev_major == slot->vma.dev_major &&
	    slot[-1].vma.dev_minor == slot->vma.dev_minor) {
		slot->build_id_off = slot[-1].build_id_off;
		slot->vma.build_id_size = slot[-1].vma.build_id_size;
		return 0;
	}
	fd = libaddrres_open_mapped_file(pm->pid, &slot->vma, pm->bytes + slot->name_off,
					 NULL, 0);
	if (fd < 0)
		return 0;
	size = libaddrres_fd_build_id(fd, id);
	close(fd);
	if (!size)
		return 0;
	if (bytes_reserve(pm, size))
		return -ENOMEM;
	slot->build_id_off = pm->bytes_len;
	slot->vma.build_id_size = size;
	memcpy(pm->bytes + pm->bytes_len, id, size);
	pm->bytes_len += size;
#else
	/* Built without libelf (LIBELF=0): the text path finds none. */
	(void)pm;
	(void)slot;
#endif
	return 0;
}

/* ---- PROCMAP_QUERY ---- */

/*
 * The VMA covering @addr, or the next one above it, into a new slot (its
 * name and build ID straight into the byte buffer).  0, or the ioctl's
 * negative errno: -ENOENT when there is no VMA at or above @addr.
 */
static int ioctl_query(struct addrres_procmaps *pm, uint64_t addr)
{
	unsigned char id[IOCTL_BUILD_ID_BUF];
	struct procmap_query q;
	struct vma_slot *slot;
	char *name;
	int err;

	slot = slot_new(pm);
	if (!slot)
		return -ENOMEM;
	err = bytes_reserve(pm, IOCTL_NAME_MAX + ADDRRES_BUILD_ID_MAX);
	if (err)
		return err;
	name = pm->bytes + pm->bytes_len;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
	q.query_addr = addr;
	q.vma_name_addr = (uintptr_t)name;
	q.vma_name_size = IOCTL_NAME_MAX;
	if (pm->build_ids) {
		q.build_id_addr = (uintptr_t)id;
		q.build_id_size = sizeof(id);
	}
	pm->last.ioctl_queries++;
	if (ioctl(pm->fd, PROCMAP_QUERY, &q))
		return -errno;
	/* The size counts the NUL; distrust anything else. */
	if (q.vma_end <= q.vma_start || q.vma_end <= addr ||
	    q.vma_name_size > IOCTL_NAME_MAX ||
	    (q.vma_name_size && name[q.vma_name_size - 1] != '\0') ||
	    (q.vma_name_size && memchr(name, '\0', q.vma_name_size - 1)) ||
	    q.build_id_size > ADDRRES_BUILD_ID_MAX || (q.vma_flags & ~(uint64_t)VMA_FLAGS_MASK))
		return -EPROTO;
	slot->vma.start = q.vma_start;
	slot->vma.end = q.vma_end;
	slot->vma.offset = q.vma_offset;
	slot->vma.inode = q.inode;
	slot->vma.dev_major = q.dev_major;
	slot->vma.dev_minor = q.dev_minor;
	slot->vma.flags = (uint32_t)q.vma_flags;
	slot->name_off = pm->bytes_len;
	if (q.vma_name_size)
		pm->bytes_len += q.vma_name_size;
	else
		pm->bytes[pm->bytes_len++] = '\0';
	if (pm->build_ids && q.build_id_size) {
		slot->build_id_off = pm->bytes_len;
		slot->vma.build_id_size = q.build_id_size;
		memcpy(pm->bytes + pm->bytes_len, id, q.build_id_size);
		pm->bytes_len += q.build_id_size;
	}
	pm->nr_slots++;
	return 0;
}

/*
 * Place ents[0..n) with queries: one per address not already answered by
 * the previous reply (for address A, VMA [s, e) says that [A, s) is
 * unmapped and [s, e) is that VMA).  Under AUTO, *@text_from is where the
 * text must take over (n: nowhere); otherwise the ioctl's errors fail.
 */
static int ioctl_walk(struct addrres_procmaps *pm, struct addr_ent *ents, size_t n,
		      size_t *text_from)
{
	bool autom = pm->method == ADDRRES_PROCMAPS_METHOD_AUTO;
	uint64_t start = 0, end = 0;
	size_t i, cur = NO_VMA;
	char ebuf[128];
	int err;

	pm->last.method = ADDRRES_PROCMAPS_METHOD_IOCTL;
	*text_from = n;
	for (i = 0; i < n; i++) {
		uint64_t a = ents[i].addr;

		if (a >= end) {
			if (autom && pm->last.ioctl_queries == AUTO_MAX_QUERIES) {
				*text_from = i;
				return 0;
			}
			err = ioctl_query(pm, a);
			if (err == -ENOENT)
				break;
			if (err == -ENOTTY)
				pm->ioctl_unsupported = true;
			if (autom && (err == -ENOTTY || err == -ENAMETOOLONG)) {
				*text_from = i;
				return 0;
			}
			if (err == -ENOTTY)
				return libaddrres_err(&pm->eb, err, "%s: PROCMAP_QUERY: %s (the kernel has no PROCMAP_QUERY, or the file is no maps file)",
						      pm->path, libaddrres_strerror(err, ebuf, sizeof(ebuf)));
			if (err == -EPROTO)
				return libaddrres_err(&pm->eb, err, "%s: PROCMAP_QUERY for 0x%llx: an answer that makes no sense",
						      pm->path, (unsigned long long)a);
			if (err)
				return libaddrres_err(&pm->eb, err, "%s: PROCMAP_QUERY for 0x%llx: %s",
						      pm->path, (unsigned long long)a,
						      libaddrres_strerror(err, ebuf, sizeof(ebuf)));
			cur = pm->nr_slots - 1;
			start = pm->slots[cur].vma.start;
			end = pm->slots[cur].vma.end;
		}
		ents[i].vma = a >= start ? cur : NO_VMA;
	}
	for (; i < n; i++)
		ents[i].vma = NO_VMA;
	return 0;
}

/* ---- the API ---- */

int addrres_procmaps__open(const struct addrres_procmaps_opts *opts, struct addrres_procmaps **pmp)
{
	struct libaddrres_errbuf eb = { 0 };
	const char *maps_path;
	struct addrres_procmaps *pm;
	char path[64], ebuf[128];
	int maps_fd, pid, err;
	enum addrres_procmaps_method method;

	if (pmp)
		*pmp = NULL;
	if (!opts || opts->sz <= LIBADDRRES_OPTS_MAX_SZ) {
		eb.buf = LIBADDRRES_OPTS_GET(opts, errbuf, NULL);
		eb.sz = LIBADDRRES_OPTS_GET(opts, errbuf_sz, 0);
	}
	libaddrres_err_clear(&eb);
	if (!libaddrres_opts_valid(opts, sizeof(*opts)))
		return libaddrres_err(&eb, -EINVAL,
				      "addrres_procmaps_opts: sz is too small or too large, or fields unknown to this libaddrres are set");
	if (!pmp)
		return libaddrres_err(&eb, -EINVAL, "addrres_procmaps__open: pmp is NULL");
	pid = LIBADDRRES_OPTS_GET(opts, pid, 0);
	maps_fd = LIBADDRRES_OPTS_GET(opts, maps_fd, 0);
	maps_path = LIBADDRRES_OPTS_GET(opts, maps_path, NULL);
	method = LIBADDRRES_OPTS_GET(opts, method, ADDRRES_PROCMAPS_METHOD_AUTO);
	if (pid < 0 || maps_fd < 0 || method > ADDRRES_PROCMAPS_METHOD_TEXT)
		return libaddrres_err(&eb, -EINVAL,
				      "addrres_procmaps_opts: negative pid or maps_fd, or unknown method %d",
				      (int)method);

	pm = calloc(1, sizeof(*pm));
	if (!pm)
		return libaddrres_err(&eb, -ENOMEM, "addrres_procmaps__open: out of memory");
	pm->pid = pid;
	pm->method = method;
	pm->build_ids = LIBADDRRES_OPTS_GET(opts, build_ids, false);
	pm->read_size = LIBADDRRES_OPTS_GET(opts, text_read_size, 0);
	if (!pm->read_size)
		pm->read_size = DEFAULT_READ_SIZE;
	pm->eb = eb;
	pm->fd = -1;
	if (maps_fd > 0)
		snprintf(path, sizeof(path), "maps fd %d", maps_fd);
	else if (pid)
		snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/maps");
	pm->path = strdup(maps_fd <= 0 && maps_path ? maps_path : path);
	if (!pm->path) {
		free(pm);
		return libaddrres_err(&eb, -ENOMEM, "addrres_procmaps__open: out of memory");
	}
	if (maps_fd > 0) {
		pm->fd = maps_fd;
	} else {
		pm->fd = open(pm->path, O_RDONLY | O_CLOEXEC);
		if (pm->fd < 0) {
			err = -errno;
			libaddrres_err(&eb, err, "%s: %s", pm->path,
				       libaddrres_strerror(err, ebuf, sizeof(ebuf)));
			free(pm->path);
			free(pm);
			return err;
		}
		pm->own_fd = true;
	}
#ifndef LIBADDRRES_NO_LIBELF
	/* Idempotent; libelf refuses to work before it. */
	if (pm->build_ids)
		elf_version(EV_CURRENT);
#endif
	pm->last.method = ADDRRES_PROCMAPS_METHOD_AUTO;
	*pmp = pm;
	return 0;
}

void addrres_procmaps__free(struct addrres_procmaps *pm)
{
	if (!pm)
		return;
	if (pm->own_fd)
		close(pm->fd);
	free(pm->path);
	free(pm->ents);
	free(pm->slots);
	free(pm->bytes);
	free(pm->rbuf);
	free(pm);
}

static int cmp_addr_ent(const void *a, const void *b)
{
	const struct addr_ent *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

int addrres_procmaps__resolve(struct addrres_procmaps *pm, const uint64_t *addrs, size_t n,
			      const struct addrres_vma **vmas)
{
	bool sorted = true;
	size_t text_from;
	int err;

	if (vmas) {
		for (size_t i = 0; i < n; i++)
			vmas[i] = NULL;
	}
	if (!pm || ((!addrs || !vmas) && n))
		return -EINVAL;
	libaddrres_err_clear(&pm->eb);
	memset(&pm->last, 0, sizeof(pm->last));
	pm->last.method = ADDRRES_PROCMAPS_METHOD_AUTO;
	pm->nr_slots = 0;
	pm->bytes_len = 0;
	if (grow((void **)&pm->ents, &pm->ents_cap, n, sizeof(*pm->ents), 256))
		return libaddrres_err(&pm->eb, -ENOMEM, "%s: out of memory", pm->path);
	for (size_t i = 0; i < n; i++) {
		pm->ents[i] = (struct addr_ent){ .addr = addrs[i], .pos = i, .vma = NO_VMA };
		if (i && addrs[i] < addrs[i - 1])
			sorted = false;
	}
	/* Stable enough: equal addresses get the same VMA whatever their order. */
	if (!sorted)
		qsort(pm->ents, n, sizeof(*pm->ents), cmp_addr_ent);

	text_from = 0;
	if (pm->method == ADDRRES_PROCMAPS_METHOD_IOCTL ||
	    (pm->method == ADDRRES_PROCMAPS_METHOD_AUTO && !pm->ioctl_unsupported)) {
		err = ioctl_walk(pm, pm->ents, n, &text_from);
		if (err)
			goto fail;
	}
	if (pm->method != ADDRRES_PROCMAPS_METHOD_IOCTL && text_from < n) {
		err = text_walk(pm, pm->ents, n, text_from);
		if (err)
			goto fail;
	}
	if (pm->last.method == ADDRRES_PROCMAPS_METHOD_AUTO)	/* n == 0 */
		pm->last.method = pm->method == ADDRRES_PROCMAPS_METHOD_IOCTL ?
				  ADDRRES_PROCMAPS_METHOD_IOCTL : ADDRRES_PROCMAPS_METHOD_TEXT;

	/* The buffers no longer move: the pointers can be set. */
	for (size_t i = 0; i < pm->nr_slots; i++) {
		struct vma_slot *s = &pm->slots[i];

		s->vma.name = pm->bytes + s->name_off;
		s->vma.build_id = s->vma.build_id_size ?
				  (const unsigned char *)pm->bytes + s->build_id_off : NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct addr_ent *e = &pm->ents[i];

		if (e->vma == NO_VMA)
			continue;
		vmas[e->pos] = &pm->slots[e->vma].vma;
		/* Sorted: the addresses of a VMA come together. */
		if (!i || e->vma != e[-1].vma)
			pm->last.vmas++;
	}
	pm->last.ioctl_unsupported = pm->ioctl_unsupported;
	return 0;
fail:
	pm->last.ioctl_unsupported = pm->ioctl_unsupported;
	pm->nr_slots = 0;
	return err;
}

enum addrres_procmaps_method addrres_procmaps__method(const struct addrres_procmaps *pm)
{
	return pm ? pm->last.method : ADDRRES_PROCMAPS_METHOD_AUTO;
}

int addrres_procmaps__stats(const struct addrres_procmaps *pm, struct addrres_procmaps_stats *stats)
{
	size_t sz;

	if (!pm || !stats || stats->sz < sizeof(size_t) || stats->sz > LIBADDRRES_OPTS_MAX_SZ)
		return -EINVAL;
	sz = stats->sz < sizeof(pm->last) ? stats->sz : sizeof(pm->last);
	memcpy((char *)stats + sizeof(size_t), (const char *)&pm->last + sizeof(size_t),
	       sz - sizeof(size_t));
	return 0;
}
