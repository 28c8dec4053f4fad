/*
 * first_touch.c: what writing fresh memory costs on this machine, the first
 * time and again (bench/index.sh prints it beside the absent-key timings).
 * A new backend's first query that copies a filter writes that many fresh
 * bytes; on a virtual machine whose memory the host backs on first touch,
 * that costs far more than on bare metal.
 *
 *   first_touch MEGABYTES
 * prints: "<ms first touch> <ms second touch>"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int
main(int argc, char **argv)
{
	size_t bytes = (size_t) (argc > 1 ? atof(argv[1]) : 5.0) * 1024 * 1024;
	volatile unsigned char *p;
	double t0, t1, t2;

	/* mmap: pages the process never touched, as glibc's malloc gives a large block */
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	t0 = now_ms();
	memset((void *) p, 1, bytes);
	t1 = now_ms();
	memset((void *) p, 2, bytes);
	t2 = now_ms();
	printf("%.2f %.2f\n", t1 - t0, t2 - t1);
	return p[bytes / 2] == 2 ? 0 : 1;
}
