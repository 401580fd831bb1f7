// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * kprobe_counter.h with libbpf: count.bpf.c's programs, loaded from the
 * skeleton that bpftool generates at build time, attached at an address
 * rather than a name, so that the copy of a function that
 * /proc/kallmodsyms names is the one counted, whatever other functions
 * share its name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "kprobe_counter.h"
#include "count.skel.h"

struct kprobe_counter {
	struct addrres_count *skel;
	struct bpf_link *link;
	enum kprobe_counter_method method;
};

/* libbpf's last warning while opening, for the error message. */
static char libbpf_warning[256];

static int keep_warning(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN) {
		vsnprintf(libbpf_warning, sizeof(libbpf_warning), fmt, ap);
		libbpf_warning[strcspn(libbpf_warning, "\n")] = '\0';
	}
	return 0;
}

static const char *method_name(enum kprobe_counter_method method)
{
	return method == KPROBE_COUNTER_MULTI ? "a kprobe.multi link" : "a kprobe perf event";
}

static void set_err(char *err, size_t size, enum kprobe_counter_method method,
		    const char *what, int ret)
{
	const char *why = "";

	if (ret == -EPERM || ret == -EACCES)
		why = " (BPF kprobes need CAP_BPF and CAP_PERFMON, or root)";
	else if (ret == -EOPNOTSUPP && method == KPROBE_COUNTER_MULTI)
		why = " (this kernel has no kprobe.multi: CONFIG_FPROBE)";
	/* libbpf's messages start with "libbpf: ". */
	snprintf(err, size, "%s with %s: %s%s%s%s", what, method_name(method), strerror(-ret), why,
		 libbpf_warning[0] ? "; " : "", libbpf_warning);
}

/*
 * Whether this kernel has kprobes (CONFIG_KPROBES): libbpf makes a kprobe
 * perf event through the kprobe PMU, else through tracefs' kprobe_events.
 * Without both, its attach fails with ENOENT and a message about
 * "(null)+0x...": the kernel feature is what is missing, and is said so.
 */
static bool kernel_has_kprobes(void)
{
	return !access("/sys/bus/event_source/devices/kprobe/type", F_OK) ||
	       !access("/sys/kernel/tracing/kprobe_events", F_OK) ||
	       !access("/sys/kernel/debug/tracing/kprobe_events", F_OK);
}

/* Load the one program METHOD needs and attach it at ADDR. */
static int counter__attach(struct kprobe_counter *c, uint64_t addr,
			   enum kprobe_counter_method method, char *err, size_t err_size)
{
	struct bpf_program *multi, *single;
	int ret;

	c->method = method;
	if (method == KPROBE_COUNTER_PERF && !kernel_has_kprobes()) {
		snprintf(err, err_size,
			 "this kernel has no kprobes (CONFIG_KPROBES): no kprobe PMU in /sys/bus/event_source/devices, no kprobe_events in tracefs");
		return -EOPNOTSUPP;
	}
	c->skel = addrres_count__open();
	if (!c->skel) {
		ret = -errno;
		set_err(err, err_size, method, "opening the BPF object", ret);
		return ret;
	}
	multi = c->skel->progs.count_kprobe_multi;
	single = c->skel->progs.count_kprobe;
	bpf_program__set_autoload(method == KPROBE_COUNTER_MULTI ? single : multi, false);
	ret = addrres_count__load(c->skel);
	if (ret) {
		set_err(err, err_size, method, "loading the BPF program", ret);
		return ret;
	}
	if (method == KPROBE_COUNTER_MULTI) {
		unsigned long addrs[1] = { addr };
		LIBBPF_OPTS(bpf_kprobe_multi_opts, opts, .addrs = addrs, .cnt = 1);

		c->link = bpf_program__attach_kprobe_multi_opts(multi, NULL, &opts);
	} else {
		/* No name: the kernel takes the offset as the address. */
		LIBBPF_OPTS(bpf_kprobe_opts, opts, .offset = addr);

		c->link = bpf_program__attach_kprobe_opts(single, NULL, &opts);
	}
	if (!c->link) {
		ret = -errno;
		set_err(err, err_size, method, "attaching at the address", ret);
		return ret;
	}
	return 0;
}

static void counter__detach(struct kprobe_counter *c)
{
	bpf_link__destroy(c->link);
	c->link = NULL;
	addrres_count__destroy(c->skel);
	c->skel = NULL;
}

int kprobe_counter__open(uint64_t addr, enum kprobe_counter_method method,
			 struct kprobe_counter **counterp, char *err, size_t err_size)
{
	libbpf_print_fn_t old_print = libbpf_set_print(keep_warning);
	struct kprobe_counter *c;
	int ret;

	*counterp = NULL;
	libbpf_warning[0] = '\0';
	c = calloc(1, sizeof(*c));
	if (!c) {
		libbpf_set_print(old_print);
		snprintf(err, err_size, "out of memory");
		return -ENOMEM;
	}
	ret = counter__attach(c, addr, method == KPROBE_COUNTER_PERF ? method : KPROBE_COUNTER_MULTI,
			      err, err_size);
	/*
	 * kprobe.multi needs CONFIG_FPROBE and an ftrace call site at the
	 * address; a kprobe needs neither.  Permission and memory are the
	 * same for both: no second try.
	 */
	if (ret && method == KPROBE_COUNTER_AUTO && ret != -EPERM && ret != -EACCES &&
	    ret != -ENOMEM) {
		char first[256];
		size_t len;

		snprintf(first, sizeof(first), "%s", err);
		counter__detach(c);
		libbpf_warning[0] = '\0';
		ret = counter__attach(c, addr, KPROBE_COUNTER_PERF, err, err_size);
		len = strlen(err);
		if (ret && len < err_size)
			snprintf(err + len, err_size - len, " (before it, %s)", first);
	}
	libbpf_set_print(old_print);
	if (ret) {
		kprobe_counter__free(c);
		return ret;
	}
	*counterp = c;
	return 0;
}

uint64_t kprobe_counter__calls(const struct kprobe_counter *counter)
{
	return __atomic_load_n(&counter->skel->bss->calls, __ATOMIC_RELAXED);
}

enum kprobe_counter_method kprobe_counter__method(const struct kprobe_counter *counter)
{
	return counter->method;
}

void kprobe_counter__free(struct kprobe_counter *counter)
{
	if (!counter)
		return;
	counter__detach(counter);
	free(counter);
}
