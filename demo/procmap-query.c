// SPDX-License-Identifier: GPL-2.0
/*
 * What `make run` shows of PROCMAP_QUERY: resolve a few addresses of this
 * process (its code, libc, the heap, the stack) with the ioctl, print each
 * answer the way /proc/self/maps prints the line, with the build ID, and
 * then walk all VMAs with COVERING_OR_NEXT_VMA.
 *
 *   procmap-query [PID]
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>

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

static void print_answer(const char *what, const struct procmap_query *q, const char *name,
			 const unsigned char *build_id)
{
	printf("%-8s %08llx-%08llx %c%c%c%c %08llx %02x:%02x %-8llu %s\n", what,
	       q->vma_start, q->vma_end,
	       q->vma_flags & PROCMAP_QUERY_VMA_READABLE ? 'r' : '-',
	       q->vma_flags & PROCMAP_QUERY_VMA_WRITABLE ? 'w' : '-',
	       q->vma_flags & PROCMAP_QUERY_VMA_EXECUTABLE ? 'x' : '-',
	       q->vma_flags & PROCMAP_QUERY_VMA_SHARED ? 's' : 'p',
	       q->vma_offset, q->dev_major, q->dev_minor, q->inode,
	       q->vma_name_size ? name : "");
	if (q->build_id_size) {
		printf("%-8s build ID ", "");
		for (__u32 i = 0; i < q->build_id_size; i++)
			printf("%02x", build_id[i]);
		printf("\n");
	}
}

int main(int argc, char **argv)
{
	char path[64], name[4096];
	unsigned char build_id[64];
	struct procmap_query q;
	int local, fd, err, n = 0;
	const struct {
		const char *what;
		unsigned long addr;
	} probes[] = {
		{ "main", (unsigned long)main },
		{ "printf", (unsigned long)printf },
		{ "heap", (unsigned long)malloc(16) },
		{ "stack", (unsigned long)&local },
	};

	snprintf(path, sizeof(path), "/proc/%s/maps", argc > 1 ? argv[1] : "self");
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "open %s: %s\n", path, strerror(errno));
		return 1;
	}

	if (argc == 1) {
		printf("PROCMAP_QUERY for addresses of this process:\n");
		for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
			err = query(fd, probes[i].addr, 0, &q, name, sizeof(name),
				    build_id, sizeof(build_id));
			if (err == -ENOTTY) {
				printf("this kernel has no PROCMAP_QUERY (ENOTTY)\n");
				return 0;
			}
			if (err) {
				printf("%-8s %#lx: %s\n", probes[i].what, probes[i].addr,
				       strerror(-err));
				continue;
			}
			print_answer(probes[i].what, &q, name, build_id);
		}
	}

	printf("\nEvery VMA of %s, walked with COVERING_OR_NEXT_VMA:\n", path);
	for (unsigned long addr = 0;; addr = q.vma_end) {
		err = query(fd, addr, PROCMAP_QUERY_COVERING_OR_NEXT_VMA, &q, name,
			    sizeof(name), NULL, 0);
		if (err)
			break;
		print_answer("", &q, name, NULL);
		n++;
	}
	printf("%d VMAs (%s)\n", n, err == -ENOENT ? "ENOENT after the last" : strerror(-err));
	close(fd);
	return err == -ENOENT ? 0 : 1;
}
