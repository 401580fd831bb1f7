// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* kprobe_counter.h for a build without libbpf (BPF=0). */
#include <errno.h>
#include <stdio.h>

#include "kprobe_counter.h"

int kprobe_counter__open(uint64_t addr, enum kprobe_counter_method method,
			 struct kprobe_counter **counterp, char *err, size_t err_size)
{
	(void)addr;
	(void)method;
	*counterp = NULL;
	snprintf(err, err_size, "addrres was built without libbpf (BPF=0): it cannot attach BPF programs");
	return -EOPNOTSUPP;
}

uint64_t kprobe_counter__calls(const struct kprobe_counter *counter)
{
	(void)counter;
	return 0;
}

enum kprobe_counter_method kprobe_counter__method(const struct kprobe_counter *counter)
{
	(void)counter;
	return KPROBE_COUNTER_AUTO;
}

void kprobe_counter__free(struct kprobe_counter *counter)
{
	(void)counter;
}
