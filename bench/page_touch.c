/* What it costs to bring a cached file's bytes into a process, one byte read
 * per 4 KiB page, five ways (bench/analysis.md, "Touching pages"):
 *
 *   cc -O2 bench/page_touch.c -o /tmp/page_touch && /tmp/page_touch FILE [ROUNDS]
 *
 *   map          mmap(MAP_PRIVATE), then touch every page
 *   map+populate the same with MAP_POPULATE (page tables filled by the kernel)
 *   read 4k      pread into fresh anonymous memory (4 KiB pages), then touch
 *   read 2m      pread into fresh anonymous memory advised MADV_HUGEPAGE
 *   pread piece  pread through one 256 KiB buffer (what `cat` does)
 *
 * The file is read once first, so every way starts from the page cache.
 * Prints the median of ROUNDS (default 5) per way, in milliseconds. Linux. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static volatile unsigned sink;

static void touch(const char* p, size_t n) {
    unsigned s = 0;
    for (size_t i = 0; i < n; i += 4096) s += (unsigned char)p[i];
    sink += s;
}

static int read_all(int fd, char* p, size_t n) {
    size_t done = 0;
    while (done < n) {
        ssize_t k = pread(fd, p + done, n - done, (off_t)done);
        if (k <= 0) return -1;
        done += (size_t)k;
    }
    return 0;
}

/* One round of way `w`; its time in ms, or -1. */
static double one(int w, int fd, size_t n) {
    const size_t huge = (size_t)2 << 20;
    double t0 = now_ms();
    if (w <= 1) {
        char* p = mmap(NULL, n, PROT_READ, MAP_PRIVATE | (w == 1 ? MAP_POPULATE : 0), fd, 0);
        if (p == MAP_FAILED) return -1;
        touch(p, n);
        t0 = now_ms() - t0;
        munmap(p, n);
        return t0;
    }
    if (w <= 3) {
        char* raw = mmap(NULL, n + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED) return -1;
        char* p = (char*)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
        if (w == 3) madvise(p, n, MADV_HUGEPAGE);
        if (read_all(fd, p, n) != 0) return -1;
        touch(p, n);
        t0 = now_ms() - t0;
        munmap(raw, n + huge);
        return t0;
    }
    static char piece[256 << 10];
    for (size_t done = 0; done < n; done += sizeof piece) {
        size_t k = n - done < sizeof piece ? n - done : sizeof piece;
        if (pread(fd, piece, k, (off_t)done) != (ssize_t)k) return -1;
        touch(piece, k);
    }
    return now_ms() - t0;
}

static int by_value(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
    static const char* names[] = {"map", "map+populate", "read 4k", "read 2m", "pread piece"};
    int rounds = argc > 2 ? atoi(argv[2]) : 5;
    int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size == 0 || rounds < 1 || rounds > 99) {
        fprintf(stderr, "usage: page_touch FILE [ROUNDS 1-99]\n");
        return 2;
    }
    const size_t n = (size_t)st.st_size;
    one(4, fd, n); /* into the page cache */
    printf("%s: %.1f MB, %zu pages of 4 KiB\n", argv[1], n / 1e6, (n + 4095) / 4096);
    for (int w = 0; w < 5; ++w) {
        double t[99];
        for (int r = 0; r < rounds; ++r) t[r] = one(w, fd, n);
        qsort(t, (size_t)rounds, sizeof t[0], by_value);
        printf("%-13s %8.2f ms  %6.2f us/page\n", names[w], t[rounds / 2], t[rounds / 2] * 1e3 / ((n + 4095) / 4096));
    }
    return 0;
}
