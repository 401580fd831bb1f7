// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * addrres: the command-line face of libaddrres.
 *
 *   addrres kaddr [OPTIONS] [ADDR...]     kernel addresses -> symbols
 *   addrres kname [OPTIONS] [NAME...]     kernel symbol names -> addresses
 *   addrres count [OPTIONS] NAME [COMMAND...]
 *                                          calls of one kernel function
 *   addrres maps -p PID [OPTIONS] [ADDR...]
 *                                          a process's addresses -> VMA,
 *                                          file offset, ELF symbol
 *
 * With no ADDR/NAME arguments (or "-"), they are read from standard
 * input, separated by blanks or newlines, for batch use.  `addrres help`
 * and addrres.1 document the options, the output and the exit codes.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include <addrres/addrres.h>

#include "kprobe_counter.h"

extern char **environ;

/* The exit codes; addrres.1 and `addrres help` list them. */
enum exit_code {
	EXIT_RESOLVED = 0,	/* every address or name resolved */
	EXIT_UNRESOLVED = 1,	/* some did not (printed as such), or a name is ambiguous */
	EXIT_USAGE = 2,		/* bad command line */
	EXIT_MALFORMED = 3,	/* an address or name query that does not parse */
	EXIT_NO_PROCESS = 4,	/* no such process (or it exited meanwhile) */
	EXIT_PERMISSION = 5,	/* permission denied; the message names what grants it */
	EXIT_NO_FEATURE = 6,	/* the kernel lacks a feature that an option requires */
	EXIT_FAILURE_OTHER = 7,	/* anything else: I/O, a malformed /proc file, memory */
};

static const char *prog = "addrres";
static bool quiet;	/* -q: no notes on stderr */

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* A note that does not change the outcome, such as a fallback taken. */
#define note(...) do { if (!quiet) msg("note: " __VA_ARGS__); } while (0)

/*
 * The library's messages ("libaddrres: ...\n"): warnings always (an
 * answer is less than it could be, and why), the others as notes.
 */
/*
 * The library's messages name its options ("(addrres_elf_opts.X)"), for
 * a program's author; a user of addrres gets addrres's option for it, or
 * nothing where addrres has none.
 */
static const struct {
	const char *api, *cli;
} option_words[] = {
	{ " (addrres_elf_opts.debuginfod)", " (--debuginfod)" },
	{ " (addrres_elf_opts.max_debugdata)", "" },
	{ " (addrres_elf_opts.max_inflated)", "" },
	{ " (addrres_elf_resolve_opts.elf_addrs)", "" },
	{ " (addrres_elf_resolve_opts.section)", " (--section)" },
};

/* @text (of @size bytes) with the API's option names in addrres's words. */
static void user_words(char *text, size_t size)
{
	char *at;

	for (size_t i = 0; i < sizeof(option_words) / sizeof(option_words[0]); i++) {
		size_t len = strlen(option_words[i].api);

		at = strstr(text, option_words[i].api);
		if (!at || strlen(text) - len + strlen(option_words[i].cli) >= size)
			continue;
		memmove(at + strlen(option_words[i].cli), at + len, strlen(at + len) + 1);
		memcpy(at, option_words[i].cli, strlen(option_words[i].cli));
	}
}

static int print_library(enum addrres_print_level level, const char *fmt, va_list args)
{
	char text[2048];

	if (level == ADDRRES_DEBUG || (level == ADDRRES_INFO && quiet))
		return 0;
	vsnprintf(text, sizeof(text), fmt, args);
	user_words(text, sizeof(text));
	return fputs(text, stderr);
}

/* ---- usage ---- */

static const char usage_text[] =
"Usage: addrres [-q] COMMAND [OPTIONS] [ARG...]\n"
"\n"
"Turn addresses into names: kernel symbols with their built-in modules\n"
"(/proc/kallmodsyms, else /proc/kallsyms), and a process's addresses\n"
"into mapping, file offset and ELF symbol (PROCMAP_QUERY, else the text\n"
"of /proc/PID/maps; libdw for symbols).\n"
"\n"
"Commands:\n"
"  kaddr [ADDR...]         the kernel symbol holding each address:\n"
"                            ADDR SYMBOL+0xOFFSET [MODULE]... {OBJECT}\n"
"                          with --lines, then FILE:LINE (inlined...)\n"
"  kname [NAME...]         the kernel symbols of each name, one line each:\n"
"                            ADDR TYPE SYMBOL [MODULE]... {OBJECT}\n"
"                          NAME may be qualified: \"NAME [MODULE] {OBJECT}\",\n"
"                          or \"=NAME ...\" for an exact match\n"
"  count NAME [COMMAND...] the calls of the one kernel function that NAME\n"
"                          names (qualified as for kname), counted by a BPF\n"
"                          kprobe at its address while COMMAND runs, else\n"
"                          until SIGINT or SIGTERM:\n"
"                            CALLS ADDR SYMBOL [MODULE]... {OBJECT}\n"
"  elf -e FILE [ADDR...]   the ELF symbol of each ELF address (nm's; with\n"
"                          --offsets, file offset; with --section, offset in\n"
"                          a section) of FILE, or of the file of a build ID\n"
"                          (-B): ADDR SYMBOL+0xOFFSET FILE:LINE\n"
"  maps -p PID [ADDR...]   the mapping and ELF symbol of each address of PID:\n"
"                            ADDR PATH+0xFILE_OFFSET SYMBOL+0xOFFSET FILE:LINE\n"
"                          (\"?? (WHY)\" for no symbol; a newline in a path\n"
"                          is written \\012)\n"
"  help                    this text\n"
"\n"
"ADDR is hexadecimal, with or without 0x.  Without ADDR or NAME arguments,\n"
"or with \"-\", they are read from standard input, separated by blanks or\n"
"newlines, each line answered as it arrives.  An address that resolves to\n"
"nothing prints \"??\".\n"
"\n"
"Options may come before or after the arguments (for count, before NAME);\n"
"\"--\" ends them.\n"
"\n"
"Options of every command:\n"
"  -j, --json              one JSON object per line (JSON Lines) instead\n"
"  -q, --quiet             no notes on stderr (such as a fallback taken)\n"
"\n"
"kaddr, kname and count:\n"
"  -s, --source=WHICH      auto (kallmodsyms, else kallsyms; the default),\n"
"                          kallmodsyms (fail if the kernel lacks it), kallsyms\n"
"      --kallmodsyms=FILE  read FILE instead of /proc/kallmodsyms\n"
"      --kallsyms=FILE     read FILE instead of /proc/kallsyms\n"
"      --modules=FILE      read FILE instead of /proc/modules\n"
"\n"
"kaddr:\n"
"  -l, --lines             also the source file and line of each address, and\n"
"                          the functions inlined there, from the DWARF of the\n"
"                          running kernel's vmlinux or of the loaded module's\n"
"                          .ko, files of the build IDs the kernel shows\n"
"                          (KASLR and module sections from kallsyms and\n"
"                          /sys/module/*/sections: root's)\n"
"      --build-dir=DIR     look first in the kernel's build directory (O=):\n"
"                          DIR/vmlinux, modules at their modules.order paths;\n"
"                          then by build ID in the debug directories, where\n"
"                          Debian's linux-image-*-dbg installs them, and the\n"
"                          other places addrres.1 lists\n"
"      --vmlinux=FILE      the kernel image: that file only\n"
"  -L, --no-lines, --no-inlines, --no-demangle, --debug-dirs=DIRS,\n"
"      --cache-dir=DIR     as for maps\n"
"\n"
"kname:\n"
"  -a, --attach=FORM       for the one match of each name, print how a tool\n"
"                          probes its address instead: tracefs (a line for\n"
"                          kprobe_events), perf (perf probe), bpftrace (a\n"
"                          probe for bpftrace --unsafe); an ambiguous name\n"
"                          lists its candidates\n"
"\n"
"count:\n"
"  -m, --method=WHICH      auto (the default: kprobe.multi, else a kprobe\n"
"                          perf event), multi, kprobe\n"
"  -d, --duration=SECONDS  stop after SECONDS (without COMMAND)\n"
"  -i, --interval=SECONDS  also print the calls of each interval:\n"
"                            ELAPSED CALLS\n"
"\n"
"maps:\n"
"  -p, --pid=PID           the process (required; 0 is addrres itself)\n"
"  -m, --method=WHICH      auto (the default: the ioctl for batches that touch\n"
"                          few mappings, else the text), ioctl (fail if the\n"
"                          kernel lacks PROCMAP_QUERY), text\n"
"  -b, --build-ids         also print each file's build ID\n"
"  -n, --no-symbols        only the mapping and file offset, no ELF symbols\n"
"  -L, --no-lines          no source file and line (nor inlined functions)\n"
"      --no-inlines        no functions inlined at the address; with them, a\n"
"                          line ends \"(inl inlined at FILE:LINE in outer)\"\n"
"      --no-demangle       C++ and Rust names as the symbol table has them\n"
"                          (mangled)\n"
"      --debug-dirs=DIRS   ':'-separated directories of separate debug files\n"
"                          (default :.debug:/usr/lib/debug: beside the file,\n"
"                          in its .debug/, then in /usr/lib/debug)\n"
"      --cache-dir=DIR     keep debug files with compressed DWARF decompressed\n"
"                          in DIR, by build ID: later runs decompress nothing\n"
"      --maps=FILE         read a saved copy of the maps text instead\n"
"\n"
"elf (offline: a file's offsets, or a build ID's):\n"
"  -e, --exe=FILE          the executable, shared library, object file or\n"
"                          kernel module\n"
"  -B, --build-id=HEX      the file of that build ID in the debug directories\n"
"                          (DIR/.build-id/xx/yyyy, else its .debug file);\n"
"                          with -e, the build ID FILE must have\n"
"  -o, --offsets           ADDRs are file offsets, not ELF addresses (nm's,\n"
"                          eu-addr2line -e's, the default since 0.3; -a,\n"
"                          --addresses still says so); a debug file alone has\n"
"                          no file offsets\n"
"      --section=NAME      ADDRs are offsets in section NAME (eu-addr2line -j):\n"
"                          an object file or kernel module is asked so\n"
"  -L, --no-lines, --no-inlines, --no-demangle, --debug-dirs=DIRS,\n"
"      --cache-dir=DIR     as for maps\n"
"      --debuginfod        ask the servers of $DEBUGINFOD_URLS for a debug file\n"
"                          that the debug directories lack\n"
"\n"
"Exit codes:\n"
"  0  every address or name resolved\n"
"  1  some did not (printed as \"??\": no symbol, no mapping, or no ELF symbol\n"
"     in a mapped file), or a name is ambiguous (every match is listed)\n"
"  2  usage error\n"
"  3  malformed address or name\n"
"  4  no such process\n"
"  5  permission denied (the message says which setting or capability\n"
"     would allow it)\n"
"  6  the kernel lacks a feature that --source or --method requires\n"
"     (count: kprobe.multi asked for without CONFIG_FPROBE, or addrres\n"
"     built without libbpf)\n"
"     (without the option, addrres falls back and says so in a note)\n"
"  7  any other error (reading a file, a malformed line in it, memory)\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s help'.\n", prog);
	return EXIT_USAGE;
}

/* ---- the arguments: from the command line, or from stdin ---- */

/*
 * stdin is read with read(2) into a buffer of our own, not stdio's, so
 * that the commands can tell whether another line is there without
 * waiting for it: a profiler that writes an address and waits for its
 * answer (a co-process, as llvm-symbolizer serves) gets it at once, and
 * a file or pipe full of addresses is still answered in large batches.
 */
struct args {
	char **argv;		/* the command line's, when not from stdin */
	int argc, next;
	bool from_stdin;
	char *line;		/* the current stdin line, split in place */
	size_t line_cap;
	char *save;		/* strtok_r's position in it */
	unsigned long lineno;
	char where[64];		/* where the last argument came from */
	char *buf;		/* stdin as read: [buf_off, buf_len) not yet taken */
	size_t buf_off, buf_len, buf_cap;
	bool eof;
	int read_errno;		/* a read error, which ends the input */
};

static void args__init(struct args *a, int argc, char **argv)
{
	memset(a, 0, sizeof(*a));
	a->argv = argv;
	a->argc = argc;
	a->from_stdin = argc == 0 || (argc == 1 && !strcmp(argv[0], "-"));
}

/* Read more of stdin into the buffer (waiting for it): false at its end or on an error. */
static bool args__fill(struct args *a)
{
	ssize_t got;

	if (a->eof)
		return false;
	if (a->buf_off) {
		memmove(a->buf, a->buf + a->buf_off, a->buf_len - a->buf_off);
		a->buf_len -= a->buf_off;
		a->buf_off = 0;
	}
	if (a->buf_len == a->buf_cap) {
		size_t cap = a->buf_cap ? 2 * a->buf_cap : 65536;
		char *more = realloc(a->buf, cap);

		if (!more) {
			a->read_errno = ENOMEM;
			a->eof = true;
			return false;
		}
		a->buf = more;
		a->buf_cap = cap;
	}
	do
		got = read(STDIN_FILENO, a->buf + a->buf_len, a->buf_cap - a->buf_len);
	while (got < 0 && errno == EINTR);
	if (got <= 0) {
		a->read_errno = got < 0 ? errno : 0;
		a->eof = true;
		return false;
	}
	a->buf_len += (size_t)got;
	return true;
}

/* The end of the next line in the buffer, or NULL if none is there whole. */
static char *args__buffered_nl(const struct args *a)
{
	return a->buf ? memchr(a->buf + a->buf_off, '\n', a->buf_len - a->buf_off) : NULL;
}

/* The next stdin line into a->line, without its newline: false at the end. */
static bool args__read_line(struct args *a)
{
	char *nl;
	size_t len;

	for (;;) {
		nl = args__buffered_nl(a);
		if (nl || (a->eof && a->buf_off < a->buf_len))
			break;
		if (!args__fill(a) && a->buf_off == a->buf_len)
			return false;
	}
	len = nl ? (size_t)(nl - (a->buf + a->buf_off)) : a->buf_len - a->buf_off;
	if (len + 1 > a->line_cap) {
		char *more = realloc(a->line, len + 1);

		if (!more) {
			a->read_errno = ENOMEM;
			return false;
		}
		a->line = more;
		a->line_cap = len + 1;
	}
	memcpy(a->line, a->buf + a->buf_off, len);
	a->line[len] = '\0';
	a->buf_off += len + (nl ? 1 : 0);
	a->lineno++;
	return true;
}

/*
 * Whether another line can be read without waiting for the writer: one
 * is in the buffer, or stdin has bytes (or its end) ready now.
 */
static bool args__pending(struct args *a)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };

	if (!a->from_stdin)
		return a->next < a->argc;
	/* more of the current line */
	if (a->save && a->save[strspn(a->save, " \t\r\n")])
		return true;
	if (args__buffered_nl(a) || (a->eof && a->buf_off < a->buf_len))
		return true;
	return !a->eof && poll(&pfd, 1, 0) > 0;
}

/* The next argument of the current stdin line, or NULL at its end. */
static char *args__next_in_line(struct args *a)
{
	char *tok = a->save ? strtok_r(NULL, " \t\r\n", &a->save) : NULL;

	if (tok)
		snprintf(a->where, sizeof(a->where), "stdin line %lu", a->lineno);
	else
		a->save = NULL;
	return tok;
}

/* Start splitting the line just read; its first argument, or NULL if blank. */
static char *args__line_start(struct args *a)
{
	char *tok = strtok_r(a->line, " \t\r\n", &a->save);

	if (tok)
		snprintf(a->where, sizeof(a->where), "stdin line %lu", a->lineno);
	else
		a->save = NULL;
	return tok;
}

/* The next argument, or NULL at the end (or on a read error: read_errno). */
static char *args__next(struct args *a)
{
	char *tok;

	if (!a->from_stdin) {
		if (a->next >= a->argc)
			return NULL;
		snprintf(a->where, sizeof(a->where), "argument %d", a->next + 1);
		return a->argv[a->next++];
	}
	for (;;) {
		tok = args__next_in_line(a);
		if (tok)
			return tok;
		if (!args__read_line(a))
			return NULL;
		tok = args__line_start(a);
		if (tok)
			return tok;
	}
}

/*
 * A whole stdin line as one argument: name queries have blanks in them
 * ("NAME [MODULE]"), so kname reads a query per line.
 */
static char *args__next_line(struct args *a)
{
	size_t len;

	if (!a->from_stdin)
		return args__next(a);
	while (args__read_line(a)) {
		len = strlen(a->line);
		while (len && isspace((unsigned char)a->line[len - 1]))
			a->line[--len] = '\0';
		if (len) {
			snprintf(a->where, sizeof(a->where), "stdin line %lu", a->lineno);
			return a->line;
		}
	}
	return NULL;
}

static void args__free(struct args *a)
{
	free(a->line);
	free(a->buf);
}

/* A read error of stdin ends the command; the end of input does not. */
static int args__end(const struct args *a)
{
	if (a->from_stdin && a->read_errno) {
		msg("reading standard input: %s", strerror(a->read_errno));
		return EXIT_FAILURE_OTHER;
	}
	return EXIT_RESOLVED;
}

/*
 * Answers go out as soon as no more input is waiting, unless stdout is a
 * regular file (which no one reads line by line): a co-process gets the
 * answer of each line it writes.
 */
static void out__flush_if_waited_for(struct args *a)
{
	static int to_file = -1;
	struct stat st;

	if (to_file < 0)
		to_file = !fstat(STDOUT_FILENO, &st) && S_ISREG(st.st_mode);
	if (!to_file && !args__pending(a))
		fflush(stdout);
}

/* 1 to 16 hex digits, optionally after 0x: the whole string. */
static bool parse_addr(const char *s, uint64_t *addr)
{
	uint64_t v = 0;
	int digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++, digits++) {
		if (!isxdigit((unsigned char)*s) || digits == 16)
			return false;
		v = v << 4 | (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' :
					tolower((unsigned char)*s) - 'a' + 10);
	}
	*addr = v;
	return digits > 0;
}

/*
 * A token that is no address: said on stderr with where it was; the
 * batch goes on (as eu-addr2line's does), and the exit code says so.
 */
static int malformed_addr(const struct args *a, const char *tok)
{
	msg("%s: malformed address \"%s\": expected 1 to 16 hex digits, with or without 0x",
	    a->where, tok);
	return EXIT_MALFORMED;
}

/* Of two exit codes, the one that says more is wrong (the higher). */
static int worse(int a, int b)
{
	return a > b ? a : b;
}

/* ---- output ---- */

/* The length of the valid UTF-8 sequence at @s, 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (s[0] >= 0xe0 && s[0] <= 0xef) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 ||
		    (s[0] == 0xe0 && s[1] < 0xa0) ||	/* overlong */
		    (s[0] == 0xed && s[1] > 0x9f))	/* a surrogate */
			return 0;
		return 3;
	}
	if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		if ((s[1] & 0xc0) != 0x80 || (s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80 ||
		    (s[0] == 0xf0 && s[1] < 0x90) ||	/* overlong */
		    (s[0] == 0xf4 && s[1] > 0x8f))	/* past U+10FFFF */
			return 0;
		return 4;
	}
	return 0;
}

/*
 * A JSON string: quotes, backslashes and control characters escaped; a
 * byte that is not UTF-8 (a file name may be any bytes) is written
 * U+FFFD, so that the output stays JSON.  Whether every byte was UTF-8.
 */
static bool json_str(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	bool valid = true;

	putchar('"');
	while (*s) {
		size_t len = utf8_len(s);

		if (!len) {
			fputs("\\ufffd", stdout);
			valid = false;
			s++;
		} else if (*s == '"' || *s == '\\') {
			printf("\\%c", *s++);
		} else if (*s == '\n') {
			fputs("\\n", stdout);
			s++;
		} else if (*s == '\t') {
			fputs("\\t", stdout);
			s++;
		} else if (*s < 0x20 || *s == 0x7f) {
			printf("\\u%04x", *s++);
		} else {
			fwrite(s, 1, len, stdout);
			s += len;
		}
	}
	putchar('"');
	return valid;
}

/*
 * "KEY":"PATH", and where PATH (a path or a symbol name: any bytes) is
 * not UTF-8 (shown with U+FFFD) also "KEY_hex":"..." with its bytes, so
 * that nothing is lost.
 */
static void json_path(const char *key, const char *path)
{
	printf("\"%s\":", key);
	if (json_str(path))
		return;
	printf(",\"%s_hex\":\"", key);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		printf("%02x", *p);
	putchar('"');
}

/*
 * A name in text output: a newline in it (a file may be named so) is
 * written "\\012", as the maps file writes it, so that it cannot split
 * a record.
 */
static void text_str(const char *s)
{
	for (; *s; s++) {
		if (*s == '\n')
			fputs("\\012", stdout);
		else
			putchar(*s);
	}
}

static void json_hex(const char *key, uint64_t v)
{
	printf("\"%s\":\"0x%" PRIx64 "\"", key, v);
}

/*
 * The record of a malformed token, in its place among the others:
 * "TOKEN ?? (malformed address)", or {"input":TOKEN,"error":...}.
 */
/* A malformed input in its place: "INPUT ?? (malformed WHAT)", or {"input","error"}. */
static void malformed__print_what(bool json, const char *tok, const char *what)
{
	if (json) {
		fputs("{\"input\":", stdout);
		json_str(tok);
		printf(",\"error\":\"malformed %s\"}\n", what);
	} else {
		text_str(tok);
		printf(" ?? (malformed %s)\n", what);
	}
}

static void malformed__print(bool json, const char *tok)
{
	malformed__print_what(json, tok, "address");
}

/* ---- kernel symbols ---- */

struct kernel_opts {
	bool json;
	struct addrres_ksyms_opts open;
};

/* The options of every kernel command, in each one's getopt_long() table. */
#define KERNEL_SHORTOPTS "jqs:"
#define KERNEL_LONGOPTS \
	{ "json", no_argument, NULL, 'j' }, \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "source", required_argument, NULL, 's' }, \
	{ "kallmodsyms", required_argument, NULL, 'K' }, \
	{ "kallsyms", required_argument, NULL, 'k' }, \
	{ "modules", required_argument, NULL, 'M' }

/*
 * Apply option C of KERNEL_LONGOPTS; an exit code, or -1 if C is not one
 * of them (the command's own, or unknown).
 */
static int kernel_opts__apply(struct kernel_opts *ko, int c, const char *arg)
{
	switch (c) {
	case 'j':
		ko->json = true;
		return EXIT_RESOLVED;
	case 'q':
		quiet = true;
		return EXIT_RESOLVED;
	case 's':
		if (!strcmp(arg, "auto"))
			ko->open.source = 0;
		else if (!strcmp(arg, "kallmodsyms"))
			ko->open.source = ADDRRES_KSYMS_SOURCE_KALLMODSYMS;
		else if (!strcmp(arg, "kallsyms"))
			ko->open.source = ADDRRES_KSYMS_SOURCE_KALLSYMS;
		else
			return usage_error("--source: \"%s\" is not auto, kallmodsyms or kallsyms", arg);
		return EXIT_RESOLVED;
	case 'K':
		ko->open.kallmodsyms_path = arg;
		return EXIT_RESOLVED;
	case 'k':
		ko->open.kallsyms_path = arg;
		return EXIT_RESOLVED;
	case 'M':
		ko->open.modules_path = arg;
		return EXIT_RESOLVED;
	}
	return -1;
}

static int unknown_option(char **argv)
{
	return usage_error("%s: unknown option or missing argument", argv[0]);
}

/* Read a sysctl's value for a message; "?" if it cannot be read. */
static void read_sysctl(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");

	snprintf(buf, size, "?");
	if (f) {
		if (fgets(buf, (int)size, f))
			buf[strcspn(buf, "\n")] = '\0';
		fclose(f);
	}
}

static void explain_restricted(void)
{
	char kptr[16], paranoid[16];

	read_sysctl("/proc/sys/kernel/kptr_restrict", kptr, sizeof(kptr));
	read_sysctl("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid));
	msg("the kernel hides its symbol addresses from this user (kernel.kptr_restrict=%s, kernel.perf_event_paranoid=%s): they are shown with kptr_restrict=0 and perf_event_paranoid<=1, or to a process with CAP_SYSLOG while kptr_restrict<=1",
	    kptr, paranoid);
}

/*
 * What to add to an ambiguous name's message: where the symbols came from
 * kallsyms because kallmodsyms is missing, that its object names would
 * have told some copies apart.
 */
static const char *ambiguous__why(const struct kernel_opts *ko, const struct addrres_ksyms *ks)
{
	if (ko->open.source || addrres_ksyms__source(ks) != ADDRRES_KSYMS_SOURCE_KALLSYMS)
		return "";
	return " (read from kallsyms: this kernel has no /proc/kallmodsyms, whose object names would tell more copies apart)";
}

/* Open the symbols; an exit code other than 0 on failure, after a message. */
static int kernel__open(struct kernel_opts *ko, struct addrres_ksyms **ks)
{
	char err[512];
	int ret;

	ko->open.errbuf = err;
	ko->open.errbuf_sz = sizeof(err);
	ret = addrres_ksyms__open(&ko->open, ks);
	if (ret == -ENOENT && ko->open.source == ADDRRES_KSYMS_SOURCE_KALLMODSYMS) {
		msg("%s; this kernel has no /proc/kallmodsyms (CONFIG_KALLMODSYMS, a patch of the addrres series): without --source=kallmodsyms, addrres reads /proc/kallsyms",
		    err);
		return EXIT_NO_FEATURE;
	}
	if (ret == -EACCES) {
		msg("%s", err);
		return EXIT_PERMISSION;
	}
	if (ret) {
		msg("%s", err);
		return EXIT_FAILURE_OTHER;
	}
	/*
	 * Reading kallsyms where kallmodsyms is missing is the rule on stock
	 * kernels, not news on every run: it is said where it matters, with
	 * an ambiguous name (ambiguous__why()).
	 */
	if (addrres_ksyms__restricted(*ks)) {
		explain_restricted();
		addrres_ksyms__free(*ks);
		*ks = NULL;
		return EXIT_PERMISSION;
	}
	return EXIT_RESOLVED;
}

static void ksym__print_annotations(const struct addrres_ksym *sym)
{
	for (size_t i = 0; i < sym->nr_modules; i++)
		printf(" [%s]", sym->modules[i]);
	if (sym->object)
		printf(" {%s}", sym->object);
}

/* kname's line of a symbol: "ADDR TYPE NAME [MODULE]... {OBJECT}". */
static void ksym__print_line(const struct addrres_ksym *sym)
{
	printf("0x%" PRIx64 " %c %s", sym->addr, sym->type, sym->name);
	ksym__print_annotations(sym);
	putchar('\n');
}

/* @sized: the set is kallmodsyms', which gives sizes (kallsyms gives none). */
static void ksym__print_json_fields(const struct addrres_ksym *sym, bool sized)
{
	fputs("\"symbol\":", stdout);
	json_str(sym->name);
	printf(",\"type\":\"%c\",\"modules\":[", sym->type);
	for (size_t i = 0; i < sym->nr_modules; i++) {
		if (i)
			putchar(',');
		json_str(sym->modules[i]);
	}
	fputs("],\"object\":", stdout);
	if (sym->object)
		json_str(sym->object);
	else
		fputs("null", stdout);
	printf(",\"loaded_module\":%s,", sym->loaded_module ? "true" : "false");
	if (sized)
		json_hex("size", sym->size);
	else
		fputs("\"size\":null", stdout);
}

/* How a tool is told to probe a kernel address: kname --attach=FORM. */
enum attach_form {
	ATTACH_NONE,
	ATTACH_TRACEFS,		/* a line for tracefs' kprobe_events */
	ATTACH_PERF,		/* a perf probe command */
	ATTACH_BPFTRACE,	/* a bpftrace probe (bpftrace --unsafe) */
};

static bool ksym__is_code(const struct addrres_ksym *sym)
{
	return strchr("tTwW", sym->type) != NULL;
}

/*
 * The probe of FORM at the symbol's address, in BUF.  A tracefs event is
 * named after the function and its address (unique in one boot), within
 * the 63 characters tracefs allows, and put in the group "addrres".
 */
static void attach_form__write(enum attach_form form, const struct addrres_ksym *sym,
			       char *buf, size_t size)
{
	char event[64];
	int len;

	switch (form) {
	case ATTACH_TRACEFS:
		len = snprintf(event, sizeof(event), "%.46s", sym->name);
		for (int i = 0; i < len; i++) {
			if (!isalnum((unsigned char)event[i]))
				event[i] = '_';
		}
		snprintf(buf, size, "p:addrres/%s_%" PRIx64 " 0x%" PRIx64, event, sym->addr, sym->addr);
		break;
	case ATTACH_PERF:
		snprintf(buf, size, "perf probe --add 0x%" PRIx64, sym->addr);
		break;
	case ATTACH_BPFTRACE:
		snprintf(buf, size, "kprobe:0x%" PRIx64, sym->addr);
		break;
	case ATTACH_NONE:
		buf[0] = '\0';
		break;
	}
}

static int cmd_kname(int argc, char **argv)
{
	static const struct option longopts[] = {
		KERNEL_LONGOPTS,
		{ "attach", required_argument, NULL, 'a' },
		{ NULL, 0, NULL, 0 },
	};
	struct kernel_opts ko = { .open = { .sz = sizeof(ko.open) } };
	const struct addrres_ksym **syms = NULL;
	enum attach_form attach = ATTACH_NONE;
	struct addrres_ksyms *ks = NULL;
	size_t count, cap = 0;
	int ret, err, c;
	bool probes;
	char probe[128];
	struct args a;
	char *query;

	optind = 1;
	while ((c = getopt_long(argc, argv, KERNEL_SHORTOPTS "a:", longopts, NULL)) != -1) {
		if (c != 'a') {
			ret = kernel_opts__apply(&ko, c, optarg);
			if (ret)
				return ret < 0 ? unknown_option(argv) : ret;
		} else if (!strcmp(optarg, "tracefs")) {
			attach = ATTACH_TRACEFS;
		} else if (!strcmp(optarg, "perf")) {
			attach = ATTACH_PERF;
		} else if (!strcmp(optarg, "bpftrace")) {
			attach = ATTACH_BPFTRACE;
		} else {
			return usage_error("--attach: \"%s\" is not tracefs, perf or bpftrace", optarg);
		}
	}
	ret = kernel__open(&ko, &ks);
	if (ret)
		return ret;
	args__init(&a, argc - optind, argv + optind);
	for (; (query = args__next_line(&a)); out__flush_if_waited_for(&a)) {
		/* Ask for the count, then for all the matches. */
		err = addrres_ksyms__find_name(ks, query, syms, cap, &count);
		if ((err == 0 || err == -ENOTUNIQ) && count > cap) {
			const struct addrres_ksym **more = reallocarray(syms, count, sizeof(*syms));

			if (!more) {
				msg("out of memory");
				ret = EXIT_FAILURE_OTHER;
				break;
			}
			syms = more;
			cap = count;
			err = addrres_ksyms__find_name(ks, query, syms, cap, &count);
		}
		/* In its place, and the batch goes on, as a malformed address does. */
		if (err == -EINVAL) {
			msg("%s: malformed name query \"%s\": expected NAME, then optionally [MODULE]... and one {OBJECT}",
			    a.where, query);
			malformed__print_what(ko.json, query, "name query");
			ret = worse(ret, EXIT_MALFORMED);
			continue;
		}
		if (err && err != -ENOENT && err != -ENOTUNIQ) {
			msg("%s: %s", query, strerror(-err));
			ret = EXIT_FAILURE_OTHER;
			break;
		}
		if (err) {
			ret = EXIT_UNRESOLVED;
			if (err == -ENOTUNIQ)
				note("\"%s\" is ambiguous: %zu symbols match; qualify it with [MODULE] or {OBJECT}%s",
				     query, count, ambiguous__why(&ko, ks));
		}
		if (err == -ENOENT)
			count = 0;
		/*
		 * A probe only for the one match of a name, and only if it is
		 * code: an ambiguous name lists its candidates, to be qualified.
		 */
		probes = attach && !err;
		if (probes && !ksym__is_code(syms[0])) {
			note("%s: 0x%" PRIx64 " is not code (type %c): no probe for it",
			     query, syms[0]->addr, syms[0]->type);
			ret = EXIT_UNRESOLVED;
		}
		if (ko.json) {
			fputs("{\"query\":", stdout);
			json_str(query);
			printf(",\"ambiguous\":%s,\"matches\":[", err == -ENOTUNIQ ? "true" : "false");
			for (size_t i = 0; i < count; i++) {
				fputs(i ? ",{" : "{", stdout);
				json_hex("address", syms[i]->addr);
				putchar(',');
				ksym__print_json_fields(syms[i], addrres_ksyms__source(ks) ==
							ADDRRES_KSYMS_SOURCE_KALLMODSYMS);
				if (probes) {
					attach_form__write(attach, syms[i], probe, sizeof(probe));
					fputs(",\"probe\":", stdout);
					if (ksym__is_code(syms[i]))
						json_str(probe);
					else
						fputs("null", stdout);
				}
				putchar('}');
			}
			puts("]}");
		} else if (!count) {
			printf("?? %s\n", query);
		}
		for (size_t i = 0; !ko.json && i < count; i++) {
			if (probes && !ksym__is_code(syms[i])) {
				printf("?? %s\n", query);
			} else if (probes) {
				attach_form__write(attach, syms[i], probe, sizeof(probe));
				puts(probe);
			} else {
				ksym__print_line(syms[i]);
			}
		}
	}
	if (!query && ret != EXIT_FAILURE_OTHER && args__end(&a))
		ret = EXIT_FAILURE_OTHER;
	free(syms);
	args__free(&a);
	addrres_ksyms__free(ks);
	return ret;
}

/* ---- process addresses ---- */

/*
 * The options of maps and elf that say how ELF symbols are looked up, in
 * each one's getopt_long() table; they set an addrres_elf_opts.
 */
#define SYMBOL_LONGOPTS \
	{ "no-lines", no_argument, NULL, 'L' }, \
	{ "no-inlines", no_argument, NULL, 'I' }, \
	{ "no-demangle", no_argument, NULL, 'N' }, \
	{ "debug-dirs", required_argument, NULL, 'D' }, \
	{ "cache-dir", required_argument, NULL, 'C' }

/* Apply option C of SYMBOL_LONGOPTS to @o: false if C is not one of them. */
static bool symbol_opts__apply(struct addrres_elf_opts *o, int c, const char *arg)
{
	switch (c) {
	case 'L':
		o->no_lines = true;
		return true;
	case 'I':
		o->no_inlines = true;
		return true;
	case 'N':
		o->no_demangle = true;
		return true;
	case 'D':
		o->debug_dirs = arg;
		return true;
	case 'C':
		o->debug_cache_dir = arg;
		return true;
	default:
		return false;
	}
}

struct maps_opts {
	bool json, build_ids, symbols;
	bool have_pid;
	int pid;
	const char *maps_path;
	enum addrres_procmaps_method method;
	struct addrres_elf_opts elf;	/* the symbol options; sz set when parsed */
};

static int maps_opts__parse(struct maps_opts *mo, int argc, char **argv, int *first_arg)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "pid", required_argument, NULL, 'p' },
		{ "method", required_argument, NULL, 'm' },
		{ "build-ids", no_argument, NULL, 'b' },
		{ "no-symbols", no_argument, NULL, 'n' },
		SYMBOL_LONGOPTS,
		{ "maps", required_argument, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long pid;
	int c;

	mo->symbols = true;
	mo->elf.sz = sizeof(mo->elf);
	optind = 1;
	while ((c = getopt_long(argc, argv, "jqp:m:bnL", longopts, NULL)) != -1) {
		if (symbol_opts__apply(&mo->elf, c, optarg))
			continue;
		switch (c) {
		case 'j':
			mo->json = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'p':
			errno = 0;
			pid = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || pid < 0 || pid > INT32_MAX)
				return usage_error("--pid: \"%s\" is not a process ID", optarg);
			mo->pid = (int)pid;
			mo->have_pid = true;
			break;
		case 'm':
			if (!strcmp(optarg, "auto"))
				mo->method = ADDRRES_PROCMAPS_METHOD_AUTO;
			else if (!strcmp(optarg, "ioctl"))
				mo->method = ADDRRES_PROCMAPS_METHOD_IOCTL;
			else if (!strcmp(optarg, "text"))
				mo->method = ADDRRES_PROCMAPS_METHOD_TEXT;
			else
				return usage_error("--method: \"%s\" is not auto, ioctl or text", optarg);
			break;
		case 'b':
			mo->build_ids = true;
			break;
		case 'n':
			mo->symbols = false;
			break;
		case 'F':
			mo->maps_path = optarg;
			break;
		default:
			return usage_error("%s: unknown option or missing argument", argv[0]);
		}
	}
	if (!mo->have_pid)
		return usage_error("maps: -p PID is required (0 for addrres itself)");
	*first_arg = optind;
	return EXIT_RESOLVED;
}

/*
 * The addresses of a batch, in input order, and the tokens that were no
 * address (bad[i], NULL for an address; addrs[i] is then 0), each of
 * which keeps its place in the output.
 */
struct batch {
	uint64_t *addrs;
	char **bad;
	size_t nr, cap, nr_bad;
};

static int batch__add(struct batch *b, uint64_t addr, const char *bad)
{
	if (b->nr == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 1024;
		uint64_t *more = reallocarray(b->addrs, cap, sizeof(*more));
		char **more_bad;

		if (!more)
			return -ENOMEM;
		b->addrs = more;
		more_bad = reallocarray(b->bad, cap, sizeof(*more_bad));
		if (!more_bad)
			return -ENOMEM;
		b->bad = more_bad;
		b->cap = cap;
	}
	b->bad[b->nr] = NULL;
	if (bad) {
		b->bad[b->nr] = strdup(bad);
		if (!b->bad[b->nr])
			return -ENOMEM;
		b->nr_bad++;
	}
	b->addrs[b->nr++] = bad ? 0 : addr;
	return 0;
}

static void batch__free(struct batch *b)
{
	for (size_t i = 0; i < b->nr; i++)
		free(b->bad[i]);
	free(b->bad);
	free(b->addrs);
}

/* The most addresses a batch holds: a larger input is answered in batches of these. */
#define BATCH_MAX 65536

/*
 * Read into @b (emptied first) the next batch: the addresses of every
 * line that can be read without waiting, up to BATCH_MAX (a line is not
 * split), or all the arguments.  A batch is what the library resolves
 * best; answering once nothing more is waiting serves a co-process.  A
 * malformed token is said and kept in its place.  *@done at the end of
 * the input.  An exit code.
 */
static int batch__read(struct batch *b, struct args *a, bool *done)
{
	int ret = EXIT_RESOLVED;
	uint64_t addr;
	char *tok;

	for (size_t i = 0; i < b->nr; i++)
		free(b->bad[i]);
	b->nr = b->nr_bad = 0;
	*done = false;
	for (;;) {
		bool ok;

		if (a->from_stdin) {
			tok = args__next_in_line(a);
			if (!tok && (b->nr >= BATCH_MAX || (b->nr && !args__pending(a))))
				break;
			if (!tok && !args__read_line(a)) {
				*done = true;
				break;
			}
			if (!tok && !(tok = args__line_start(a)))
				continue;
		} else if (!(tok = args__next(a))) {
			*done = true;
			break;
		}
		ok = parse_addr(tok, &addr);
		if (!ok)
			ret = worse(ret, malformed_addr(a, tok));
		if (batch__add(b, addr, ok ? NULL : tok)) {
			msg("out of memory");
			return EXIT_FAILURE_OTHER;
		}
	}
	return *done ? worse(ret, args__end(a)) : ret;
}

/* An exit code and a message for an errno of the maps file of @pid. */
static int maps__error(const struct maps_opts *mo, int err, const char *detail)
{
	if (err == -ENOENT && !mo->maps_path) {
		msg("no such process: %d", mo->pid);
		return EXIT_NO_PROCESS;
	}
	if (err == -ESRCH) {
		msg("process %d exited while its maps were read", mo->pid);
		return EXIT_NO_PROCESS;
	}
	if (err == -EACCES || err == -EPERM) {
		if (mo->maps_path) {
			msg("%s", detail);
		} else {
			/* The kernel's ptrace_may_access(PTRACE_MODE_READ_FSCREDS); Yama does not apply to reads. */
			msg("%s: reading another process's maps needs the same user as that process (and the process dumpable), or CAP_SYS_PTRACE",
			    detail);
		}
		return EXIT_PERMISSION;
	}
	if (err == -ENOTTY) {
		msg("%s: this kernel has no PROCMAP_QUERY ioctl (Linux 6.11, or 6.1 with the addrres series): without --method=ioctl, addrres reads the maps text",
		    detail);
		return EXIT_NO_FEATURE;
	}
	msg("%s", detail);
	return EXIT_FAILURE_OTHER;
}

static void flags__format(uint32_t flags, char perms[5])
{
	perms[0] = flags & ADDRRES_VMA_READABLE ? 'r' : '-';
	perms[1] = flags & ADDRRES_VMA_WRITABLE ? 'w' : '-';
	perms[2] = flags & ADDRRES_VMA_EXECUTABLE ? 'x' : '-';
	perms[3] = flags & ADDRRES_VMA_SHARED ? 's' : 'p';
	perms[4] = '\0';
}

static void build_id__format(const struct addrres_vma *vma, char *buf)
{
	for (size_t i = 0; i < vma->build_id_size; i++)
		sprintf(buf + 2 * i, "%02x", vma->build_id[i]);
	buf[2 * vma->build_id_size] = '\0';
}

/* What a VMA's address is relative to: its file, or the VMA's start. */
static uint64_t vma__offset(const struct addrres_vma *vma, uint64_t addr)
{
	return addr - vma->start + (vma->inode ? vma->offset : 0);
}

/* What the ELF symbolizer said of one address (its strings live until addrres_elf__free()). */
struct sym_result {
	bool tried;		/* the address is in a file (or the vdso) and symbols were asked */
	int err;		/* the file could not be read: -ENOENT, -ESTALE, ... */
	const char *name;	/* NULL: no symbol holds it */
	uint64_t offset, elf_addr;
	enum addrres_elf_symtab symtab;
	const char *src_file;
	unsigned int line, column;
	const struct addrres_elf_inline *inlined;
	size_t nr_inlined;
	int line_err;		/* why there is no line where the file has DWARF */
	const char *section;	/* the section elf_addr is an offset in (an object file's) */
};

/* Why a symbol has no line although its file has DWARF. */
static const char *line_err__text(int err)
{
	if (err == -EFBIG)
		return "its compressed DWARF would decompress to more than the library allows";
	return err == -EOPNOTSUPP ? "its DWARF is compressed with zstd, which this libdw cannot read" :
				    "libdw cannot read its DWARF";
}

static const char *symtab__name(enum addrres_elf_symtab t)
{
	switch (t) {
	case ADDRRES_ELF_SYMTAB_SYMTAB:
		return "symtab";
	case ADDRRES_ELF_SYMTAB_DYNSYM:
		return "dynsym";
	case ADDRRES_ELF_SYMTAB_GNU_DEBUGDATA:
		return "gnu_debugdata";
	case ADDRRES_ELF_SYMTAB_DEBUG_FILE:
		return "debug_file";
	case ADDRRES_ELF_SYMTAB_PERF_MAP:
		return "perf_map";
	default:
		return "none";
	}
}

/* JSON: "inlined":[{"name":...,"call_file":...,"call_line":N,"call_column":N},...] */
static void inlined__print_json(const struct addrres_elf_inline *in, size_t nr)
{
	fputs(",\"inlined\":[", stdout);
	for (size_t i = 0; i < nr; i++) {
		fputs(i ? ",{" : "{", stdout);
		if (in[i].name)
			json_path("name", in[i].name);
		else
			fputs("\"name\":null", stdout);
		putchar(',');
		if (in[i].call_file)
			json_path("call_file", in[i].call_file);
		else
			fputs("\"call_file\":null", stdout);
		printf(",\"call_line\":%u,\"call_column\":%u}", in[i].call_line, in[i].call_column);
	}
	putchar(']');
}

/*
 * Text: " (inl inlined at FILE:LINE in outer)", the words of
 * `eu-addr2line -i`, innermost first, "; " between two.
 */
static void inlined__print_text(const char *sym, const struct addrres_elf_inline *in, size_t nr)
{
	fputs(" (", stdout);
	for (size_t i = 0; i < nr; i++) {
		fputs(i ? "; " : "", stdout);
		text_str(in[i].name ? in[i].name : "??");
		fputs(" inlined at ", stdout);
		text_str(in[i].call_file ? in[i].call_file : "??");
		printf(":%u in ", in[i].call_line);
		text_str(i + 1 < nr ? (in[i + 1].name ? in[i + 1].name : "??") : sym);
	}
	putchar(')');
}

/*
 * ,"symbol":{...} of an address that was looked up; "symbol":null where
 * none holds it, with "symbol_error" where its file could not be read.
 */
static void sym_result__print_json(const struct sym_result *sr, const char *key)
{
	if (sr->err) {
		printf(",\"%s\":null,\"%s_error\":", key, key);
		json_str(strerror(-sr->err));
		return;
	}
	if (!sr->name) {
		printf(",\"%s\":null", key);
		return;
	}
	printf(",\"%s\":{", key);
	json_path("name", sr->name);
	putchar(',');
	json_hex("offset", sr->offset);
	putchar(',');
	json_hex("elf_addr", sr->elf_addr);
	if (sr->section) {
		fputs(",\"section\":", stdout);
		json_str(sr->section);
	}
	printf(",\"symtab\":\"%s\"", symtab__name(sr->symtab));
	if (sr->src_file) {
		putchar(',');
		json_path("file", sr->src_file);
		printf(",\"line\":%u,\"column\":%u", sr->line, sr->column);
	} else if (sr->line_err) {
		fputs(",\"line_error\":", stdout);
		json_str(line_err__text(sr->line_err));
	}
	if (sr->nr_inlined)
		inlined__print_json(sr->inlined, sr->nr_inlined);
	putchar('}');
}

/* " FILE:LINE (inlined...)" of a symbol, or " ??:0 (WHY)" where its DWARF could not be read. */
static void sym_result__print_lines(const struct sym_result *sr)
{
	if (sr->src_file) {
		putchar(' ');
		text_str(sr->src_file);
		printf(":%u", sr->line);
	} else if (sr->line_err) {
		printf(" ??:0 (%s)", line_err__text(sr->line_err));
	}
	if (sr->nr_inlined)
		inlined__print_text(sr->name, sr->inlined, sr->nr_inlined);
}

/*
 * " SYMBOL+0xOFFSET FILE:LINE (inlined...)" of an address that was
 * looked up; " ?? (WHY)" where no symbol holds it or its file could not
 * be read.
 */
static void sym_result__print_text(const struct sym_result *sr)
{
	if (!sr->name) {
		printf(" ?? (%s)", sr->err ? strerror(-sr->err) : "no symbol holds it");
		return;
	}
	putchar(' ');
	text_str(sr->name);
	printf("+0x%" PRIx64, sr->offset);
	sym_result__print_lines(sr);
}

/* The fields of @sym (NULL: none holds it) into @sr. */
static void sym_result__set(struct sym_result *sr, const struct addrres_elf_sym *sym)
{
	sr->tried = true;
	if (!sym || !sym->name)
		return;
	sr->name = sym->name;
	sr->offset = sym->offset;
	sr->elf_addr = sym->elf_addr;
	sr->symtab = sym->symtab;
	sr->src_file = sym->src_file;
	sr->line = sym->line;
	sr->column = sym->column;
	sr->inlined = sym->inlined;
	sr->nr_inlined = sym->nr_inlined;
	sr->line_err = sym->line_err;
	sr->section = sym->section;
}

static void maps__print_json(const struct maps_opts *mo, uint64_t addr,
			     const struct addrres_vma *vma, const struct sym_result *sr)
{
	char perms[5], id[2 * ADDRRES_BUILD_ID_MAX + 1];

	putchar('{');
	json_hex("address", addr);
	if (!vma) {
		puts(",\"vma\":null}");
		return;
	}
	flags__format(vma->flags, perms);
	fputs(",\"vma\":{", stdout);
	json_hex("start", vma->start);
	putchar(',');
	json_hex("end", vma->end);
	printf(",\"perms\":\"%s\",", perms);
	json_hex("offset", vma->offset);
	printf(",\"dev\":\"%02x:%02x\",\"inode\":%" PRIu64 ",",
	       vma->dev_major, vma->dev_minor, vma->inode);
	json_path("name", vma->name);
	if (mo->build_ids) {
		fputs(",\"build_id\":", stdout);
		if (vma->build_id_size) {
			build_id__format(vma, id);
			json_str(id);
		} else {
			fputs("null", stdout);
		}
	}
	putchar('}');
	if (vma->inode) {
		putchar(',');
		json_hex("file_offset", vma__offset(vma, addr));
	}
	if (sr->tried)
		sym_result__print_json(sr, "symbol");
	puts("}");
}

static void maps__print_text(const struct maps_opts *mo, uint64_t addr,
			     const struct addrres_vma *vma, const struct sym_result *sr)
{
	char id[2 * ADDRRES_BUILD_ID_MAX + 1];

	if (!vma) {
		printf("0x%" PRIx64 " ??\n", addr);
		return;
	}
	printf("0x%" PRIx64 " ", addr);
	text_str(vma->name[0] ? vma->name : "[anon]");
	printf("+0x%" PRIx64, vma__offset(vma, addr));
	if (sr->tried)
		sym_result__print_text(sr);
	if (mo->build_ids && vma->build_id_size) {
		build_id__format(vma, id);
		printf(" build-id=%s", id);
	}
	putchar('\n');
}

/*
 * Whether the ELF symbolizer can say something of a VMA's addresses: a
 * file, the vdso, anonymous code (a JIT's perf map).
 */
static bool vma__has_elf(const struct addrres_vma *vma)
{
	return vma && (vma->inode || !strcmp(vma->name, "[vdso]") ||
		       ((vma->flags & ADDRRES_VMA_EXECUTABLE) && vma->name[0] != '['));
}

/*
 * The ELF symbol of every address in a file (or the vdso).  A file that
 * cannot be read leaves its addresses' error in @res; only running out of
 * memory is an error.
 */
static int maps__symbolize(const struct maps_opts *mo, struct addrres_elf *elf,
			   const struct batch *b, const struct addrres_vma **vmas,
			   struct sym_result *res)
{
	const struct addrres_elf_sym **syms = calloc(b->nr, sizeof(*syms));
	int *errs = calloc(b->nr, sizeof(*errs));
	int ret = -ENOMEM;

	if (syms && errs)
		ret = addrres_elf__resolve_vmas(elf, mo->pid, b->addrs, vmas, b->nr, syms, errs);
	for (size_t i = 0; !ret && i < b->nr; i++) {
		struct sym_result *sr = &res[i];
		const struct addrres_elf_sym *sym = syms[i];

		if (!vma__has_elf(vmas[i]))
			continue;
		sym_result__set(sr, errs[i] ? NULL : sym);
		sr->err = errs[i];
	}
	free(syms);
	free(errs);
	return ret;
}

/*
 * The ELF symbolizer, or NULL (with a note) if this build has none.  It
 * keeps @err, its messages, until it is freed.
 */
static int maps__open_elf(const struct maps_opts *mo, struct addrres_elf **elf,
			  char *err, size_t err_sz)
{
	struct addrres_elf_opts opts = mo->elf;
	int r;

	opts.errbuf = err;
	opts.errbuf_sz = err_sz;
	r = addrres_elf__open(&opts, elf);
	if (r == -EOPNOTSUPP) {
		note("this addrres was built without libdw (LIBELF=0): no ELF symbols");
		return EXIT_RESOLVED;
	}
	if (r) {
		msg("%s", err);
		return EXIT_FAILURE_OTHER;
	}
	return EXIT_RESOLVED;
}

/*
 * Resolve and print batch @b of the process of @pm, its ELF symbols with
 * *@elf (opened at the first batch that needs it, kept for the next:
 * its cache of files is what makes the later batches cheap).
 */
static int maps__resolve(const struct maps_opts *mo, struct addrres_procmaps *pm,
			 struct addrres_elf **elf, const struct batch *b, const char *maps_name)
{
	const char *err;
	const struct addrres_vma **vmas;
	struct sym_result *res;
	/* LIBELF=0: no handle, said once */
	static bool elf_tried;
	char elf_err[512];
	int ret = EXIT_RESOLVED, r;

	if (!b->nr)
		return EXIT_RESOLVED;
	vmas = calloc(b->nr, sizeof(*vmas));
	res = calloc(b->nr, sizeof(*res));
	if (!vmas || !res) {
		msg("out of memory");
		ret = EXIT_FAILURE_OTHER;
		goto out;
	}
	r = addrres_procmaps__resolve(pm, b->addrs, b->nr, vmas);
	if (r) {
		err = addrres_procmaps__errmsg(pm);
		ret = maps__error(mo, r, err[0] ? err : maps_name);
		goto out;
	}
	if (mo->symbols) {
		if (!*elf && !elf_tried) {
			elf_tried = true;
			ret = maps__open_elf(mo, elf, elf_err, sizeof(elf_err));
			if (ret)
				goto out;
		}
		r = *elf ? maps__symbolize(mo, *elf, b, vmas, res) : 0;
		if (r) {
			msg("ELF symbols: %s", strerror(-r));
			ret = EXIT_FAILURE_OTHER;
			goto out;
		}
	}
	for (size_t i = 0; i < b->nr; i++) {
		if (b->bad[i]) {
			malformed__print(mo->json, b->bad[i]);
			continue;
		}
		if (!vmas[i] || (res[i].tried && !res[i].name))
			ret = EXIT_UNRESOLVED;
		if (mo->json)
			maps__print_json(mo, b->addrs[i], vmas[i], &res[i]);
		else
			maps__print_text(mo, b->addrs[i], vmas[i], &res[i]);
	}
out:
	free(vmas);
	free(res);
	return ret;
}

static int cmd_maps(int argc, char **argv)
{
	struct maps_opts mo = { 0 };
	struct addrres_procmaps_stats stats = { .sz = sizeof(stats) };
	struct addrres_procmaps *pm = NULL;
	struct addrres_elf *elf = NULL;
	struct batch b = { 0 };
	char err[512], maps_name[64];
	int ret, first = 0, r, bad;
	bool done = false;
	struct args a;

	ret = maps_opts__parse(&mo, argc, argv, &first);
	if (ret)
		return ret;
	ADDRRES_OPTS(addrres_procmaps_opts, opts, .pid = mo.pid, .maps_path = mo.maps_path,
		     .method = mo.method, .build_ids = mo.build_ids, .errbuf = err,
		     .errbuf_sz = sizeof(err));
	snprintf(maps_name, sizeof(maps_name), "/proc/%d/maps", mo.pid);

	args__init(&a, argc - first, argv + first);
	r = addrres_procmaps__open(&opts, &pm);
	if (r) {
		ret = maps__error(&mo, r, err);
		goto out;
	}
	while (!done) {
		bad = batch__read(&b, &a, &done);
		if (bad > EXIT_MALFORMED) {
			ret = bad;
			goto out;
		}
		r = maps__resolve(&mo, pm, &elf, &b, maps_name);
		if (r > EXIT_MALFORMED) {
			ret = r;
			goto out;
		}
		ret = worse(ret, worse(r, bad));
		out__flush_if_waited_for(&a);
	}
	if (ret <= EXIT_UNRESOLVED && mo.method == ADDRRES_PROCMAPS_METHOD_AUTO &&
	    !mo.maps_path && !addrres_procmaps__stats(pm, &stats) && stats.ioctl_unsupported)
		note("this kernel has no PROCMAP_QUERY ioctl: read the text of %s instead (the same answers)",
		     maps_name);
out:
	addrres_elf__free(elf);
	addrres_procmaps__free(pm);
	batch__free(&b);
	args__free(&a);
	return ret;
}

/* ---- elf: offsets of a file, offline ---- */

struct elf_cmd_opts {
	bool json, addresses, offsets_asked;
	const char *path;
	const char *section;	/* ADDRs are offsets in it (an object file's) */
	unsigned char build_id[ADDRRES_BUILD_ID_MAX];
	size_t build_id_size;
	struct addrres_elf_opts elf;	/* the symbol options; sz set when parsed */
};

/* A build ID in hex: 1 to ADDRRES_BUILD_ID_MAX bytes, two digits each. */
static bool parse_build_id(const char *s, unsigned char *id, size_t *size)
{
	size_t len = strlen(s);

	if (!len || len % 2 || len / 2 > ADDRRES_BUILD_ID_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (!isxdigit((unsigned char)s[i]))
			return false;
	}
	for (size_t i = 0; i < len / 2; i++)
		sscanf(s + 2 * i, "%2hhx", &id[i]);
	*size = len / 2;
	return true;
}

static int elf_cmd_opts__parse(struct elf_cmd_opts *eo, int argc, char **argv, int *first_arg)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "exe", required_argument, NULL, 'e' },
		{ "build-id", required_argument, NULL, 'B' },
		{ "addresses", no_argument, NULL, 'a' },
		{ "offsets", no_argument, NULL, 'o' },
		{ "section", required_argument, NULL, 'S' },
		SYMBOL_LONGOPTS,
		{ "debuginfod", no_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	eo->elf.sz = sizeof(eo->elf);
	/* ELF addresses, as every other tool takes them (file offsets until 0.3). */
	eo->addresses = true;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jqe:B:aoL", longopts, NULL)) != -1) {
		if (symbol_opts__apply(&eo->elf, c, optarg))
			continue;
		switch (c) {
		case 'j':
			eo->json = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'e':
			eo->path = optarg;
			break;
		case 'B':
			if (!parse_build_id(optarg, eo->build_id, &eo->build_id_size))
				return usage_error("--build-id: \"%s\" is not 2 to %d hex digits, an even number",
						   optarg, 2 * ADDRRES_BUILD_ID_MAX);
			break;
		case 'a':
			eo->addresses = true;
			break;
		case 'o':
			eo->addresses = false;
			eo->offsets_asked = true;
			break;
		case 'S':
			eo->section = optarg;
			break;
		case 'U':
			eo->elf.debuginfod = true;
			break;
		default:
			return usage_error("%s: unknown option or missing argument", argv[0]);
		}
	}
	if (!eo->path && !eo->build_id_size)
		return usage_error("elf: -e FILE or -B BUILD_ID is required");
	if (eo->section && eo->offsets_asked)
		return usage_error("elf: --section and --offsets: ADDRs are offsets in the section");
	/* Offsets in the section, neither ELF addresses nor file offsets. */
	if (eo->section)
		eo->addresses = false;
	*first_arg = optind;
	return EXIT_RESOLVED;
}

/* An exit code for the errno of resolving in the file. */
static int elf__error(const struct elf_cmd_opts *eo, const char *detail, int err)
{
	/* A debug file alone has no file offsets: the library's words, but its advice ours. */
	const char *advice = err == -ENOEXEC && !eo->addresses && !eo->section ?
			     strstr(detail, "; give ELF addresses") : NULL;
	char text[1024];

	snprintf(text, sizeof(text), "%s", detail[0] ? detail : strerror(-err));
	user_words(text, sizeof(text));
	if (advice)
		msg("%.*s; give ELF addresses (without --offsets)", (int)(advice - detail), detail);
	else
		msg("%s", text);
	if (err == -EACCES || err == -EPERM)
		return EXIT_PERMISSION;
	if (err == -EOPNOTSUPP)
		return EXIT_NO_FEATURE;
	/* An object file asked without --section: how the command was used. */
	if (err == -EINVAL)
		return EXIT_USAGE;
	return EXIT_FAILURE_OTHER;
}

static void elf__print(const struct elf_cmd_opts *eo, uint64_t val,
		       const struct addrres_elf_sym *sym)
{
	struct sym_result sr = { 0 };
	const char *none = eo->section ? "past the end of the section" : "in no segment of the file";

	sym_result__set(&sr, sym);
	if (eo->json) {
		putchar('{');
		json_hex(eo->section ? "section_offset" : eo->addresses ? "address" : "offset", val);
		if (sym)
			sym_result__print_json(&sr, "symbol");
		else
			printf(",\"symbol\":null,\"symbol_error\":\"%s\"", none);
		puts("}");
		return;
	}
	printf("0x%" PRIx64, val);
	if (sym)
		sym_result__print_text(&sr);
	else
		printf(" ?? (%s)", none);
	putchar('\n');
}

static int cmd_elf(int argc, char **argv)
{
	struct elf_cmd_opts eo = { 0 };
	const struct addrres_elf_sym **syms = NULL;
	struct addrres_elf *elf = NULL;
	struct batch b = { 0 };
	int ret, first = 0, r, bad;
	char err[512];
	bool done = false;
	struct args a;

	ret = elf_cmd_opts__parse(&eo, argc, argv, &first);
	if (ret)
		return ret;
	eo.elf.errbuf = err;
	eo.elf.errbuf_sz = sizeof(err);
	ADDRRES_OPTS(addrres_elf_resolve_opts, ropts, .elf_addrs = eo.addresses,
		     .build_id = eo.build_id_size ? eo.build_id : NULL,
		     .build_id_size = eo.build_id_size, .section = eo.section);
	args__init(&a, argc - first, argv + first);
	r = addrres_elf__open(&eo.elf, &elf);
	if (r) {
		ret = r == -EOPNOTSUPP ? EXIT_NO_FEATURE : EXIT_FAILURE_OTHER;
		msg("%s", err);
		goto out;
	}
	syms = calloc(BATCH_MAX, sizeof(*syms));
	if (!syms) {
		msg("out of memory");
		ret = EXIT_FAILURE_OTHER;
		goto out;
	}
	/* Every batch, the first one even without addresses: the file is checked. */
	while (!done) {
		bad = batch__read(&b, &a, &done);
		if (bad > EXIT_MALFORMED) {
			ret = bad;
			goto out;
		}
		if (b.nr > BATCH_MAX) {
			/* arguments, not stdin: one batch of them all */
			const struct addrres_elf_sym **more = reallocarray(syms, b.nr, sizeof(*syms));

			if (!more) {
				msg("out of memory");
				ret = EXIT_FAILURE_OTHER;
				goto out;
			}
			syms = more;
		}
		r = addrres_elf__resolve(elf, eo.path, b.addrs, b.nr, syms, &ropts);
		if (r) {
			ret = elf__error(&eo, addrres_elf__errmsg(elf), r);
			goto out;
		}
		for (size_t i = 0; i < b.nr; i++) {
			if (b.bad[i]) {
				malformed__print(eo.json, b.bad[i]);
				continue;
			}
			if (!syms[i] || !syms[i]->name)
				ret = worse(ret, EXIT_UNRESOLVED);
			elf__print(&eo, b.addrs[i], syms[i]);
		}
		ret = worse(ret, bad);
		out__flush_if_waited_for(&a);
	}
out:
	free(syms);
	addrres_elf__free(elf);
	batch__free(&b);
	args__free(&a);
	return ret;
}

/* ---- kaddr: kernel addresses, with --lines their source lines ---- */

/* kaddr's options: the kernel's, and with --lines where its files are. */
struct kaddr_opts {
	struct kernel_opts kernel;
	bool lines;
	struct addrres_elf_opts elf;		/* the symbol options; sz set when parsed */
	struct addrres_elf_kernel_opts files;	/* --vmlinux, --build-dir */
};

static int kaddr_opts__parse(struct kaddr_opts *o, int argc, char **argv, int *first_arg)
{
	static const struct option longopts[] = {
		KERNEL_LONGOPTS,
		{ "lines", no_argument, NULL, 'l' },
		{ "vmlinux", required_argument, NULL, 'V' },
		{ "build-dir", required_argument, NULL, 'O' },
		SYMBOL_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int c, ret;

	o->elf.sz = sizeof(o->elf);
	o->files.sz = sizeof(o->files);
	optind = 1;
	while ((c = getopt_long(argc, argv, KERNEL_SHORTOPTS "lL", longopts, NULL)) != -1) {
		if (symbol_opts__apply(&o->elf, c, optarg))
			continue;
		switch (c) {
		case 'l':
			o->lines = true;
			continue;
		case 'V':
			o->files.vmlinux = optarg;
			continue;
		case 'O':
			o->files.build_dir = optarg;
			continue;
		}
		ret = kernel_opts__apply(&o->kernel, c, optarg);
		if (ret)
			return ret < 0 ? unknown_option(argv) : ret;
	}
	if (o->elf.no_lines)
		o->lines = false;
	*first_arg = optind;
	return EXIT_RESOLVED;
}

/* Why a kernel address has no line, in a user's words (the message on stderr says more). */
static const char *kernel_lines__why(int err)
{
	switch (err) {
	case -ESTALE:
		return "no file of the running kernel's build";
	case -ENOENT:
		return "no file with its DWARF found";
	case -EACCES:
	case -EPERM:
		return "not allowed to see where it was loaded";
	default:
		return strerror(-err);
	}
}

/*
 * The file, line and inlined functions of kernel address @addr with
 * --lines: " FILE:LINE (inlined...)" in text, ,"lines":{...} in JSON; the
 * reason there is none on stderr, once for each reason in a row.
 */
static int kaddr__print_lines(const struct kaddr_opts *o, struct addrres_elf *elf,
			      const struct addrres_ksyms *ks, uint64_t addr, char *last_msg,
			      size_t last_sz)
{
	const struct addrres_elf_sym *sym = NULL;
	struct sym_result sr = { 0 };
	int err = 0, r;

	r = addrres_elf__resolve_kernel(elf, ks, &addr, 1, &sym, &err, &o->files);
	if (r)
		err = r;
	if (err && strcmp(addrres_elf__errmsg(elf), last_msg)) {
		msg("%s", addrres_elf__errmsg(elf));
		snprintf(last_msg, last_sz, "%s", addrres_elf__errmsg(elf));
	}
	sym_result__set(&sr, err ? NULL : sym);
	if (o->kernel.json && err) {
		fputs(",\"lines\":null,\"lines_error\":", stdout);
		json_str(kernel_lines__why(err));
	} else if (o->kernel.json) {
		sym_result__print_json(&sr, "lines");
	} else if (err) {
		printf(" ?? (%s)", kernel_lines__why(err));
	} else if (!sym) {
		fputs(" ?? (in no section of its file)", stdout);
	} else if (!sr.src_file && !sr.line_err) {
		fputs(" ?? (no line)", stdout);
	} else {
		sym_result__print_lines(&sr);
	}
	if (err == -EACCES || err == -EPERM)
		return EXIT_PERMISSION;
	if (err && err != -ENOENT && err != -ESTALE)
		return EXIT_FAILURE_OTHER;
	return err || !sym || !sr.src_file ? EXIT_UNRESOLVED : EXIT_RESOLVED;
}

static int cmd_kaddr(int argc, char **argv)
{
	struct kaddr_opts o = { .kernel = { .open = { .sz = sizeof(o.kernel.open) } } };
	struct kernel_opts *ko = &o.kernel;
	const struct addrres_ksym *sym;
	struct addrres_ksyms *ks = NULL;
	struct addrres_elf *elf = NULL;
	char ebuf[512], last_msg[512] = "";
	int ret, first = 0, err;
	struct args a;
	uint64_t addr, off;
	char *tok;

	ret = kaddr_opts__parse(&o, argc, argv, &first);
	if (ret)
		return ret;
	ret = kernel__open(ko, &ks);
	if (ret)
		return ret;
	if (o.lines) {
		o.elf.errbuf = ebuf;
		o.elf.errbuf_sz = sizeof(ebuf);
		err = addrres_elf__open(&o.elf, &elf);
		if (err) {
			msg("%s", ebuf);
			addrres_ksyms__free(ks);
			return err == -EOPNOTSUPP ? EXIT_NO_FEATURE : EXIT_FAILURE_OTHER;
		}
	}
	args__init(&a, argc - first, argv + first);
	/* Each answer out before the input is waited for again. */
	for (; (tok = args__next(&a)); out__flush_if_waited_for(&a)) {
		if (!parse_addr(tok, &addr)) {
			ret = worse(ret, malformed_addr(&a, tok));
			malformed__print(ko->json, tok);
			continue;
		}
		err = addrres_ksyms__find_addr(ks, addr, &sym, &off);
		if (err && err != -ENOENT) {
			msg("0x%" PRIx64 ": %s", addr, strerror(-err));
			ret = EXIT_FAILURE_OTHER;
			break;
		}
		if (err)
			ret = worse(ret, EXIT_UNRESOLVED);
		if (ko->json) {
			putchar('{');
			json_hex("address", addr);
			if (!err) {
				putchar(',');
				ksym__print_json_fields(sym, addrres_ksyms__source(ks) ==
							ADDRRES_KSYMS_SOURCE_KALLMODSYMS);
				putchar(',');
				json_hex("offset", off);
			} else {
				fputs(",\"symbol\":null", stdout);
			}
		} else if (!err) {
			printf("0x%" PRIx64 " %s+0x%" PRIx64, addr, sym->name, off);
			ksym__print_annotations(sym);
		} else {
			printf("0x%" PRIx64 " ??", addr);
		}
		if (elf)
			ret = worse(ret, kaddr__print_lines(&o, elf, ks, addr, last_msg,
							    sizeof(last_msg)));
		puts(ko->json ? "}" : "");
	}
	if (!tok && ret != EXIT_FAILURE_OTHER && args__end(&a))
		ret = EXIT_FAILURE_OTHER;
	args__free(&a);
	addrres_elf__free(elf);
	addrres_ksyms__free(ks);
	return ret;
}

/* ---- count: the calls of one kernel function ---- */

static volatile sig_atomic_t stop_counting;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_counting = 1;
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Seconds in an option: a positive decimal number. */
static bool parse_seconds(const char *s, double *secs)
{
	char *end;

	errno = 0;
	*secs = strtod(s, &end);
	return !errno && end != s && !*end && *secs > 0 && *secs < 1e9;
}

/*
 * The one code symbol a count query names; an exit code after a message
 * (an ambiguous name lists its candidates on stdout).
 */
static int count__find(const struct kernel_opts *ko, struct addrres_ksyms *ks, const char *query,
		       const struct addrres_ksym **symp)
{
	const struct addrres_ksym **syms;
	size_t count;
	int err;

	err = addrres_ksyms__find_name(ks, query, symp, 1, &count);
	if (err == -EINVAL) {
		msg("malformed name query \"%s\": expected NAME, then optionally [MODULE]... and one {OBJECT}",
		    query);
		return EXIT_MALFORMED;
	}
	if (err == -ENOENT) {
		msg("no kernel symbol matches \"%s\"", query);
		return EXIT_UNRESOLVED;
	}
	if (err == -ENOTUNIQ) {
		syms = calloc(count, sizeof(*syms));
		if (!syms) {
			msg("out of memory");
			return EXIT_FAILURE_OTHER;
		}
		addrres_ksyms__find_name(ks, query, syms, count, &count);
		msg("\"%s\" is ambiguous: %zu symbols match; count one of them by its qualified name%s:",
		    query, count, ambiguous__why(ko, ks));
		for (size_t i = 0; i < count; i++) {
			if (ko->json) {
				putchar('{');
				json_hex("address", syms[i]->addr);
				putchar(',');
				ksym__print_json_fields(syms[i], addrres_ksyms__source(ks) ==
							ADDRRES_KSYMS_SOURCE_KALLMODSYMS);
				puts("}");
			} else {
				ksym__print_line(syms[i]);
			}
		}
		free(syms);
		return EXIT_UNRESOLVED;
	}
	if (err) {
		msg("%s: %s", query, strerror(-err));
		return EXIT_FAILURE_OTHER;
	}
	if (!ksym__is_code(*symp)) {
		msg("\"%s\" is not code (type %c at 0x%" PRIx64 "): only functions can be counted",
		    query, (*symp)->type, (*symp)->addr);
		return EXIT_UNRESOLVED;
	}
	return EXIT_RESOLVED;
}

static void count__print_interval(bool json, double elapsed, uint64_t calls)
{
	if (json)
		printf("{\"elapsed_s\":%.3f,\"calls\":%" PRIu64 "}\n", elapsed, calls);
	else
		printf("%.3f %" PRIu64 "\n", elapsed, calls);
	fflush(stdout);
}

static void count__print_total(const struct kernel_opts *ko, const struct addrres_ksyms *ks,
			       const struct addrres_ksym *sym, const struct kprobe_counter *counter,
			       double elapsed)
{
	uint64_t calls = kprobe_counter__calls(counter);
	bool multi = kprobe_counter__method(counter) == KPROBE_COUNTER_MULTI;

	if (!ko->json) {
		printf("%" PRIu64 " 0x%" PRIx64 " %s", calls, sym->addr, sym->name);
		ksym__print_annotations(sym);
		putchar('\n');
		return;
	}
	printf("{\"calls\":%" PRIu64 ",\"elapsed_s\":%.3f,\"method\":\"%s\",", calls, elapsed,
	       multi ? "kprobe.multi" : "kprobe");
	json_hex("address", sym->addr);
	putchar(',');
	ksym__print_json_fields(sym, addrres_ksyms__source(ks) == ADDRRES_KSYMS_SOURCE_KALLMODSYMS);
	puts("}");
}

/* Run COMMAND to its end; an exit code after a message if it failed. */
static int count__run(char **command)
{
	int err, status;
	pid_t pid;

	err = posix_spawnp(&pid, command[0], NULL, NULL, command, environ);
	if (err) {
		msg("%s: %s", command[0], strerror(err));
		return EXIT_FAILURE_OTHER;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			msg("waiting for %s: %s", command[0], strerror(errno));
			return EXIT_FAILURE_OTHER;
		}
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return EXIT_RESOLVED;
	if (WIFEXITED(status))
		msg("%s exited with status %d", command[0], WEXITSTATUS(status));
	else
		msg("%s was killed by signal %d", command[0], WTERMSIG(status));
	return EXIT_FAILURE_OTHER;
}

/* Count until a signal, the duration, or the end of COMMAND. */
static int cmd_count(int argc, char **argv)
{
	static const struct option longopts[] = {
		KERNEL_LONGOPTS,
		{ "interval", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'd' },
		{ "method", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct kernel_opts ko = { .open = { .sz = sizeof(ko.open) } };
	enum kprobe_counter_method method = KPROBE_COUNTER_AUTO;
	struct sigaction sa = { .sa_handler = on_stop_signal };
	struct kprobe_counter *counter = NULL;
	const struct addrres_ksym *sym = NULL;
	double interval = 0, duration = 0, next;
	struct addrres_ksyms *ks = NULL;
	uint64_t last = 0, calls;
	struct timespec start;
	char err[512];
	int ret, c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+" KERNEL_SHORTOPTS "i:d:m:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			if (!parse_seconds(optarg, &interval))
				return usage_error("--interval: \"%s\" is not a number of seconds above 0",
						   optarg);
			break;
		case 'd':
			if (!parse_seconds(optarg, &duration))
				return usage_error("--duration: \"%s\" is not a number of seconds above 0",
						   optarg);
			break;
		case 'm':
			if (!strcmp(optarg, "auto"))
				method = KPROBE_COUNTER_AUTO;
			else if (!strcmp(optarg, "multi"))
				method = KPROBE_COUNTER_MULTI;
			else if (!strcmp(optarg, "kprobe"))
				method = KPROBE_COUNTER_PERF;
			else
				return usage_error("--method: \"%s\" is not auto, multi or kprobe", optarg);
			break;
		default:
			ret = kernel_opts__apply(&ko, c, optarg);
			if (ret)
				return ret < 0 ? unknown_option(argv) : ret;
		}
	}
	if (optind >= argc)
		return usage_error("count: a function NAME is required");
	if (optind + 1 < argc && (interval || duration))
		return usage_error("count: COMMAND and --interval or --duration: give one of them");

	ret = kernel__open(&ko, &ks);
	if (ret)
		return ret;
	ret = count__find(&ko, ks, argv[optind], &sym);
	if (ret)
		goto out;
	ret = kprobe_counter__open(sym->addr, method, &counter, err, sizeof(err));
	if (ret) {
		msg("counting the calls of \"%s\" at 0x%" PRIx64 ": %s", argv[optind], sym->addr, err);
		ret = ret == -EPERM || ret == -EACCES ? EXIT_PERMISSION :
		      ret == -EOPNOTSUPP ? EXIT_NO_FEATURE : EXIT_FAILURE_OTHER;
		goto out;
	}
	note("counting the calls of 0x%" PRIx64 " (\"%s\") with %s", sym->addr, argv[optind],
	     kprobe_counter__method(counter) == KPROBE_COUNTER_MULTI ? "a kprobe.multi link" :
								       "a kprobe perf event");
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (optind + 1 < argc) {
		ret = count__run(argv + optind + 1);
	} else {
		/* No SA_RESTART: a signal ends the sleep at once. */
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		next = interval;
		while (!stop_counting) {
			double now = seconds_since(&start), until = duration ? duration : 1e9;
			struct timespec ts;

			if (interval && next < until)
				until = next;
			if (now >= until) {
				if (duration && now >= duration)
					break;
				calls = kprobe_counter__calls(counter);
				count__print_interval(ko.json, next, calls - last);
				last = calls;
				next += interval;
				continue;
			}
			ts.tv_sec = (time_t)(until - now);
			ts.tv_nsec = (long)((until - now - (double)ts.tv_sec) * 1e9);
			nanosleep(&ts, NULL);
		}
	}
	count__print_total(&ko, ks, sym, counter, seconds_since(&start));
out:
	kprobe_counter__free(counter);
	addrres_ksyms__free(ks);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "kaddr", cmd_kaddr },
		{ "kname", cmd_kname },
		{ "count", cmd_count },
		{ "maps", cmd_maps },
		{ "elf", cmd_elf },
	};
	int first = 1;

	addrres_set_print(print_library);
	/* Options before the command: -q, and help. */
	while (first < argc && argv[first][0] == '-') {
		if (!strcmp(argv[first], "-q") || !strcmp(argv[first], "--quiet")) {
			quiet = true;
		} else if (!strcmp(argv[first], "-h") || !strcmp(argv[first], "--help")) {
			fputs(usage_text, stdout);
			return EXIT_RESOLVED;
		} else if (!strcmp(argv[first], "--version")) {
			printf("addrres (libaddrres %d.%d)\n", LIBADDRRES_MAJOR_VERSION,
			       LIBADDRRES_MINOR_VERSION);
			return EXIT_RESOLVED;
		} else {
			return usage_error("%s: unknown option", argv[first]);
		}
		first++;
	}
	if (first == argc)
		return usage_error("no command given");
	/* "addrres help", and -h anywhere before "--": addresses never start with '-'. */
	for (int i = first; i < argc && strcmp(argv[i], "--"); i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") ||
		    (i == first && !strcmp(argv[i], "help"))) {
			fputs(usage_text, stdout);
			return EXIT_RESOLVED;
		}
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(argv[first], cmds[i].name)) {
			int ret = cmds[i].fn(argc - first, argv + first);

			if (fflush(stdout) || ferror(stdout)) {
				msg("writing the output: %s", strerror(errno));
				return EXIT_FAILURE_OTHER;
			}
			return ret;
		}
	}
	return usage_error("%s: unknown command", argv[first]);
}
