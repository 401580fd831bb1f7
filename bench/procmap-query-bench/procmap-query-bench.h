/* SPDX-License-Identifier: GPL-2.0 */
/*
 * procmap-query-bench: what its files share (see procmap-query-bench.c).
 */
#ifndef PROCMAP_QUERY_BENCH_H
#define PROCMAP_QUERY_BENCH_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <link.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <addrres/addrres.h>
/* The project's pinned copy of the UAPI: the host's headers may lack it. */
#include <addrres/procmap_query.h>

#include "../bench.h"

#ifndef PR_SET_VMA
#define PR_SET_VMA		0x53564d41
#define PR_SET_VMA_ANON_NAME	0
#endif

#define MAPS_PATH		"/proc/self/maps"
#define NR_EXE_COPIES		3
#define NR_FILES		(NR_EXE_COPIES + 1)	/* + one non-ELF file */
#define FILE_MIN_SIZE		(1u << 20)
#define MAX_VMA_PAGES		8
#define MIN_CREATED_VMAS	16
#define ANON_NAME		"procmap-bench"
#define RNG_SEED		0x70726f636d6170ull	/* fixed: same set each run */
#define EXIT_SKIP		4
/* System calls per timed run of a probe: one alone is below the clock's reach. */
#define PROBE_CALLS		16
/* A command no /proc/PID/maps knows: the ioctl path up to the file's handler. */
#define UNKNOWN_MAPS_IOCTL	_IO('f', 0x7f)

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* The VMA counts of measurement 3. */
#define NR_SCALES	3
extern const long scale_targets[NR_SCALES];

extern long page_size;

struct opts {
	unsigned int runs;
	long vmas;
	size_t naddrs;
	size_t read_size;	/* of the library's text method */
	size_t spread;		/* draw addresses from this many VMAs, 0 = all */
	size_t distinct;	/* distinct addresses among naddrs, 0 = all */
	bool code_only;		/* draw only from private file mappings */
	bool quick;
	unsigned int scale_rounds;
	size_t scale_queries;
};

/*
 * The tool published with the upstream series read the text this way,
 * and upstream's 35x was measured against it, so the bench keeps it as
 * the reference.  It is not library code: every other method is.
 */
struct stdio_vma {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	uint32_t flags;		/* ADDRRES_VMA_* */
	size_t name_off;	/* into stdio_result.names */
};

/* What one stdio run found: for every address, the VMA holding it. */
struct stdio_result {
	int32_t *vma_of;	/* per address; -1 = not mapped */
	struct stdio_vma *vmas;
	size_t nr_vmas;
	size_t cap_vmas;
	char *names;
	size_t names_len;
	size_t names_cap;
};

struct file_set {
	char dir[PATH_MAX];
	char path[NR_FILES][PATH_MAX];
	int fd[NR_FILES];
	uint64_t pages[NR_FILES];
	bool is_exe[NR_FILES];
};

enum vma_kind { KIND_ANON, KIND_FILE_PRIVATE, KIND_FILE_SHARED, KIND_HOLE };

/* One planned VMA, and what every method must report for it. */
struct layout_vma {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	uint32_t flags;
	enum vma_kind kind;
	int file;		/* index in file_set, -1 if anonymous */
	bool named;		/* anonymous VMA named with PR_SET_VMA */
	const char *name;	/* expected name, "" if none */
};

struct layout {
	char *base;		/* reservation, PROT_NONE guard page each end */
	size_t len;
	struct layout_vma *vmas;
	size_t nr;
	size_t nr_anon, nr_named, nr_file, nr_holes;
};

/* One method's answers to a batch: the library's or the reference's. */
struct answers {
	const char *who;
	const struct addrres_vma *const *vmas;	/* the library's, or NULL */
	const struct stdio_result *stdio;	/* else the reference's */
};

/* Larger than any the kernel reports (20): our own is compared in full. */
#define SELF_BUILD_ID_MAX	64

struct build_id {
	unsigned char data[SELF_BUILD_ID_MAX];
	size_t size;
};

struct scale_result {
	int err;
	long target;
	bool ioctl;		/* PROCMAP_QUERY works: time the queries too */
	bool named;		/* the VMAs map a file, so queries return a path */
	long vmas;		/* VMAs the child really had */
	double query_ns;
	double msync_ns;	/* the base's lock and VMA lookup, no query */
	double read_us;		/* reading the whole maps text once (anonymous) */
	double text_us;		/* the library's text method over all of it */
};

struct results {
	bool ioctl_ok;
	long vmas;
	size_t naddrs;
	size_t distinct;
	size_t vmas_hit;
	size_t text_lines;	/* maps lines the text method read */
	double text_us;
	double text_stdio_us;
	double ioctl_us;
	size_t ioctl_queries;
	double ioctl_queries_us;	/* the queries alone, on a set kept open */
	double auto_us;
	/* open() and close() alone, of the maps file and of two others */
	double open_maps_us, open_status_us, open_null_us;
	/* M_IOCTL's queries as bare ioctl()s: with open() + close(), without */
	double raw_batch_us, raw_queries_us;
	double null_syscall_ns, unknown_ioctl_ns;	/* per call */
	size_t auto_queries;
	size_t auto_text_lines;
	enum addrres_procmaps_method auto_method;	/* what answered */
	struct scale_result scale[NR_SCALES];
	struct scale_result named_scale[NR_SCALES];
	bool bid_ok;
	size_t bid_addrs;
	size_t bid_queries;
	double bid_plain_ns;
	double bid_ns;
	size_t bid_found;
	size_t bid_expected;
	size_t bid_text_found;	/* the same from the text method (libelf) */
};

/*
 * What is timed.  A run of a library method is what a profiler does with
 * a batch: addrres_procmaps__open() of this process, __resolve(), __free().
 */
enum method {
	M_TEXT,			/* measurement 1: every address */
	M_TEXT_STDIO,		/* the reference, not the library */
	M_IOCTL,
	M_AUTO,
	M_IOCTL_KEPT_OPEN,	/* M_IOCTL's resolve on a set opened once */
	M_OPEN_MAPS,		/* what a run pays around its queries: */
	M_OPEN_STATUS,		/* open() and close() of the maps file, */
	M_OPEN_NULL,		/* of another proc file, of /dev/null */
	M_RAW_BATCH,		/* M_IOCTL's queries as bare ioctl()s, with */
	M_RAW_QUERIES,		/* open() + close() and on a file kept open */
	M_NULL_SYSCALL,		/* probes of the base: PROBE_CALLS getppid()s, */
	M_UNKNOWN_IOCTL,	/* ioctl()s the maps file refuses */
	M_FILE_IOCTL,		/* measurement 2: addresses in file VMAs */
	M_FILE_IOCTL_BUILD_ID,
	NR_METHODS,
};

/* Everything the measurements share. */
struct bench {
	struct opts opts;
	struct file_set files;
	struct layout layout;
	struct stdio_result by_stdio;
	uint64_t *addrs;
	uint64_t *file_addrs;
	size_t nr_file_addrs;
	const struct addrres_vma **run_vmas;	/* timed runs' answers, unread */
	struct addrres_procmaps *kept_open;	/* M_IOCTL_KEPT_OPEN's set */
	uint64_t *raw_addrs;	/* one address in each VMA M_IOCTL queries */
	size_t nr_raw;
	int raw_fd;		/* M_RAW_QUERIES's and M_UNKNOWN_IOCTL's maps file */
	char raw_name[PATH_MAX];
	double *times[NR_METHODS];
	struct build_id self_id;
	struct results res;
	struct utsname uts;
	char errbuf[512];	/* the library's last message */
};

/* layout.c: the files to map, the VMA layout of the main comparison, the addresses */
void file_set__init(struct file_set *fs);
int file_set__create(struct file_set *fs);
void file_set__destroy(struct file_set *fs);
int layout__create(struct layout *lo, size_t want,
		   const struct file_set *fs, struct bench_rng *rng);
void layout__destroy(struct layout *lo);
const struct layout_vma *layout__lookup(const struct layout *lo,
					uint64_t addr);
size_t addrs__count_distinct(const uint64_t *sorted, size_t n);
int addrs__generate(const struct layout *lo, uint64_t *addrs,
		    const struct opts *o, struct bench_rng *rng);

/* text.c: the reference, the maps text through stdio and fscanf() */
int stdio_result__init(struct stdio_result *r, size_t naddrs);
void stdio_result__free(struct stdio_result *r);
int text_stdio__resolve(const uint64_t *addrs, size_t n,
			struct stdio_result *res);

/* verify.c: the checks that every method gives the same answers, build IDs included */
int verify__layout(const struct layout *lo, const struct file_set *fs,
		   const uint64_t *addrs, size_t n, const struct answers *a);
int verify__same(const uint64_t *addrs, size_t n, const struct answers *a,
		 const struct answers *b);
size_t layout__count_hit(const struct layout *lo, const uint64_t *addrs,
			 size_t n);
int self_build_id__phdr(struct dl_phdr_info *info, size_t sz, void *data);
int verify__build_ids(const struct answers *a, size_t n,
		      const struct layout *lo,
		      const struct file_set *fs, const struct build_id *self,
		      size_t *found, size_t *expected);

/* scale.c: measurement 3, the cost of one query against the number of VMAs */
int bench__scale(struct bench *b);

/* procmap-query-bench.c: helpers, options, measurements 1 and 2, output */
int cmp_u64(const void *a, const void *b);
int write_all(int fd, const void *buf, size_t len);
void flags__format(uint32_t flags, char out[5]);
long maps__count_vmas(void);

#endif /* PROCMAP_QUERY_BENCH_H */
