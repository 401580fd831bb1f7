// SPDX-License-Identifier: GPL-2.0
/*
 * A BPF program that keeps a CPU busy in its own code, for perf to sample:
 * tests/perf/guest.sh loads it with bpftool and runs it with
 * `bpftool prog run ... repeat N`.  A socket filter, so that the kernel's
 * BPF_PROG_TEST_RUN runs it with no attach point.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("socket")
int addrres_spin(struct __sk_buff *skb)
{
	__u32 x = skb->len;
	int i;

	/* Bounded, so that the verifier can walk it. */
	for (i = 0; i < 2048; i++)
		x = x * 31 + i;
	return x & 1;
}

char _license[] SEC("license") = "GPL";
