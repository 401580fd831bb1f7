/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the parts of libaddrres share and do not export: options structs,
 * error messages, a string arena, a string-keyed hash map, opening a VMA's
 * file and reading build IDs.  Names start with libaddrres_ (never
 * addrres_, the exported prefix) and are hidden by -fvisibility=hidden.
 */
#ifndef LIBADDRRES_INTERNAL_H
#define LIBADDRRES_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <addrres/addrres.h>

#define LIBADDRRES_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))

/* ---- options structs (the libbpf convention: a leading size_t sz) ---- */

#define libaddrres_offsetofend(TYPE, FIELD) \
	(offsetof(TYPE, FIELD) + sizeof(((TYPE *)0)->FIELD))

/* The caller's struct has FIELD: @opts is not NULL and its sz covers it. */
#define LIBADDRRES_OPTS_HAS(opts, FIELD) \
	((opts) && (opts)->sz >= libaddrres_offsetofend(__typeof__(*(opts)), FIELD))

/* FIELD of @opts, or DFLT if the caller's struct does not have it. */
#define LIBADDRRES_OPTS_GET(opts, FIELD, DFLT) \
	(LIBADDRRES_OPTS_HAS(opts, FIELD) ? (opts)->FIELD : (DFLT))

/*
 * Whether an options struct is acceptable: NULL, or its sz (the first
 * field) holds at least sz itself, is not absurd (at most
 * LIBADDRRES_OPTS_MAX_SZ: garbage in sz must not send us reading far
 * away), and every byte past the @known_sz bytes this library knows is
 * zero (a newer caller set nothing we would ignore).
 */
#define LIBADDRRES_OPTS_MAX_SZ 4096
bool libaddrres_opts_valid(const void *opts, size_t known_sz);

struct libaddrres_errbuf;
/* The checks of LIBADDRRES_OPTS_START(), once the message buffer is known. */
int libaddrres_opts_start(const void *opts, size_t known_sz, struct libaddrres_errbuf *eb,
			  const char *type);

/*
 * The start of every addrres_*__open(): @eb gets the caller's message
 * buffer (where sz is sane enough to read it), emptied; an options struct
 * that libaddrres_opts_valid() refuses fails with -EINVAL and a message
 * naming @type.  Evaluates to 0 or -EINVAL.
 */
#define LIBADDRRES_OPTS_START(opts, eb, type) ({				\
	if (!(opts) || (opts)->sz <= LIBADDRRES_OPTS_MAX_SZ) {			\
		(eb)->buf = LIBADDRRES_OPTS_GET(opts, errbuf, NULL);		\
		(eb)->sz = LIBADDRRES_OPTS_GET(opts, errbuf_sz, 0);		\
	}									\
	libaddrres_opts_start(opts, sizeof(*(opts)), eb, type);		\
})

/* ---- error messages ---- */

/* Where a function reports why it failed: a caller's buffer, or none. */
struct libaddrres_errbuf {
	char *buf;
	size_t sz;
};

/*
 * The room a handle keeps for its last message (addrres_*__errmsg()): a
 * path and a reason.
 */
#define LIBADDRRES_MSG_SZ 4352

/* Point @eb at a handle's own message buffer @msg, emptied. */
void libaddrres_err_own(struct libaddrres_errbuf *eb, char *msg, size_t sz);

/*
 * A message for the caller's print function (addrres_set_print()), if
 * one is set: "libaddrres: " and the message, then a newline.
 */
void libaddrres_print(enum addrres_print_level level, const char *fmt, ...)
	LIBADDRRES_PRINTF(2, 3);

/* Empty the message (a function that succeeds leaves ""). */
void libaddrres_err_clear(struct libaddrres_errbuf *eb);

/*
 * Write the message (printf-style, cut to the buffer) and return @err, a
 * negative errno value, so that "return libaddrres_err(eb, -EINVAL, ...)"
 * reports and fails in one statement.
 */
int libaddrres_err(struct libaddrres_errbuf *eb, int err, const char *fmt, ...)
	LIBADDRRES_PRINTF(3, 4);

/* strerror(-err) without strerror()'s static buffer (thread-safe). */
const char *libaddrres_strerror(int err, char *buf, size_t sz);

/* ---- arena: many small allocations freed all at once ---- */

/*
 * Memory is taken from large chunks that never move, so pointers into the
 * arena stay valid while it grows; an allocation larger than a chunk gets
 * a chunk of its own.  Nothing is freed until libaddrres_arena_free().
 */
struct libaddrres_arena_chunk;
struct libaddrres_arena {
	struct libaddrres_arena_chunk *chunks;	/* newest first */
	char *next;				/* free space in the newest */
	size_t left;
	size_t bytes;				/* what its chunks take */
};

void *libaddrres_arena_alloc(struct libaddrres_arena *a, size_t size, size_t align);
/* A NUL-terminated copy of the @n bytes at @s. */
char *libaddrres_arena_strndup(struct libaddrres_arena *a, const char *s, size_t n);
void libaddrres_arena_free(struct libaddrres_arena *a);

/* ---- hashing and a map from strings to pointers ---- */

uint64_t libaddrres_hash(const char *s, size_t n);

/*
 * Open addressing, linear probing.  The map does not copy its keys: they
 * must stay valid and unchanged while the map is used (an arena's strings,
 * typically).  Values may be NULL.
 */
struct libaddrres_strmap_ent {
	const char *key;	/* NULL: a free slot */
	size_t len;
	uint64_t hash;
	void *val;
};

struct libaddrres_strmap {
	struct libaddrres_strmap_ent *ents;
	size_t cap;		/* 0 or a power of two */
	size_t nr;
};

/* The entry of the @n bytes at @key, or NULL. */
struct libaddrres_strmap_ent *
libaddrres_strmap_find(const struct libaddrres_strmap *m, const char *key, size_t n);
/* Add @key (not in the map yet) with @val: 0 or -ENOMEM. */
int libaddrres_strmap_add(struct libaddrres_strmap *m, const char *key, size_t n, void *val);
/* Remove @ent, an entry of @m (its key is the caller's to free). */
void libaddrres_strmap_del(struct libaddrres_strmap *m, struct libaddrres_strmap_ent *ent);
void libaddrres_strmap_free(struct libaddrres_strmap *m);

/*
 * The one copy in @a of the @n bytes at @s, NUL-terminated, shared by all
 * the equal strings interned in @m; NULL if out of memory.
 */
const char *libaddrres_intern(struct libaddrres_strmap *m, struct libaddrres_arena *a,
			      const char *s, size_t n);

/* ---- the files of a process's VMAs, and their ELF build IDs ---- */

/*
 * Open the file mapped at @v (of process @pid, 0: ourselves), whose name
 * is @name (passed apart from @v: the procmaps walk has no pointer to it
 * yet).  It must be the device and inode of @v: a path may since name
 * another file.  An fd (O_RDONLY, O_CLOEXEC) or a negative errno:
 * -ESTALE if the file found is not that of @v, else that of opening it.
 * @why, if not NULL, gets a reason worth showing after the file's name.
 */
int libaddrres_open_mapped_file(int pid, const struct addrres_vma *v, const char *name,
				char *why, size_t why_sz);

/*
 * Whether a file whose contents become answers (a perf map, a cached
 * debug file) may be believed: owned by this process's effective user, by
 * root, or by @also ((uid_t)-1: no one else), as perf asks of its maps.
 */
struct stat;
bool libaddrres_owner_trusted(const struct stat *st, uid_t also);

/*
 * Open @path (relative to @dirfd, or AT_FDCWD) to read a file that a local
 * user may have put there: O_NONBLOCK and O_NOCTTY, so that a FIFO or a
 * device neither blocks the caller nor becomes its terminal, and refused
 * unless the descriptor opened is a regular file (checked on it, not on
 * the path, which may name another file by then).  @flags adds to the
 * open flags (O_NOFOLLOW); @st, if not NULL, gets the file's status.  An
 * fd, or a negative errno: -ENOEXEC for a file that is not regular
 * (libaddrres_open_strerror() says so).
 */
int libaddrres_open_regular(int dirfd, const char *path, int flags, struct stat *st);

/*
 * libaddrres_open_regular() of @path as a FILE to read: NULL with errno
 * set (ENOEXEC: not a regular file) if it cannot be.
 */
FILE *libaddrres_fopen_regular(const char *path);

/* libaddrres_strerror(), but "not a regular file" for -ENOEXEC. */
const char *libaddrres_open_strerror(int err, char *buf, size_t sz);

/* The @n bytes at @id as lower-case hex into @hex (2 * @n + 1 bytes). */
void libaddrres_hex(const unsigned char *id, size_t n, char *hex);

/* A handle's stats into a caller's, by its sz (util.c). */
int libaddrres_stats_copy(void *stats, const void *ours, size_t ours_sz);

#ifndef LIBADDRRES_NO_LIBELF
struct Elf;	/* libelf's Elf */

/*
 * The GNU build ID of an ELF file, from its PT_NOTE segments as the
 * kernel reads it (an object file's from its note sections), into @id
 * (ADDRRES_BUILD_ID_MAX bytes): its size, or 0 if it has none or is no
 * ELF file.  From an open Elf, or from a file.
 */
size_t libaddrres_elf_build_id(struct Elf *elf, unsigned char *id);
size_t libaddrres_fd_build_id(int fd, unsigned char *id);
#endif

/*
 * addrres_elf__resolve@ADDRRES_0.2 (elf.c; elf_none.c with LIBELF=0):
 * the 0.1 form calls it too, so that object files stay refused there.
 */
LIBADDRRES_API int libaddrres_elf_resolve_0_2(struct addrres_elf *e, const char *path,
					      const uint64_t *file_offsets, size_t n,
					      const struct addrres_elf_sym **syms,
					      const struct addrres_elf_resolve_opts *opts);

#endif /* LIBADDRRES_INTERNAL_H */
