// SPDX-License-Identifier: GPL-2.0
/*
 * fentry-load-bench: what loading an fentry program costs, the figure the
 * refusal of ambiguous names (bpf_check_attach_target() counting the
 * name's functions) is weighed by.  Loads -n programs ("r0 = 0; exit",
 * libbpf's low-level API) on the vmlinux BTF FUNC -f, closing each, in -r
 * rounds, and prints the median time of one load over the rounds, with
 * the number of modules loaded (their symbols are what the first version
 * of the refusal walked).  Prints "key: value" lines.  Exits 1 with a
 * message if the function is not in BTF or a load fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>

#include "bench.h"

static int load_fentry(__u32 btf_id)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = btf_id);

	return bpf_prog_load(BPF_PROG_TYPE_TRACING, "fentry_bench", "GPL", insns,
			     sizeof(insns) / sizeof(insns[0]), &opts);
}

static unsigned int count_modules(void)
{
	unsigned int n = 0;
	char *line = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/modules", "re");

	if (!f)
		return 0;
	while (getline(&line, &cap, f) > 0)
		n++;
	free(line);
	fclose(f);
	return n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *func = "vfs_read";
	unsigned int loads = 1000, rounds = 5, r, i;
	double *per_load;
	struct btf *btf;
	int opt, id;

	while ((opt = getopt(argc, argv, "f:n:r:")) != -1) {
		switch (opt) {
		case 'f':
			func = optarg;
			break;
		case 'n':
			loads = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			rounds = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-f FUNCTION] [-n LOADS] [-r ROUNDS]\n", argv[0]);
			return 2;
		}
	}
	if (!loads || !rounds || bench_clock_check())
		return 2;
	btf = btf__load_vmlinux_btf();
	if (!btf) {
		fprintf(stderr, "fentry-load-bench: vmlinux BTF: %s\n", strerror(errno));
		return 1;
	}
	id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	btf__free(btf);
	if (id <= 0) {
		fprintf(stderr, "fentry-load-bench: no BTF FUNC %s\n", func);
		return 1;
	}
	per_load = calloc(rounds, sizeof(*per_load));
	if (!per_load)
		return 1;
	for (r = 0; r < rounds; r++) {
		double start = bench_now_us();

		for (i = 0; i < loads; i++) {
			int fd = load_fentry(id);

			if (fd < 0) {
				fprintf(stderr, "fentry-load-bench: fentry on %s: %s\n", func,
					strerror(errno));
				free(per_load);
				return 1;
			}
			close(fd);
		}
		per_load[r] = (bench_now_us() - start) / loads;
	}
	qsort(per_load, rounds, sizeof(*per_load), cmp_double);
	printf("function: %s\n", func);
	printf("modules_loaded: %u\n", count_modules());
	printf("loads_per_round: %u\n", loads);
	printf("rounds: %u\n", rounds);
	printf("us_per_load_median: %.1f\n", per_load[rounds / 2]);
	printf("us_per_load_min: %.1f\n", per_load[0]);
	printf("us_per_load_max: %.1f\n", per_load[rounds - 1]);
	free(per_load);
	return 0;
}
