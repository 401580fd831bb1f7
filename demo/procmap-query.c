// SPDX-License-Identifier: GPL-2.0
/*
 * What `make run` shows of PROCMAP_QUERY: resolve a few addresses of this
 * process (its code, libc, the heap, the stack) with libaddrres (which
 * uses the ioctl, and says so, or the maps text on kernels without it),
 * print each answer the way /proc/self/maps prints the line, with the
 * build ID, and then walk all VMAs with the bare ioctl and
 * COVERING_OR_NEXT_VMA.
 *
 *   procmap-query [PID]
 */
#include <errno.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>

#include <addrres/addrres.h>

static int query(int fd, unsigned long addr, __u64 flags, struct procmap_query *q,
		 char *name, size_t name_size, unsigned char *build_id, size_t id_size)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->query_flags = flags;
	q->query_addr = addr;
	q->vma_name_addr = (unsigned long)name;
	q->vma_name_size = name_size;
	q->build_id_addr = (unsigned long)build_id;
	q->build_id_size = id_size;
	return ioctl(fd, PROCMAP_QUERY, q) ? -errno : 0;
}

static void print_line(const char *what, unsigned long long start, unsigned long long end,
		       unsigned long long flags, unsigned long long offset, unsigned int major,
		       unsigned int minor, unsigned long long inode, const char *name)
{
	printf("%-8s %08llx-%08llx %c%c%c%c %08llx %02x:%02x %-8llu %s\n", what, start, end,
	       flags & PROCMAP_QUERY_VMA_READABLE ? 'r' : '-',
	       flags & PROCMAP_QUERY_VMA_WRITABLE ? 'w' : '-',
	       flags & PROCMAP_QUERY_VMA_EXECUTABLE ? 'x' : '-',
	       flags & PROCMAP_QUERY_VMA_SHARED ? 's' : 'p', offset, major, minor, inode, name);
}

static void print_vma(const char *what, const struct addrres_vma *v)
{
	print_line(what, v->start, v->end, v->flags, v->offset, v->dev_major, v->dev_minor,
		   v->inode, v->name);
	if (v->build_id_size) {
		printf("%-8s build ID ", "");
		for (size_t i = 0; i < v->build_id_size; i++)
			printf("%02x", v->build_id[i]);
		printf("\n");
	}
}

/* The probes of this process, resolved in one batch by libaddrres. */
static int resolve_probes(const char *const *what, const uint64_t *addrs, size_t n)
{
	const struct addrres_vma *vmas[8];
	struct addrres_procmaps *pm;
	char msg[256];
	int err;
	ADDRRES_OPTS(addrres_procmaps_opts, opts, .build_ids = true, .errbuf = msg,
		     .errbuf_sz = sizeof(msg));

	err = addrres_procmaps__open(&opts, &pm);
	if (!err)
		err = addrres_procmaps__resolve(pm, addrs, n, vmas);
	if (err) {
		fprintf(stderr, "libaddrres: %s\n", msg);
		addrres_procmaps__free(pm);
		return err;
	}
	printf("libaddrres, addresses of this process (method: %s):\n",
	       addrres_procmaps__method(pm) == ADDRRES_PROCMAPS_METHOD_IOCTL ?
	       "PROCMAP_QUERY" : "the maps text, this kernel has no PROCMAP_QUERY");
	for (size_t i = 0; i < n; i++) {
		if (vmas[i])
			print_vma(what[i], vmas[i]);
		else
			printf("%-8s %#llx: not mapped\n", what[i], (unsigned long long)addrs[i]);
	}
	addrres_procmaps__free(pm);
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const what[] = { "main", "printf", "heap", "stack" };
	char path[64], name[4096];
	struct procmap_query q;
	int local, fd, err, n = 0;
	const uint64_t addrs[] = {
		(uintptr_t)main, (uintptr_t)printf, (uintptr_t)malloc(16), (uintptr_t)&local,
	};

	if (argc == 1 && resolve_probes(what, addrs, sizeof(addrs) / sizeof(addrs[0])))
		return 1;

	snprintf(path, sizeof(path), "/proc/%s/maps", argc > 1 ? argv[1] : "self");
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", path, strerror(errno));
		return 1;
	}
	printf("\nEvery VMA of %s, walked with the bare ioctl and COVERING_OR_NEXT_VMA:\n", path);
	for (unsigned long addr = 0;; addr = q.vma_end) {
		err = query(fd, addr, PROCMAP_QUERY_COVERING_OR_NEXT_VMA, &q, name, sizeof(name),
			    NULL, 0);
		if (err)
			break;
		print_line("", q.vma_start, q.vma_end, q.vma_flags, q.vma_offset, q.dev_major,
			   q.dev_minor, q.inode, q.vma_name_size ? name : "");
		n++;
	}
	close(fd);
	if (err == -ENOTTY) {
		printf("this kernel has no PROCMAP_QUERY (ENOTTY)\n");
		return 0;
	}
	printf("%d VMAs (%s)\n", n, err == -ENOENT ? "ENOENT after the last" : strerror(-err));
	return err == -ENOENT ? 0 : 1;
}
