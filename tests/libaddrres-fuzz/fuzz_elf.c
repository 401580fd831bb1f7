// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer target: addrres_elf__resolve() on mutated ELF files and debug
 * files (elfutils' libdw and libelf read them; the library's own code
 * reads their program headers, notes, sections and symbols, and walks
 * their DWARF for inline frames).
 *
 * Input:
 *   8 header bytes   [0] flags (F_*); [1..7] seeds of the offsets asked
 *                    ([7] also picks the section of F_SECTION)
 *   the file         an ELF executable, shared library or object file
 *   "@@\n"           (optional) then its debug file, put where the
 *                    library looks for it: DIR/.build-id/xx/yyyy.debug
 *                    by the file's build ID
 *
 * With F_HOSTILE, what a local user could plant stands where the library
 * looks for the debug file first (beside the file, by the default name
 * and by the fixtures' .gnu_debuglink name, and by build ID where no
 * debug file is given): a FIFO, a symlink to /dev/zero or to /dev/null,
 * or a directory, by header byte 7.  The call must still return (a hang
 * is libFuzzer's -timeout).
 *
 * What must hold, whatever the bytes:
 *  - no crash, no leak, no sanitizer report (libFuzzer's and ASan's job);
 *  - the return value is 0 or a negative errno, and on failure every
 *    answer is NULL; an answer's ELF address is the one asked (F_ADDRS;
 *    with F_SECTION the offset asked, its section the one named),
 *    a nameless answer has no offset and no table, inline frames come
 *    with a pointer, at most 64, their strings readable;
 *  - asked again, the same offsets get the same answers (the answers
 *    kept for repeated addresses are the answers computed);
 *  - a copy (addrres_elf_syms__dup()) has the answers' fields;
 *  - the handle's free closes every descriptor it opened.
 */
#include "fuzz.h"

#include <elf.h>
#include <sys/stat.h>

#include <addrres/addrres.h>

enum {
	F_ADDRS = 1,		/* ask ELF addresses, not file offsets */
	F_NO_LINES = 2,
	F_NO_INLINES = 4,
	F_DEBUG_FILE = 8,	/* the second section is the debug file */
	F_SECTION = 16,		/* offsets in a section (an object file's way) */
	F_HOSTILE = 32,		/* FIFOs, devices, directories where it looks */
};

/* The names F_HOSTILE plants beside the file, as the fixtures' debuglinks. */
static const char *const hostile_names[] = { "file.debug", "lib-nobid.debug" };

/* A FIFO, a device or a directory at @path, by @kind; false if not made. */
static bool plant_hostile(const char *path, unsigned int kind)
{
	switch (kind % 4) {
	case 0:
		return !mkfifo(path, 0644);
	case 1:
		return !symlink("/dev/zero", path);
	case 2:
		return !symlink("/dev/null", path);
	default:
		return !mkdir(path, 0755);
	}
}

static void remove_hostile(const char *path)
{
	if (unlink(path))
		(void)rmdir(path);
}

/* The sections F_SECTION asks, by header byte 7: code, and not code. */
static const char *const sections[] = { ".text", ".text.names_outer", ".data", ".init.text" };

#define NR_ASKED 16

static char dir[64];

/* The GNU build ID of @data (a note "GNU" of type 3), into @hex: false if none. */
static bool build_id_hex(const unsigned char *data, size_t n, char *hex, size_t hex_sz)
{
	for (size_t at = 12; at + 4 <= n; at++) {
		uint32_t namesz, descsz, type;

		if (memcmp(data + at, "GNU", 4))
			continue;
		memcpy(&namesz, data + at - 12, 4);
		memcpy(&descsz, data + at - 8, 4);
		memcpy(&type, data + at - 4, 4);
		if (namesz != 4 || type != NT_GNU_BUILD_ID || descsz < 2 || descsz > 20 ||
		    at + 4 + descsz > n || 2 * descsz + 1 > hex_sz)
			continue;
		for (uint32_t i = 0; i < descsz; i++)
			snprintf(hex + 2 * i, 3, "%02x", data[at + 4 + i]);
		return true;
	}
	return false;
}

/* Write @n bytes of @data to @path: false if it cannot be. */
static bool write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "we");
	bool ok;

	if (!f)
		return false;
	ok = fwrite(data, 1, n, f) == n;
	return !fclose(f) && ok;
}

static void check_answers(const struct addrres_elf_sym **syms, const uint64_t *asked, bool addrs,
			  const char *section)
{
	for (size_t i = 0; i < NR_ASKED; i++) {
		const struct addrres_elf_sym *s = syms[i];

		if (!s)
			continue;
		CHECK(!(addrs || section) || s->elf_addr == asked[i], "asked 0x%llx, answered for 0x%llx",
		      (unsigned long long)asked[i], (unsigned long long)s->elf_addr);
		CHECK(section ? s->section && !strcmp(s->section, section) : !s->section,
		      "asked in section %s, answered in %s", section ? section : "(none)",
		      s->section ? s->section : "(none)");
		CHECK(s->name || (!s->offset && s->symtab == ADDRRES_ELF_SYMTAB_NONE),
		      "a nameless answer with an offset or a table");
		CHECK(s->nr_inlined <= 64 && !s->inlined == !s->nr_inlined, "%zu inline frames",
		      s->nr_inlined);
		if (s->name)
			(void)strlen(s->name);
		if (s->src_file)
			(void)strlen(s->src_file);
		for (size_t k = 0; k < s->nr_inlined; k++) {
			if (s->inlined[k].name)
				(void)strlen(s->inlined[k].name);
			if (s->inlined[k].call_file)
				(void)strlen(s->inlined[k].call_file);
		}
	}
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static bool same_answer(const struct addrres_elf_sym *a, const struct addrres_elf_sym *b)
{
	if (!a || !b)
		return a == b;
	if (a->elf_addr != b->elf_addr || !same_str(a->section, b->section) ||
	    !same_str(a->name, b->name) || a->offset != b->offset ||
	    a->size != b->size || a->symtab != b->symtab || !same_str(a->src_file, b->src_file) ||
	    a->line != b->line || a->column != b->column || a->nr_inlined != b->nr_inlined ||
	    a->line_err != b->line_err)
		return false;
	for (size_t k = 0; k < a->nr_inlined; k++) {
		if (!same_str(a->inlined[k].name, b->inlined[k].name) ||
		    !same_str(a->inlined[k].call_file, b->inlined[k].call_file) ||
		    a->inlined[k].call_line != b->inlined[k].call_line)
			return false;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct addrres_elf_sym *syms[NR_ASKED], *again[NR_ASKED], **copy = NULL;
	const char *p = (const char *)data + 8, *end = (const char *)data + size, *file, *debug;
	char path[128], debug_path[256], debug_dirs[80], hex[41];
	size_t file_len, debug_len = 0;
	struct addrres_elf *e = NULL;
	uint64_t asked[NR_ASKED];
	int fds, err, err2;
	const char *section;
	bool addrs;

	if (size < 8)
		return 0;
	if (!dir[0]) {
		/* No debuginfod client: nothing is to be asked of a server. */
		setenv("DEBUGINFOD_URLS", "", 1);
		snprintf(dir, sizeof(dir), "%s/addrres-fuzz-elf.%d",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
		CHECK(!mkdir(dir, 0755) || errno == EEXIST, "mkdir %s", dir);
	}
	addrs = data[0] & F_ADDRS;
	section = data[0] & F_SECTION ? sections[data[7] % (sizeof(sections) / sizeof(sections[0]))] :
					NULL;
	next_section(&p, end, &file, &file_len);
	if (data[0] & F_DEBUG_FILE)
		next_section(&p, end, &debug, &debug_len);
	snprintf(path, sizeof(path), "%s/file", dir);
	CHECK(write_file(path, file, file_len), "writing %s", path);
	/* The debug file where the library looks for it, if the file has a build ID. */
	debug_path[0] = '\0';
	if (debug_len && build_id_hex((const unsigned char *)file, file_len, hex, sizeof(hex))) {
		char sub[128];

		snprintf(sub, sizeof(sub), "%s/.build-id/%.2s", dir, hex);
		snprintf(debug_path, sizeof(debug_path), "%s/%s.debug", sub, hex + 2);
		snprintf(sub, sizeof(sub), "%s/.build-id", dir);
		(void)mkdir(sub, 0755);
		snprintf(sub, sizeof(sub), "%s/.build-id/%.2s", dir, hex);
		(void)mkdir(sub, 0755);
		CHECK(write_file(debug_path, debug, debug_len), "writing %s", debug_path);
	}
	if (data[0] & F_HOSTILE) {
		char at[256];

		for (size_t i = 0; i < sizeof(hostile_names) / sizeof(hostile_names[0]); i++) {
			snprintf(at, sizeof(at), "%s/%s", dir, hostile_names[i]);
			CHECK(plant_hostile(at, data[7]), "planting %s", at);
		}
		if (!debug_len && build_id_hex((const unsigned char *)file, file_len, hex, sizeof(hex))) {
			snprintf(at, sizeof(at), "%s/.build-id", dir);
			(void)mkdir(at, 0755);
			snprintf(at, sizeof(at), "%s/.build-id/%.2s", dir, hex);
			(void)mkdir(at, 0755);
			snprintf(debug_path, sizeof(debug_path), "%s/%s.debug", at, hex + 2);
			CHECK(plant_hostile(debug_path, data[7]), "planting %s", debug_path);
		}
		snprintf(debug_dirs, sizeof(debug_dirs), ":%s", dir);
	} else {
		snprintf(debug_dirs, sizeof(debug_dirs), "%s", dir);
	}
	/* Offsets around the seeds: low, in a typical text segment, and past it. */
	for (size_t i = 0; i < NR_ASKED; i++)
		asked[i] = (uint64_t)data[1 + i % 7] * (i < 8 ? 16 : 4096) + i;

	fds = open_fds();
	{
		ADDRRES_OPTS(addrres_elf_opts, o, .debug_dirs = debug_dirs,
			     .no_lines = (data[0] & F_NO_LINES) != 0,
			     .no_inlines = (data[0] & F_NO_INLINES) != 0);
		ADDRRES_OPTS(addrres_elf_resolve_opts, ro, .elf_addrs = addrs, .section = section);

		CHECK(!addrres_elf__open(&o, &e), "open");
		err = addrres_elf__resolve(e, path, asked, NR_ASKED, syms, &ro);
		CHECK(err <= 0, "resolve returned %d", err);
		if (err) {
			for (size_t i = 0; i < NR_ASKED; i++)
				CHECK(!syms[i], "a failed resolve left answer %zu", i);
			CHECK(addrres_elf__errmsg(e)[0], "a failed resolve left no message");
		} else {
			check_answers(syms, asked, addrs, section);
			CHECK(!addrres_elf_syms__dup(syms, NR_ASKED, &copy), "dup");
			err2 = addrres_elf__resolve(e, path, asked, NR_ASKED, again, &ro);
			CHECK(!err2, "the same offsets again: %d", err2);
			for (size_t i = 0; i < NR_ASKED; i++) {
				CHECK(same_answer(again[i], copy[i]), "offset 0x%llx: another answer the second time",
				      (unsigned long long)asked[i]);
			}
			addrres_elf_syms__free(copy);
		}
		addrres_elf__free(e);
	}
	CHECK(open_fds() == fds, "%d descriptors before, %d after the free", fds, open_fds());
	unlink(path);
	if (debug_path[0])
		remove_hostile(debug_path);
	if (data[0] & F_HOSTILE) {
		char at[256];

		for (size_t i = 0; i < sizeof(hostile_names) / sizeof(hostile_names[0]); i++) {
			snprintf(at, sizeof(at), "%s/%s", dir, hostile_names[i]);
			remove_hostile(at);
		}
	}
	return 0;
}
