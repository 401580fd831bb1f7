/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the libFuzzer targets of libaddrres share: the check that aborts
 * (so that libFuzzer reports the input), files in memory that the
 * library opens by path, and the splitting of an input into the files it
 * stands for.
 */
#ifndef ADDRRES_FUZZ_H
#define ADDRRES_FUZZ_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE	/* memfd_create(), memmem() */
#endif
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * An invariant of the library that the input broke: say which and abort,
 * which libFuzzer reports as a crash with the input saved.
 */
#define CHECK(cond, fmt, ...) do {						\
	if (!(cond)) {								\
		fprintf(stderr, "INVARIANT VIOLATED at %s:%d: %s: " fmt "\n",	\
			__FILE__, __LINE__, #cond, ##__VA_ARGS__);		\
		abort();							\
	}									\
} while (0)

/* A file in memory (a memfd) and the path that opens it. */
struct memfile {
	int fd;
	char path[64];
};

static inline void memfile_init(struct memfile *m, const char *name)
{
	m->fd = memfd_create(name, MFD_CLOEXEC);
	if (m->fd < 0) {
		perror("memfd_create");
		abort();
	}
	snprintf(m->path, sizeof(m->path), "/proc/self/fd/%d", m->fd);
}

/* Make @n bytes at @data the whole content of @m. */
static inline void memfile_set(struct memfile *m, const void *data, size_t n)
{
	const char *p = data;

	if (ftruncate(m->fd, 0)) {
		perror("ftruncate");
		abort();
	}
	for (size_t off = 0; off < n;) {
		ssize_t w = pwrite(m->fd, p + off, n - off, (off_t)off);

		if (w <= 0) {
			perror("pwrite");
			abort();
		}
		off += (size_t)w;
	}
}

/*
 * The number of open file descriptors: the same after an input as before
 * it, or the library left a file open.
 */
static inline int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d) {
		perror("/proc/self/fd");
		abort();
	}
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A path that does not exist (ENOENT): the directory does not either. */
#define NO_SUCH_FILE "/nonexistent-addrres-fuzz/none"

/*
 * The next section of @data: up to the next line "@@" (or the end), which
 * is not part of either section.  The section keeps its last newline.
 */
#define SECTION_SEP "@@\n"
static inline void next_section(const char **p, const char *end, const char **s, size_t *len)
{
	const char *at = *p;

	*s = *p;
	for (;;) {
		at = memmem(at, (size_t)(end - at), SECTION_SEP, strlen(SECTION_SEP));
		if (!at) {
			*len = (size_t)(end - *p);
			*p = end;
			return;
		}
		if (at == *s || at[-1] == '\n')
			break;
		at++;
	}
	*len = (size_t)(at - *s);
	*p = at + strlen(SECTION_SEP);
}

/*
 * The next line of [*p, end), without its newline: false at the end.  A
 * last line without a newline is a line, an empty rest is not (what
 * getline() and the maps reader both do).
 */
static inline bool next_line(const char **p, const char *end, const char **line, size_t *len)
{
	const char *nl;

	if (*p >= end)
		return false;
	*line = *p;
	nl = memchr(*p, '\n', (size_t)(end - *p));
	if (nl) {
		*len = (size_t)(nl - *p);
		*p = nl + 1;
	} else {
		*len = (size_t)(end - *p);
		*p = end;
	}
	return true;
}

/* "path:LINE: " then something: the message of a malformed line. */
static inline bool names_line(const char *msg, const char *path, size_t lineno)
{
	char want[128];
	int n = snprintf(want, sizeof(want), "%s:%zu: ", path, lineno);

	return n > 0 && (size_t)n < sizeof(want) && !strncmp(msg, want, (size_t)n) && msg[n];
}

#endif /* ADDRRES_FUZZ_H */
