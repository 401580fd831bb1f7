// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * JIT code: the symbols a runtime writes to /tmp/perf-PID.map for perf
 * (V8/Node.js --perf-basic-prof, the JVM's perf-map-agent, LuaJIT,
 * .NET with DOTNET_PerfMapEnabled, CPython 3.12 -X perf), one line a
 * function:
 *
 *   START SIZE NAME        (START and SIZE in hex, 0x optional)
 *
 * NAME is the rest of the line, blanks included.  The file grows as the
 * runtime compiles: it is read again when its size or modification time
 * changed.  A later line for an address wins over an earlier one (the
 * runtime compiled that code again).  A line that does not parse is
 * skipped and said once, as a warning naming the file and the line.
 *
 * The file is the one of the process's own /tmp (through
 * /proc/PID/root, as perf looks for it) named by its PID in its own PID
 * namespace (the last of /proc/PID/status's NSpid); ours by the PID
 * given only where its root cannot be followed and that PID is its own.
 * Its names become answers, and /tmp is anyone's: a symlink there is
 * not followed, and a map owned by another user than this one, root or
 * the process's is not read (perf's rule, and the process's own user).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "elf_internal.h"

/* One line of a map: a function of JIT code. */
struct perf_sym {
	uint64_t start, size;
	const char *name;
	size_t line;		/* its line number: the later wins */
};

/* A process's map, as last read. */
struct perf_map {
	int pid;
	char path[PATH_MAX];
	struct stat st;		/* of the file when read: size and mtime say if it grew */
	uint64_t checked;	/* the call (addrres_elf.calls) that last looked at it */
	struct perf_sym *syms;	/* by start, then line */
	size_t nr;
	struct libaddrres_arena names;
};

static void perf_map_clear(struct perf_map *m)
{
	free(m->syms);
	m->syms = NULL;
	m->nr = 0;
	libaddrres_arena_free(&m->names);
}

void libaddrres_elf_perf_maps_free(struct addrres_elf *e)
{
	for (size_t i = 0; i < e->nr_perf_maps; i++) {
		perf_map_clear(e->perf_maps[i]);
		free(e->perf_maps[i]);
	}
	free(e->perf_maps);
	e->perf_maps = NULL;
	e->nr_perf_maps = 0;
}

/* The PID of @pid in its own PID namespace: the last of NSpid, else @pid. */
static int ns_pid(int pid)
{
	char path[64], line[256];
	int last = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = libaddrres_fopen_regular(path);
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + 6, *end;

		if (strncmp(line, "NSpid:", 6))
			continue;
		for (;;) {
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			last = (int)v;
			p = end;
		}
		break;
	}
	fclose(f);
	return last;
}

/*
 * Open @path as a map: not through a symlink (O_NOFOLLOW), a regular
 * file owned by this user, root or @owner (the process's own user), as
 * perf takes maps (it asks for the first two: a root profiler would then
 * refuse every map of a process not run as root).  A FILE, or NULL with
 * errno set (-ELOOP, -EPERM for one refused) and @why saying why.
 */
static FILE *map_open_trusted(const char *path, uid_t owner, char *why, size_t why_sz)
{
	struct stat st;
	int fd = libaddrres_open_regular(AT_FDCWD, path, O_NOFOLLOW, &st), err;
	FILE *f;

	/* A FIFO or a device there would block the caller: never read. */
	if (fd == -ENOEXEC) {
		snprintf(why, why_sz, "not a regular file (a FIFO or a device?): not read");
		errno = EPERM;
		return NULL;
	}
	if (fd < 0) {
		err = -fd;
		snprintf(why, why_sz, "%s", err == ELOOP ? "a symlink, not followed" : strerror(err));
		errno = err;
		return NULL;
	}
	if (!libaddrres_owner_trusted(&st, owner)) {
		snprintf(why, why_sz,
			 "owned by uid %u, neither this user, root nor the process's user: not read",
			 (unsigned int)st.st_uid);
		close(fd);
		errno = EPERM;
		return NULL;
	}
	f = fdopen(fd, "re");
	if (!f) {
		err = errno;
		close(fd);
		snprintf(why, why_sz, "%s", strerror(err));
		errno = err;
	}
	return f;
}

/*
 * Open the map of @pid (0: ours): a FILE, its path in @path; NULL with
 * errno set and @why saying why.  Another process's is in its own /tmp,
 * by its PID in its own namespace; ours by @pid only where that is the
 * same PID (not a container's).
 */
static FILE *perf_map_open(int pid, char *path, size_t path_sz, char *why, size_t why_sz)
{
	struct stat proc;
	uid_t owner;
	int in_ns;
	FILE *f;

	if (!pid) {
		snprintf(path, path_sz, "/tmp/perf-%d.map", (int)getpid());
		return map_open_trusted(path, (uid_t)-1, why, why_sz);
	}
	/* /proc/PID belongs to the process's effective user. */
	snprintf(path, path_sz, "/proc/%d", pid);
	owner = stat(path, &proc) ? (uid_t)-1 : proc.st_uid;
	in_ns = ns_pid(pid);
	snprintf(path, path_sz, "/proc/%d/root/tmp/perf-%d.map", pid, in_ns);
	f = map_open_trusted(path, owner, why, why_sz);
	/* Refused for its owner, or not there: said so, not looked for elsewhere. */
	if (f || in_ns != pid || errno != EACCES || owner == (uid_t)-1)
		return f;
	/* Its root not ours to follow: our /tmp, where it is the same PID. */
	snprintf(path, path_sz, "/tmp/perf-%d.map", pid);
	return map_open_trusted(path, owner, why, why_sz);
}

static int cmp_perf_sym(const void *a, const void *b)
{
	const struct perf_sym *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* A hex number at *@p (0x optional), then blanks: false if none. */
static bool parse_hex(char **p, uint64_t *v)
{
	char *end;

	if (!isxdigit((unsigned char)**p) || **p == '-')
		return false;
	errno = 0;
	*v = strtoull(*p, &end, 16);
	if (errno || end == *p || !isblank((unsigned char)*end))
		return false;
	while (isblank((unsigned char)*end))
		end++;
	*p = end;
	return true;
}

/* (Re)read @m from @f (whose stat is @st): 0 or -ENOMEM. */
static int perf_map_read(struct perf_map *m, FILE *f, const struct stat *st)
{
	size_t cap = 0, lineno = 0, bad = 0, first_bad = 0, len_cap = 0;
	char *line = NULL;
	ssize_t len;
	int err = 0;

	perf_map_clear(m);
	m->st = *st;
	while (!err && (len = getline(&line, &len_cap, f)) >= 0) {
		struct perf_sym s = { .line = ++lineno };
		char *p = line;

		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = '\0';
		if (!len)
			continue;
		if (!parse_hex(&p, &s.start) || !parse_hex(&p, &s.size) || !*p || !s.size) {
			if (!bad++)
				first_bad = lineno;
			continue;
		}
		s.name = libaddrres_arena_strndup(&m->names, p, strlen(p));
		if (!s.name) {
			err = -ENOMEM;
			break;
		}
		if (m->nr == cap) {
			struct perf_sym *more = reallocarray(m->syms, cap ? cap * 2 : 256, sizeof(*more));

			if (!more) {
				err = -ENOMEM;
				break;
			}
			m->syms = more;
			cap = cap ? cap * 2 : 256;
		}
		m->syms[m->nr++] = s;
	}
	free(line);
	if (bad)
		libaddrres_print(ADDRRES_WARN, "%s:%zu: not \"START SIZE NAME\" (hex, hex, a name): %zu such line(s) skipped",
				 m->path, first_bad, bad);
	if (!err && m->nr)
		qsort(m->syms, m->nr, sizeof(*m->syms), cmp_perf_sym);
	return err;
}

/*
 * The map of @pid into *@mp, read again if it changed since the last
 * call (not within one: the answers of a call's earlier VMAs point into
 * its names): 0, or -ENOENT if there is none, -ENOMEM, or the errno of
 * reading it (the message set).
 */
static int perf_map_get(struct addrres_elf *e, int pid, const char *name, struct perf_map **mp)
{
	struct perf_map *m = NULL;
	char path[PATH_MAX], why[160];
	struct stat st;
	FILE *f;
	int err;

	for (size_t i = 0; i < e->nr_perf_maps; i++) {
		if (e->perf_maps[i]->pid == pid)
			m = e->perf_maps[i];
	}
	if (m && m->checked == e->calls) {
		*mp = m;
		return 0;
	}
	f = perf_map_open(pid, path, sizeof(path), why, sizeof(why));
	err = f ? 0 : -errno;
	if (err && err != -ELOOP && err != -EPERM)
		return libaddrres_err(&e->eb, -ENOENT,
				      "%s: no file is mapped there, and no perf map of JIT code (%s: %s)",
				      name, path, why);
	if (err)
		return libaddrres_err(&e->eb, err, "%s: JIT code whose perf map is not read: %s: %s",
				      name, path, why);
	if (!m) {
		struct perf_map **more = reallocarray(e->perf_maps, e->nr_perf_maps + 1, sizeof(*more));

		m = calloc(1, sizeof(*m));
		if (!more || !m) {
			free(m);
			if (more)
				e->perf_maps = more;
			fclose(f);
			return libaddrres_err(&e->eb, -ENOMEM, "%s: out of memory", path);
		}
		e->perf_maps = more;
		e->perf_maps[e->nr_perf_maps++] = m;
		m->pid = pid;
		m->st.st_ino = (ino_t)-1;
	}
	snprintf(m->path, sizeof(m->path), "%s", path);
	if (fstat(fileno(f), &st)) {
		err = -errno;
		fclose(f);
		return libaddrres_err(&e->eb, err, "%s: %s", path, strerror(-err));
	}
	if (st.st_ino != m->st.st_ino || st.st_dev != m->st.st_dev || st.st_size != m->st.st_size ||
	    st.st_mtim.tv_sec != m->st.st_mtim.tv_sec || st.st_mtim.tv_nsec != m->st.st_mtim.tv_nsec) {
		err = perf_map_read(m, f, &st);
		if (err) {
			fclose(f);
			m->st.st_ino = (ino_t)-1;
			return libaddrres_err(&e->eb, err, "%s: out of memory", path);
		}
	}
	fclose(f);
	m->checked = e->calls;
	*mp = m;
	return 0;
}

/* The function of @m that holds @addr: of several, the one of the latest line. */
static const struct perf_sym *perf_map_find(const struct perf_map *m, uint64_t addr)
{
	const struct perf_sym *best = NULL;
	size_t lo = 0, hi = m->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->syms[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Those starting below: a few may hold it, each JIT function small. */
	for (size_t j = lo, seen = 0; j > 0 && seen < 64; j--, seen++) {
		const struct perf_sym *s = &m->syms[j - 1];

		if (addr - s->start < s->size && (!best || s->line > best->line))
			best = s;
	}
	return best;
}

/*
 * Addresses of @vma, anonymous executable memory of @pid: each one's JIT
 * function from the perf map, into syms[] (NULL where none holds it).
 * 0, or -ENOENT without a map (the message set), or -ENOMEM.
 */
int libaddrres_elf_perf_map_resolve(struct addrres_elf *e, int pid, const struct addrres_vma *vma,
				    const char *name, const uint64_t *addrs, size_t n,
				    const struct addrres_elf_sym **syms, struct addrres_elf_sym *store)
{
	struct perf_map *m = NULL;
	int err = perf_map_get(e, pid, name, &m);

	(void)vma;
	if (err)
		return err;
	for (size_t i = 0; i < n; i++) {
		const struct perf_sym *s = perf_map_find(m, addrs[i]);

		syms[i] = NULL;
		if (!s)
			continue;
		store[i] = (struct addrres_elf_sym){
			.elf_addr = addrs[i], .name = s->name, .offset = addrs[i] - s->start,
			.size = s->size, .symtab = ADDRRES_ELF_SYMTAB_PERF_MAP,
		};
		syms[i] = &store[i];
	}
	return 0;
}
