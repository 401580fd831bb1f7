// SPDX-License-Identifier: GPL-2.0
/*
 * text-poke-bench: what PERF_RECORD_TEXT_POKE costs a run-time text change,
 * and how fast changes can come before records are lost.
 *
 * The change is a static key flip: writing kernel.sched_schedstats patches
 * every jump label of the sched_schedstats key (one TEXT_POKE record each).
 *  1. Flip cost: the time of one write (one flip), without any text_poke
 *     event open, then with a dummy text_poke event on every CPU whose ring
 *     a reader thread drains; their ratio.
 *  2. Sustained rate: flips back to back for -t seconds with the listener,
 *     for each ring size of -p: records per second and records lost.
 *
 * Prints "key: value" lines (the guest script reads them).  Needs root,
 * CONFIG_SCHEDSTATS and CONFIG_JUMP_LABEL; exits 1 with a message otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "bench.h"

#define SCHEDSTATS "/proc/sys/kernel/sched_schedstats"
#define MAX_CPUS 64

struct listener {
	int nr;
	int fd[MAX_CPUS];
	void *ring[MAX_CPUS];
	size_t data_size;
	unsigned long long pokes, lost;
	atomic_bool stop;
	pthread_t reader;
};

static int schedstats_fd;
static bool schedstats_on;

static void die(const char *what)
{
	fprintf(stderr, "text-poke-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* One static key flip: every sched_schedstats jump label changes. */
static void flip(void)
{
	schedstats_on = !schedstats_on;
	if (pwrite(schedstats_fd, schedstats_on ? "1" : "0", 1, 0) != 1)
		die("writing " SCHEDSTATS);
}

/* Consume one ring: count TEXT_POKE records and the records lost. */
static void drain(struct listener *l, int i)
{
	struct perf_event_mmap_page *pg = l->ring[i];
	const unsigned char *data = (const unsigned char *)pg + pg->data_offset;
	unsigned long long head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
	unsigned long long tail = pg->data_tail;

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail % l->data_size, first = sizeof(h);

		if (first > l->data_size - off)
			first = l->data_size - off;
		memcpy(&h, data + off, first);
		memcpy((char *)&h + first, data, sizeof(h) - first);
		if (h.type == PERF_RECORD_TEXT_POKE) {
			l->pokes++;
		} else if (h.type == PERF_RECORD_LOST) {
			unsigned long long lost;
			size_t at = (tail + 16) % l->data_size;

			/* u64 id at +8, u64 lost at +16: 8-aligned, never split. */
			memcpy(&lost, data + at, sizeof(lost));
			l->lost += lost;
		}
		tail += h.size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

static void *reader(void *arg)
{
	struct listener *l = arg;
	const struct timespec pause = { 0, 100 * 1000 };
	int i;

	while (!atomic_load(&l->stop)) {
		for (i = 0; i < l->nr; i++)
			drain(l, i);
		nanosleep(&pause, NULL);
	}
	for (i = 0; i < l->nr; i++)
		drain(l, i);
	return NULL;
}

static void listener_start(struct listener *l, size_t pages)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
		.sample_id_all = 1,
		.text_poke = 1,
	};
	long page = sysconf(_SC_PAGESIZE);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu;

	memset(l, 0, sizeof(*l));
	l->data_size = pages * page;
	for (cpu = 0; cpu < cpus && cpu < MAX_CPUS; cpu++) {
		l->fd[cpu] = syscall(__NR_perf_event_open, &attr, -1, cpu, -1, 0);
		if (l->fd[cpu] < 0)
			die("perf_event_open(text_poke)");
		l->ring[cpu] = mmap(NULL, (pages + 1) * page, PROT_READ | PROT_WRITE,
				    MAP_SHARED, l->fd[cpu], 0);
		if (l->ring[cpu] == MAP_FAILED)
			die("mmap of the ring");
		l->nr++;
	}
	if (pthread_create(&l->reader, NULL, reader, l))
		die("pthread_create");
}

static void listener_stop(struct listener *l)
{
	long page = sysconf(_SC_PAGESIZE);
	int i;

	atomic_store(&l->stop, true);
	pthread_join(l->reader, NULL);
	for (i = 0; i < l->nr; i++) {
		munmap(l->ring[i], l->data_size + page);
		close(l->fd[i]);
	}
}

/* Microseconds per flip over @n flips. */
static double time_flips(int n)
{
	double t0 = bench_now_us();
	int i;

	for (i = 0; i < n; i++)
		flip();
	return (bench_now_us() - t0) / n;
}

int main(int argc, char **argv)
{
	size_t pages[8] = { 8, 64 };
	int nr_pages = 2, flips = 200, seconds = 5, opt, i;
	bool pages_given = false;
	char orig = '0';
	double bare, listened;
	struct listener l;

	while ((opt = getopt(argc, argv, "n:t:p:")) != -1) {
		switch (opt) {
		case 'n':
			flips = atoi(optarg);
			break;
		case 't':
			seconds = atoi(optarg);
			break;
		case 'p':
			if (!pages_given)
				nr_pages = 0;
			pages_given = true;
			if (nr_pages < 8)
				pages[nr_pages++] = strtoul(optarg, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: %s [-n flips] [-t seconds] [-p ring_pages]...\n",
				argv[0]);
			return 2;
		}
	}
	schedstats_fd = open(SCHEDSTATS, O_RDWR);
	if (schedstats_fd < 0 || pread(schedstats_fd, &orig, 1, 0) != 1)
		die("opening " SCHEDSTATS " (CONFIG_SCHEDSTATS)");
	schedstats_on = orig == '1';

	/* Warm up: the first flips fault in code and data. */
	time_flips(10);
	bare = time_flips(flips);
	listener_start(&l, 64);
	listened = time_flips(flips);
	listener_stop(&l);
	printf("flips: %d\n", flips);
	printf("flip_us_without_listener: %.1f\n", bare);
	printf("flip_us_with_listener: %.1f\n", listened);
	printf("records_per_flip: %.1f\n", (double)l.pokes / flips);
	printf("flip_cost_ratio: %.2f\n", listened / bare);
	if (!l.pokes) {
		fprintf(stderr, "text-poke-bench: no TEXT_POKE record: the kernel reports none\n");
		return 1;
	}

	for (i = 0; i < nr_pages; i++) {
		double t0, elapsed;
		unsigned long long n = 0;

		listener_start(&l, pages[i]);
		t0 = bench_now_us();
		do {
			flip();
			n++;
			elapsed = bench_now_us() - t0;
		} while (elapsed < seconds * 1e6);
		listener_stop(&l);
		printf("ring_pages_%zu: %.0f records/s, %.0f flips/s, %llu records, %llu lost\n",
		       pages[i], l.pokes / (elapsed / 1e6), n / (elapsed / 1e6), l.pokes, l.lost);
	}
	if (schedstats_on != (orig == '1'))
		flip();
	return 0;
}
