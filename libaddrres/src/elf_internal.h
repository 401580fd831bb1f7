/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the files of the ELF part (elf*.c) share: the cache's structs and
 * the functions one file calls in another.  Built only with elfutils;
 * LIBELF=0 builds elf_none.c instead.
 */
#ifndef LIBADDRRES_ELF_INTERNAL_H
#define LIBADDRRES_ELF_INTERNAL_H

#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <libelf.h>
#include <time.h>
#include <sys/types.h>

#include "internal.h"

/* A PT_LOAD segment: where its bytes are in the file and in memory. */
struct elf_load {
	uint64_t offset, filesz, memsz, vaddr;
};

/*
 * A section that takes memory (SHF_ALLOC): at [start, end], end included
 * as libdwfl's dwfl_module_address_section() includes it.
 */
struct elf_alloc_scn {
	uint64_t start, end;
};

/* What the library reads of a file itself, from the ELF libdwfl opened. */
struct elf_facts {
	struct elf_load *loads;
	size_t nr_loads;
	unsigned char build_id[ADDRRES_BUILD_ID_MAX];
	size_t build_id_size;
	bool has_symtab;	/* a .symtab of its own */
	bool has_debugdata;	/* a .gnu_debugdata section */
	bool relocatable;	/* ET_DYN: a PIE, a shared library, the vdso */
	/*
	 * ET_REL: an object file or a kernel module.  It has no addresses of
	 * its own: @loads are its SHF_ALLOC sections where libdwfl laid them
	 * out (dwfl_report_elf() writes the sh_addr it chose into the section
	 * headers), and an offset is asked in a named section.
	 */
	bool object;
	/*
	 * Its code segments have no bytes in the file (a debug file: its
	 * program headers give addresses, not the binary's file offsets).
	 */
	bool no_code_bytes;
	/*
	 * The SHF_ALLOC sections by address, no two starting together, none
	 * overlapping; NULL where they are not so (libdwfl is asked, see
	 * section_of()).
	 */
	struct elf_alloc_scn *scns;
	size_t nr_scns;
};

/* A symbol as dwfl_module_addrinfo() weighs it (see "the symbol index"). */
struct sym_ent {
	uint64_t value;		/* the address it is matched at: getsym_info's */
	uint64_t size;		/* st_size */
	const char *name;
	Elf *elf;		/* the ELF of its table */
	GElf_Word shndx;	/* getsym_info's: -1 if its section is not SHF_ALLOC */
	int ndx;		/* its index in libdwfl's table: the order of its scan */
	int bind;		/* libdwfl's preference: global 3, weak 2, local 1, other 0 */
};

/* The globals or the locals of a module, which libdwfl searches apart. */
struct sym_range {
	struct sym_ent *ents;	/* by value, then index */
	/*
	 * A Fenwick tree of the ends (value + size, at most UINT64_MAX):
	 * maxend[j], 1 <= j <= n, is the largest end of ents[j - lowbit(j)]
	 * to ents[j - 1].  It finds the symbols holding an address without
	 * visiting all those below it, however far below a large one starts.
	 */
	uint64_t *maxend;
	size_t n;
};

enum sym_index_state {
	SYM_INDEX_NONE,		/* not built yet: on the file's first lookup */
	SYM_INDEX_BUILT,
	SYM_INDEX_LIBDWFL,	/* not usable: every lookup asks libdwfl */
};

struct sym_index {
	enum sym_index_state state;
	struct sym_range globals, locals;
};

/* A kind byte ('f' file, 'i' inode, 'b' build ID, 'v' vdso), then what identifies it. */
struct key {
	unsigned char b[1 + 2 * sizeof(uint64_t) + ADDRRES_BUILD_ID_MAX];
	size_t len;
};

/* A key of a map that names a file: removed with the file. */
struct elf_alias {
	struct libaddrres_strmap *map;
	struct key key;
};

/*
 * A descriptor libdwfl holds for a file (it keeps what it is given open
 * until its dwfl_end()), and what the file was when it was read: the
 * file is what libdwfl maps, and a file rewritten in place since must
 * not be read through that mapping (pages past a new end raise SIGBUS).
 */
struct held_fd {
	int fd;				/* -1: none */
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

/* A range of a unit's code, from its own DIE (elf_units.c). */
struct unit_range {
	uint64_t lo, hi;	/* DWARF addresses, hi excluded */
	Dwarf_Off cu;		/* the unit's DIE */
};

/* A file of the cache. */
struct elf_file {
	struct addrres_elf *owner;	/* the handle: libdwfl's callbacks get the file */
	/* the file, and the debug file and dwz file libdwfl found: checked by libaddrres_elf_file_pin() */
	struct held_fd held[3];
	bool told_debuginfod;		/* the message of find_debuginfo() printed */
	bool debug_found;		/* find_debuginfo() gave its debug file */
	bool cache_copy_bad;		/* the debug cache's copy of it was not read: replace it */
	bool dwarf_used;		/* lines or inlines asked: libdw read its DWARF */
	bool cached;			/* in the cache's list: it owns the file */
	bool dwarf_checked;		/* line_err is known */
	int line_err;			/* why its DWARF gives no lines (dwarf_state()) */
	struct elf_alias *aliases;	/* the keys that name it */
	size_t nr_aliases;
	struct elf_file *lru_prev, *lru_next;	/* the cache's, most recent first */
	uint64_t used;			/* the call (addrres_elf.calls) that last used it */
	uint64_t bytes_at;		/* the call of its estimate */
	size_t bytes;			/* its estimate (file_bytes()) */
	size_t index_bytes;		/* what its indexes took */
	struct libaddrres_arena arena;	/* its units' keys, answers, inline frames */
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Elf *elf;		/* the module's main ELF, libdwfl's */
	uint64_t bias;		/* module address - file address: 0, checked */
	struct elf_facts facts;
	struct sym_index index;
	/* (source name, unit) -> the name made absolute (src_path()) */
	struct libaddrres_strmap srcs;
	/* ELF address -> the answer there, in arena (answer_keep()) */
	struct libaddrres_strmap answers;
	uint64_t dwbias;		/* DWARF address - module address */
	/* unit DIE offset -> its inlined subroutines (elf_inlines.c) */
	struct libaddrres_strmap cus;
	/* DWARF sections the library decompressed, libdw's (elf_inflate.c) */
	void **inflated;
	size_t nr_inflated;
	size_t inflated_bytes;		/* what those buffers take */
	/* what libdw decompressed itself (zstd; a debug file found for DWARF alone) */
	uint64_t libdw_inflated;
	/* the units whose line tables were read, by DIE offset; their rows; all units */
	struct libaddrres_strmap line_units;
	size_t nr_line_units, line_rows, nr_dwarf_units;
	bool dwarf_inflated;		/* they were, before libdw read them */
	bool dwarf_corrupt;		/* one did not decompress (said) */
	bool dwarf_capped;		/* some over max_inflated, hidden from libdw (said) */
	bool in_getdwarf;		/* libaddrres_elf_dwarf() is in dwfl_module_getdwarf() */
	/* its debug file not looked for: out of descriptors (read again at the next call) */
	bool debug_starved;
	/* every unit's ranges, where libdwfl found no line (elf_units.c) */
	struct unit_range *units;
	size_t nr_units;
	Dwarf_Off *ranged_units;	/* the units that have ranges, by offset */
	size_t nr_ranged_units;
	bool units_built;
	/* a kernel image's _text, where it was linked (elf_kernel.c) */
	uint64_t text;
	int text_err;			/* 0, or -ENOENT: it has none */
	bool text_known;
};

struct addrres_elf {
	struct libaddrres_errbuf eb;	/* msg */
	char msg[LIBADDRRES_MSG_SZ];
	struct elf_file *lru_head, *lru_tail;	/* every file */
	size_t nr_files, max_files, max_bytes;
	uint64_t calls;			/* resolve calls so far: the current one's number */
	struct addrres_elf_stats stats;
	bool no_lines, no_inlines, no_demangle, debuginfod, no_inflate;
	bool told_swap_lost;		/* libelf did not keep a decompressed section: said */
	char *debug_dirs;		/* callbacks.debuginfo_path points to it */
	char *debug_cache_dir;		/* decompressed debug files; NULL: none */
	size_t max_debugdata;		/* the cap on .gnu_debugdata (elf_debugdata.c) */
	size_t max_inflated;		/* the cap on a file's compressed DWARF (elf_inflate.c) */
	struct perf_map **perf_maps;	/* JIT symbols, by process (elf_perfmap.c) */
	size_t nr_perf_maps;
	Dwfl_Callbacks callbacks;	/* libdwfl keeps a pointer to it */
	struct libaddrres_arena arena;	/* names' and sources' strings */
	/* keys malloc'd, each removed with its file (elf_alias) */
	struct libaddrres_strmap files;	/* file key -> struct elf_file */
	struct libaddrres_strmap inodes;	/* inode key -> the last one of it */
	struct libaddrres_strmap builds;	/* build ID and size -> a file of them */
	struct libaddrres_strmap srcs;	/* source paths made absolute, interned */
	/* symbol names -> as shown (demangled, without a version), interned */
	struct libaddrres_strmap names;
	struct addrres_elf_sym *syms;	/* the results of the last resolve */
	size_t syms_cap;
};

/* ---- the cache: elf_cache.c ---- */

void libaddrres_elf_key_init(struct key *k, char kind);
void libaddrres_elf_key_add(struct key *k, const void *p, size_t n);
struct elf_file *libaddrres_elf_map_get(const struct libaddrres_strmap *m, const struct key *k);
struct elf_file *libaddrres_elf_file_cached(struct addrres_elf *e, uint64_t dev, uint64_t ino,
					    const unsigned char *build_id, size_t build_id_size);
int libaddrres_elf_facts_read(Elf *elf, struct elf_facts *f, const char **why);
void libaddrres_elf_facts_free(struct elf_facts *f);
int libaddrres_elf_file_new(struct addrres_elf *e, int fd, const char *name,
			    struct elf_file **filep);
int libaddrres_elf_file_keep(struct addrres_elf *e, struct elf_file *f, const char *name,
			     const struct key *fk, const struct key *ik, struct elf_file **filep);
void libaddrres_elf_file_free(struct elf_file *f);
void libaddrres_elf_cache_trim(struct addrres_elf *e, size_t room);
void libaddrres_elf_cache_drop(struct addrres_elf *e);
void libaddrres_elf_call_start(struct addrres_elf *e);
int libaddrres_elf_file_pin(struct addrres_elf *e, struct elf_file *f);
void libaddrres_elf_held_set(struct held_fd *h, int fd);
bool libaddrres_elf_fds_reclaim(struct addrres_elf *e, int err);
int libaddrres_elf_open_retry(struct addrres_elf *e, const char *path);
struct stat;
void libaddrres_elf_key_stat(struct key *k, const struct stat *st);
int libaddrres_elf_file_get(struct addrres_elf *e, int fd, const char *name, uint64_t dev,
			    uint64_t ino, const unsigned char *build_id, size_t build_id_size,
			    bool mapped, struct elf_file **filep);

/* ---- files by path or build ID, and their sections: elf.c ---- */

int libaddrres_elf_file_at(struct addrres_elf *e, const char *path, const unsigned char *build_id,
			   size_t build_id_size, char *found, size_t found_sz, struct elf_file **fp);
int libaddrres_elf_section_at(struct elf_file *f, const char *name, uint64_t *start,
			      uint64_t *size, const char **shown);
int libaddrres_elf_resolve_in_section(struct addrres_elf *e, struct elf_file *f, const char *path,
				      const char *name, const uint64_t *offsets, size_t n,
				      const struct addrres_elf_sym **syms, struct addrres_elf_sym *store);

/* ---- the vdso: elf_vdso.c ---- */

int libaddrres_elf_vdso_get(struct addrres_elf *e, int pid, const struct addrres_vma *vma,
			    struct elf_file **filep);

/* ---- symbols and lines: elf_symbols.c ---- */

const char *libaddrres_elf_shown_name(struct addrres_elf *e, const char *name);
const char *libaddrres_elf_src_join(struct addrres_elf *e, struct elf_file *f, const char *src,
				    const char *comp_dir, const void *unit);

void libaddrres_elf_index_free(struct sym_index *ix);
int libaddrres_elf_syms_reserve(struct addrres_elf *e, size_t n, const char *name);
void libaddrres_elf_resolve_file(struct addrres_elf *e, struct elf_file *f,
				 const uint64_t *vals, uint64_t adj, bool elf_addrs, size_t n,
				 const struct addrres_elf_sym **syms, struct addrres_elf_sym *store);

/* ---- decompressed debug files: elf_debug_cache.c ---- */

int libaddrres_elf_debug_cache_find(struct elf_file *f, char **name);

/*
 * The debug file of @f (@alt: the dwz file of its DWARF), looked for as
 * libdwfl's standard search does, but every candidate opened as a regular
 * file, never blocking (elf_debug_search.c): an fd and its name in @found
 * (the caller's to free), or -1 with errno 0, or EMFILE or ENFILE if a
 * candidate could not be opened for want of descriptors.
 */
int libaddrres_elf_debug_search(struct elf_file *f, const char *file_name,
				const char *debuglink_file, GElf_Word crc, bool alt, char **found);
int libaddrres_elf_debug_cache_add(struct elf_file *f, Elf *debug, const char *name);

/* ---- debug files decompressed with libdeflate: elf_inflate.c ---- */

int libaddrres_elf_inflate(Elf *in, int out_fd);
size_t libaddrres_elf_max_inflated(size_t opt);
uint64_t libaddrres_elf_inflated_size(Elf *elf);
bool libaddrres_elf_fd_over_cap(struct elf_file *f, int fd, const char *name, bool weigh);
Dwarf *libaddrres_elf_dwarf(struct elf_file *f, Dwarf_Addr *bias);

/* ---- MiniDebugInfo's cap: elf_debugdata.c ---- */

size_t libaddrres_elf_max_debugdata(size_t opt);
int libaddrres_elf_debugdata_guard(struct addrres_elf *e, int fd, const char *name);

/* ---- JIT code: elf_perfmap.c ---- */

struct perf_map;
int libaddrres_elf_perf_map_resolve(struct addrres_elf *e, int pid, const struct addrres_vma *vma,
				    const char *name, const uint64_t *addrs, size_t n,
				    const struct addrres_elf_sym **syms, struct addrres_elf_sym *store);
void libaddrres_elf_perf_maps_free(struct addrres_elf *e);

/* ---- units by their own ranges: elf_units.c ---- */

Dwarf_Line *libaddrres_elf_unit_line(struct elf_file *f, uint64_t addr, Dwarf_Die *cu);
bool libaddrres_elf_unit_holds(struct elf_file *f, Dwarf_Off cu, uint64_t addr);

/* ---- inlined functions: elf_inlines.c ---- */

void libaddrres_elf_inline_chain(struct addrres_elf *e, struct elf_file *f, Dwarf_Die *cu,
				 uint64_t addr, struct addrres_elf_sym *s);
void libaddrres_elf_inlines_free(struct elf_file *f);

#endif /* LIBADDRRES_ELF_INTERNAL_H */
