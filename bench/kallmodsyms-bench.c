// SPDX-License-Identifier: GPL-2.0
/*
 * kallmodsyms-bench: what reading /proc/kallmodsyms costs against reading
 * /proc/kallsyms, the way `cat` reads them (128 KiB reads, start to end),
 * and what the annotations amount to.
 *
 * The two files take turns in blocks of -b reads for -r rounds; each
 * figure is the median time of one whole read.  Also prints the line
 * count, how many lines carry each annotation form, and the bytes the
 * annotations add.  Prints "key: value" lines.  Exits 1 with a message if
 * a file cannot be read or the two differ in line count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define KALLSYMS	"/proc/kallsyms"
#define KALLMODSYMS	"/proc/kallmodsyms"
#define CHUNK		(128 * 1024)

static char buf[CHUNK];

static void die(const char *what, const char *path)
{
	fprintf(stderr, "kallmodsyms-bench: %s %s: %s\n", what, path, strerror(errno));
	exit(1);
}

/* One whole read of @path; returns its size, adds its time to *@us. */
static size_t read_once(const char *path, double *us)
{
	double start = bench_now_us();
	size_t total = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open", path);
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += n;
	if (n < 0)
		die("read", path);
	close(fd);
	*us = bench_now_us() - start;
	return total;
}

/*
 * Count lines and the annotation forms of /proc/kallmodsyms, reading
 * /proc/kallsyms alongside: a line of it with a tab is not the core
 * kernel's, and its "[mod]" is kallsyms' own.
 */
static void count_annotations(void)
{
	unsigned long lines = 0, one = 0, several = 0, object = 0, both = 0;
	unsigned long annotation_bytes = 0;
	FILE *mods = fopen(KALLMODSYMS, "r"), *syms = fopen(KALLSYMS, "r");
	char line[4096], plain[4096];

	if (!mods)
		die("open", KALLMODSYMS);
	if (!syms)
		die("open", KALLSYMS);
	while (fgets(line, sizeof(line), mods)) {
		const char *tab = strchr(line, '\t');

		if (!fgets(plain, sizeof(plain), syms))
			break;
		lines++;
		if (!tab || strchr(plain, '\t'))
			continue;
		if (tab[1] == '[' && strstr(tab, "] ["))
			several++;
		else if (tab[1] == '[')
			one++;
		if (strchr(tab, '{') && tab[1] == '[')
			both++;
		else if (strchr(tab, '{'))
			object++;
		annotation_bytes += strlen(tab) - 1;
	}
	if (fgets(line, sizeof(line), mods) || fgets(plain, sizeof(plain), syms)) {
		fprintf(stderr, "kallmodsyms-bench: %s and %s differ in line count\n",
			KALLSYMS, KALLMODSYMS);
		exit(1);
	}
	fclose(mods);
	fclose(syms);
	printf("lines: %lu\n", lines);
	printf("lines_with_one_module: %lu\n", one);
	printf("lines_with_several_modules: %lu\n", several);
	printf("lines_with_object_only: %lu\n", object);
	printf("lines_with_modules_and_object: %lu\n", both);
	printf("annotation_bytes: %lu\n", annotation_bytes);
}

int main(int argc, char **argv)
{
	int rounds = 5, block = 4, opt, i, j, n = 0;
	double *t_syms, *t_mods, us;
	size_t size_syms = 0, size_mods = 0;

	while ((opt = getopt(argc, argv, "r:b:")) != -1) {
		if (opt == 'r')
			rounds = atoi(optarg);
		else if (opt == 'b')
			block = atoi(optarg);
		else
			goto usage;
	}
	if (rounds < 1 || block < 1)
		goto usage;

	t_syms = calloc(rounds * block, sizeof(double));
	t_mods = calloc(rounds * block, sizeof(double));
	if (!t_syms || !t_mods)
		die("allocate", "timings");

	/* One read of each first, untimed: both files' code paths warm. */
	read_once(KALLSYMS, &us);
	read_once(KALLMODSYMS, &us);
	for (i = 0; i < rounds; i++) {
		for (j = 0; j < block; j++)
			size_syms = read_once(KALLSYMS, &t_syms[n + j]);
		for (j = 0; j < block; j++)
			size_mods = read_once(KALLMODSYMS, &t_mods[n + j]);
		n += block;
	}

	count_annotations();
	printf("kallsyms_bytes: %zu\n", size_syms);
	printf("kallmodsyms_bytes: %zu\n", size_mods);
	printf("reads_each: %d\n", n);
	printf("kallsyms_us_per_read: %.0f\n", bench_median(t_syms, n));
	printf("kallmodsyms_us_per_read: %.0f\n", bench_median(t_mods, n));
	printf("ratio: %.2f\n", bench_median(t_mods, n) / bench_median(t_syms, n));
	return 0;

usage:
	fprintf(stderr, "usage: kallmodsyms-bench [-r rounds] [-b reads per block]\n");
	return 2;
}
