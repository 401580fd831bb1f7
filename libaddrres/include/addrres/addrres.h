/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libaddrres: turn addresses into names, for the authors of profilers,
 * tracers and trace decoders.
 *
 * Three parts:
 *  - kernel symbols: it reads /proc/kallmodsyms (kallsyms with the
 *    built-in modules and, where a name is ambiguous, the object file of
 *    each kernel text symbol) or, on kernels without it, /proc/kallsyms,
 *    and answers "which symbol holds this address" and "where is the
 *    symbol of this name";
 *  - process addresses: the VMA (range, permissions, file, offset, build
 *    ID) that holds each of a batch of a process's addresses, with the
 *    PROCMAP_QUERY ioctl on /proc/PID/maps or, on kernels without it,
 *    from the file's text;
 *  - ELF symbols: the symbol and source line of each of a batch of
 *    offsets of an executable or shared library, or of addresses of one
 *    VMA of a process, with elfutils' libdwfl (symbol tables, separate
 *    debug files, MiniDebugInfo, DWARF line tables).
 *
 * Conventions (those of libbpf):
 *  - functions are named object__verb: addrres_ksyms__open() acts on a
 *    struct addrres_ksyms;
 *  - functions that can fail return 0 (or a documented count) on success
 *    and a negative errno value on failure; errno itself is not used;
 *  - options structs start with a size_t sz, the size of the struct the
 *    caller was compiled with (ADDRRES_OPTS() sets it), so that fields can
 *    be appended without breaking callers built against older headers;
 *  - a set of symbols, once opened, is read-only: every lookup function
 *    may be called from several threads at once on the same set.
 *    A process's maps (struct addrres_procmaps) and a cache of ELF files
 *    (struct addrres_elf) are not: each batch replaces the results of
 *    the last, so one thread at a time uses each.
 */
#ifndef ADDRRES_H
#define ADDRRES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks what the shared library exports; everything else is hidden. */
#ifndef LIBADDRRES_API
#define LIBADDRRES_API __attribute__((visibility("default")))
#endif

/*
 * The version of this header (libaddrres.so.0.2.x).  Each release's new
 * functions are in a version node of their own (ADDRRES_0.1, ADDRRES_0.2,
 * see libaddrres.map): a program built against an older release keeps
 * the functions it was linked with.
 */
#define LIBADDRRES_MAJOR_VERSION 0
#define LIBADDRRES_MINOR_VERSION 3

/**
 * ADDRRES_OPTS() - declare an options struct, zeroed, with its size set
 * @TYPE: the struct's tag, e.g. addrres_ksyms_opts
 * @NAME: the variable to declare
 * @...: designated initialisers of the fields to set
 *
 * Example::
 *
 *	ADDRRES_OPTS(addrres_ksyms_opts, opts, .errbuf = msg,
 *		     .errbuf_sz = sizeof(msg));
 */
#define ADDRRES_OPTS(TYPE, NAME, ...) \
	struct TYPE NAME = { .sz = sizeof(struct TYPE), __VA_ARGS__ }

/* ------------------------------------------------------------------------
 * Messages
 */

/**
 * enum addrres_print_level - how much a message matters
 * @ADDRRES_WARN: an answer is less than it could be, and why: a file's
 *	DWARF that cannot be read (compressed with a method libdw lacks), a
 *	section cut at its limit, a file missing that a fallback replaced.
 * @ADDRRES_INFO: what the library chose, where it matters to know.
 * @ADDRRES_DEBUG: details, for a bug report.
 */
enum addrres_print_level {
	ADDRRES_WARN,
	ADDRRES_INFO,
	ADDRRES_DEBUG,
};

/*
 * A print function: @format and @args as for vfprintf(), ending in a
 * newline, "libaddrres: " first.  Its return value is not used.
 */
typedef int (*addrres_print_fn_t)(enum addrres_print_level level, const char *format,
				  va_list args);

/**
 * addrres_set_print() - where the library's warnings go
 * @fn: the function, or NULL (the default) for none
 *
 * As libbpf_set_print(): one function for the process, set before the
 * library is used (it is read without a lock).  Failures are not printed:
 * each function returns its error, and a handle keeps its message
 * (addrres_procmaps__errmsg(), addrres_elf__errmsg()).  Unlike libbpf,
 * nothing is printed by default.
 *
 * Return: the function set before.
 */
LIBADDRRES_API addrres_print_fn_t addrres_set_print(addrres_print_fn_t fn);

/* ------------------------------------------------------------------------
 * Kernel symbols
 */

/**
 * enum addrres_ksyms_source - the file a set of kernel symbols was read from
 * @ADDRRES_KSYMS_SOURCE_KALLMODSYMS: /proc/kallmodsyms (or the file given as
 *	&addrres_ksyms_opts.kallmodsyms_path): text symbols of the kernel image
 *	carry their built-in modules and, where needed, their object file.
 * @ADDRRES_KSYMS_SOURCE_KALLSYMS: /proc/kallsyms (or &kallsyms_path), read
 *	because the kallmodsyms file does not exist: only loaded modules'
 *	symbols carry a module, and names are more often ambiguous.
 */
enum addrres_ksyms_source {
	ADDRRES_KSYMS_SOURCE_KALLMODSYMS = 1,
	ADDRRES_KSYMS_SOURCE_KALLSYMS = 2,
};

/**
 * struct addrres_ksyms_opts - how addrres_ksyms__open() reads the symbols
 * @sz: sizeof(struct addrres_ksyms_opts), as the caller was compiled
 *	(ADDRRES_OPTS() sets it).  Bytes beyond the fields this version of
 *	the library knows must be zero; fields beyond @sz are not read (they
 *	take their defaults).  At most 4096.
 * @kallmodsyms_path: the kallmodsyms file; NULL: "/proc/kallmodsyms".
 * @kallsyms_path: the file read instead when @kallmodsyms_path does not
 *	exist (ENOENT); NULL: "/proc/kallsyms".
 * @modules_path: the list of loaded modules, in the format of /proc/modules
 *	(the first field of each line is a module name); NULL:
 *	"/proc/modules".  Read only with kallmodsyms, where it tells a loaded
 *	module's "[module]" from a built-in module's; a file that does not
 *	exist (a kernel without CONFIG_MODULES) means that none is loaded.
 * @errbuf: if not NULL, where addrres_ksyms__open() puts a message, NUL
 *	terminated and cut to @errbuf_sz bytes, saying why it failed: for a
 *	malformed line "path:line: what is wrong", otherwise "path: reason".
 *	Set to "" on success.
 * @errbuf_sz: the size of @errbuf in bytes.
 * @source: which file to read: 0 (the default), the kallmodsyms file or,
 *	if it does not exist, the kallsyms file; ADDRRES_KSYMS_SOURCE_KALLMODSYMS,
 *	only the kallmodsyms file (-ENOENT if it does not exist: for a caller
 *	that needs the annotations); ADDRRES_KSYMS_SOURCE_KALLSYMS, only the
 *	kallsyms file, even where kallmodsyms exists (to compare the two, or
 *	to test the fallback).
 *
 * The struct may grow at its end in later versions.
 */
struct addrres_ksyms_opts {
	size_t sz;
	const char *kallmodsyms_path;
	const char *kallsyms_path;
	const char *modules_path;
	char *errbuf;
	size_t errbuf_sz;
	enum addrres_ksyms_source source;
};

/**
 * struct addrres_ksym - one kernel symbol, one line of kallmodsyms/kallsyms
 * @addr: its address (0 for every symbol when the reader may not see
 *	addresses, see addrres_ksyms__restricted()).
 * @name: its name.
 * @modules: the modules it belongs to, @nr_modules of them, in the order
 *	of the line; NULL when @nr_modules is 0.  For a symbol of the kernel
 *	image, the built-in modules its object file is linked into (only
 *	with kallmodsyms).  For a loaded module's symbol (@loaded_module),
 *	the one module, as in "[ext4]".
 * @nr_modules: the number of @modules.
 * @object: the object file path that tells it apart from same-named
 *	symbols, as kallmodsyms shows it ("{head64.o}", a tail of the path
 *	in whole components), or NULL if it shows none.
 * @type: its type letter, as in nm(1): 'T' and 't' for text, and so on;
 *	'?' for a loaded module's symbol of a section the kernel does not
 *	classify.
 * @size: its size in bytes, as kallmodsyms shows it (for the kernel image
 *	the st_size of its ELF symbol, 0 for labels); 0 when the set was
 *	read from kallsyms, which gives no sizes (addrres_ksyms__source()).
 * @loaded_module: true if the symbol is not in the kernel image but in a
 *	loaded module, or in code that the kernel made at run time and
 *	shows as a pseudo-module: "[bpf]" (BPF programs) and names starting
 *	with "__builtin__" ("[__builtin__ftrace]", "[__builtin__kprobes]").
 *	@modules[0] is then that module.
 *
 * The library owns these structs and their strings: they live until
 * addrres_ksyms__free() of the set they come from.  Do not allocate or
 * copy the struct itself: fields may be appended in later versions.
 */
struct addrres_ksym {
	uint64_t addr;
	const char *name;
	const char *const *modules;
	size_t nr_modules;
	const char *object;
	char type;
	bool loaded_module;
	uint64_t size;
};

/* An opened, read-only set of kernel symbols. */
struct addrres_ksyms;

/**
 * addrres_ksyms__open() - read the kernel's symbols
 * @opts: where to read them from, and where to put an error message; NULL
 *	for the defaults (/proc/kallmodsyms, else /proc/kallsyms)
 * @ksp: where to store the new set; set to NULL on failure
 *
 * Reads the kallmodsyms file or, if it does not exist (ENOENT), the
 * kallsyms file (unless &addrres_ksyms_opts.source asks for one of them);
 * addrres_ksyms__source() says which.  Lines may be of any
 * length.  Each line must be "ADDRESS SIZE TYPE NAME" in kallmodsyms,
 * "ADDRESS TYPE NAME" in kallsyms, optionally followed by a tab and an
 * annotation:
 *
 *  - in kallmodsyms, "[module]" ... then optionally " {object}", or
 *    "{object}" alone (the grammar of Documentation/filesystems/proc.rst,
 *    "/proc/kallmodsyms"), on any symbol type;
 *  - in kallsyms, a single "[module]" only: anything else there is an
 *    error.
 *
 * ADDRESS and SIZE are 1 to 16 hex digits, TYPE one letter or '?' (a loaded
 * module's symbol in a section the kernel cannot classify), NAME has no
 * space or control character and does not start with '[', '{' or '='
 * (so that addrres_ksym__format() of a symbol is a query that finds it).
 *
 * In kallmodsyms, "[module]" alone, with no object, is a loaded module's
 * if that module is in the list of loaded modules
 * (&addrres_ksyms_opts.modules_path, read before and after the symbols,
 * so that a module loaded or unloaded meanwhile counts as loaded) or is a
 * pseudo-module (see &addrres_ksym.loaded_module); otherwise it is the
 * built-in module the symbol belongs to.  In kallsyms every "[module]" is
 * a loaded module's or pseudo-module's.
 *
 * An empty file gives an empty set, not an error.
 *
 * Return: 0 on success; -EINVAL for invalid @opts or @ksp, or a malformed
 * line (the message in &addrres_ksyms_opts.errbuf names the file and the
 * line); -ENOMEM; -EOVERFLOW for more than 4294967294 symbols; or the
 * negative errno of opening or reading a file (-ENOENT when neither
 * symbol file exists, -EACCES, ...).
 */
LIBADDRRES_API int addrres_ksyms__open(const struct addrres_ksyms_opts *opts,
				       struct addrres_ksyms **ksp);

/**
 * addrres_ksyms__free() - free a set of symbols and everything it owns
 * @ks: the set; NULL is allowed and does nothing
 *
 * The &struct addrres_ksym pointers and the strings of the set become
 * invalid.
 */
LIBADDRRES_API void addrres_ksyms__free(struct addrres_ksyms *ks);

/**
 * addrres_ksyms__source() - which file the symbols were read from
 * @ks: the set
 *
 * Return: ADDRRES_KSYMS_SOURCE_KALLMODSYMS or ADDRRES_KSYMS_SOURCE_KALLSYMS.
 */
LIBADDRRES_API enum addrres_ksyms_source
addrres_ksyms__source(const struct addrres_ksyms *ks);

/**
 * addrres_ksyms__restricted() - whether the kernel hid the addresses
 * @ks: the set
 *
 * The kernel shows every address as 0 to a reader that kptr_restrict,
 * perf_event_paranoid and CAP_SYSLOG do not allow to see them.  Lookups
 * then fail with -EACCES; the symbols themselves, with their names and
 * modules, can still be listed with addrres_ksyms__sym().
 *
 * Return: true if the set has symbols and all their addresses are 0.
 */
LIBADDRRES_API bool addrres_ksyms__restricted(const struct addrres_ksyms *ks);

/**
 * addrres_ksyms__count() - the number of symbols in the set
 * @ks: the set
 *
 * Return: the number of lines that were read.
 */
LIBADDRRES_API size_t addrres_ksyms__count(const struct addrres_ksyms *ks);

/**
 * addrres_ksyms__sym() - a symbol by its position in the file
 * @ks: the set
 * @idx: 0 for the first line of the file, up to addrres_ksyms__count() - 1
 *
 * Return: the symbol of line @idx + 1, or NULL if @idx is out of range.
 */
LIBADDRRES_API const struct addrres_ksym *
addrres_ksyms__sym(const struct addrres_ksyms *ks, size_t idx);

/**
 * addrres_ksyms__find_addr() - the symbol that holds an address
 * @ks: the set
 * @addr: the address to resolve
 * @symp: where to store the symbol found; set to NULL on failure
 * @offset: if not NULL, where to store @addr minus the symbol's address
 *
 * The symbol found is the one with the greatest address not above @addr
 * (of several at that address, the first in the file).  kallsyms gives
 * no sizes, so a symbol is taken to extend to the next symbol's address,
 * except at the end of its region: the last symbol of the kernel image,
 * of a loaded module or of a pseudo-module resolves its own address only,
 * not those past it, since nothing says what is there.  The kernel
 * image's absolute symbols (type 'A' or 'a', the per-CPU variables of
 * x86_64) form a region of their own.
 *
 * Return: 0 on success; -ENOENT if @addr is before the first symbol, or
 * past the last symbol of the region of the symbol below it; -EACCES if the
 * addresses are hidden (addrres_ksyms__restricted()); -EINVAL if @ks or
 * @symp is NULL.
 */
LIBADDRRES_API int addrres_ksyms__find_addr(const struct addrres_ksyms *ks,
					    uint64_t addr,
					    const struct addrres_ksym **symp,
					    uint64_t *offset);

/**
 * addrres_ksyms__find_name() - the symbols of a name, optionally qualified
 * @ks: the set
 * @query: the name, optionally followed by qualifiers written as in a
 *	kallmodsyms annotation, each after a space or tab:
 *	"NAME", "NAME [mod]", "NAME {obj}", "NAME [mod] {obj}",
 *	"NAME [mod1] [mod2] {obj}" (at most one {obj}; any order)
 * @syms: where to store up to @max of the matching symbols, in file order;
 *	may be NULL if @max is 0
 * @max: the number of entries of @syms
 * @count: if not NULL, where to store the number of matching symbols,
 *	which may be more than @max
 *
 * A symbol matches if its name is NAME and every qualifier matches it:
 * "[mod]" if mod is one of its &addrres_ksym.modules ('-' and '_' count as
 * the same character, as for modprobe), "{obj}" if its
 * &addrres_ksym.object is obj or ends in "/obj" (so "{x.o}" matches
 * "x.o" and "dir/x.o", and "{dir/x.o}" does not match "adir/x.o").
 *
 * A query starting with '=' asks for an exact match instead: the symbol's
 * modules must be exactly those of the query, and its object exactly the
 * query's, or absent if the query has none.  "=NAME" is thus the symbol
 * with no annotation, and "=" followed by what addrres_ksym__format()
 * writes finds that one symbol, unless the file itself cannot tell it
 * from another (same name, modules and object).
 *
 * An ambiguous query is never resolved to one of its matches: it fails
 * with -ENOTUNIQ, and @syms and @count list the matches so that the
 * caller can choose, or show them all.
 *
 * Return: 0 if exactly one symbol matches; -ENOTUNIQ if more than one
 * does; -ENOENT if none does; -EINVAL for a malformed @query (no name, an
 * unterminated or empty bracket or brace, two objects, text that is not a
 * qualifier) or invalid arguments; -EACCES if the addresses are hidden
 * (addrres_ksyms__restricted()): a symbol of address 0 is of no use to
 * resolve.  @count is 0 on -EINVAL and -EACCES.
 */
LIBADDRRES_API int addrres_ksyms__find_name(const struct addrres_ksyms *ks,
					    const char *query,
					    const struct addrres_ksym **syms,
					    size_t max, size_t *count);

/**
 * addrres_ksym__format() - write a symbol's qualified name
 * @sym: the symbol
 * @buf: where to write it, NUL terminated, cut to @size bytes; may be NULL
 *	if @size is 0
 * @size: the size of @buf
 *
 * Writes "NAME", then " [module]" for each of its modules and " {object}"
 * if it has one: the symbol's kallmodsyms line without its address and
 * type, with a space for the tab.  This is a query for
 * addrres_ksyms__find_name() that matches the symbol; prefixed with '=',
 * one that matches only symbols with the same name, modules and object.
 *
 * Return: the length of the whole name, not counting the NUL, as
 * snprintf() does (if it is @size or more, the name was cut); -EINVAL if
 * @sym is NULL, or @buf is NULL and @size is not 0; -EOVERFLOW if the
 * length does not fit in an int.
 */
LIBADDRRES_API int addrres_ksym__format(const struct addrres_ksym *sym,
					char *buf, size_t size);

/* ------------------------------------------------------------------------
 * Process addresses: the VMAs of /proc/PID/maps
 */

/*
 * Flags of a VMA (&addrres_vma.flags): the permissions of its maps line.
 * The values are those of PROCMAP_QUERY_VMA_* in <linux/fs.h> (Linux
 * 6.11 and this project's 6.1 series), so that a caller used to the
 * ioctl may test either.
 */
#define ADDRRES_VMA_READABLE	0x01	/* "r" */
#define ADDRRES_VMA_WRITABLE	0x02	/* "w" */
#define ADDRRES_VMA_EXECUTABLE	0x04	/* "x" */
#define ADDRRES_VMA_SHARED	0x08	/* "s" (MAP_SHARED); "p" without it */

/* The longest build ID the kernel reports, and so the library (bytes). */
#define ADDRRES_BUILD_ID_MAX	20

/**
 * enum addrres_procmaps_method - how a process's VMAs are looked up
 * @ADDRRES_PROCMAPS_METHOD_AUTO: the PROCMAP_QUERY ioctl while a batch
 *	needs few queries, the text otherwise, or when the kernel has no
 *	ioctl (see addrres_procmaps__resolve()).  The default.
 * @ADDRRES_PROCMAPS_METHOD_IOCTL: only the PROCMAP_QUERY ioctl on the maps
 *	file (Linux 6.11, or 6.1 with this project's series): one query per
 *	VMA that the batch touches.  Fails with -ENOTTY on other kernels.
 * @ADDRRES_PROCMAPS_METHOD_TEXT: only the text of the maps file, read
 *	from its start up to the line of the batch's highest address.
 */
enum addrres_procmaps_method {
	ADDRRES_PROCMAPS_METHOD_AUTO = 0,
	ADDRRES_PROCMAPS_METHOD_IOCTL = 1,
	ADDRRES_PROCMAPS_METHOD_TEXT = 2,
};

/**
 * struct addrres_procmaps_opts - what addrres_procmaps__open() opens, and how
 * @sz: sizeof(struct addrres_procmaps_opts), as the caller was compiled
 *	(ADDRRES_OPTS() sets it); the rules of &addrres_ksyms_opts.sz.
 * @pid: the process; 0: the caller's own (/proc/self/maps).
 * @maps_fd: if above 0, an open /proc/PID/maps file (of @pid, which then
 *	only serves to find the mapped files of build IDs) used instead of
 *	opening one.  The library does not close it, and moves its file
 *	offset.  0, the default, opens the file (an fd 0 cannot be given).
 * @maps_path: if not NULL (and @maps_fd is 0), the file opened instead of
 *	/proc/PID/maps, a copy of its text: for tests and for maps saved by
 *	a tracer.  On a regular file the ioctl fails with ENOTTY, so AUTO
 *	reads the text and IOCTL fails.
 * @method: ADDRRES_PROCMAPS_METHOD_AUTO (0, the default), _IOCTL or _TEXT.
 * @build_ids: also find each file-backed VMA's GNU build ID: the ioctl
 *	asks the kernel for it; the text path, and the ioctl path when the
 *	kernel answers with none for an executable VMA (it could not read
 *	the file, or Linux 6.11 found its first page uncached), read the
 *	mapped file's PT_NOTE segments with libelf (a library built with
 *	LIBELF=0 reads none).
 * @text_read_size: bytes per read() of the maps text; 0: 64 KiB.
 * @errbuf: if not NULL, where addrres_procmaps__open() puts a message,
 *	NUL terminated and cut to @errbuf_sz bytes, saying why it failed:
 *	"path: reason".  Set to "" on success.  Read only by the open: the
 *	set keeps the messages of its later calls itself
 *	(addrres_procmaps__errmsg()).  Until 0.2 the resolves wrote here
 *	too, so that the buffer had to outlive the set.
 * @errbuf_sz: the size of @errbuf in bytes.
 *
 * The struct may grow at its end in later versions.
 */
struct addrres_procmaps_opts {
	size_t sz;
	int pid;
	int maps_fd;
	const char *maps_path;
	enum addrres_procmaps_method method;
	bool build_ids;
	size_t text_read_size;
	char *errbuf;
	size_t errbuf_sz;
};

/**
 * struct addrres_vma - one VMA of a process: one line of its maps file
 * @start: its first address.
 * @end: the address past its last byte.
 * @offset: the offset in the mapped file of @start; 0 if anonymous.
 * @inode: the mapped file's inode number; 0 if anonymous.
 * @dev_major: the major number of the mapped file's device; 0 if anonymous.
 * @dev_minor: its minor number.
 * @flags: ADDRRES_VMA_READABLE, _WRITABLE, _EXECUTABLE, _SHARED.
 * @name: what the kernel names the VMA, "" if nothing: the path of the
 *	mapped file (with " (deleted)" after it if the file was removed);
 *	"[heap]", "[stack]", "[vdso]", "[vvar]", "[anon:NAME]" (named with
 *	PR_SET_VMA_ANON_NAME) and so on.  The path is the file's real name,
 *	as the ioctl gives it: where the maps text shows a newline of a path
 *	as "\012", the text path turns it back into "\n".
 * @build_id: the file's GNU build ID, @build_id_size bytes; NULL if not
 *	asked for (&addrres_procmaps_opts.build_ids), not an ELF file, or
 *	without one, or when the kernel (ioctl) or the library (text) could
 *	not read it.
 * @build_id_size: its size in bytes, 1 to ADDRRES_BUILD_ID_MAX; 0 if none.
 *
 * The library owns these structs and their strings: they live until the
 * next addrres_procmaps__resolve() on the same set, or its free.  Do not
 * allocate or copy the struct itself: fields may be appended.
 */
struct addrres_vma {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t flags;
	const char *name;
	const unsigned char *build_id;
	size_t build_id_size;
};

/**
 * struct addrres_procmaps_stats - what the last addrres_procmaps__resolve() did
 * @sz: sizeof(struct addrres_procmaps_stats), as the caller was compiled
 *	(ADDRRES_OPTS() sets it): the library fills only the fields that fit,
 *	and zeroes what lies beyond the fields it knows (a newer caller's).
 * @method: ADDRRES_PROCMAPS_METHOD_IOCTL if the ioctl answered every
 *	address, ADDRRES_PROCMAPS_METHOD_TEXT if the text answered some (all
 *	of them, or those left when AUTO switched); AUTO before any resolve.
 * @ioctl_queries: PROCMAP_QUERY ioctls issued.
 * @text_lines: maps lines read (the text parse stops after the line of
 *	the highest address).
 * @vmas: the distinct VMAs that hold the batch's addresses.
 * @ioctl_unsupported: the kernel answered the ioctl with ENOTTY (it has no
 *	PROCMAP_QUERY, or the file is not a maps file), now or in an earlier
 *	resolve of the set: AUTO no longer tries it.
 */
struct addrres_procmaps_stats {
	size_t sz;
	enum addrres_procmaps_method method;
	size_t ioctl_queries;
	size_t text_lines;
	size_t vmas;
	bool ioctl_unsupported;
};

/* The maps file of a process, opened, and the results of its last batch. */
struct addrres_procmaps;

/**
 * addrres_procmaps__open() - open a process's maps file
 * @opts: which process and method, and where to put an error message; NULL
 *	for the caller's own process, AUTO, no build IDs
 * @pmp: where to store the new set; set to NULL on failure
 *
 * Opens /proc/PID/maps (or takes &addrres_procmaps_opts.maps_fd, or opens
 * &addrres_procmaps_opts.maps_path); nothing is read yet.  The file stays
 * open: each addrres_procmaps__resolve() sees the VMAs of that moment.
 * The maps file may be read only by the process itself and by those that
 * may ptrace it.
 *
 * A set is used by one thread at a time: addrres_procmaps__resolve()
 * replaces the results of the previous call.
 *
 * Return: 0 on success; -EINVAL for invalid @opts or @pmp; -ENOMEM; or the
 * negative errno of opening the file (-ENOENT: no such process, -EACCES).
 */
LIBADDRRES_API int addrres_procmaps__open(const struct addrres_procmaps_opts *opts,
					  struct addrres_procmaps **pmp);

/**
 * addrres_procmaps__free() - close the maps file, free the set and its results
 * @pm: the set; NULL is allowed and does nothing
 *
 * A &addrres_procmaps_opts.maps_fd given by the caller is left open.
 */
LIBADDRRES_API void addrres_procmaps__free(struct addrres_procmaps *pm);

/**
 * addrres_procmaps__errmsg() - why the last call on a set failed
 * @pm: the set
 *
 * Return: the message of the last addrres_procmaps__resolve() on @pm,
 * "path:line: what is wrong" for a malformed maps line, otherwise "path:
 * reason"; "" if it succeeded.  It lives in @pm until its next call, or
 * its free.  "" for a NULL @pm.
 */
LIBADDRRES_API const char *addrres_procmaps__errmsg(const struct addrres_procmaps *pm);

/**
 * addrres_procmaps__resolve() - the VMA of each of a batch of addresses
 * @pm: the set
 * @addrs: the addresses, in any order, repeated or not
 * @n: the number of @addrs; 0 is allowed
 * @vmas: where to store, for each of @addrs, its VMA, or NULL if the
 *	address is not mapped; @n entries.  Addresses of one VMA get the
 *	same pointer.
 *
 * The addresses are walked in ascending order (a sorted batch as it is,
 * which one pass checks; any other sorted in a copy):
 *
 *  - the ioctl asks PROCMAP_QUERY for the VMA covering the lowest address
 *    not yet placed, or the next one above it
 *    (PROCMAP_QUERY_COVERING_OR_NEXT_VMA): each answer places every
 *    address up to that VMA's end, so a VMA is queried once however many
 *    addresses it holds, and a gap costs nothing more;
 *  - the text is read line by line, each line placing the addresses below
 *    its end, and reading stops once the highest address is placed.  A
 *    line is checked in full where it holds an address, and up to its
 *    range otherwise.
 *
 * AUTO starts with the ioctl.  A query costs far less than the whole text
 * but somewhat more than a line of it, and each VMA touched costs one, so
 * a batch that hits nearly every VMA up to its highest address is cheaper
 * to read as text.  From its 8th query on, before each query, AUTO
 * projects from the batch so far the queries left (as many per address
 * as so far) and the lines the text would read (VMAs that touch the one
 * answered before are consecutive lines; a batch whose answers seldom
 * touch skips lines), and if the queries would cost more, places the
 * addresses left with one text pass (the ioctl's answers so far are kept:
 * both give the same VMAs).  A batch clustered in a few VMAs, or spread
 * over one VMA in every few, stays with the ioctl.  The lines below the
 * lowest address go unseen: a batch dense in VMAs high in a file of many
 * lines may read more text than projected.  AUTO also reads the text when
 * the kernel answers ENOTTY (no PROCMAP_QUERY) or ENAMETOOLONG (the ioctl
 * returns names up to PATH_MAX only).
 *
 * Both methods give the same VMAs, with two exceptions: a file's path that
 * has "\012" in it is taken for a newline by the text path (the kernel
 * does not escape the backslash, so the text cannot tell them apart), and
 * build IDs: in a library built with LIBELF=0 only the ioctl finds them,
 * and the ioctl's answer lacks one the kernel could not read for a VMA
 * that is not executable.  The
 * x86_64 [vsyscall] page is not a VMA of the process (PROCMAP_QUERY does
 * not see it): the text path skips its line too.
 *
 * Return: 0 on success; -EINVAL for invalid arguments or a malformed maps
 * line (addrres_procmaps__errmsg() names the file and the line); -ENOMEM; -ENOTTY for METHOD_IOCTL on a kernel without
 * PROCMAP_QUERY; -EPROTO for an answer of the ioctl that makes no sense;
 * or the negative errno of reading the file (-ESRCH: the process is
 * gone).  On failure every entry of @vmas is NULL.
 */
LIBADDRRES_API int addrres_procmaps__resolve(struct addrres_procmaps *pm,
					     const uint64_t *addrs, size_t n,
					     const struct addrres_vma **vmas);

/**
 * addrres_procmaps__method() - which method answered the last batch
 * @pm: the set
 *
 * Return: the &addrres_procmaps_stats.method of the last
 * addrres_procmaps__resolve(): ADDRRES_PROCMAPS_METHOD_IOCTL or
 * ADDRRES_PROCMAPS_METHOD_TEXT; ADDRRES_PROCMAPS_METHOD_AUTO before the
 * first batch, or if @pm is NULL.
 */
LIBADDRRES_API enum addrres_procmaps_method
addrres_procmaps__method(const struct addrres_procmaps *pm);

/**
 * addrres_procmaps__stats() - what the last batch cost, and how it was answered
 * @pm: the set
 * @stats: where to store it; its &addrres_procmaps_stats.sz must be set
 *
 * Return: 0 on success; -EINVAL if @pm or @stats is NULL or @stats->sz is
 * smaller than a size_t or larger than 4096.
 */
LIBADDRRES_API int addrres_procmaps__stats(const struct addrres_procmaps *pm,
					   struct addrres_procmaps_stats *stats);

/* ------------------------------------------------------------------------
 * ELF symbols: offsets of an ELF file, or addresses of a process's VMA,
 * as symbols and source lines
 */

/**
 * enum addrres_elf_symtab - the symbol table a symbol was found in
 * @ADDRRES_ELF_SYMTAB_NONE: none: no symbol holds the address.
 * @ADDRRES_ELF_SYMTAB_SYMTAB: the file's own .symtab: it is not stripped.
 * @ADDRRES_ELF_SYMTAB_DYNSYM: its .dynsym: the file is stripped, and
 *	neither a debug file nor MiniDebugInfo gave a .symtab (or gave none
 *	that holds the address): only the symbols it exports are known.
 * @ADDRRES_ELF_SYMTAB_GNU_DEBUGDATA: the .symtab of the xz-compressed ELF
 *	image in its .gnu_debugdata section ("MiniDebugInfo", as Fedora
 *	ships its binaries: the static functions that .dynsym lacks).
 * @ADDRRES_ELF_SYMTAB_DEBUG_FILE: the .symtab of a separate debug file,
 *	found by build ID or .gnu_debuglink (&addrres_elf_opts.debug_dirs).
 * @ADDRRES_ELF_SYMTAB_PERF_MAP: the perf map of a process's JIT code
 *	(/tmp/perf-PID.map): anonymous executable memory, see
 *	addrres_elf__resolve_vma().  &addrres_elf_sym.elf_addr is then the
 *	address itself.
 */
enum addrres_elf_symtab {
	ADDRRES_ELF_SYMTAB_NONE = 0,
	ADDRRES_ELF_SYMTAB_SYMTAB,
	ADDRRES_ELF_SYMTAB_DYNSYM,
	ADDRRES_ELF_SYMTAB_GNU_DEBUGDATA,
	ADDRRES_ELF_SYMTAB_DEBUG_FILE,
	ADDRRES_ELF_SYMTAB_PERF_MAP,
};

/**
 * struct addrres_elf_opts - how addrres_elf__open() looks for symbols
 * @sz: sizeof(struct addrres_elf_opts), as the caller was compiled
 *	(ADDRRES_OPTS() sets it); the rules of &addrres_ksyms_opts.sz.
 * @debug_dirs: where separate debug files are looked for, in the order
 *	of libdwfl's debuginfo_path (dwfl_standard_find_debuginfo()), by the
 *	library itself, which opens only regular files there and never
 *	blocks on a FIFO or reads a device: ':'-separated directories.  For a file whose build ID is ab12cd..., each absolute
 *	DIR is searched for DIR/.build-id/ab/12cd....debug; then, for the
 *	name N in its .gnu_debuglink section (or the file's own name with
 *	".debug"), with FILEDIR the directory of the file: an absolute DIR
 *	for DIR/FILEDIR/N, then with the leading components of FILEDIR
 *	dropped one by one (for /usr/bin/ls: DIR/usr/bin/N, DIR/bin/N,
 *	DIR/N); a relative DIR for FILEDIR/DIR/N; an empty element for
 *	FILEDIR/N.  A file found by name must have the build ID of the file
 *	or, if it has none, the CRC32 its .gnu_debuglink gives (a leading '-'
 *	in the string turns that check off).  NULL: ":.debug:/usr/lib/debug",
 *	libdwfl's default and so eu-addr2line's: beside the file, in its
 *	.debug directory, and where Debian's -dbgsym and Fedora's
 *	-debuginfo packages install them.  Without
 *	&addrres_elf_opts.debuginfod, the library never asks
 *	debuginfod servers: see addrres_elf__resolve().
 * @no_lines: do not look up source lines (&addrres_elf_sym.src_file stays
 *	NULL): a symbol needs the symbol tables only, a line the DWARF
 *	line tables, which take more time and memory to read.  Default
 *	(false): lines where the file or its debug file has DWARF.
 * @errbuf: if not NULL, where addrres_elf__open() puts a message, NUL
 *	terminated and cut to @errbuf_sz bytes, saying why it failed.  Set
 *	to "" on success.  Read only by the open: the handle keeps the
 *	messages of its resolves itself (addrres_elf__errmsg()).  Until 0.2
 *	the resolves wrote here too, so that the buffer had to outlive the
 *	handle.
 * @errbuf_sz: the size of @errbuf in bytes.
 * @no_inlines: do not look for inlined functions (&addrres_elf_sym.inlined
 *	stays empty).  Default (false): where lines are looked up, each
 *	address also gets the chain of functions inlined at it, from the
 *	DWARF scopes that hold it (libdw's dwarf_getscopes(), as
 *	`eu-addr2line -i` finds them).
 * @no_demangle: give C++ and Rust symbol names as the symbol table has
 *	them (mangled).  Default (false): names that libiberty's demangler
 *	(cplus_demangle(), the one of binutils and gdb) takes as C++ (`_Z`)
 *	or Rust (`_ZN...17h<hash>E`, `_R`) are given demangled, with their
 *	parameter types; other names as they are.
 * @debuginfod: where no debug file is found in @debug_dirs, ask the
 *	debuginfod servers of $DEBUGINFOD_URLS for it by build ID, through
 *	elfutils' libdebuginfod as libdwfl does (downloads land in its
 *	cache, $DEBUGINFOD_CACHE_PATH or ~/.cache/debuginfod_client).  Off
 *	by default: a library must not go to the network behind its
 *	caller's back (see addrres_elf__resolve()).  On, libdwfl's own
 *	search runs once the library's found nothing, and that search
 *	opens what it finds without the library's checks.
 * @max_files: how many files the cache keeps open.  Each holds a file
 *	descriptor, two with a debug file (and two more with a debuginfod
 *	client), and what libdwfl read of it.  0: an eighth of the soft
 *	RLIMIT_NOFILE when the handle is opened, at least 4, so that the
 *	caller keeps most of its descriptors.
 * @max_bytes: about how much memory the cached files may take: the
 *	files themselves (mapped), what was decompressed of them (DWARF of
 *	compressed sections), and the library's indexes of them.  0: no
 *	limit.
 *
 * @debug_cache_dir: a directory where a debug file whose DWARF sections
 *	are compressed (Debian's and Fedora's are) is kept decompressed,
 *	DIR/ab/cdef....debug by its build ID, by the first handle that reads
 *	its DWARF: every later handle, of any process given the same
 *	directory, reads that copy and decompresses nothing (libc6-dbg's
 *	libc: a first batch 30% faster).  It costs the decompressed size on disk (libc's:
 *	10.4 MB); the library never removes a copy.  Below DIR nothing is
 *	followed through a symlink; a copy is written under a name no one
 *	else can open (O_TMPFILE, else O_EXCL) and linked in whole; it is
 *	read only if it is a regular file owned by this user or root, in a
 *	directory DIR/ab owned by this user or root, of its build ID, and
 *	as long as its headers say.  NULL (the default):
 *	none, each handle decompresses what it reads.
 *
 * @max_debugdata: how many bytes a file's MiniDebugInfo (.gnu_debugdata,
 *	xz) may decompress to; past it, libdwfl, which decompresses it whole
 *	with no limit, never sees it (78 KB can stand for 512 MB), the
 *	symbols come from .dynsym, and the print function gets a warning
 *	naming the file.  Counted by decompressing it once more, stopped
 *	at the cap.  0: 64 MiB (real MiniDebugInfo is a few MiB at most).
 *
 * @max_inflated: how many bytes the compressed DWARF of a file may
 *	decompress to: its sections compressed with zlib or zstd
 *	(SHF_COMPRESSED) or the old way (.zdebug_*), counted from their
 *	headers before any is decompressed, in the file and, apart, in its
 *	debug file.  (A dwz file, shared by debug files, is weighed but not
 *	refused when found by build ID: libdwfl takes it as it finds it.)
 *	Past it, libdw
 *	never sees those sections: the file's symbols stay, its lines go
 *	(&addrres_elf_sym.line_err -EFBIG) and the print function gets a
 *	warning naming the file.  A few kilobytes of zlib can stand for a
 *	gigabyte.  0: 512 MiB (libc6-dbg's libc: 10 MB; the largest
 *	libraries' DWARF, LLVM's, is beyond it, and needs it raised).
 *
 * @no_inflate: leave the decompression of zlib DWARF to libdw (through
 *	libelf and zlib), as elfutils does it alone.  Default (false): the
 *	library decompresses those sections itself with libdeflate, in half
 *	the time, into the structures libelf gives libdw, and checks after
 *	each that libelf still gives them (else it lets libelf do it, and
 *	says so once).  With it, no copy goes to
 *	&addrres_elf_opts.debug_cache_dir.
 *
 * Past either limit, the files used least recently are closed (never
 * one that the current call uses), at the start of a resolve call and
 * before a file is read.  Where an open fails with EMFILE, the files not
 * in use are closed and the open is tried again once.
 *
 * The struct may grow at its end in later versions.
 */
struct addrres_elf_opts {
	size_t sz;
	const char *debug_dirs;
	bool no_lines;
	char *errbuf;
	size_t errbuf_sz;
	bool no_inlines;
	bool no_demangle;
	bool debuginfod;
	size_t max_files;
	size_t max_bytes;
	const char *debug_cache_dir;
	size_t max_debugdata;
	size_t max_inflated;
	bool no_inflate;
};

/**
 * struct addrres_elf_inline - a function inlined at an address
 * @name: the inlined function's name, from its DWARF (its linkage name
 *	if it has one, demangled unless &addrres_elf_opts.no_demangle; else
 *	its DW_AT_name); NULL if the DWARF gives none.
 * @call_file: the source file of the call that was inlined, which is in
 *	the function that holds this one: the next entry of
 *	&addrres_elf_sym.inlined, or for the last entry the symbol itself;
 *	NULL if the DWARF does not say.
 * @call_line: its line, 0 if unknown.
 * @call_column: its column, 0 if unknown.
 *
 * For an address of the inlined function inl, inlined in outer, the
 * symbol is outer (the code is outer's), &addrres_elf_sym.src_file and
 * line are the address's own line (in inl's source), and the one entry
 * names inl with the line of outer that called it: what `eu-addr2line -i`
 * and llvm-symbolizer print as "inl at LINE" then "outer at CALL_LINE".
 */
struct addrres_elf_inline {
	const char *name;
	const char *call_file;
	unsigned int call_line;
	unsigned int call_column;
};

/**
 * struct addrres_elf_sym - what one offset of an ELF file holds
 * @elf_addr: the offset as an address in the file's link-time terms:
 *	offset - p_offset + p_vaddr of the PT_LOAD segment that holds it.
 *	These are the addresses of nm(1), readelf(1) and
 *	`eu-addr2line -e FILE`; for a shared library or PIE, a process's
 *	address minus the load bias.  Where a section was asked
 *	(&addrres_elf_resolve_opts.section; a module's address by
 *	addrres_elf__resolve_kernel()), the offset in @section: an object
 *	file (ET_REL: a .o, a kernel module) has no addresses.
 * @name: the symbol that holds it, as libdwfl's dwfl_module_addrinfo()
 *	finds it (and so `eu-addr2line -S` shows it): a symbol whose range
 *	holds @elf_addr (of several, the one that starts nearest below it
 *	and, at one address, a global one before a weak one before a local
 *	one) or, failing any, the nearest one below it in its section that
 *	has no size (an assembly label).  NULL if none does.
 * @offset: @elf_addr minus the symbol's value; 0 if @name is NULL.
 * @size: the symbol's size (st_size); 0 if unknown, or @name is NULL.
 * @symtab: the table the symbol was found in; ADDRRES_ELF_SYMTAB_NONE if
 *	@name is NULL.
 * @src_file: the source file of the code at @elf_addr, as the DWARF line
 *	table of the file or of its debug file names it (a path made
 *	absolute with the compilation directory where the compiler recorded
 *	a relative one); NULL if there is no line information for it, or
 *	&addrres_elf_opts.no_lines is set.
 * @line: its line, 0 if unknown.
 * @column: its column, 0 if unknown.
 * @inlined: the functions inlined at @elf_addr, innermost first (see
 *	&struct addrres_elf_inline), @nr_inlined of them; NULL when
 *	@nr_inlined is 0 (code of the symbol's own function, no DWARF, or
 *	&addrres_elf_opts.no_inlines or no_lines set).
 * @nr_inlined: the number of @inlined.
 * @line_err: 0, or why @src_file is NULL although the file (or its debug
 *	file) has DWARF: -EOPNOTSUPP, its DWARF sections are compressed
 *	with a method this libdw cannot decompress (zstd, before elfutils
 *	0.189); -EBADMSG, libdw could not read them, or one of them does
 *	not decompress; -EFBIG, they would decompress to more than
 *	&addrres_elf_opts.max_inflated; -EMFILE, the process was out of
 *	file descriptors when the debug file was to be looked for (the
 *	symbol may then be .dynsym's): the next call reads the file again.
 *	The print function (addrres_set_print()) gets an ADDRRES_WARN
 *	message naming the file (and the section), once.  0 with no
 *	@src_file: no DWARF, none for this address, or
 *	&addrres_elf_opts.no_lines.
 * @section: the section the number asked was an offset in
 *	(&addrres_elf_resolve_opts.section, or the kernel module section
 *	addrres_elf__resolve_kernel() found), NULL where it was a file
 *	offset or an ELF address.  (Since 0.3.  Answers of an older library
 *	end before it; a program gets a section only from 0.3 functions,
 *	addrres_elf__resolve@ADDRRES_0.3 and addrres_elf__resolve_kernel(),
 *	which an older library does not have, so it cannot run there.)
 *
 * A name of the symbol table that carries a symbol version, as a debug
 * file's .symtab has them ("memcpy@@GLIBC_2.14", "query_module@GLIBC_2.2.5"),
 * is given without it, as the stripped file's .dynsym gives it: one
 * function has one name whichever table answers.
 *
 * Lifetime, the one rule for every answer of a handle: the library owns
 * the struct, its &addrres_elf_sym.inlined frames and every string either
 * points to, and all of them live until the next addrres_elf__resolve(),
 * addrres_elf__resolve_vma(), addrres_elf__resolve_vmas() or
 * addrres_elf__resolve_kernel() on the same handle starts, or its addrres_elf__drop() or addrres_elf__free(),
 * whichever comes first.  Not longer: names point into the files the
 * answers came from, which a later call may close (the cache's limits,
 * &addrres_elf_opts.max_files and max_bytes, or a file found rewritten).
 * Within a call no file it uses is closed, so every answer of a batch
 * lives as long as the others.  addrres_elf_syms__dup() makes a copy
 * that lives until addrres_elf_syms__free().  Do not allocate or copy
 * the struct itself: fields may be appended.
 */
struct addrres_elf_sym {
	uint64_t elf_addr;
	const char *name;
	uint64_t offset;
	uint64_t size;
	enum addrres_elf_symtab symtab;
	const char *src_file;
	unsigned int line;
	unsigned int column;
	const struct addrres_elf_inline *inlined;
	size_t nr_inlined;
	int line_err;
	const char *section;
};

/*
 * A cache of opened ELF files: for each, libdwfl's view of it and of its
 * debug file, kept until addrres_elf__free().
 */
struct addrres_elf;

/**
 * addrres_elf__open() - make an empty cache of ELF files
 * @opts: where to look for debug files, whether to look up lines, where
 *	to put an error message; NULL for the defaults
 * @ep: where to store the new handle; set to NULL on failure
 *
 * No file is opened yet.  Each file that a resolve function opens stays
 * open, with what libdwfl read of it (its symbol tables, the debug file
 * it found, the decompressed MiniDebugInfo, DWARF), until the cache's
 * limits close it (&addrres_elf_opts.max_files and max_bytes, least
 * recently used first), addrres_elf__drop() or addrres_elf__free().
 * A file is read once however many batches name it, by path or by VMA:
 * the cache knows it by device and inode (by path also by its
 * modification time and size: a file rewritten in place is read again;
 * and the first time each call uses a cached file, the file and the
 * debug files libdwfl found for it are checked on the descriptors it
 * holds: one whose size or modification time changed is read again,
 * never through its old mapping),
 * and by build ID and size, so that copies of one file (a library in
 * several containers' layers, on overlayfs) are read once; a second
 * handle reads its files again (nothing is shared between handles).
 * Each has a Dwfl of its own and keeps a file descriptor open,
 * two with a debug file.  Where libdwfl's search finds no debug file for
 * a file with a build ID, it also makes that Dwfl a debuginfod client,
 * which asks nothing (see addrres_elf__resolve()) but loads libdebuginfod
 * and libcurl into the process once, and holds two more descriptors (a
 * curl multi handle) per such file.
 *
 * A handle is used by one thread at a time: each resolve replaces the
 * results of the previous one, and libdwfl is not thread-safe.
 *
 * Return: 0 on success; -EINVAL for invalid @opts or @ep; -ENOMEM;
 * -EOPNOTSUPP if the library was built without elfutils (LIBELF=0).
 */
LIBADDRRES_API int addrres_elf__open(const struct addrres_elf_opts *opts,
				     struct addrres_elf **ep);

/**
 * addrres_elf__free() - close every file of the cache and free it
 * @e: the handle; NULL is allowed and does nothing
 *
 * The &struct addrres_elf_sym pointers and every string of the handle's
 * results become invalid.
 */
LIBADDRRES_API void addrres_elf__free(struct addrres_elf *e);

/**
 * struct addrres_elf_stats - what a cache of ELF files holds and did
 * @sz: sizeof(struct addrres_elf_stats), as the caller was compiled; set it
 * @files: the files open now
 * @bytes: about how much memory the handle holds, as weighed at the
 *	start of the last resolve call: the files libdwfl maps (the file,
 *	its debug file and dwz file), what was decompressed of them, the
 *	library's indexes, answers and strings, and libdw's structures for
 *	the DWARF read so far (a model fitted to elfutils 0.188: per unit,
 *	per unit whose line table was read, per row).  On libc6-dbg's libc
 *	it is within 10% of the heap the handle grew plus the files' sizes
 *	(tests/libaddrres/stats_bytes.c).  The files but this handle's
 *	names and paths count toward &addrres_elf_opts.max_bytes.
 * @reads: the files read (opened with libdwfl) since the handle was opened
 * @shared: the files not read because a file of the same build ID and
 *	size was cached (another copy, another container's layer)
 * @evicted: the files closed to stay within the limits, or by
 *	addrres_elf__drop()
 * @inflated: the bytes of DWARF sections compressed with zlib (as
 *	Debian's and Fedora's debug files have them) that the library
 *	decompressed itself before libdw read them: with libdeflate, or
 *	libelf where libdeflate cannot (several zlib streams in a section);
 *	libdw decompresses the others (zstd; the debug file of a file that
 *	has a .symtab of its own).  0 for files read from the cache of
 *	&addrres_elf_opts.debug_cache_dir, already decompressed.
 *
 * The struct may grow at its end in later versions.
 */
struct addrres_elf_stats {
	size_t sz;
	size_t files;
	size_t bytes;
	uint64_t reads;
	uint64_t shared;
	uint64_t evicted;
	uint64_t inflated;
};

/**
 * addrres_elf__stats() - what the cache holds and did
 * @e: the handle
 * @stats: where to store it; its &addrres_elf_stats.sz must be set
 *
 * Return: 0; -EINVAL if @e or @stats is NULL or @stats->sz is smaller
 * than a size_t or larger than 4096.
 */
LIBADDRRES_API int addrres_elf__stats(const struct addrres_elf *e, struct addrres_elf_stats *stats);

/**
 * addrres_elf__drop() - close every file of the cache
 * @e: the handle; NULL is allowed and does nothing
 *
 * What a long-running profiler calls when it knows the files it used
 * are gone (its targets exited), or to give memory back: the handle is
 * as opened, but for its counters.  The answers of earlier calls, and
 * their strings, become invalid.
 */
LIBADDRRES_API void addrres_elf__drop(struct addrres_elf *e);

/**
 * addrres_elf__errmsg() - why the last resolve on a handle failed
 * @e: the handle
 *
 * Return: the message of the last resolve function called on @e, "path:
 * reason" ("" if it succeeded); of addrres_elf__resolve_vmas(), that of
 * the last VMA that could not be symbolized.  It lives in @e until its
 * next call, or its free.  "" for a NULL @e.
 */
LIBADDRRES_API const char *addrres_elf__errmsg(const struct addrres_elf *e);

/**
 * struct addrres_elf_resolve_opts - what addrres_elf__resolve() checks
 * @sz: sizeof(struct addrres_elf_resolve_opts), as the caller was compiled
 *	(ADDRRES_OPTS() sets it); the rules of &addrres_ksyms_opts.sz.
 * @build_id: if not NULL, the GNU build ID the file must have,
 *	@build_id_size bytes (a profile's record of the file that was
 *	mapped, say): a file with another, or none, fails with -ESTALE.
 *	Without a path, the build ID the file is found by.
 * @build_id_size: 0, or 1 to ADDRRES_BUILD_ID_MAX.
 * @elf_addrs: the numbers given are ELF addresses, the file's link-time
 *	addresses (&addrres_elf_sym.elf_addr: nm's, `eu-addr2line -e`'s,
 *	`llvm-symbolizer --obj`'s), not file offsets.  An address in no
 *	PT_LOAD segment (p_vaddr to p_vaddr + p_memsz) gets NULL.  What a
 *	debug file alone can answer: its program headers keep the
 *	addresses but not the binary's file offsets, and file offsets in a
 *	file whose code has no bytes fail with -ENOEXEC.
 * @section: if not NULL, the numbers given are offsets in the section of
 *	this name (".text", ".init.text"), as `eu-addr2line -j SECTION`
 *	takes them; an offset past its end gets NULL.  An object file
 *	(ET_REL: a .o, a kernel module, which has no addresses of its own
 *	until it is linked or loaded) is asked only so.  Exclusive with
 *	@elf_addrs.  (Since 0.3.)
 *
 * The struct may grow at its end in later versions.  (Until 0.2 these
 * were positional arguments of addrres_elf__resolve(): programs built
 * against 0.1 keep that function, under version ADDRRES_0.1.)
 */
struct addrres_elf_resolve_opts {
	size_t sz;
	const unsigned char *build_id;
	size_t build_id_size;
	bool elf_addrs;
	const char *section;
};

/**
 * addrres_elf__resolve() - the symbols and lines of offsets of one ELF file
 * @e: the handle
 * @path: the file: an executable (ET_EXEC, or a PIE: ET_DYN), a shared
 *	library (ET_DYN), or an object file or kernel module (ET_REL, asked
 *	by &addrres_elf_resolve_opts.section); NULL to find it by
 *	&addrres_elf_resolve_opts.build_id alone
 * @file_offsets: offsets in the file, in any order, repeated or not
 * @n: the number of @file_offsets; 0 is allowed
 * @syms: where to store, for each of @file_offsets, what it holds, or
 *	NULL if the offset is in no PT_LOAD segment (p_offset to p_offset +
 *	p_filesz, or to p_memsz for the tail of a page shared with .bss);
 *	@n entries.  An offset in a segment but in no symbol has an entry
 *	all the same, with no name (see &struct addrres_elf_sym).
 * @opts: the build ID the file must have, whether the numbers are ELF
 *	addresses; NULL for neither
 *
 * The file is opened and, unless the cache already has it (same device,
 * inode, modification time and size, or same build ID and size; see
 * addrres_elf__open()), read with libdwfl: its symbols are those of
 * libdwfl's symbol table of the file: its .symtab; failing one, that of
 * a separate debug file found in &addrres_elf_opts.debug_dirs (which also
 * gives the DWARF); failing one, its .dynsym and the .symtab of its
 * .gnu_debugdata (libdwfl decompresses it where elfutils was built with
 * liblzma, as Debian's and Fedora's are).  Lines come from the DWARF of
 * the file or of its debug file.
 *
 * Debug files are looked for in &addrres_elf_opts.debug_dirs and, only
 * if &addrres_elf_opts.debuginfod is set, from debuginfod servers.
 * libdwfl's standard search ends, where it found nothing, with a query
 * to the debuginfod servers of $DEBUGINFOD_URLS, and the library must
 * not reach out to the network behind its caller's back: without the
 * option, where $DEBUGINFOD_URLS is set (not empty) when libdwfl looks
 * for a file's debug file (once, when a symbol or line of the file is
 * first asked for), it is looked for by build ID only (libdwfl's
 * dwfl_build_id_find_debuginfo()), not by .gnu_debuglink, and the print
 * function (addrres_set_print()) gets an ADDRRES_INFO message saying so;
 * elsewhere the whole search runs, its query to no server then returning
 * at once.
 *
 * Without @path, the file is the one of the build ID in a directory of
 * &addrres_elf_opts.debug_dirs, as Debian's and Fedora's debug packages
 * lay them out: DIR/.build-id/ab/12cd... (the binary, a link to it), else
 * DIR/.build-id/ab/12cd....debug (its debug file: the same program
 * headers, so the same file offsets, and its symbols and DWARF).  That
 * is symbolizing offline: a profile's build IDs and file offsets, on
 * another machine.
 *
 * Return: 0 on success; -EINVAL for invalid arguments (no @path and no
 * build ID; an object file without a section, or a section and
 * &addrres_elf_resolve_opts.elf_addrs both); -ENOENT if there is no
 * such file (none of that build ID), or no section of that name
 * (-ENOTUNIQ for several); -ENOEXEC if it is not an ELF executable,
 * shared library or object file (or not a regular file); -ESTALE if
 * its build ID is not
 * @build_id; -ENOMEM; -EOPNOTSUPP if the library was built without
 * elfutils (LIBELF=0); or another negative errno of opening it (-EACCES,
 * ...).  On failure every entry of @syms is NULL, and the message in
 * addrres_elf__errmsg() says "path: reason".
 */
LIBADDRRES_API int addrres_elf__resolve(struct addrres_elf *e, const char *path,
					const uint64_t *file_offsets, size_t n,
					const struct addrres_elf_sym **syms,
					const struct addrres_elf_resolve_opts *opts);

/**
 * addrres_elf__resolve_vma() - the symbols and lines of addresses of one VMA
 * @e: the handle
 * @pid: the process whose VMA @vma is; 0: the caller's own
 * @vma: the VMA, as addrres_procmaps__resolve() found it
 * @addrs: addresses in @vma, in any order, repeated or not
 * @n: the number of @addrs; 0 is allowed
 * @syms: as for addrres_elf__resolve(), @n entries
 *
 * addrres_elf__resolve() of the mapped file with the offsets @addr -
 * &addrres_vma.start + &addrres_vma.offset.  The file is the one that
 * is mapped, not merely one at its path: the cache is first asked for
 * the VMA's device and inode (and build ID, if the VMA has one), and
 * only if it does not have it is the file opened, through
 * /proc/PID/map_files/START-END (the mapped file itself, even removed;
 * it needs CAP_SYS_ADMIN), else &addrres_vma.name through /proc/PID/root
 * for another process, else (the process has exited: its /proc
 * directory is gone) &addrres_vma.name itself; a path must be of the
 * VMA's device and inode.  &addrres_vma.build_id, if not NULL, must be
 * the file's.  Failing all, addrres_elf__errmsg() names each path tried
 * and why it failed.
 *
 * The vdso ("[vdso]", no file) is read from the process's memory, as
 * `eu-addr2line --pid` does: the caller's own with process_vm_readv()
 * (so that a VMA no longer mapped as given fails rather than crashes;
 * through /proc/self/mem where a seccomp filter forbids it), another's
 * through /proc/PID/mem (which, as the maps file, only the process itself
 * and those that may ptrace it may read).  Its symbols are those of its
 * .dynsym, or of a debug file of its build ID in
 * &addrres_elf_opts.debug_dirs (where the kernel's debug package put
 * one).  Anonymous executable memory (not a "[...]" VMA) is a JIT's
 * code: its functions are those of the perf map the runtime writes,
 * /tmp/perf-PID.map ("START SIZE NAME" a line, hex; the process's own
 * /tmp through /proc/PID/root, by its PID in its PID namespace), read
 * again when it grew; an address no line holds gets NULL, a line that
 * does not parse is skipped with a warning to the print function.  A map
 * that is a symlink is not followed (-ELOOP), one owned by another user
 * than the caller's effective user, root or the process's user is not
 * read (-EPERM): its names would be anyone's.  Other VMAs without a
 * file, and JIT code without a map, fail with -ENOENT.
 *
 * Return: 0 on success; -EINVAL for invalid arguments, or an address
 * outside @vma; -ENOENT for a VMA without a file (but the vdso), or a
 * file that cannot be found any more; -ESTALE if the file at the VMA's
 * path is another file than the one mapped, or the build ID differs (it
 * was replaced since it was mapped); -ELOOP or -EPERM for a perf map
 * not read (see above); -ENOEXEC, -ENOMEM, -EOPNOTSUPP and
 * the errors of opening, as for addrres_elf__resolve(); for the vdso of
 * another process, those of reading its memory (-EACCES, -EPERM, -ESRCH,
 * -EIO).  On failure every entry of @syms is NULL.
 */
LIBADDRRES_API int addrres_elf__resolve_vma(struct addrres_elf *e, int pid,
					    const struct addrres_vma *vma,
					    const uint64_t *addrs, size_t n,
					    const struct addrres_elf_sym **syms);

/**
 * addrres_elf__resolve_vmas() - the symbols and lines of a batch of a process's addresses
 * @e: the handle
 * @pid: the process; 0: the caller's own
 * @addrs: the addresses, in any order, repeated or not
 * @vmas: for each of @addrs, its VMA as addrres_procmaps__resolve() found
 *	it, or NULL (an address that is not mapped)
 * @n: the number of @addrs and of @vmas; 0 is allowed
 * @syms: where to store, for each of @addrs, what it holds (see
 *	addrres_elf__resolve()); NULL where @vmas[i] is NULL, where its VMA
 *	could not be symbolized (see @errs) or the offset is in no segment
 * @errs: if not NULL, where to store, for each of @addrs, 0 or the
 *	negative errno with which addrres_elf__resolve_vma() failed for its
 *	VMA: -ENOENT for anonymous memory (but the vdso) or a file gone,
 *	-ESTALE for a file replaced since it was mapped, -ENOEXEC, -EACCES...
 *
 * What a profiler does after addrres_procmaps__resolve(): the addresses
 * are grouped by VMA, and each group goes through
 * addrres_elf__resolve_vma().  A VMA that cannot be symbolized does not
 * stop the batch; its addresses get a NULL entry and their error in
 * @errs (addrres_elf__errmsg() gives the last one's message).  The
 * results live until the next resolve call on @e, as for the others.
 *
 * Return: 0 on success, even where some VMAs could not be symbolized;
 * -EINVAL for invalid arguments, or an address outside its VMA; -ENOMEM;
 * -EOPNOTSUPP if the library was built without elfutils (LIBELF=0).  On
 * failure every entry of @syms is NULL.
 */
LIBADDRRES_API int addrres_elf__resolve_vmas(struct addrres_elf *e, int pid,
					     const uint64_t *addrs,
					     const struct addrres_vma *const *vmas, size_t n,
					     const struct addrres_elf_sym **syms, int *errs);

/**
 * struct addrres_elf_kernel_opts - where addrres_elf__resolve_kernel() finds the kernel's files
 * @sz: sizeof(struct addrres_elf_kernel_opts), as the caller was compiled
 *	(ADDRRES_OPTS() sets it); the rules of &addrres_ksyms_opts.sz.
 * @vmlinux: the kernel image: when set, the only file taken for it (one
 *	of another build ID fails with -ESTALE); NULL: it is looked for.
 * @build_dir: the kernel's build directory (the O= of its make): its
 *	vmlinux, and each module at the path its modules.order gives, are
 *	looked at next; NULL: none.
 *
 * The struct may grow at its end in later versions.
 */
struct addrres_elf_kernel_opts {
	size_t sz;
	const char *vmlinux;
	const char *build_dir;
};

/**
 * addrres_elf__resolve_kernel() - the symbols and lines of the running kernel's addresses
 * @e: the handle
 * @ks: the running kernel's symbols (addrres_ksyms__open()): which loaded
 *	module holds an address, and where _text is (KASLR)
 * @addrs: kernel addresses, in any order, repeated or not
 * @n: the number of @addrs; 0 is allowed
 * @syms: where to store, for each of @addrs, what it holds (see
 *	addrres_elf__resolve()); NULL where it could not be resolved (see
 *	@errs), or is in no section of its file
 * @errs: if not NULL, where to store, for each of @addrs, 0 or why it
 *	has no answer (below)
 * @opts: where to look for the files first; NULL for the default places
 *
 * What kallsyms cannot say: the file, line and inlined functions of a
 * kernel address, from the DWARF of the kernel image (vmlinux) or of the
 * loaded module that holds it.  A file is taken only if it has the build
 * ID the running kernel shows for it (/sys/kernel/notes;
 * /sys/module/NAME/notes/.note.gnu.build-id), so that an answer is never
 * from another build.  Looked at in order, for the image (unless @opts
 * names it): @opts' build_dir's vmlinux, the file of its build ID in
 * &addrres_elf_opts.debug_dirs (DIR/.build-id/ab/cdef...[.debug]),
 * /usr/lib/debug/boot/vmlinux-RELEASE (Debian's linux-image-*-dbg),
 * /usr/lib/debug/lib/modules/RELEASE/vmlinux (Fedora's
 * kernel-debuginfo), /lib/modules/RELEASE/build/vmlinux and
 * /boot/vmlinux-RELEASE.  For a module, with PATH its path in
 * build_dir's modules.order or in /lib/modules/RELEASE/modules.dep (up
 * to its ".ko": a compressed module's debug file is not compressed):
 * build_dir/PATH, the file of its build ID in the debug directories,
 * /usr/lib/debug/lib/modules/RELEASE/PATH and /lib/modules/RELEASE/PATH
 * (an installed module stripped of its DWARF gets its lines from a
 * debug file, found as addrres_elf__resolve() finds one).
 *
 * An address of the image is taken back to where the image was linked
 * by the KASLR offset, _text in @ks minus _text in the file:
 * &addrres_elf_sym.elf_addr is that address.  An address of a module
 * (&addrres_ksym.loaded_module in @ks) is placed in the section the
 * kernel loaded there (/sys/module/NAME/sections, the addresses only
 * root may read, with the sizes of the file's sections):
 * &addrres_elf_sym.section names it and elf_addr is the offset in it, as
 * `eu-addr2line -e MODULE.ko -j SECTION OFFSET` takes them.
 *
 * Each file is looked for once a call, on its first address.  The
 * addresses are taken as the kernel has them at the call: a module
 * unloaded and loaded again since they were sampled is read as it is
 * loaded now (its build ID and sections then), as kallsyms would name
 * it.
 *
 * Errors of one address (in @errs; the last one's message in
 * addrres_elf__errmsg()): -ENOENT, no symbol of @ks holds it, no file
 * of the build ID (the message names each file tried and why it was not
 * taken), no section of the module holds it, or code the kernel made
 * (BPF programs, ftrace and kprobe trampolines: no file has it);
 * -ESTALE, a file was found but of another build; -EACCES, the kernel
 * hides its symbol addresses (no KASLR offset) or a module's section
 * addresses from this user, or a file could not be read; -ENOEXEC...,
 * as for addrres_elf__resolve().
 *
 * Return: 0 on success, even where some addresses could not be
 * resolved; -EINVAL for invalid arguments; -ENOMEM; -EOPNOTSUPP if the
 * library was built without elfutils (LIBELF=0).  The answers live as
 * those of the other resolve functions.  (Since 0.3.)
 */
LIBADDRRES_API int addrres_elf__resolve_kernel(struct addrres_elf *e, const struct addrres_ksyms *ks,
					       const uint64_t *addrs, size_t n,
					       const struct addrres_elf_sym **syms, int *errs,
					       const struct addrres_elf_kernel_opts *opts);

/**
 * addrres_elf_syms__dup() - a copy of a batch's answers that the caller keeps
 * @syms: the answers of a resolve function, @n of them (NULL entries too)
 * @n: their number; 0 is allowed
 * @copy: where to store an array of @n pointers: NULL where @syms[i] is
 *	NULL, else a copy of it, with its inlined functions and every
 *	string, all in one allocation; NULL on failure
 *
 * The answers of a resolve, and their strings, live until the next
 * resolve on the handle (see &struct addrres_elf_sym): what a profiler
 * that symbolizes as it goes needs.  A caller that keeps answers longer
 * (past the next call or the handle, or a report built from several
 * batches) takes a copy: each answer's bytes, no more.
 *
 * Return: 0 on success; -EINVAL if @copy is NULL, or @syms is NULL with @n;
 * -ENOMEM.  Free the copy with addrres_elf_syms__free().
 */
LIBADDRRES_API int addrres_elf_syms__dup(const struct addrres_elf_sym *const *syms, size_t n,
					 const struct addrres_elf_sym ***copy);

/**
 * addrres_elf_syms__free() - free a copy made by addrres_elf_syms__dup()
 * @copy: the copy; NULL is allowed and does nothing
 */
LIBADDRRES_API void addrres_elf_syms__free(const struct addrres_elf_sym **copy);

#ifdef __cplusplus
}
#endif

#endif /* ADDRRES_H */
