// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The BPF side of `addrres count`: one counter of the calls of the kernel
 * function that the command attached to, by address.  Two programs for the
 * two ways of attaching by address: a kprobe.multi link (Linux 5.18 and
 * CONFIG_FPROBE: x86_64's 6.1 has it, arm64's does not) and a kprobe perf
 * event (any kernel with the kprobe PMU).  The command loads the one it
 * attaches.
 */
#include <linux/types.h>
#include <bpf/bpf_helpers.h>

/* In .bss: the command reads it through the skeleton's mapping. */
__u64 calls;

SEC("kprobe")
int count_kprobe(void *ctx __attribute__((unused)))
{
	__sync_fetch_and_add(&calls, 1);
	return 0;
}

SEC("kprobe.multi")
int count_kprobe_multi(void *ctx __attribute__((unused)))
{
	__sync_fetch_and_add(&calls, 1);
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
