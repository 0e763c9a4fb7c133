// One probe of scripts/bench/idle.sh, in a process of its own: prints the milliseconds it took to
//   touch huge|small   write one byte in each 4 KiB page of 16 MiB of fresh memory, asked for
//                      transparent huge pages (MADV_HUGEPAGE) or not (MADV_NOHUGEPAGE)
//   read FILE          read FILE in 1 MiB reads
// In C rather than Python: Python's own start-up (some 20 ms of allocating) hid what is measured here,
// and its loop over the pages cost more than the faults.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "touch") == 0) {
        size_t size = 16 << 20, huge = 2 << 20;
        // 2 MiB more, so that whole huge pages fit whatever the mapping's alignment.
        char *p = mmap(NULL, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) { perror("mmap"); return 1; }
        madvise(p, size + huge, strcmp(argv[2], "huge") == 0 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
        double start = now();
        for (size_t i = 0; i < size + huge; i += 4096) p[i] = 1;
        printf("%.3f\n", now() - start);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "read") == 0) {
        static char buffer[1 << 20];
        double start = now();
        int fd = open(argv[2], O_RDONLY);
        if (fd < 0) { perror(argv[2]); return 1; }
        while (read(fd, buffer, sizeof buffer) > 0) {}
        close(fd);
        printf("%.3f\n", now() - start);
        return 0;
    }
    fprintf(stderr, "usage: idle-probe touch huge|small | idle-probe read FILE\n");
    return 64;
}
