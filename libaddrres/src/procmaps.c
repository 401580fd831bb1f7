// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Process addresses: the VMA of each of a batch of addresses, from the
 * PROCMAP_QUERY ioctl on /proc/PID/maps or from the file's text.
 *
 * Both walks go over the addresses sorted (the caller's array when it is
 * sorted already, else a sorted copy that keeps each one's place in it)
 * and give each address its VMA as they go.  Each VMA met is recorded
 * once, with its strings (names, build IDs), in a pool of chunks that
 * never move, so its pointers are final when it is found: no pass over
 * the batch afterwards.  The pool and the other buffers are kept from one
 * batch to the next, so that a caller resolving batch after batch does
 * not allocate.
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
#include "addrres/procmap_query.h"

_Static_assert(ADDRRES_VMA_READABLE == PROCMAP_QUERY_VMA_READABLE, "flag values");
_Static_assert(ADDRRES_VMA_WRITABLE == PROCMAP_QUERY_VMA_WRITABLE, "flag values");
_Static_assert(ADDRRES_VMA_EXECUTABLE == PROCMAP_QUERY_VMA_EXECUTABLE, "flag values");
_Static_assert(ADDRRES_VMA_SHARED == PROCMAP_QUERY_VMA_SHARED, "flag values");

#define VMA_FLAGS_MASK (ADDRRES_VMA_READABLE | ADDRRES_VMA_WRITABLE | \
			ADDRRES_VMA_EXECUTABLE | ADDRRES_VMA_SHARED)

/*
 * AUTO starts with the ioctl and, from its AUTO_MIN_QUERIES-th query on,
 * decides before each query whether one text pass would place the
 * addresses left for less than the queries they need (auto_switch()).
 * The host's costs, bench/procmap-query-bench/ in a process of 700 VMAs:
 * a query with a name, 735 ns; a line of text read and parsed, about
 * 480 ns, 580 ns if it holds addresses; the text pass's own (lseek(), the
 * last read), about 3 us.  So the text wins only where nearly every line
 * holds addresses, and then by 1.25 times at most, while a wrong switch
 * can cost many times the queries: the projection leans to the ioctl.
 * Its lines cost AUTO_LINE_NS, and it counts AUTO_PRIOR answers more
 * than made, touching nothing (see auto_switch()), so that a batch that
 * hits every other VMA and starts with a few neighbours is not sent to
 * the text.  In the bench's shapes, from 6 to all of 700 VMAs hit, AUTO
 * then stays within a few percent of the better method.
 */
#define AUTO_MIN_QUERIES 8
#define AUTO_QUERY_NS 735.0
#define AUTO_LINE_NS 530.0
#define AUTO_TEXT_NS 3000.0
#define AUTO_PRIOR 5

#define DEFAULT_READ_SIZE (64 * 1024)
/* The ioctl's names are d_path()s, which the kernel caps at PATH_MAX. */
#define IOCTL_NAME_MAX PATH_MAX
/* The ioctl refuses a build ID buffer smaller than the ID (ENAMETOOLONG). */
#define IOCTL_BUILD_ID_BUF 64

/*
 * The pool's chunks: below glibc's mmap threshold (128 KiB), so that a set
 * opened and freed for each batch takes its memory from the heap instead
 * of mapping and faulting it in every time, and large enough for the
 * ioctl's name buffer.
 */
#define POOL_CHUNK_SIZE (32 * 1024)

/* One address of an unsorted batch, and its place in the caller's arrays. */
struct addr_ent {
	uint64_t addr;
	size_t pos;
};

/*
 * Memory in chunks that never move, kept from one batch to the next: the
 * VMAs found and their strings, whose pointers (and the caller's pointers
 * to them) are final as soon as a VMA is found.
 */
struct pool_chunk {
	struct pool_chunk *next;
	size_t cap;
	max_align_t data[];
};

struct pool {
	struct pool_chunk *first;
	struct pool_chunk *cur;	/* NULL: none used yet in this batch */
	size_t used;		/* bytes taken in cur */
};

/* A batch, sorted: the caller's array if it was, else pm->ents. */
struct batch {
	const uint64_t *addrs;		/* the caller's, if sorted */
	const struct addr_ent *ents;	/* else these */
	size_t n;
	const struct addrres_vma **vmas;
};

static inline uint64_t batch_addr(const struct batch *b, size_t i)
{
	return b->ents ? b->ents[i].addr : b->addrs[i];
}

/* The @from-th to the @to-th (excluded) addresses (sorted) are in @v. */
static void batch_fill(const struct batch *b, size_t from, size_t to, const struct addrres_vma *v)
{
	const struct addrres_vma **p;
	size_t done, len = to - from;

	if (from >= to)
		return;		/* also with no @vmas at all (n == 0) */
	if (b->ents) {
		for (; from < to; from++)
			b->vmas[b->ents[from].pos] = v;
		return;
	}
	p = b->vmas + from;
	/* A long run (many addresses in one VMA) by doubling copies: memcpy() is wide. */
	for (done = 0; done < len && done < 16; done++)
		p[done] = v;
	for (; done < len; done *= 2)
		memcpy(p + done, p, (len - done < done ? len - done : done) * sizeof(*p));
}

/*
 * The addresses from the @i-th on (sorted) that are below @end are in @v
 * (NULL: not mapped); the index of the first one not placed.  Galloping,
 * so that a VMA holding many addresses costs a few compares and a fill
 * of @vmas, and one holding one address about what a scan would.
 */
static size_t batch_place(const struct batch *b, size_t i, uint64_t end,
			  const struct addrres_vma *v)
{
	size_t lo = i, hi, step = 1, n = b->n;

	if (i >= n || batch_addr(b, i) >= end)
		return i;
	/* addrs[lo] < end, and addrs[hi] >= end if hi < n */
	for (;;) {
		hi = lo + step;
		if (hi >= n || batch_addr(b, hi) >= end)
			break;
		lo = hi;
		step *= 2;
	}
	if (hi > n)
		hi = n;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (batch_addr(b, mid) < end)
			lo = mid;
		else
			hi = mid;
	}
	batch_fill(b, i, hi, v);
	return hi;
}

struct addrres_procmaps {
	int fd;
	bool own_fd;
	int pid;		/* 0: ourselves */
	char *path;		/* of the maps file, for messages */
	enum addrres_procmaps_method method;
	bool build_ids;
	size_t read_size;
	struct libaddrres_errbuf eb;	/* msg */
	char msg[LIBADDRRES_MSG_SZ];

	/* Reused from batch to batch. */
	struct addr_ent *ents;
	size_t ents_cap;
	struct pool pool;
	char *rbuf;		/* the text, a read and a partial line */
	size_t rbuf_cap;

	/* The batch's last VMA found: the next one shares its name if equal. */
	const struct addrres_vma *prev;

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

/*
 * At least @size free bytes at the pool's cursor, not taken (pool_take()
 * takes them): in the current chunk, else in the next one kept from an
 * earlier batch, else in a new one.  NULL if out of memory.
 */
static char *pool_room(struct pool *p, size_t size)
{
	struct pool_chunk **link, *c;
	size_t cap;

	if (p->cur && p->cur->cap - p->used >= size)
		return (char *)p->cur->data + p->used;
	link = p->cur ? &p->cur->next : &p->first;
	if (!*link || (*link)->cap < size) {
		cap = POOL_CHUNK_SIZE - sizeof(*c);
		if (size > cap)
			cap = size;	/* a line longer than a chunk, in a copy of maps */
		if (cap > SIZE_MAX - sizeof(*c))
			return NULL;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->next = *link;	/* a smaller chunk is kept for later */
		*link = c;
	}
	p->cur = *link;
	p->used = 0;
	return (char *)p->cur->data;
}

static void pool_take(struct pool *p, size_t size)
{
	p->used += size;
}

/* @size bytes aligned to @align (a power of two): NULL if out of memory. */
static void *pool_alloc(struct pool *p, size_t size, size_t align)
{
	char *r;

	if (p->cur) {
		p->used = (p->used + align - 1) & ~(align - 1);
		if (p->used > p->cur->cap)
			p->used = p->cur->cap;
	}
	r = pool_room(p, size);
	if (r)
		pool_take(p, size);
	return r;
}

/* A new batch: the chunks are used again from the first. */
static void pool_reset(struct pool *p)
{
	p->cur = NULL;
	p->used = 0;
}

static void pool_free(struct pool *p)
{
	struct pool_chunk *c = p->first, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	memset(p, 0, sizeof(*p));
}

/* A new VMA, zeroed, its name "" and no build ID; NULL if out of memory. */
static struct addrres_vma *vma_new(struct addrres_procmaps *pm)
{
	struct addrres_vma *v = pool_alloc(&pm->pool, sizeof(*v), _Alignof(struct addrres_vma));

	if (v) {
		memset(v, 0, sizeof(*v));
		v->name = "";
	}
	return v;
}

/*
 * The name written at the pool's cursor, @len bytes with its NUL (0: no
 * name), taken: the previous VMA's if equal (the VMAs of a file come
 * together), which costs no memory.  What a VMA's name is to point to.
 */
static const char *take_name(struct addrres_procmaps *pm, const char *name, size_t len)
{
	if (len <= 1)
		return "";
	if (pm->prev && !strcmp(pm->prev->name, name))
		return pm->prev->name;
	pool_take(&pm->pool, len);
	return name;
}

/* ---- the text of the maps file ---- */

struct text_walk {
	struct addrres_procmaps *pm;
	const struct batch *b;
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

/*
 * A hex digit's value plus one, 0 for other bytes: a lookup, as digits and
 * letters come in no order a branch could predict.  Lower case only: the
 * kernel prints lower case.
 */
static const unsigned char hex_digits[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5,
	['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9, ['9'] = 10,
	['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

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

	for (; s < end && hex_digits[(unsigned char)*s]; s++) {
		if (++digits > max_digits)
			return -1;
		v = v << 4 | (uint64_t)(hex_digits[(unsigned char)*s] - 1);
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

/* The name of @l, "\012" back to "\n", as @v's: 0 or -ENOMEM. */
static int text_name(struct addrres_procmaps *pm, const struct maps_line *l,
		     struct addrres_vma *v)
{
	const char *s = l->name, *end = l->name + l->name_len;
	char *name, *d;

	if (!l->name_len)
		return 0;
	name = pool_room(&pm->pool, l->name_len + 1);
	if (!name)
		return -ENOMEM;
	d = name;
	while (s < end) {
		if (end - s >= 4 && !memcmp(s, "\\012", 4)) {
			*d++ = '\n';
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d++ = '\0';
	v->name = take_name(pm, name, (size_t)(d - name));
	return 0;
}

static int file_build_id(struct addrres_procmaps *pm, struct addrres_vma *v);

/* Place the addresses below @end in @v; 1 once every address is placed. */
static int text_place(struct text_walk *w, uint64_t end, const struct addrres_vma *v)
{
	w->next = batch_place(w->b, w->next, end, v);
	return w->next == w->b->n;
}

/* One line, without its "\n"; 1 once every address is placed. */
static int text_line(struct text_walk *w, const char *line, const char *eol)
{
	struct addrres_procmaps *pm = w->pm;
	struct maps_line l;
	struct addrres_vma *v;
	const char *p = line;
	int err;

	w->lineno++;
	pm->last.text_lines++;
	err = parse_range(w, &p, eol, &l);
	if (err)
		return err;
	/* Addresses below this VMA are in a gap. */
	if (text_place(w, l.start, NULL))
		return 1;
	if (batch_addr(w->b, w->next) >= l.end)
		return 0;
	err = parse_rest(w, p, eol, &l);
	if (err)
		return err;
	/* The gate page of x86_64 is no VMA of the process: see addrres.h. */
	if (l.name_len == strlen("[vsyscall]") && !memcmp(l.name, "[vsyscall]", l.name_len))
		return text_place(w, l.end, NULL);
	v = vma_new(pm);
	if (!v)
		return libaddrres_err(&pm->eb, -ENOMEM, "%s: out of memory", pm->path);
	v->start = l.start;
	v->end = l.end;
	v->offset = l.offset;
	v->inode = l.inode;
	v->dev_major = (uint32_t)l.major;
	v->dev_minor = (uint32_t)l.minor;
	v->flags = l.flags;
	err = text_name(pm, &l, v);
	if (!err && pm->build_ids && l.inode)
		err = file_build_id(pm, v);
	if (err)
		return libaddrres_err(&pm->eb, err, "%s: out of memory", pm->path);
	pm->prev = v;
	pm->last.vmas++;
	return text_place(w, l.end, v);
}

/* Place the addresses from @from on by reading the text from its start. */
static int text_walk(struct addrres_procmaps *pm, const struct batch *b, size_t from)
{
	struct text_walk w = { .pm = pm, .b = b, .next = from };
	size_t len = 0, need = pm->read_size + PATH_MAX + 256;
	char ebuf[128];
	int ret = 0;

	pm->last.method = ADDRRES_PROCMAPS_METHOD_TEXT;
	if (from == b->n)
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
	batch_fill(b, w.next, b->n, NULL);
	return 0;
}

/* ---- build IDs read from the mapped file with libelf (text path, ioctl's 0) ---- */

/*
 * The build ID of @v's file: the previous VMA's if it maps the same file
 * (a binary's VMAs come together), else read from the file.  0, also when
 * there is none; -ENOMEM.
 */
static int file_build_id(struct addrres_procmaps *pm, struct addrres_vma *v)
{
#ifndef LIBADDRRES_NO_LIBELF
	const struct addrres_vma *prev = pm->prev;
	unsigned char id[ADDRRES_BUILD_ID_MAX], *copy;
	size_t size;
	int fd;

	if (prev && prev->inode == v->inode && prev->dev_major == v->dev_major &&
	    prev->dev_minor == v->dev_minor) {
		v->build_id = prev->build_id;
		v->build_id_size = prev->build_id_size;
		return 0;
	}
	fd = libaddrres_open_mapped_file(pm->pid, v, v->name, NULL, 0);
	if (fd < 0)
		return 0;
	size = libaddrres_fd_build_id(fd, id);
	close(fd);
	if (!size)
		return 0;
	copy = pool_alloc(&pm->pool, size, 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, id, size);
	v->build_id = copy;
	v->build_id_size = size;
#else
	/* Built without libelf (LIBELF=0): none found in the file. */
	(void)pm;
	(void)v;
#endif
	return 0;
}

/* ---- PROCMAP_QUERY ---- */

/*
 * The VMA covering @addr, or the next one above it, into *@vp (its name
 * straight into the pool).  0, or the ioctl's negative errno: -ENOENT
 * when there is no VMA at or above @addr.
 */
static int ioctl_query(struct addrres_procmaps *pm, uint64_t addr, const struct addrres_vma **vp)
{
	unsigned char id[IOCTL_BUILD_ID_BUF], *copy;
	struct procmap_query q;
	struct addrres_vma *v;
	const char *vname;
	char *name;

	/* Not taken yet: only as much as the name needs will be. */
	name = pool_room(&pm->pool, IOCTL_NAME_MAX);
	if (!name)
		return -ENOMEM;
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
	/* The name first: the VMA would be allocated over it. */
	vname = take_name(pm, name, q.vma_name_size);
	v = vma_new(pm);
	if (!v)
		return -ENOMEM;
	v->name = vname;
	v->start = q.vma_start;
	v->end = q.vma_end;
	v->offset = q.vma_offset;
	v->inode = q.inode;
	v->dev_major = q.dev_major;
	v->dev_minor = q.dev_minor;
	v->flags = (uint32_t)q.vma_flags;
	if (pm->build_ids && q.build_id_size) {
		copy = pool_alloc(&pm->pool, q.build_id_size, 1);
		if (!copy)
			return -ENOMEM;
		memcpy(copy, id, q.build_id_size);
		v->build_id = copy;
		v->build_id_size = q.build_id_size;
	} else if (pm->build_ids && q.inode && (q.vma_flags & PROCMAP_QUERY_VMA_EXECUTABLE)) {
		/*
		 * Size 0 also means the kernel could not read the file (out
		 * of memory, an I/O error; on Linux 6.11, a first page not in
		 * the page cache): read it here, as the text path does.  Only
		 * for code: the data files a process maps (locales, fonts)
		 * have no build ID, and reading each of them again on every
		 * batch would cost the ioctl method what it saves.
		 */
		int err = file_build_id(pm, v);

		if (err)
			return err;
	}
	pm->prev = v;
	*vp = v;
	return 0;
}

/*
 * Whether AUTO places the addresses from the @i-th on with one text pass
 * rather than with queries, @k queries made, @touching of whose answers
 * start where the answer before ends.  Projected from the batch so far
 * (sorted: the addresses below the @i-th):
 *  - the queries left: as many per address as so far;
 *  - the lines the text reads, from the first up to the batch's highest
 *    address: VMAs that touch are consecutive lines, so each answer
 *    stands for about k / (touching + 1) lines, made and projected
 *    alike (k + AUTO_PRIOR: see above).  A batch spread over every VMA
 *    reads about a line per query; one clustered in a few VMAs, or in
 *    one VMA of every few, many more.
 * The lines below the lowest address are not seen: a dense batch high in
 * a file of many lines reads more than projected.
 */
static bool auto_switch(const struct batch *b, size_t i, size_t k, size_t touching)
{
	double left, lines;

	if (!i)
		return false;
	left = (double)k * (double)(b->n - i) / (double)i;
	lines = ((double)k + left) * (double)(k + AUTO_PRIOR) / (double)(touching + 1);
	return left * AUTO_QUERY_NS > AUTO_TEXT_NS + lines * AUTO_LINE_NS;
}

/*
 * Place the batch with queries: one per address not already answered by
 * the previous reply (for address A, VMA [s, e) says that [A, s) is
 * unmapped and [s, e) is that VMA).  Under AUTO, *@text_from is where the
 * text must take over (n: nowhere); otherwise the ioctl's errors fail.
 */
static int ioctl_walk(struct addrres_procmaps *pm, const struct batch *b, size_t *text_from)
{
	bool autom = pm->method == ADDRRES_PROCMAPS_METHOD_AUTO;
	const struct addrres_vma *v = NULL;
	uint64_t prev_end = 0;
	size_t i = 0, hit, n = b->n, touching = 0;
	char ebuf[128];
	int err;

	pm->last.method = ADDRRES_PROCMAPS_METHOD_IOCTL;
	*text_from = n;
	while (i < n) {
		uint64_t a = batch_addr(b, i);

		if (autom && pm->last.ioctl_queries >= AUTO_MIN_QUERIES &&
		    auto_switch(b, i, pm->last.ioctl_queries, touching)) {
			*text_from = i;
			return 0;
		}
		err = ioctl_query(pm, a, &v);
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
		touching += v->start == prev_end;
		prev_end = v->end;
		/* A gap below the VMA, then the VMA (it ends above a: checked). */
		i = batch_place(b, i, v->start, NULL);
		hit = batch_place(b, i, v->end, v);
		pm->last.vmas += hit > i;
		i = hit;
	}
	batch_fill(b, i, n, NULL);
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
	err = LIBADDRRES_OPTS_START(opts, &eb, "addrres_procmaps_opts");
	if (err)
		return err;
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
	/* Messages after the open are the set's: the caller's buffer may go. */
	libaddrres_err_own(&pm->eb, pm->msg, sizeof(pm->msg));
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
		pm->fd = libaddrres_open_regular(AT_FDCWD, pm->path, 0, NULL);
		if (pm->fd < 0) {
			err = pm->fd;
			libaddrres_err(&eb, err, "%s: %s", pm->path,
				       libaddrres_open_strerror(err, ebuf, sizeof(ebuf)));
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

const char *addrres_procmaps__errmsg(const struct addrres_procmaps *pm)
{
	return pm ? pm->msg : "";
}

void addrres_procmaps__free(struct addrres_procmaps *pm)
{
	if (!pm)
		return;
	if (pm->own_fd)
		close(pm->fd);
	free(pm->path);
	free(pm->ents);
	pool_free(&pm->pool);
	free(pm->rbuf);
	free(pm);
}

static int cmp_addr_ent(const void *a, const void *b)
{
	const struct addr_ent *x = a, *y = b;

	return (x->addr > y->addr) - (x->addr < y->addr);
}

static inline void ents_swap(struct addr_ent *a, size_t i, size_t j)
{
	struct addr_ent t = a[i];

	a[i] = a[j];
	a[j] = t;
}

/*
 * Sort @a by address.  Not qsort(): its call per comparison made it cost
 * 60 times the queries of a batch of 4,435 addresses in 6 VMAs.  A
 * quicksort (median of three, the smaller side first) then insertion
 * sort; past @depth levels, an unlucky input, qsort() for the rest.
 */
static void ents_sort(struct addr_ent *a, size_t n, unsigned int depth)
{
	struct addr_ent t;

	while (n > 16) {
		size_t i = 0, j = n - 1, m = n / 2;
		uint64_t p;

		if (!depth--) {
			qsort(a, n, sizeof(*a), cmp_addr_ent);
			return;
		}
		if (a[m].addr < a[0].addr)
			ents_swap(a, m, 0);
		if (a[j].addr < a[0].addr)
			ents_swap(a, j, 0);
		if (a[j].addr < a[m].addr)
			ents_swap(a, j, m);
		p = a[m].addr;
		/* a[0] <= p <= a[n - 1] stop the scans; both sides end up non-empty */
		for (;;) {
			while (a[i].addr < p)
				i++;
			while (a[j].addr > p)
				j--;
			if (i >= j)
				break;
			ents_swap(a, i, j);
			i++;
			j--;
		}
		/* [0, j] <= p <= [j + 1, n) */
		if (j + 1 < n - j - 1) {
			ents_sort(a, j + 1, depth);
			a += j + 1;
			n -= j + 1;
		} else {
			ents_sort(a + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		size_t j = i;

		t = a[i];
		for (; j && a[j - 1].addr > t.addr; j--)
			a[j] = a[j - 1];
		a[j] = t;
	}
}

/*
 * The batch sorted: the caller's array if it is (checked in one pass),
 * else a sorted copy with each address's place.  0 or -ENOMEM.
 */
static int batch_sort(struct addrres_procmaps *pm, struct batch *b, const uint64_t *addrs)
{
	size_t i = 1, n = b->n;
	unsigned int down = 0;

	/* In blocks, without a branch per address: two sums run in parallel. */
	while (i < n && !down) {
		size_t end = n - i > 256 ? i + 256 : n;
		unsigned int d1 = 0;

		for (; i + 1 < end; i += 2) {
			down += addrs[i] < addrs[i - 1];
			d1 += addrs[i + 1] < addrs[i];
		}
		if (i < end) {
			down += addrs[i] < addrs[i - 1];
			i++;
		}
		down |= d1;
	}
	if (!down)
		return 0;
	if (grow((void **)&pm->ents, &pm->ents_cap, n, sizeof(*pm->ents), 256))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		pm->ents[i] = (struct addr_ent){ .addr = addrs[i], .pos = i };
	/* Not stable: equal addresses get the same VMA whatever their order. */
	ents_sort(pm->ents, n, 2 * (64 - (unsigned int)__builtin_clzll(n)));
	b->ents = pm->ents;
	return 0;
}

int addrres_procmaps__resolve(struct addrres_procmaps *pm, const uint64_t *addrs, size_t n,
			      const struct addrres_vma **vmas)
{
	struct batch b = { .addrs = addrs, .n = n, .vmas = vmas };
	size_t text_from;
	int err;

	if (!pm || ((!addrs || !vmas) && n)) {
		err = -EINVAL;
		goto fail;
	}
	libaddrres_err_clear(&pm->eb);
	memset(&pm->last, 0, sizeof(pm->last));
	pm->last.method = ADDRRES_PROCMAPS_METHOD_AUTO;
	pool_reset(&pm->pool);
	pm->prev = NULL;
	if (batch_sort(pm, &b, addrs)) {
		err = libaddrres_err(&pm->eb, -ENOMEM, "%s: out of memory", pm->path);
		goto fail;
	}

	/* Each walk gives each address of its part its VMA, or NULL. */
	text_from = 0;
	if (pm->method == ADDRRES_PROCMAPS_METHOD_IOCTL ||
	    (pm->method == ADDRRES_PROCMAPS_METHOD_AUTO && !pm->ioctl_unsupported)) {
		err = ioctl_walk(pm, &b, &text_from);
		if (err)
			goto fail;
	}
	if (pm->method != ADDRRES_PROCMAPS_METHOD_IOCTL && text_from < n) {
		err = text_walk(pm, &b, text_from);
		if (err)
			goto fail;
	}
	if (pm->last.method == ADDRRES_PROCMAPS_METHOD_AUTO)	/* n == 0 */
		pm->last.method = pm->method == ADDRRES_PROCMAPS_METHOD_IOCTL ?
				  ADDRRES_PROCMAPS_METHOD_IOCTL : ADDRRES_PROCMAPS_METHOD_TEXT;
	pm->last.ioctl_unsupported = pm->ioctl_unsupported;
	return 0;
fail:
	if (vmas) {
		for (size_t i = 0; i < n; i++)
			vmas[i] = NULL;
	}
	if (pm) {
		pm->last.ioctl_unsupported = pm->ioctl_unsupported;
		pm->last.vmas = 0;
	}
	return err;
}

enum addrres_procmaps_method addrres_procmaps__method(const struct addrres_procmaps *pm)
{
	return pm ? pm->last.method : ADDRRES_PROCMAPS_METHOD_AUTO;
}

int addrres_procmaps__stats(const struct addrres_procmaps *pm, struct addrres_procmaps_stats *stats)
{
	if (!pm || !stats)
		return -EINVAL;
	return libaddrres_stats_copy(stats, &pm->last, sizeof(pm->last));
}
