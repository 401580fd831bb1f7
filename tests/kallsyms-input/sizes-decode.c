// SPDX-License-Identifier: GPL-2.0
/*
 * Decode the symbol sizes of scripts/kallsyms' output with the kernel's own
 * decoder (kernel/kallmodsyms_sizes.h of the tree), as /proc/kallmodsyms
 * would: check them first, then print one size per symbol, all 0 if the
 * check failed.  Reads, one per line, the tables out of out.S as
 * sizes-tables.awk writes them:
 *
 *   pad_bits N | nbits N | distance_sum N | marker N | byte N | distance N
 *
 * Prints "trusted" or "untrusted from symbol N", then the sizes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t u8;
typedef uint32_t u32;

#include "kallmodsyms_sizes.h"

struct table {
	unsigned long *v;
	size_t n, cap;
};

static void add(struct table *t, unsigned long v)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->v = realloc(t->v, t->cap * sizeof(*t->v));
		if (!t->v) {
			perror("sizes-decode");
			exit(2);
		}
	}
	t->v[t->n++] = v;
}

static unsigned long distance(u32 i, void *data)
{
	return ((struct table *)data)->v[i];
}

int main(void)
{
	struct table markers = {}, bytes = {}, distances = {};
	struct kallmodsyms_sizes s = {};
	char key[32];
	unsigned long v;
	u32 *marker_v, bit = 0, from, i;
	u8 *byte_v;
	int line = 0;

	while (scanf("%31s %lu", key, &v) == 2) {
		line++;
		if (!strcmp(key, "pad_bits"))
			s.pad_bits = v;
		else if (!strcmp(key, "nbits"))
			s.nbits = v;
		else if (!strcmp(key, "distance_sum"))
			s.distance_sum = v;
		else if (!strcmp(key, "marker"))
			add(&markers, v);
		else if (!strcmp(key, "byte"))
			add(&bytes, v);
		else if (!strcmp(key, "distance"))
			add(&distances, v);
		else {
			fprintf(stderr, "sizes-decode: stdin:%d: unknown key %s\n", line, key);
			return 2;
		}
	}
	/* The kernel's tables are exactly as long as the build made them. */
	marker_v = calloc(markers.n + 1, sizeof(*marker_v));
	byte_v = calloc(bytes.n + 1, 1);
	if (!marker_v || !byte_v)
		return 2;
	for (i = 0; i < markers.n; i++)
		marker_v[i] = markers.v[i];
	for (i = 0; i < bytes.n; i++)
		byte_v[i] = bytes.v[i];
	s.bits = byte_v;
	s.markers = marker_v;
	s.num_syms = distances.n;
	if (markers.n != (s.num_syms + KALLMODSYMS_SIZES_PER_MARKER - 1) / KALLMODSYMS_SIZES_PER_MARKER ||
	    s.nbits > 8 * bytes.n) {
		fprintf(stderr, "sizes-decode: %zu markers and %zu bytes for %u symbols and %u bits\n",
			markers.n, bytes.n, s.num_syms, s.nbits);
		return 2;
	}

	from = kallmodsyms_sizes_check(&s, distance, &distances);
	if (from == s.num_syms)
		printf("trusted\n");
	else
		printf("untrusted from symbol %u\n", from);
	for (i = 0; i < s.num_syms; i++) {
		unsigned long size = 0;

		if (from == s.num_syms &&
		    !kallmodsyms_decode_size(&s, &bit, distances.v[i], &size)) {
			fprintf(stderr, "sizes-decode: symbol %u checked but not decoded\n", i);
			return 2;
		}
		printf("%lu\n", size);
	}
	free(marker_v);
	free(byte_v);
	free(markers.v);
	free(bytes.v);
	free(distances.v);
	return 0;
}
