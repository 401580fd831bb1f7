// SPDX-License-Identifier: GPL-2.0
/*
 * procmap-batch-loop: the smallest batch a profiler resolves, N times in
 * a row, for perf to sample (bench/upstream-profile.sh): libaddrres's
 * ioctl method opening this process's maps file, resolving one address
 * of its code, closing it.  With -k the maps file stays open and only
 * the query repeats; with -a the address is in an anonymous mapping
 * (no name to return) instead.  Prints the mean time of one.
 *
 *   procmap-batch-loop [-k] [-a] [N]     (N default 20000)
 *
 * Exit status: 0 success, 1 failure, 2 usage.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include <addrres/addrres.h>

#include "bench.h"

/* One address with the set @pm, or, if @pm is NULL, a set of its own. */
static int resolve_one(struct addrres_procmaps *pm, uint64_t addr, char *err, size_t err_sz)
{
	ADDRRES_OPTS(addrres_procmaps_opts, opts, .method = ADDRRES_PROCMAPS_METHOD_IOCTL,
		     .errbuf = err, .errbuf_sz = err_sz);
	struct addrres_procmaps *own = NULL;
	const struct addrres_vma *vma;
	int ret = 0;

	if (!pm) {
		ret = addrres_procmaps__open(&opts, &own);
		pm = own;
	}
	if (!ret)
		ret = addrres_procmaps__resolve(pm, &addr, 1, &vma);
	if (!ret && !vma)
		ret = -ENOENT;
	addrres_procmaps__free(own);
	return ret;
}

int main(int argc, char **argv)
{
	ADDRRES_OPTS(addrres_procmaps_opts, opts, .method = ADDRRES_PROCMAPS_METHOD_IOCTL);
	uint64_t addr = (uintptr_t)&resolve_one, t0;
	struct addrres_procmaps *kept = NULL;
	unsigned long n = 20000;
	char err[256] = "", *end;
	bool keep = false;
	void *anon;
	int c, ret = 0;

	while ((c = getopt(argc, argv, "ka")) != -1) {
		switch (c) {
		case 'k':
			keep = true;
			break;
		case 'a':
			/* one page of its own: a VMA that is not merged with the heap */
			anon = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ,
				    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (anon == MAP_FAILED) {
				perror("procmap-batch-loop: mmap");
				return 1;
			}
			addr = (uintptr_t)anon;
			break;
		default:
			goto usage;
		}
	}
	if (optind < argc) {
		errno = 0;
		n = strtoul(argv[optind], &end, 10);
		if (errno || *end || !n || optind + 1 < argc)
			goto usage;
	}
	if (keep)
		ret = addrres_procmaps__open(&opts, &kept);
	t0 = bench_now_ns();
	for (unsigned long i = 0; !ret && i < n; i++)
		ret = resolve_one(kept, addr, err, sizeof(err));
	if (!ret)
		printf("%s: %lu in %.2f us each\n", keep ? "query on the open maps file" :
		       "open, query, close", n, (double)(bench_now_ns() - t0) / (double)n / 1e3);
	addrres_procmaps__free(kept);
	if (ret)
		fprintf(stderr, "procmap-batch-loop: %s\n", err[0] ? err : strerror(-ret));
	return ret ? 1 : 0;
usage:
	fprintf(stderr, "usage: procmap-batch-loop [-k] [-a] [N]\n");
	return 2;
}
