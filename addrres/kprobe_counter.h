/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A counter of the calls of one kernel function, attached by address with
 * a BPF kprobe through libbpf (kprobe_counter.c), for `addrres count`.
 * Built without libbpf (BPF=0), kprobe_counter__open() fails with
 * -EOPNOTSUPP (kprobe_counter_none.c).
 */
#ifndef ADDRRES_KPROBE_COUNTER_H
#define ADDRRES_KPROBE_COUNTER_H

#include <stddef.h>
#include <stdint.h>

enum kprobe_counter_method {
	KPROBE_COUNTER_AUTO,	/* kprobe.multi, else a kprobe perf event */
	KPROBE_COUNTER_MULTI,	/* a kprobe.multi link with the address */
	KPROBE_COUNTER_PERF,	/* a kprobe perf event with the address */
};

struct kprobe_counter;

/**
 * kprobe_counter__open() - count the calls of the function at an address
 * @addr: the function's address, as /proc/kallmodsyms gives it
 * @method: how to attach
 * @counterp: where to store the counter, counting from now on
 * @err: a message on failure, naming what failed and why
 * @err_size: the size of @err
 *
 * Return: 0; -EOPNOTSUPP when the kernel cannot attach by @method
 * (kprobe.multi without CONFIG_FPROBE) or addrres was built without
 * libbpf; -EPERM or -EACCES without CAP_BPF and CAP_PERFMON (or root);
 * -ENOMEM; or the negative errno of loading or attaching.
 */
int kprobe_counter__open(uint64_t addr, enum kprobe_counter_method method,
			 struct kprobe_counter **counterp, char *err, size_t err_size);

/* The calls counted so far. */
uint64_t kprobe_counter__calls(const struct kprobe_counter *counter);

/* How the counter attached: KPROBE_COUNTER_MULTI or KPROBE_COUNTER_PERF. */
enum kprobe_counter_method kprobe_counter__method(const struct kprobe_counter *counter);

/* Detach and free; NULL does nothing. */
void kprobe_counter__free(struct kprobe_counter *counter);

#endif
